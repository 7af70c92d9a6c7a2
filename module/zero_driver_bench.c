// SPDX-License-Identifier: GPL-2.0
/*
 * The rate a zero driver reaches through kscrubd's own wait, on blocks of
 * one size.  Scrubbing hands a driver whatever coalesced, mostly 4 MiB
 * blocks, so it cannot show what a block of a given order costs; the
 * per-block overhead of waiting shows on small ones.  Writing
 * "ORDER [COUNT]" to debugfs kscrubd/driver_bench zeroes one block of
 * that order COUNT times through the registered drivers, in the writer's
 * context on its node; reading gives the last result as key=value pairs.
 * Pause scrubbing first (vm.scrub_enabled=0), or kscrubd's threads hold
 * the drivers and the CPU zeroes the blocks instead.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "kscrubd.h"

#define BENCH_MAX_COUNT	100000

static DEFINE_MUTEX(bench_lock);
static char bench_result[160] = "none\n";

static int bench_run(unsigned int order, unsigned int count)
{
	unsigned long len = PAGE_SIZE << order;
	unsigned int i, by_driver = 0;
	int nid = numa_node_id();
	struct page *page;
	u64 t0, ns;

	page = alloc_pages_node(nid, GFP_KERNEL | __GFP_NOWARN, order);
	if (!page)
		return -ENOMEM;
	t0 = ktime_get_ns();
	for (i = 0; i < count && !fatal_signal_pending(current); i++) {
		if (!kscrub_driver_zero(NULL, nid, page_address(page), len))
			by_driver++;
		cond_resched();
	}
	ns = max_t(u64, ktime_get_ns() - t0, 1);
	__free_pages(page, order);
	scnprintf(bench_result, sizeof(bench_result),
		  "node=%d order=%u bytes=%lu blocks=%u by_driver=%u ns=%llu mbps=%llu\n",
		  nid, order, len, i, by_driver, ns,
		  div64_u64((u64)by_driver * len * 1000, ns));
	return 0;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	unsigned int order, count = 256;
	char buf[32];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = sscanf(buf, "%u %u", &order, &count);
	if (ret < 1 || order > MAX_PAGE_ORDER || !count ||
	    count > BENCH_MAX_COUNT)
		return -EINVAL;
	mutex_lock(&bench_lock);
	ret = bench_run(order, count);
	mutex_unlock(&bench_lock);
	return ret ? ret : len;
}

static int bench_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_lock);
	seq_puts(m, bench_result);
	mutex_unlock(&bench_lock);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.write = bench_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void kscrub_driver_bench_init(struct dentry *dir)
{
	debugfs_create_file("driver_bench", 0600, dir, NULL, &bench_fops);
}
