// SPDX-License-Identifier: GPL-2.0
/*
 * A census of every page frame, for the tests' "no page lost" checks.
 *
 * MemFree cannot tell a lost page from one a debug kernel holds on
 * purpose (KASAN's quarantine keeps freed slab objects, page_owner and
 * KASAN grow the stack depot).  A lost page is different in kind: its
 * reference count is zero, yet it is neither in a buddy block nor on a
 * per-cpu list.  With every per-cpu lock and the zone lock held, the
 * frames with a zero count that are not covered by a buddy block must
 * number exactly the pages the per-cpu lists hold; any excess is a page
 * that left the allocator and never came back (or is out for scrubbing,
 * which the tests rule out by unloading kscrubd first).
 *
 * Reading /sys/module/test_page_census/parameters/census prints
 * "buddy B reported R pcp P inuse U orphans O", in pages, summed over all
 * zones; R is the part of B in blocks that free page reporting has
 * handed to the host.
 * Writing N to .../plant orphans N pages on purpose (0 takes them back),
 * so that a test can show the census catches a lost page.
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>

struct census {
	unsigned long buddy, reported, pcp, inuse, orphans;
};

/* The longest runs of frames with no reference outside the free lists */
#define CENSUS_RUNS	8
struct census_run {
	unsigned long pfn, len, flags;
};

static struct census_run runs[CENSUS_RUNS], cur;
static unsigned int nr_runs;

static void end_run(void)
{
	unsigned int i, shortest = 0;

	if (!cur.len)
		return;
	if (nr_runs < CENSUS_RUNS) {
		runs[nr_runs++] = cur;
	} else {
		for (i = 1; i < CENSUS_RUNS; i++)
			if (runs[i].len < runs[shortest].len)
				shortest = i;
		if (runs[shortest].len < cur.len)
			runs[shortest] = cur;
	}
	cur.len = 0;
}

static void note_zero_frame(struct page *page, unsigned long pfn)
{
	if (cur.len && cur.pfn + cur.len == pfn) {
		cur.len++;
		return;
	}
	end_run();
	cur = (struct census_run) { .pfn = pfn, .len = 1, .flags = page->flags };
}

/* Walk one zone's frames; the caller holds all its locks */
static void census_frames(struct zone *zone, struct census *c)
{
	unsigned long pfn = zone->zone_start_pfn;
	unsigned long end = zone_end_pfn(zone);
	unsigned long zero = 0;

	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn);

		if (!page || page_zone(page) != zone) {
			pfn++;
			continue;
		}
		if (PageBuddy(page)) {
			/* A free block's head holds its order in page->private */
			unsigned long n = 1UL << page_private(page);

			c->buddy += n;
			if (PageReported(page))
				c->reported += n;
			pfn += n;
			continue;
		}
		if (page_ref_count(page) == 0 && !PageTail(page)) {
			note_zero_frame(page, pfn);
			zero++;
		} else {
			c->inuse++;
		}
		pfn++;
	}
	end_run();
	c->orphans += zero;
}

static int census_zone(struct zone *zone, struct census *c)
{
	unsigned long pcp = 0, flags;
	int cpu, n = 0;

	/* Every CPU's list lock is nested under one lockdep class */
	if (num_possible_cpus() > MAX_LOCKDEP_SUBCLASSES)
		return -EOPNOTSUPP;

	/* The allocator's order: per-cpu lock, then the zone lock */
	local_irq_save(flags);
	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *p = per_cpu_ptr(zone->per_cpu_pageset, cpu);

		spin_lock_nested(&p->lock, n++);
		pcp += p->count;
	}
	spin_lock(&zone->lock);
	census_frames(zone, c);
	spin_unlock(&zone->lock);
	for_each_possible_cpu(cpu)
		spin_unlock(&per_cpu_ptr(zone->per_cpu_pageset, cpu)->lock);
	local_irq_restore(flags);

	/* Frames with a zero count on the per-cpu lists are not orphans */
	c->pcp += pcp;
	c->orphans -= min(c->orphans, pcp);
	return 0;
}

/* Where the orphans may be (per-cpu pages make short runs too) */
static void census_report(void)
{
	unsigned int i;

	for (i = 0; i < nr_runs; i++)
		pr_info("test_page_census: no reference: pfn %#lx, %lu frames, flags %#lx\n",
			runs[i].pfn, runs[i].len, runs[i].flags);
}

static int census_get(char *buf, const struct kernel_param *kp)
{
	struct census c = { };
	int nid, z, ret;

	nr_runs = 0;
	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];
			struct census one = { };

			if (!populated_zone(zone))
				continue;
			ret = census_zone(zone, &one);
			if (ret)
				return ret;
			c.buddy += one.buddy;
			c.reported += one.reported;
			c.pcp += one.pcp;
			c.inuse += one.inuse;
			c.orphans += one.orphans;
			cond_resched();
		}
	}
	if (c.orphans)
		census_report();
	return sysfs_emit(buf, "buddy %lu reported %lu pcp %lu inuse %lu orphans %lu\n",
			  c.buddy, c.reported, c.pcp, c.inuse, c.orphans);
}

static const struct kernel_param_ops census_ops = {
	.get = census_get,
};

module_param_cb(census, &census_ops, NULL, 0444);
MODULE_PARM_DESC(census, "Read: free, per-cpu, in-use and orphaned pages");

#define CENSUS_MAX_PLANT	64
static struct page *planted[CENSUS_MAX_PLANT];
static unsigned int nr_planted;

/* A page with a zero count outside the allocator: what a leak looks like */
static void plant_one(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return;
	set_page_count(page, 0);
	planted[nr_planted++] = page;
}

static void unplant_all(void)
{
	while (nr_planted) {
		struct page *page = planted[--nr_planted];

		set_page_count(page, 1);
		__free_page(page);
	}
}

static int plant_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > CENSUS_MAX_PLANT)
		return -EINVAL;
	unplant_all();
	while (nr_planted < n)
		plant_one();
	return nr_planted == n ? 0 : -ENOMEM;
}

static int plant_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", nr_planted);
}

static const struct kernel_param_ops plant_ops = {
	.set = plant_set,
	.get = plant_get,
};

module_param_cb(plant, &plant_ops, NULL, 0644);
MODULE_PARM_DESC(plant, "Orphan this many pages on purpose (0: give back)");

static void __exit census_exit(void)
{
	unplant_all();
}

module_exit(census_exit);

MODULE_DESCRIPTION("Count page frames to prove no page was lost");
MODULE_LICENSE("GPL");
