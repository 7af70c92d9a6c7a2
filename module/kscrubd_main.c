// SPDX-License-Identifier: GPL-2.0
/*
 * kscrubd: zero free memory ahead of time so that allocations that need
 * zeroed pages (anonymous faults, __GFP_ZERO, everything under
 * init_on_alloc=1) do not clear them.  One idle-priority thread per node
 * with memory, woken when a large enough free block coalesces.  The
 * allocator side is mm/page_prezero.c; the thread lifecycle follows
 * kcompactd and khugepaged.
 */
#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/page_prezero.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <uapi/linux/sched/types.h>

#include "kscrubd.h"

static struct kscrubd_node *nodes;
static int nr_nodes;

/* How long to wait before retrying when the load average stopped a pass */
#define KSCRUBD_RETRY	(10 * HZ)

int kscrubd_nr_nodes(void)
{
	return nr_nodes;
}

struct kscrubd_node *kscrubd_node(int i)
{
	return &nodes[i];
}

static void kscrubd_wake(struct kscrubd_node *kn)
{
	set_bit(0, &kn->pending);
	wake_up_interruptible(&kn->wait);
}

void kscrubd_wake_all(void)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		kscrubd_wake(&nodes[i]);
}

/* The coalesce notification runs under zone->lock: defer the wake-up */
static void kscrubd_wake_work(struct irq_work *work)
{
	kscrubd_wake(container_of(work, struct kscrubd_node, wake_work));
}

static void kscrubd_coalesced(struct page_scrubber *s, struct zone *zone,
			      unsigned int order)
{
	int i;

	for (i = 0; i < nr_nodes; i++) {
		if (nodes[i].nid == zone_to_nid(zone)) {
			if (!test_bit(0, &nodes[i].pending))
				irq_work_queue(&nodes[i].wake_work);
			return;
		}
	}
}

static bool kscrubd_verify_cb(struct page_scrubber *s, struct page *page,
			      unsigned int order)
{
	if (!READ_ONCE(kscrub_verify))
		return true;
	return kscrubd_verify(page, order);
}

static struct page_scrubber kscrubd_scrubber = {
	.coalesced = kscrubd_coalesced,
	.verify = kscrubd_verify_cb,
};

void kscrubd_set_start_order(unsigned int order)
{
	WRITE_ONCE(kscrubd_scrubber.order, order);
}

static int kscrubd(void *arg)
{
	struct kscrubd_node *kn = arg;
	const struct cpumask *mask = cpumask_of_node(kn->nid);
	long timeout = MAX_SCHEDULE_TIMEOUT;

	if (!cpumask_empty(mask))
		set_cpus_allowed_ptr(current, mask);
	set_freezable();

	while (!kthread_should_stop()) {
		wait_event_freezable_timeout(kn->wait,
					     test_bit(0, &kn->pending) ||
					     kthread_should_stop(), timeout);
		if (kthread_should_stop())
			break;
		if (test_and_clear_bit(0, &kn->pending))
			kn->stats.wakeups++;
		/* Under load, come back later even if nothing coalesces */
		if (!kscrubd_may_run()) {
			timeout = READ_ONCE(kscrub_enabled) ? KSCRUBD_RETRY :
							      MAX_SCHEDULE_TIMEOUT;
			continue;
		}
		timeout = MAX_SCHEDULE_TIMEOUT;
		kscrubd_scrub_node(kn);
	}
	return 0;
}

static int kscrubd_start_node(struct kscrubd_node *kn)
{
	struct sched_attr attr = { .sched_policy = SCHED_IDLE };
	struct task_struct *t;

	t = kthread_create_on_node(kscrubd, kn, kn->nid, "kscrubd%d", kn->nid);
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Yield to everything else: scrubbing is only worth idle cycles */
	sched_setattr_nocheck(t, &attr);
	kn->task = t;
	wake_up_process(t);
	return 0;
}

static void kscrubd_stop_nodes(void)
{
	int i;

	for (i = 0; i < nr_nodes; i++) {
		irq_work_sync(&nodes[i].wake_work);
		if (nodes[i].task)
			kthread_stop(nodes[i].task);
		nodes[i].task = NULL;
	}
}

static int __init kscrubd_init(void)
{
	int nid, err, i = 0;

	nodes = kcalloc(num_node_state(N_MEMORY), sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	for_each_node_state(nid, N_MEMORY) {
		struct kscrubd_node *kn = &nodes[i++];

		kn->nid = nid;
		init_waitqueue_head(&kn->wait);
		init_irq_work(&kn->wake_work, kscrubd_wake_work);
		set_bit(0, &kn->pending);	/* scrub what is free now */
	}
	nr_nodes = i;

	kscrubd_scrubber.order = kscrub_start_order;
	err = page_scrubber_register(&kscrubd_scrubber);
	if (err) {
		pr_err("kscrubd: cannot become the page scrubber (%d): %s\n",
		       err, err == -EBUSY ? "another scrubber is registered" :
		       "page poisoning is on, or the kernel refused");
		goto free;
	}
	err = kscrubd_sysctl_init();
	if (err) {
		pr_err("kscrubd: cannot register vm.scrub_* sysctls (%d)\n", err);
		goto unregister;
	}
	for (i = 0; i < nr_nodes; i++) {
		err = kscrubd_start_node(&nodes[i]);
		if (err) {
			pr_err("kscrubd: cannot start kscrubd%d (%d)\n",
			       nodes[i].nid, err);
			goto stop;
		}
	}
	kscrubd_stats_init();
	pr_info("kscrubd: started on %d node(s), engine %s, scrub_start %u, scrub_stop %u, scrub_load %u\n",
		nr_nodes, kscrub_engine_name(kscrub_engine), kscrub_start_order,
		kscrub_stop_order, kscrub_load);
	return 0;

stop:
	kscrubd_stop_nodes();
	kscrubd_sysctl_exit();
unregister:
	page_scrubber_unregister(&kscrubd_scrubber);
free:
	kfree(nodes);
	return err;
}

static void __exit kscrubd_exit(void)
{
	/* No more notifications or checks once this returns */
	page_scrubber_unregister(&kscrubd_scrubber);
	/* Each thread finishes the block it holds before it exits */
	kscrubd_stop_nodes();
	kscrubd_sysctl_exit();
	kscrubd_stats_log("unload");
	kscrubd_stats_exit();
	kfree(nodes);
}

module_init(kscrubd_init);
module_exit(kscrubd_exit);
MODULE_DESCRIPTION("Zero free memory ahead of time (page prezeroing)");
MODULE_LICENSE("GPL");
