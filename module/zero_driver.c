// SPDX-License-Identifier: GPL-2.0
/*
 * The zero-driver registry: engines that zero memory for kscrubd.  Modelled
 * on page reporting's provider: writers take a mutex, readers walk the list
 * under SRCU because a block takes a while (the scrubber sleeps until the
 * engine is done), and unregistering waits for the walk to finish.
 */
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
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
	if (!drv->name || !drv->start || !drv->check || !drv->abort)
		return -EINVAL;
	if (!kscrubd_driver_rate_ok(drv->rate)) {
		pr_err("kscrubd: zero driver %s refused: rate %lu bytes/s is below 1 MB/s\n",
		       drv->name, drv->rate);
		return -EINVAL;
	}

	mutex_init(&drv->lock);
	drv->broken = false;
	drv->gone = false;
	atomic64_set(&drv->pages, 0);
	atomic64_set(&drv->refused, 0);
	atomic64_set(&drv->failed, 0);
	atomic64_set(&drv->timeouts, 0);

	mutex_lock(&zero_drivers_lock);
	list_add_tail_rcu(&drv->list, &zero_drivers);
	mutex_unlock(&zero_drivers_lock);
	pr_info("kscrubd: zero driver %s registered, %lu MB/s\n", drv->name,
		drv->rate / 1000000);
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
	/* A block in flight is aborted within a tick, not at its deadline */
	WRITE_ONCE(drv->gone, true);
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
	return READ_ONCE(drv->gone) || kthread_should_stop() ||
	       freezing(current);
}

/*
 * Wait for the engine: 0 if it said the block is zero, -EINTR if the wait
 * was cut short, -EIO if it failed or did not finish in time.  The wait is
 * bounded: the estimate by the driver's minimum rate, the grace time by
 * driver_timeout_ms's maximum.
 */
static int driver_wait(struct zero_driver *drv, void *addr, unsigned long len)
{
	unsigned long wait = max_t(unsigned long, 1,
				   div64_u64((u64)len * HZ, drv->rate));
	unsigned long first = jiffies + wait;
	unsigned long deadline = first +
				 msecs_to_jiffies(READ_ONCE(driver_timeout_ms));
	int ret = -EBUSY;

	for (;;) {
		long left;

		if (driver_wait_interrupted(drv)) {
			ret = -EINTR;
			break;
		}
		if (time_after_eq(jiffies, first)) {
			ret = drv->check(addr);
			if (ret != -EBUSY || time_after(jiffies, deadline))
				break;
		}
		/*
		 * TASK_IDLE: waiting for an engine is not load.  kthread_stop()
		 * and the freezer wake the thread; unregistering is seen within
		 * a tick.  jiffies is read once: read again after the test, it
		 * may have passed @first (a debug kernel hit that, and
		 * schedule_timeout() complained of a negative timeout).
		 */
		left = (long)(first - jiffies);
		schedule_timeout_idle(clamp_t(long, left, 1, HZ / 10));
	}
	if (!ret)
		return 0;

	drv->abort(addr);
	if (ret == -EINTR)
		return ret;
	if (ret == -EBUSY) {
		atomic64_inc(&drv->timeouts);
		WRITE_ONCE(drv->broken, true);
		pr_err("kscrubd: zero driver %s did not finish pfn %#lx (%lu bytes) in %u ms; not using it again\n",
		       drv->name, page_to_pfn(virt_to_page(addr)), len,
		       jiffies_to_msecs(deadline - first + wait));
	} else {
		atomic64_inc(&drv->failed);
		pr_warn_ratelimited("kscrubd: zero driver %s failed pfn %#lx: %d; the CPU zeroes it\n",
				    drv->name, page_to_pfn(virt_to_page(addr)), ret);
	}
	return -EIO;
}

/**
 * kscrub_driver_zero - have a registered engine zero a block
 * @kn: node doing the scrubbing, for its statistics
 * @addr: kernel address of the block
 * @len: its length in bytes
 *
 * Return: 0 if an engine zeroed the block; else the CPU must zero it:
 * -ENODEV if no engine took it, -EIO if one failed or timed out, -EINTR if
 * kscrubd stopped waiting (stop, freeze, driver unregistered).
 */
int kscrub_driver_zero(struct kscrubd_node *kn, void *addr, unsigned long len)
{
	struct zero_driver *drv;
	int ret = -ENODEV;
	int idx;

	if (list_empty(&zero_drivers))
		return -ENODEV;

	idx = srcu_read_lock(&zero_drivers_srcu);
	list_for_each_entry_srcu(drv, &zero_drivers, list,
				 srcu_read_lock_held(&zero_drivers_srcu)) {
		if (READ_ONCE(drv->broken) || !mutex_trylock(&drv->lock))
			continue;
		if (drv->start(addr, len)) {
			mutex_unlock(&drv->lock);
			atomic64_inc(&drv->refused);
			kn->stats.driver_refused++;
			continue;
		}
		ret = driver_wait(drv, addr, len);
		if (!ret)
			atomic64_add(len >> PAGE_SHIFT, &drv->pages);
		else if (ret == -EIO)
			kn->stats.driver_failed++;
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
		seq_printf(m, "driver=%s rate=%lu broken=%d pages=%lld refused=%lld failed=%lld timeouts=%lld\n",
			   drv->name, drv->rate, READ_ONCE(drv->broken),
			   atomic64_read(&drv->pages),
			   atomic64_read(&drv->refused),
			   atomic64_read(&drv->failed),
			   atomic64_read(&drv->timeouts));
	srcu_read_unlock(&zero_drivers_srcu, idx);
}
