// SPDX-License-Identifier: GPL-2.0
/*
 * kscrubd: zero free memory ahead of time so that allocations that need
 * zeroed pages (anonymous faults, __GFP_ZERO, everything under
 * init_on_alloc=1) do not clear them.  One idle-priority thread per node
 * with memory, woken when a large enough free block coalesces.  The
 * allocator side is mm/page_prezero.c; the thread lifecycle follows
 * kcompactd: a thread per node with memory, started and stopped as memory
 * is onlined and offlined, its CPU affinity restored when one of its
 * node's CPUs comes back online.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/page_prezero.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>

#include "kscrubd.h"

/*
 * A node's thread runs on its node's CPUs, beside the memory it zeroes.
 * At SCHED_IDLE it gets next to no time there while they are busy, and a
 * task churning memory on them is what leaves the node's memory dirty:
 * with two nodes, a map/touch/unmap loop on one CPU had 52% of its
 * faults served prezeroed while the other node's CPU idled, against
 * 99.7% with one node (make bench, churn.md).  So a thread seen runnable
 * twice KSCRUBD_STARVED_CHECK apart, without CPU time between, may run on
 * any CPU, as work on an unbound workqueue may leave its pod (the
 * non-strict affinity scope).  Zeroing a node from another costs
 * interconnect bandwidth instead of the busy CPUs' time, and only idle
 * CPUs pay it.  The thread goes home when it wakes KSCRUBD_WIDENED_HOLD
 * later: a node that stays busy pays the watch's delay (a pass or two
 * of dirty faults) once in that time, and one that became idle is zeroed
 * from afar until then.  The check is 100 ms, not less: a shell
 * polling with awk kept a TCG vCPU busy for 20 ms at a time, and a node
 * busy that briefly is better left to wait.
 */
#define KSCRUBD_STARVED_CHECK	(HZ / 10)
#define KSCRUBD_WIDENED_HOLD	(10 * HZ)

/* Indexed by node id, nr_node_ids of them */
static struct kscrubd_node *nodes;
/* Serializes thread start and stop: module load, hotplug, unload */
static DEFINE_MUTEX(kscrubd_nodes_lock);
static enum cpuhp_state kscrubd_cpuhp_state;

struct kscrubd_node *kscrubd_node(int nid)
{
	return &nodes[nid];
}

static void kscrubd_wake(struct kscrubd_node *kn)
{
	set_bit(0, &kn->pending);
	wake_up_interruptible(&kn->wait);
	schedule_delayed_work(&kn->starved_work, KSCRUBD_STARVED_CHECK);
}

void kscrubd_wake_all(void)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		kscrubd_wake(&nodes[nid]);
}

/* The coalesce notification runs under zone->lock: defer the wake-up */
static void kscrubd_wake_work(struct irq_work *work)
{
	kscrubd_wake(container_of(work, struct kscrubd_node, wake_work));
}

static void kscrubd_coalesced(struct page_scrubber *s, struct zone *zone,
			      unsigned int order)
{
	struct kscrubd_node *kn = &nodes[zone_to_nid(zone)];

	if (!test_bit(0, &kn->pending))
		irq_work_queue(&kn->wake_work);
}

static bool kscrubd_verify_cb(struct page_scrubber *s, struct page *page,
			      unsigned int order)
{
	if (!READ_ONCE(kscrub_verify))
		return true;
	return kscrubd_verify(page, order);
}

/* Page reporting leaves this much of the zone's zeroed memory alone */
static unsigned long kscrubd_report_reserve(struct page_scrubber *s,
					    struct zone *zone)
{
	return kscrubd_zone_reserve(zone);
}

static struct page_scrubber kscrubd_scrubber = {
	.coalesced = kscrubd_coalesced,
	.verify = kscrubd_verify_cb,
	.report_reserve = kscrubd_report_reserve,
};

void kscrubd_set_start_order(unsigned int order)
{
	page_scrubber_set_order(&kscrubd_scrubber, order);
}

static bool node_has_online_cpus(int nid)
{
	return cpumask_intersects(cpumask_of_node(nid), cpu_online_mask);
}

/* Called with kscrubd_nodes_lock held, so kn->task stays */
static void kscrubd_widen(struct kscrubd_node *kn)
{
	mutex_lock(&kn->affinity_lock);
	if (!kn->widened && node_has_online_cpus(kn->nid) &&
	    !cpumask_subset(cpu_online_mask, cpumask_of_node(kn->nid))) {
		kn->widened = true;
		kn->widened_at = jiffies;
		kn->stats.widened++;
		set_cpus_allowed_ptr(kn->task, cpu_possible_mask);
	}
	mutex_unlock(&kn->affinity_lock);
}

static void kscrubd_go_home(struct kscrubd_node *kn)
{
	mutex_lock(&kn->affinity_lock);
	if (kn->widened &&
	    time_after(jiffies, kn->widened_at + KSCRUBD_WIDENED_HOLD)) {
		kn->widened = false;
		if (node_has_online_cpus(kn->nid))
			set_cpus_allowed_ptr(current, cpumask_of_node(kn->nid));
	}
	mutex_unlock(&kn->affinity_lock);
}

/* The starvation watch, see KSCRUBD_STARVED_CHECK */
static void kscrubd_starved_check(struct work_struct *work)
{
	struct kscrubd_node *kn = container_of(to_delayed_work(work),
					       struct kscrubd_node,
					       starved_work);
	u64 utime, stime;
	bool runnable;

	mutex_lock(&kscrubd_nodes_lock);
	if (!kn->task)
		goto out;
	runnable = task_is_running(kn->task);
	task_cputime_adjusted(kn->task, &utime, &stime);
	if (runnable && kn->was_runnable && utime + stime == kn->ran_seen)
		kscrubd_widen(kn);
	kn->was_runnable = runnable;
	kn->ran_seen = utime + stime;
	/* A pass sleeps in vm.scrub_rate's pacing: keep watching */
	if (runnable || READ_ONCE(kn->in_pass))
		schedule_delayed_work(&kn->starved_work,
				      KSCRUBD_STARVED_CHECK);
out:
	mutex_unlock(&kscrubd_nodes_lock);
}

static int kscrubd(void *arg)
{
	struct kscrubd_node *kn = arg;
	const struct cpumask *mask = cpumask_of_node(kn->nid);
	long timeout = MAX_SCHEDULE_TIMEOUT;
	enum kscrubd_pass_end end;

	mutex_lock(&kn->affinity_lock);
	if (!cpumask_empty(mask))
		set_cpus_allowed_ptr(current, mask);
	mutex_unlock(&kn->affinity_lock);
	set_freezable();

	while (!kthread_should_stop()) {
		bool woken;
		long left;

		/* Watch a timed wake-up as kscrubd_wake() watches the others */
		if (timeout != MAX_SCHEDULE_TIMEOUT)
			mod_delayed_work(system_wq, &kn->starved_work,
					 timeout + KSCRUBD_STARVED_CHECK);
		left = wait_event_freezable_timeout(kn->wait,
						    test_bit(0, &kn->pending) ||
						    kthread_should_stop(),
						    timeout);
		if (kthread_should_stop())
			break;
		kscrubd_go_home(kn);
		woken = test_and_clear_bit(0, &kn->pending);
		if (woken)
			kn->stats.wakeups++;
		else if (!left && kn->look_again)
			kn->stats.pcp_looks++;
		else if (!left)
			kn->stats.retries++;
		end = kscrubd_may_run();
		if (end == KSCRUBD_PASS_DONE) {
			WRITE_ONCE(kn->in_pass, true);
			schedule_delayed_work(&kn->starved_work,
					      KSCRUBD_STARVED_CHECK);
			end = kscrubd_scrub_node(kn);
			WRITE_ONCE(kn->in_pass, false);
			/*
			 * A coalesce means a task is freeing, and what it
			 * frees next waits on the per-cpu lists, where it
			 * wakes no one: look once more after a wake-up.
			 */
			if (woken)
				kn->look_again = true;
		}
		timeout = kscrubd_next_timeout(end, kn->look_again);
		if (kscrubd_summary_due(end, kn->look_again,
					ktime_get_ns() - kn->summary.t_open))
			kscrubd_summary_close(kn);
	}
	kscrubd_summary_close(kn);
	return 0;
}

static void kscrubd_run(int nid)
{
	struct sched_attr attr = { .sched_policy = SCHED_IDLE };
	struct kscrubd_node *kn = &nodes[nid];
	struct task_struct *t;

	lockdep_assert_held(&kscrubd_nodes_lock);
	if (kn->task)
		return;
	t = kthread_create_on_node(kscrubd, kn, nid, "kscrubd%d", nid);
	if (IS_ERR(t)) {
		/* Like kcompactd: the node goes without, the others scrub */
		pr_err("kscrubd: cannot start kscrubd%d (%ld)\n", nid,
		       PTR_ERR(t));
		return;
	}
	/* Yield to everything else: scrubbing is only worth idle cycles */
	sched_setattr_nocheck(t, &attr);
	kn->task = t;
	set_bit(0, &kn->pending);	/* scrub what is free now */
	wake_up_process(t);
}

/* The thread finishes the block it holds before it exits */
static void kscrubd_stop(int nid)
{
	struct kscrubd_node *kn = &nodes[nid];

	lockdep_assert_held(&kscrubd_nodes_lock);
	if (!kn->task)
		return;
	/*
	 * At SCHED_IDLE on busy CPUs the thread may wait seconds for the
	 * CPU to finish its block and exit; rmmod should not.
	 */
	sched_set_normal(kn->task, 0);
	kthread_stop(kn->task);
	kn->task = NULL;
	/* A check still queued finds no task; teardown waits for it */
	cancel_delayed_work(&kn->starved_work);
}

/*
 * A node that gains its first memory gets a thread, one that loses its
 * last memory loses it, as kswapd and kcompactd do in online_pages() and
 * offline_pages().  N_MEMORY is already up to date in MEM_ONLINE and
 * MEM_OFFLINE.
 */
static int kscrubd_memory_callback(struct notifier_block *nb,
				   unsigned long action, void *arg)
{
	struct memory_notify *mn = arg;
	int nid = mn->status_change_nid;

	if (nid < 0)
		return NOTIFY_OK;
	mutex_lock(&kscrubd_nodes_lock);
	if (action == MEM_ONLINE)
		kscrubd_run(nid);
	else if (action == MEM_OFFLINE)
		kscrubd_stop(nid);
	mutex_unlock(&kscrubd_nodes_lock);
	return NOTIFY_OK;
}

static struct notifier_block kscrubd_memory_nb = {
	.notifier_call = kscrubd_memory_callback,
};

/*
 * When the last CPU of a node goes offline, the scheduler lets its
 * thread run anywhere; put it back on the node once one of them returns,
 * unless the starvation watch let it off the node.
 */
static int kscrubd_cpu_online(unsigned int cpu)
{
	int nid;

	mutex_lock(&kscrubd_nodes_lock);
	for_each_node_state(nid, N_MEMORY) {
		const struct cpumask *mask = cpumask_of_node(nid);
		struct kscrubd_node *kn = &nodes[nid];

		mutex_lock(&kn->affinity_lock);
		if (kn->task && !kn->widened && node_has_online_cpus(nid))
			set_cpus_allowed_ptr(kn->task, mask);
		mutex_unlock(&kn->affinity_lock);
	}
	mutex_unlock(&kscrubd_nodes_lock);
	return 0;
}

static int kscrubd_nodes_alloc(void)
{
	int nid;

	nodes = kcalloc(nr_node_ids, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct kscrubd_node *kn = &nodes[nid];

		kn->nid = nid;
		init_waitqueue_head(&kn->wait);
		init_irq_work(&kn->wake_work, kscrubd_wake_work);
		INIT_DELAYED_WORK(&kn->starved_work, kscrubd_starved_check);
		mutex_init(&kn->affinity_lock);
	}
	return 0;
}

static int kscrubd_nr_running(void)
{
	int nid, n = 0;

	for (nid = 0; nid < nr_node_ids; nid++)
		n += !!nodes[nid].task;
	return n;
}

/*
 * Undo kscrubd_init() up to where it got, in the reverse order: no new
 * thread from hotplug, no more allocator callbacks (so no irq_work is
 * queued after the sync below), then the threads, then the knobs that
 * wake them.
 */
static void kscrubd_teardown(void)
{
	int nid;

	if (kscrubd_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(kscrubd_cpuhp_state);
	kscrubd_cpuhp_state = 0;
	unregister_memory_notifier(&kscrubd_memory_nb);
	page_scrubber_unregister(&kscrubd_scrubber);
	mutex_lock(&kscrubd_nodes_lock);
	for (nid = 0; nid < nr_node_ids; nid++) {
		irq_work_sync(&nodes[nid].wake_work);
		kscrubd_stop(nid);
	}
	mutex_unlock(&kscrubd_nodes_lock);
	kscrubd_sysctl_exit();
	/* Nothing queues a check now: no threads, no sysctls, no irq_work */
	for (nid = 0; nid < nr_node_ids; nid++)
		cancel_delayed_work_sync(&nodes[nid].starved_work);
}

static int __init kscrubd_init(void)
{
	int nid, err;

	err = kscrubd_nodes_alloc();
	if (err)
		return err;
	/* Before registering: the measurement frees 32 MiB of dirty pages */
	kscrub_engines_pick();

	kscrubd_scrubber.order = kscrub_start_order;
	err = page_scrubber_register(&kscrubd_scrubber);
	if (err) {
		pr_err("kscrubd: cannot become the page scrubber (%d): %s\n",
		       err, err == -EBUSY ? "another scrubber is registered" :
		       "page poisoning is on, or the kernel refused");
		kfree(nodes);
		return err;
	}
	err = kscrubd_sysctl_init();
	if (err) {
		pr_err("kscrubd: cannot register vm.scrub_* sysctls (%d)\n", err);
		goto fail;
	}
	/* Before the scan, so that a node onlined meanwhile is not missed */
	err = register_memory_notifier(&kscrubd_memory_nb);
	if (err)
		goto fail;
	mutex_lock(&kscrubd_nodes_lock);
	for_each_node_state(nid, N_MEMORY)
		kscrubd_run(nid);
	mutex_unlock(&kscrubd_nodes_lock);
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "mm/kscrubd:online",
					kscrubd_cpu_online, NULL);
	if (err < 0) {
		pr_err("kscrubd: cannot register the CPU hotplug callback (%d)\n",
		       err);
		goto fail;
	}
	kscrubd_cpuhp_state = err;
	kscrubd_stats_init();
	pr_info("kscrubd: started on %d node(s), engine %s, scrub_start %u, scrub_stop %u, scrub_load %u\n",
		kscrubd_nr_running(), kscrub_engine_name(kscrub_engine),
		kscrub_start_order, kscrub_stop_order, kscrub_load);
	pr_info("kscrubd: leaves %lu KiB per CPU on the per-cpu lists (its slice of the last-level cache, at least %lu)\n",
		(unsigned long)kscrubd_pcp_keep_pages(scrubd_pcp_cache_pages()) <<
		(PAGE_SHIFT - 10), (unsigned long)KSCRUBD_PCP_KEEP << (PAGE_SHIFT - 10));
	return 0;

fail:
	kscrubd_teardown();
	kfree(nodes);
	return err;
}

static void __exit kscrubd_exit(void)
{
	kscrubd_teardown();
	kscrubd_stats_log("unload");
	kscrubd_stats_exit();
	kfree(nodes);
}

module_init(kscrubd_init);
module_exit(kscrubd_exit);
MODULE_DESCRIPTION("Zero free memory ahead of time (page prezeroing)");
MODULE_LICENSE("GPL");
