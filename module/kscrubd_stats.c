// SPDX-License-Identifier: GPL-2.0
/*
 * What kscrubd did: per node and engine, in debugfs (kscrubd/stats, one
 * key=value line per node and engine, kscrubd/drivers) and in dmesg on
 * unload.  Also the verify mode's check of blocks served prezeroed.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/string.h>

#include "kscrubd.h"

atomic64_t kscrub_verified_pages;
atomic64_t kscrub_verify_bad;
static struct dentry *kscrub_debugfs;

/*
 * Runs in the allocating context, before a block that skipped its clear is
 * handed out.  A hit means someone wrote to a free page or an engine lied:
 * report it and let the allocator clear the block.
 */
bool kscrubd_verify(struct page *page, unsigned int order)
{
	void *addr = page_address(page);
	void *bad = memchr_inv(addr, 0, PAGE_SIZE << order);

	atomic64_add(1UL << order, &kscrub_verified_pages);
	if (!bad)
		return true;
	atomic64_inc(&kscrub_verify_bad);
	pr_err_ratelimited("kscrubd: verify: pfn %#lx (order %u) served prezeroed has a non-zero byte at offset %#lx\n",
			   page_to_pfn(page), order, (unsigned long)(bad - addr));
	return false;
}

static void show_node(struct seq_file *m, struct kscrubd_node *kn)
{
	struct kscrubd_stats *s = &kn->stats;
	unsigned long zeroable, zeroed;
	int e;

	kscrubd_node_pages(kn->nid, &zeroable, &zeroed);
	seq_printf(m, "node=%d running=%d wakeups=%llu passes=%llu passes_cut=%llu retries=%llu driver_refused=%llu driver_failed=%llu driver_lost_ns=%llu dirty_pages=%lu zeroable_pages=%lu zeroed_pages=%lu above_high=%d held=%llu paced_ns=%llu pcp_drained=%llu pcp_looks=%llu widened=%llu\n",
		   kn->nid, !!READ_ONCE(kn->task), s->wakeups, s->passes,
		   s->passes_cut, s->retries, s->driver_refused,
		   s->driver_failed, s->driver_lost_ns, zeroable - zeroed,
		   zeroable, zeroed, READ_ONCE(kn->above_high), s->held,
		   s->paced_ns, s->pcp_drained, s->pcp_looks, s->widened);
	for (e = 0; e < KSCRUB_NR_ENGINES; e++) {
		u64 pages = READ_ONCE(s->engine[e].pages);
		u64 ns = READ_ONCE(s->engine[e].ns);

		seq_printf(m, "node=%d engine=%s pages=%llu bytes=%llu ns=%llu mbps=%llu\n",
			   kn->nid, kscrub_engine_name(e), pages,
			   pages << PAGE_SHIFT, ns,
			   ns ? div64_u64((pages << PAGE_SHIFT) * 1000, ns) : 0);
	}
}

/* Nodes with memory, and any that had a thread before losing it */
static bool node_shown(int nid)
{
	return node_state(nid, N_MEMORY) || kscrubd_node(nid)->stats.passes;
}

/*
 * Where zeroed memory came from, from the allocator's events: kscrubd,
 * init_on_free, a host that zeroes reported memory; and what page
 * reporting took zeroed and gave back unmarked.
 */
static void show_sources(struct seq_file *m)
{
	static const char * const names[] = {
		[SCRUBD_REPORTING_NONE] = "none",
		[SCRUBD_REPORTING_DISCARDS] = "discards",
		[SCRUBD_REPORTING_ZEROES] = "zeroes",
	};
	unsigned int order = 0;
	enum scrubd_reporting r = scrubd_reporting(&order);
	unsigned long *ev;

	ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return;
	all_vm_events(ev);
	seq_printf(m, "reporting=%s reporting_order=%u reserve_mb=%u scrubbed_pages=%lu freed_zeroed_pages=%lu reported_zeroed_pages=%lu discarded_zeroed_pages=%lu\n",
		   names[r], order, READ_ONCE(kscrub_reserve_mb),
		   ev[PGSCRUBBED], ev[PGZEROED_FREED], ev[PGZEROED_REPORTED],
		   ev[PGZEROED_DISCARDED]);
	kfree(ev);
}

static int stats_show(struct seq_file *m, void *v)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		if (node_shown(nid))
			show_node(m, kscrubd_node(nid));
	seq_printf(m, "verify=%u verified_pages=%lld verify_bad=%lld\n",
		   READ_ONCE(kscrub_verify),
		   atomic64_read(&kscrub_verified_pages),
		   atomic64_read(&kscrub_verify_bad));
	show_sources(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int drivers_show(struct seq_file *m, void *v)
{
	kscrub_drivers_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(drivers);

static int engines_show(struct seq_file *m, void *v)
{
	kscrub_engines_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(engines);

int kscrubd_stats_init(void)
{
	kscrub_debugfs = debugfs_create_dir("kscrubd", NULL);
	debugfs_create_file("stats", 0444, kscrub_debugfs, NULL, &stats_fops);
	debugfs_create_file("drivers", 0444, kscrub_debugfs, NULL,
			    &drivers_fops);
	debugfs_create_file("engines", 0444, kscrub_debugfs, NULL,
			    &engines_fops);
	kscrub_driver_bench_init(kscrub_debugfs);
	return 0;
}

void kscrubd_stats_exit(void)
{
	debugfs_remove_recursive(kscrub_debugfs);
}

void kscrubd_stats_log(const char *when)
{
	int nid, e;

	for (nid = 0; nid < nr_node_ids; nid++) {
		struct kscrubd_stats *s = &kscrubd_node(nid)->stats;

		if (!node_shown(nid))
			continue;
		for (e = 0; e < KSCRUB_NR_ENGINES; e++) {
			u64 pages = s->engine[e].pages;
			u64 ns = s->engine[e].ns;

			if (!pages)
				continue;
			pr_info("kscrubd%d: %s: engine %s zeroed %llu pages (%llu MiB) in %llu ms, %llu MB/s\n",
				nid, when, kscrub_engine_name(e), pages,
				pages >> (20 - PAGE_SHIFT), ns / NSEC_PER_MSEC,
				ns ? div64_u64((pages << PAGE_SHIFT) * 1000, ns) : 0);
		}
		pr_info("kscrubd%d: %s: %llu wake-ups, %llu passes (%llu cut short), %llu retries, %llu blocks refused by drivers, %llu driver failures\n",
			nid, when, s->wakeups, s->passes, s->passes_cut,
			s->retries, s->driver_refused, s->driver_failed);
	}
	pr_info("kscrubd: %s: verify checked %lld pages, %lld not zero\n", when,
		atomic64_read(&kscrub_verified_pages),
		atomic64_read(&kscrub_verify_bad));
}
