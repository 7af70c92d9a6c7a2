// SPDX-License-Identifier: GPL-2.0
/*
 * vm.scrub_* sysctls.  A write is parsed into a copy and checked against
 * the other knobs before it is stored, so a bad write fails with EINVAL
 * and leaves the value as it was.  Every good write wakes the threads, as
 * compaction_proactiveness_sysctl_handler() wakes kcompactd.
 */
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include "kscrubd.h"

#define KSCRUB_MAX_LOAD	100000
/* Pages per second: 100M pages is 400 GB/s, beyond any engine */
#define KSCRUB_MAX_RATE	100000000

unsigned int kscrub_start_order = 7;
unsigned int kscrub_stop_order = 2;
unsigned int kscrub_load = 999;
unsigned int kscrub_enabled = 1;
unsigned int kscrub_verify;
/*
 * Non-temporal stores by default: on the 512 KiB to 4 MiB blocks kscrubd
 * zeroes, movntdq streams at 2.6x rep stosb natively on this host and
 * 1.7x clear_page() in the guest (userspace/results/clearbw.md), and it
 * does not evict anyone's working set for pages nobody reads soon.
 */
unsigned int kscrub_engine = KSCRUB_ENGINE_AUTO;
/*
 * Zero everything kscrubd can, and let every wake-up restart it: no
 * hysteresis unless asked for (FreeBSD's marks were 80 and 66).
 */
unsigned int kscrub_high_pct = 100;
unsigned int kscrub_low_pct;
unsigned int kscrub_rate;		/* pages/s per node, 0: no cap */
/*
 * Zeroed memory kept out of page reporting's reach where the host makes
 * no promise about reported memory: enough for a few hundred THP faults
 * in a small VM, and host memory the guest holds on to for it.
 */
unsigned int kscrub_reserve_mb = 256;

static const unsigned int max_order = MAX_PAGE_ORDER;
static const unsigned int max_load = KSCRUB_MAX_LOAD;
static const unsigned int max_rate = KSCRUB_MAX_RATE;
static const unsigned int max_low_pct = 99;
/* 1 TiB: beyond any VM's wish to keep memory from its host */
static const unsigned int max_reserve_mb = 1U << 20;

/*
 * Serializes writers so that scrub_stop <= scrub_start and
 * scrub_low_pct < scrub_high_pct always hold
 */
static DEFINE_MUTEX(kscrub_sysctl_lock);
static struct ctl_table_header *kscrub_sysctl_header;

static int order_handler(const struct ctl_table *table, int write,
			 void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int *val = table->data;
	unsigned int new = *val;
	struct ctl_table t = *table;
	int ret;

	if (!write)
		return proc_douintvec_minmax(table, write, buffer, lenp, ppos);

	t.data = &new;
	mutex_lock(&kscrub_sysctl_lock);
	ret = proc_douintvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret)
		goto out;
	if ((val == &kscrub_stop_order && new > kscrub_start_order) ||
	    (val == &kscrub_start_order && new < kscrub_stop_order)) {
		ret = -EINVAL;
		goto out;
	}
	WRITE_ONCE(*val, new);
	if (val == &kscrub_start_order)
		kscrubd_set_start_order(new);
	kscrubd_wake_all();
out:
	mutex_unlock(&kscrub_sysctl_lock);
	return ret;
}

/* Either mark: within its own range, and low < high with the other one */
static int marks_handler(const struct ctl_table *table, int write,
			 void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int *val = table->data;
	unsigned int new = *val;
	struct ctl_table t = *table;
	bool low = val == &kscrub_low_pct;
	int ret;

	if (!write)
		return proc_douintvec_minmax(table, write, buffer, lenp, ppos);

	t.data = &new;
	mutex_lock(&kscrub_sysctl_lock);
	ret = proc_douintvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret)
		goto out;
	if (!kscrubd_marks_ok(low ? new : kscrub_low_pct,
			      low ? kscrub_high_pct : new)) {
		ret = -EINVAL;
		goto out;
	}
	WRITE_ONCE(*val, new);
	kscrubd_wake_all();
out:
	mutex_unlock(&kscrub_sysctl_lock);
	return ret;
}

static int uint_handler(const struct ctl_table *table, int write,
			void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int new = *(unsigned int *)table->data;
	struct ctl_table t = *table;
	int ret;

	if (!write)
		return proc_douintvec_minmax(table, write, buffer, lenp, ppos);

	t.data = &new;
	ret = proc_douintvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret)
		return ret;
	WRITE_ONCE(*(unsigned int *)table->data, new);
	kscrubd_wake_all();
	return 0;
}

/*
 * A smaller vm.scrub_reserve_mb gives what is beyond it to page
 * reporting, which runs a pass only after a free unless asked
 */
static int reserve_handler(const struct ctl_table *table, int write,
			   void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int old = READ_ONCE(kscrub_reserve_mb);
	int ret = uint_handler(table, write, buffer, lenp, ppos);

	if (!ret && write && READ_ONCE(kscrub_reserve_mb) < old)
		scrubd_reserve_shrunk();
	return ret;
}

static int engine_handler(const struct ctl_table *table, int write,
			  void *buffer, size_t *lenp, loff_t *ppos)
{
	char name[16];
	struct ctl_table t = {
		.data = name,
		.maxlen = sizeof(name),
	};
	int ret, id;

	strscpy(name, kscrub_engine_name(READ_ONCE(kscrub_engine)),
		sizeof(name));
	ret = proc_dostring(&t, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	id = kscrub_engine_lookup(name);
	if (id < 0)
		return id;
	WRITE_ONCE(kscrub_engine, id);
	return 0;
}

static struct ctl_table kscrub_sysctls[] = {
	{
		.procname	= "scrub_start",
		.data		= &kscrub_start_order,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= order_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_order,
	},
	{
		.procname	= "scrub_stop",
		.data		= &kscrub_stop_order,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= order_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_order,
	},
	{
		.procname	= "scrub_load",
		.data		= &kscrub_load,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= uint_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_load,
	},
	{
		.procname	= "scrub_enabled",
		.data		= &kscrub_enabled,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= uint_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "scrub_verify",
		.data		= &kscrub_verify,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= uint_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "scrub_high_pct",
		.data		= &kscrub_high_pct,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= marks_handler,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_ONE_HUNDRED,
	},
	{
		.procname	= "scrub_low_pct",
		.data		= &kscrub_low_pct,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= marks_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_low_pct,
	},
	{
		.procname	= "scrub_rate",
		.data		= &kscrub_rate,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= uint_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_rate,
	},
	{
		.procname	= "scrub_reserve_mb",
		.data		= &kscrub_reserve_mb,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= reserve_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&max_reserve_mb,
	},
	{
		.procname	= "scrub_engine",
		.maxlen		= 16,
		.mode		= 0644,
		.proc_handler	= engine_handler,
	},
};

int kscrubd_sysctl_init(void)
{
	kscrub_sysctl_header = register_sysctl("vm", kscrub_sysctls);
	return kscrub_sysctl_header ? 0 : -ENOMEM;
}

/* Also on kscrubd_init()'s error path, registered or not */
void kscrubd_sysctl_exit(void)
{
	unregister_sysctl_table(kscrub_sysctl_header);
	kscrub_sysctl_header = NULL;
}
