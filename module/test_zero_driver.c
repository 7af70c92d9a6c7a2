// SPDX-License-Identifier: GPL-2.0
/*
 * A zero driver for kscrubd's tests.  Its behaviour is chosen with the
 * "mode" parameter (also writable at run time under /sys/module):
 *   accept  zero the block, signalling completion a few jiffies later
 *   refuse  refuse every block, so the CPU zeroes it
 *   fail    dirty the block and report an error at once
 *   hang    dirty the block and never complete nor signal
 *   lie     leave a non-zero byte in every page and report success: a
 *           planted fault that only kscrubd's verify mode can catch
 * Failing modes write garbage on purpose: a block they had must still come
 * out zero, because kscrubd has the CPU zero it.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "zero_driver.h"

enum tzd_mode { TZD_ACCEPT, TZD_REFUSE, TZD_FAIL, TZD_HANG, TZD_LIE };

static const char * const tzd_mode_names[] = {
	[TZD_ACCEPT] = "accept",
	[TZD_REFUSE] = "refuse",
	[TZD_FAIL] = "fail",
	[TZD_HANG] = "hang",
	[TZD_LIE] = "lie",
};

/* Read by kscrubd's thread while sysfs writes it: one word, no lock */
static int tzd_mode;

static int tzd_mode_set(const char *val, const struct kernel_param *kp)
{
	int m = sysfs_match_string(tzd_mode_names, val);

	if (m < 0) {
		pr_err("test_zero_driver: mode=%.*s refused: want accept, refuse, fail, hang or lie\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(tzd_mode, m);
	return 0;
}

static int tzd_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", tzd_mode_names[READ_ONCE(tzd_mode)]);
}

static const struct kernel_param_ops tzd_mode_ops = {
	.set = tzd_mode_set,
	.get = tzd_mode_get,
};

module_param_cb(mode, &tzd_mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "accept, refuse, fail, hang or lie");

static unsigned long started, aborted;
module_param(started, ulong, 0444);
MODULE_PARM_DESC(started, "Blocks the driver accepted");
module_param(aborted, ulong, 0444);
MODULE_PARM_DESC(aborted, "Blocks kscrubd aborted");

/* kscrubd calls start, check and abort for one block at a time */
static void *cur_addr;
static unsigned long cur_len, done_at;
static int cur_mode;
static struct zero_driver tzd;

/* The engine's completion interrupt, a few jiffies after the start */
static void tzd_done(struct timer_list *t)
{
	zero_driver_done(&tzd);
}

static DEFINE_TIMER(tzd_timer, tzd_done);

static int tzd_start(struct zero_driver *drv, void *addr, unsigned long len)
{
	unsigned long off;

	cur_mode = READ_ONCE(tzd_mode);
	if (cur_mode == TZD_REFUSE)
		return -EOPNOTSUPP;
	cur_addr = addr;
	cur_len = len;
	done_at = jiffies + 2;
	started++;
	if (cur_mode == TZD_FAIL || cur_mode == TZD_HANG)
		memset(addr, 0xa5, len);
	if (cur_mode == TZD_LIE)
		for (off = 0; off < len; off += PAGE_SIZE)
			*(u8 *)(addr + off + (off / PAGE_SIZE * 67) % PAGE_SIZE) = 0x5a;
	if (cur_mode == TZD_FAIL)
		zero_driver_done(drv);
	else if (cur_mode != TZD_HANG)
		mod_timer(&tzd_timer, done_at);
	return 0;
}

static int tzd_check(struct zero_driver *drv, void *addr)
{
	if (cur_mode == TZD_FAIL)
		return -EIO;
	if (cur_mode == TZD_HANG || time_before(jiffies, done_at))
		return -EBUSY;
	if (cur_mode == TZD_ACCEPT)
		memset(cur_addr, 0, cur_len);
	return 0;
}

static void tzd_abort(struct zero_driver *drv, void *addr)
{
	timer_delete_sync(&tzd_timer);
	aborted++;
}

static struct zero_driver tzd = {
	.name = "test_zero_driver",
	.start = tzd_start,
	.check = tzd_check,
	.abort = tzd_abort,
	.rate = 1000000000,
	.nid = NUMA_NO_NODE,
};

static int __init tzd_init(void)
{
	return register_zero_driver(&tzd);
}

static void __exit tzd_exit(void)
{
	unregister_zero_driver(&tzd);
	timer_delete_sync(&tzd_timer);
}

module_init(tzd_init);
module_exit(tzd_exit);
MODULE_DESCRIPTION("kscrubd test zero driver");
MODULE_LICENSE("GPL");
