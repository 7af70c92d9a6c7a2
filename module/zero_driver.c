// SPDX-License-Identifier: GPL-2.0
/*
 * The zero-driver registry: engines that zero memory for kscrubd.  Modelled
 * on page reporting's provider: writers take a mutex, readers walk the list
 * under SRCU because a block takes a while (the scrubber waits until the
 * engine is done), and unregistering waits for the walk to finish.
 */
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/srcu.h>

#include "kscrubd.h"
#include "zero_driver.h"

/* How long past the engine's own estimate a block may take */
static unsigned int driver_timeout_ms = 1000;

/* A bad value is refused, at load or at run time, and says why */
static int driver_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;

	if (kscrubd_parse_timeout_ms(val, &ms)) {
		pr_err("kscrubd: driver_timeout_ms=%.*s refused: want 1..10000 ms\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops driver_timeout_ops = {
	.set = driver_timeout_set,
	.get = param_get_uint,
};

module_param_cb(driver_timeout_ms, &driver_timeout_ops, &driver_timeout_ms,
		0644);
MODULE_PARM_DESC(driver_timeout_ms,
		 "Grace time after a zero driver's estimate before it is declared hung (1..10000 ms)");

static LIST_HEAD(zero_drivers);
static DEFINE_MUTEX(zero_drivers_lock);
DEFINE_STATIC_SRCU(zero_drivers_srcu);

/**
 * register_zero_driver - offer a zeroing engine to kscrubd
 * @drv: the driver; must stay valid until unregister_zero_driver()
 *
 * Return: 0, or -EINVAL if an operation is missing or the rate is below
 * 1 MB/s (kscrubd's wait for a 4 MiB block must stay bounded).
 */
int register_zero_driver(struct zero_driver *drv)
{
	if (!drv->name || !drv->start || !drv->check || !drv->abort ||
	    (drv->nid != NUMA_NO_NODE && !node_possible(drv->nid)))
		return -EINVAL;
	if (!kscrubd_driver_rate_ok(drv->rate)) {
		pr_err("kscrubd: zero driver %s refused: rate %lu bytes/s is below 1 MB/s\n",
		       drv->name, drv->rate);
		return -EINVAL;
	}

	mutex_init(&drv->lock);
	init_waitqueue_head(&drv->wait);
	drv->done = false;
	drv->broken = false;
	drv->gone = false;
	atomic64_set(&drv->pages, 0);
	atomic64_set(&drv->ns, 0);
	atomic64_set(&drv->refused, 0);
	atomic64_set(&drv->failed, 0);
	atomic64_set(&drv->timeouts, 0);

	mutex_lock(&zero_drivers_lock);
	list_add_tail_rcu(&drv->list, &zero_drivers);
	mutex_unlock(&zero_drivers_lock);
	if (drv->nid == NUMA_NO_NODE)
		pr_info("kscrubd: zero driver %s registered, %lu MB/s, every node\n",
			drv->name, drv->rate / 1000000);
	else
		pr_info("kscrubd: zero driver %s registered, %lu MB/s, node %d\n",
			drv->name, drv->rate / 1000000, drv->nid);
	return 0;
}
EXPORT_SYMBOL_GPL(register_zero_driver);

/**
 * unregister_zero_driver - withdraw a zeroing engine
 * @drv: the driver passed to register_zero_driver()
 *
 * Waits until kscrubd no longer uses it; a block it was zeroing is
 * finished or zeroed by the CPU.
 */
void unregister_zero_driver(struct zero_driver *drv)
{
	/* A block in flight is aborted now, not at its deadline */
	WRITE_ONCE(drv->gone, true);
	wake_up(&drv->wait);
	mutex_lock(&zero_drivers_lock);
	list_del_rcu(&drv->list);
	mutex_unlock(&zero_drivers_lock);
	synchronize_srcu(&zero_drivers_srcu);
	pr_info("kscrubd: zero driver %s unregistered: %lld pages, %lld refused, %lld failed, %lld timeouts\n",
		drv->name, atomic64_read(&drv->pages),
		atomic64_read(&drv->refused), atomic64_read(&drv->failed),
		atomic64_read(&drv->timeouts));
}
EXPORT_SYMBOL_GPL(unregister_zero_driver);

/*
 * Stop waiting for an engine when the thread must stop or freeze (rmmod,
 * suspend) or the driver is going away: the CPU zeroes the block instead.
 */
static bool driver_wait_interrupted(struct zero_driver *drv)
{
	/* Not a kthread: debugfs driver_bench's writer */
	bool stop = current->flags & PF_KTHREAD ? kthread_should_stop() :
		    fatal_signal_pending(current);

	return READ_ONCE(drv->gone) || stop || freezing(current);
}

/**
 * zero_driver_done - the block a zero driver started last is finished
 * @drv: the instance that started it
 *
 * Zeroed or failed: kscrubd calls @drv->check() next.  Any context.
 */
void zero_driver_done(struct zero_driver *drv)
{
	/* Pairs with the acquire in kscrubd's wait: the status is visible */
	smp_store_release(&drv->done, true);
	wake_up(&drv->wait);
}
EXPORT_SYMBOL_GPL(zero_driver_done);

/*
 * A block due within a tick is waited for on the CPU, polling @check as
 * bte_copy() polled the BTE's notify word: a sleep lasts at least until
 * the next tick (4 ms at HZ=250, while 64 KiB at 500 MB/s take 131 us),
 * which is what held a driver to one small block per tick.  For a tick
 * at most, giving the CPU to anyone who wants it; jiffies, not a clock
 * read per turn, bounds it.
 */
static int driver_spin(struct zero_driver *drv, void *addr)
{
	unsigned long end = jiffies + 1;
	int ret;

	do {
		ret = drv->check(drv, addr);
		if (ret != -EBUSY)
			break;
		cond_resched();
		cpu_relax();
	} while (!driver_wait_interrupted(drv) && time_before_eq(jiffies, end));
	return ret;
}

/*
 * Wait for the engine, due @est_ns after the start: 0 if it said the
 * block is zero, -EINTR if the wait was cut short, -EIO if it failed or
 * did not finish in time.  The wait is bounded: the estimate by the
 * driver's minimum rate, the grace time by driver_timeout_ms's maximum.
 */
static int driver_wait(struct zero_driver *drv, void *addr, unsigned long len,
		       u64 est_ns)
{
	unsigned long est = nsecs_to_jiffies(est_ns) + 1;
	unsigned int grace = READ_ONCE(driver_timeout_ms);
	unsigned long deadline = jiffies + est + msecs_to_jiffies(grace);
	bool done;
	int ret = -EBUSY;

	if (drv->polled)
		ret = driver_spin(drv, addr);
	while (ret == -EBUSY) {
		/*
		 * jiffies is read once a turn: read again for the timeout, it
		 * may have passed @deadline, and schedule_timeout() is then
		 * handed a negative value (a debug kernel caught that).
		 */
		unsigned long now = jiffies;
		bool late = !time_before(now, deadline);

		if (driver_wait_interrupted(drv)) {
			ret = -EINTR;
			break;
		}
		/* Acquire: what the driver wrote before signalling is seen */
		done = smp_load_acquire(&drv->done);
		if (done || late || drv->polled) {
			ret = drv->check(drv, addr);
			if (late || ret != -EBUSY)
				break;
		}
		/*
		 * TASK_IDLE: waiting for an engine is not load.
		 * zero_driver_done(), unregistering, kthread_stop() and the
		 * freezer wake the thread.  A driver that signalled before
		 * check() agreed, or a polled block that outlasted the spin,
		 * is looked at again every tick.
		 */
		wait_event_idle_timeout(drv->wait,
					(!done && READ_ONCE(drv->done)) ||
					driver_wait_interrupted(drv),
					done || drv->polled ? 1 :
					(long)(deadline - now));
	}
	if (!ret)
		return 0;

	drv->abort(drv, addr);
	if (ret == -EINTR)
		return ret;
	if (ret == -EBUSY) {
		atomic64_inc(&drv->timeouts);
		WRITE_ONCE(drv->broken, true);
		pr_err("kscrubd: zero driver %s did not finish pfn %#lx (%lu bytes) in %u ms; not using it again\n",
		       drv->name, page_to_pfn(virt_to_page(addr)), len,
		       jiffies_to_msecs(est) + grace);
	} else {
		atomic64_inc(&drv->failed);
		pr_warn_ratelimited("kscrubd: zero driver %s failed pfn %#lx: %d; the CPU zeroes it\n",
				    drv->name, page_to_pfn(virt_to_page(addr)), ret);
	}
	return -EIO;
}

/* A node's thread uses the engines of its node and those of every node */
static bool driver_serves(struct zero_driver *drv, int nid)
{
	return drv->nid == NUMA_NO_NODE || drv->nid == nid;
}

/**
 * kscrub_driver_zero - have a registered engine zero a block
 * @kn: node doing the scrubbing, for its statistics; NULL for none
 * @nid: node whose engines may take the block
 * @addr: kernel address of the block
 * @len: its length in bytes
 *
 * Return: 0 if an engine zeroed the block; else the CPU must zero it:
 * -ENODEV if no engine took it, -EIO if one failed or timed out, -EINTR if
 * kscrubd stopped waiting (stop, freeze, driver unregistered).
 */
int kscrub_driver_zero(struct kscrubd_node *kn, int nid, void *addr,
		       unsigned long len)
{
	struct zero_driver *drv;
	int ret = -ENODEV;
	u64 t0, est_ns;
	int idx;

	if (list_empty(&zero_drivers))
		return -ENODEV;

	idx = srcu_read_lock(&zero_drivers_srcu);
	list_for_each_entry_srcu(drv, &zero_drivers, list,
				 srcu_read_lock_held(&zero_drivers_srcu)) {
		if (READ_ONCE(drv->broken) || !driver_serves(drv, nid) ||
		    !mutex_trylock(&drv->lock))
			continue;
		WRITE_ONCE(drv->done, false);
		est_ns = div64_u64((u64)len * NSEC_PER_SEC, drv->rate);
		drv->polled = est_ns < TICK_NSEC;
		t0 = ktime_get_ns();
		if (drv->start(drv, addr, len)) {
			mutex_unlock(&drv->lock);
			atomic64_inc(&drv->refused);
			if (kn)
				kn->stats.driver_refused++;
			continue;
		}
		ret = driver_wait(drv, addr, len, est_ns);
		if (!ret) {
			atomic64_add(len >> PAGE_SHIFT, &drv->pages);
			atomic64_add(ktime_get_ns() - t0, &drv->ns);
		} else if (ret == -EIO && kn) {
			kn->stats.driver_failed++;
		}
		mutex_unlock(&drv->lock);
		break;
	}
	srcu_read_unlock(&zero_drivers_srcu, idx);
	return ret;
}

void kscrub_drivers_show(struct seq_file *m)
{
	struct zero_driver *drv;
	int idx;

	idx = srcu_read_lock(&zero_drivers_srcu);
	list_for_each_entry_srcu(drv, &zero_drivers, list,
				 srcu_read_lock_held(&zero_drivers_srcu))
		seq_printf(m, "driver=%s node=%d rate=%lu broken=%d pages=%lld ns=%lld refused=%lld failed=%lld timeouts=%lld\n",
			   drv->name, drv->nid, drv->rate,
			   READ_ONCE(drv->broken), atomic64_read(&drv->pages),
			   atomic64_read(&drv->ns),
			   atomic64_read(&drv->refused),
			   atomic64_read(&drv->failed),
			   atomic64_read(&drv->timeouts));
	srcu_read_unlock(&zero_drivers_srcu, idx);
}
