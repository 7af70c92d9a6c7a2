// SPDX-License-Identifier: GPL-2.0
/*
 * A zero driver for kscrubd's tests.  Its behaviour is chosen with the
 * "mode" parameter (also writable at run time under /sys/module):
 *   accept  zero the block, reporting completion a few jiffies later
 *   refuse  refuse every block, so the CPU zeroes it
 *   fail    dirty the block and report an error
 *   hang    dirty the block and never complete
 * Failing modes write garbage on purpose: a block they had must still come
 * out zero, because kscrubd has the CPU zero it.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/string.h>

#include "zero_driver.h"

static char *mode = "accept";
module_param(mode, charp, 0644);
MODULE_PARM_DESC(mode, "accept, refuse, fail or hang");

static unsigned long started, aborted;
module_param(started, ulong, 0444);
MODULE_PARM_DESC(started, "Blocks the driver accepted");
module_param(aborted, ulong, 0444);
MODULE_PARM_DESC(aborted, "Blocks kscrubd aborted");

static void *cur_addr;
static unsigned long cur_len, done_at;

static bool mode_is(const char *m)
{
	return sysfs_streq(mode, m);
}

static int tzd_start(void *addr, unsigned long len)
{
	if (mode_is("refuse"))
		return -EOPNOTSUPP;
	cur_addr = addr;
	cur_len = len;
	done_at = jiffies + 2;
	started++;
	if (!mode_is("accept"))
		memset(addr, 0xa5, len);
	return 0;
}

static int tzd_check(void *addr)
{
	if (mode_is("fail"))
		return -EIO;
	if (mode_is("hang") || time_before(jiffies, done_at))
		return -EBUSY;
	memset(cur_addr, 0, cur_len);
	return 0;
}

static void tzd_abort(void *addr)
{
	aborted++;
}

static struct zero_driver tzd = {
	.name = "test_zero_driver",
	.start = tzd_start,
	.check = tzd_check,
	.abort = tzd_abort,
	.rate = 1000000000,
};

static int __init tzd_init(void)
{
	return register_zero_driver(&tzd);
}

static void __exit tzd_exit(void)
{
	unregister_zero_driver(&tzd);
}

module_init(tzd_init);
module_exit(tzd_exit);
MODULE_DESCRIPTION("kscrubd test zero driver");
MODULE_LICENSE("GPL");
