// SPDX-License-Identifier: GPL-2.0
/*
 * The zero-driver registry: engines that zero memory for kscrubd.  Modelled
 * on page reporting's provider: writers take a mutex, readers walk the list
 * under SRCU because a block takes a while (the scrubber sleeps until the
 * engine is done), and unregistering waits for the walk to finish.
 */
#include <linux/jiffies.h>
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
module_param(driver_timeout_ms, uint, 0644);
MODULE_PARM_DESC(driver_timeout_ms,
		 "Grace time after a zero driver's estimate before it is declared hung (ms)");

static LIST_HEAD(zero_drivers);
static DEFINE_MUTEX(zero_drivers_lock);
DEFINE_STATIC_SRCU(zero_drivers_srcu);

/**
 * register_zero_driver - offer a zeroing engine to kscrubd
 * @drv: the driver; must stay valid until unregister_zero_driver()
 *
 * Return: 0, or -EINVAL if an operation or the rate is missing.
 */
int register_zero_driver(struct zero_driver *drv)
{
	if (!drv->name || !drv->start || !drv->check || !drv->abort ||
	    !drv->rate)
		return -EINVAL;

	mutex_init(&drv->lock);
	drv->broken = false;
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

/* Wait for the engine; true only if it said the block is zero */
static bool driver_wait(struct zero_driver *drv, void *addr,
			unsigned long len)
{
	unsigned long wait = max_t(unsigned long, 1,
				   div64_u64((u64)len * HZ, drv->rate));
	unsigned long deadline = jiffies + wait +
				 msecs_to_jiffies(driver_timeout_ms);
	int ret;

	/* TASK_IDLE: waiting for an engine is not load */
	schedule_timeout_idle(wait);
	for (;;) {
		ret = drv->check(addr);
		if (!ret)
			return true;
		if (ret != -EBUSY)
			break;
		if (time_after(jiffies, deadline))
			break;
		schedule_timeout_idle(1);
	}

	drv->abort(addr);
	if (ret == -EBUSY) {
		atomic64_inc(&drv->timeouts);
		WRITE_ONCE(drv->broken, true);
		pr_err("kscrubd: zero driver %s did not finish pfn %#lx (%lu bytes) in %u ms; not using it again\n",
		       drv->name, page_to_pfn(virt_to_page(addr)), len,
		       jiffies_to_msecs(wait) + driver_timeout_ms);
	} else {
		atomic64_inc(&drv->failed);
		pr_warn_ratelimited("kscrubd: zero driver %s failed pfn %#lx: %d; the CPU zeroes it\n",
				    drv->name, page_to_pfn(virt_to_page(addr)), ret);
	}
	return false;
}

/**
 * kscrub_driver_zero - have a registered engine zero a block
 * @kn: node doing the scrubbing, for its statistics
 * @addr: kernel address of the block
 * @len: its length in bytes
 *
 * Return: 0 if an engine zeroed the block; -ENODEV if none took it, and
 * the CPU must zero it.
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
		if (driver_wait(drv, addr, len)) {
			atomic64_add(len >> PAGE_SHIFT, &drv->pages);
			ret = 0;
		} else {
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
		seq_printf(m, "driver=%s rate=%lu broken=%d pages=%lld refused=%lld failed=%lld timeouts=%lld\n",
			   drv->name, drv->rate, READ_ONCE(drv->broken),
			   atomic64_read(&drv->pages),
			   atomic64_read(&drv->refused),
			   atomic64_read(&drv->failed),
			   atomic64_read(&drv->timeouts));
	srcu_read_unlock(&zero_drivers_srcu, idx);
}
