// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark, as a KUnit suite, of what a page costs the CPU that
 * touches it, by where it came from: hot (just freed, reused LIFO) or
 * cold (out of every cache), cleared at allocation or zeroed long before
 * with temporal or non-temporal stores.  Meant for User-mode Linux, which
 * runs on the host CPU with its caches (make native); under QEMU TCG the
 * figures mean nothing, since TCG models no cache.
 *
 * A cycle is: get a block of 2^order pages, clear it or not, touch each
 * 4 KiB of it (a write to 1 line, to 8 lines 512 bytes apart, or to every
 * 64-byte line), and give it back.  Clears use "rep stosb", as x86's
 * clear_page_erms() does on this CPU (UML's own clear_page() is a plain
 * memset: no alternatives in UML).
 *
 * "Cold": before a timed pass, a buffer of evict_factor times the host's
 * last-level cache (llc_kb, read from the host by qemu/native/run.sh) is
 * written line by line with ordinary stores, so the pass's blocks (a pool
 * of pool_mb MiB) are out of the cache; each block is then used once.
 *
 * Each figure is printed as one line per pass,
 *   kscrub-bench: <source> order=<o> touch=<lines> pass=<n> ns=<ns per cycle>
 * and the host takes median and spread.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/page_prezero.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "kscrubd.h"

static unsigned int llc_kb = 32768;
module_param(llc_kb, uint, 0444);
MODULE_PARM_DESC(llc_kb, "host last-level cache, KiB");
static unsigned int evict_factor = 4;
module_param(evict_factor, uint, 0444);
MODULE_PARM_DESC(evict_factor, "eviction buffer, in multiples of llc_kb");
static unsigned int pool_mb = 128;
module_param(pool_mb, uint, 0444);
MODULE_PARM_DESC(pool_mb, "blocks used per timed pass, MiB");
static unsigned int passes = 11;
module_param(passes, uint, 0444);
MODULE_PARM_DESC(passes, "timed passes per figure");
static unsigned int llc_sharers = 1;
module_param(llc_sharers, uint, 0444);
MODULE_PARM_DESC(llc_sharers, "host CPUs sharing the last-level cache");

static const unsigned int orders[] = { 0, 4, 9 };
/* Lines written per 4 KiB; 0: one line in the whole block (a THP fault) */
static const unsigned int touches[] = { 0, 1, 8, 64 };

#define EVICT_ORDER	MAX_PAGE_ORDER

/* The eviction buffer: blocks of EVICT_ORDER */
static struct page **evict_blk;
static unsigned long nr_evict;

static void clear_bytes(void *p, unsigned long len)
{
	asm volatile("rep stosb"
		     : "+D" (p), "+c" (len)
		     : "a" (0)
		     : "memory");
}

/* Non-temporal: 8-byte movnti, then sfence */
static void nt_zero(void *p, unsigned long len)
{
	u64 *q = p;
	unsigned long i;

	for (i = 0; i < len / 8; i++)
		asm volatile("movnti %1, %0" : "=m" (q[i]) : "r" (0ULL));
	asm volatile("sfence" ::: "memory");
}

/* A write to @lines lines of each 4 KiB of the block, or to one line */
static void touch(void *p, unsigned int order, unsigned int lines)
{
	unsigned long off, end = PAGE_SIZE << order;
	unsigned long stride = lines ? PAGE_SIZE / lines : end;

	for (off = 0; off < end; off += stride)
		WRITE_ONCE(*(u64 *)(p + off), off);
}

/*
 * The end of a cycle.  Between two faults the CPU takes an exception and
 * returns with iret, which serializes: a touch's store miss is paid before
 * the next fault starts, not hidden in the store buffer behind the next
 * cycle.  mfence waits for the stores, so cycles do not overlap either.
 */
static void end_cycle(void)
{
	asm volatile("mfence" ::: "memory");
}

static void clear_per_page(void *p, unsigned int order)
{
	unsigned int i;

	for (i = 0; i < (1U << order); i++)
		clear_bytes(p + i * PAGE_SIZE, PAGE_SIZE);
}

static void evict(void)
{
	unsigned long i, off;

	for (i = 0; i < nr_evict; i++) {
		u64 *p = page_address(evict_blk[i]);

		for (off = 0; off < (PAGE_SIZE << EVICT_ORDER) / 8; off += 8)
			p[off]++;
		cond_resched();
	}
}

static int evict_alloc(struct kunit *test)
{
	unsigned long bytes = (unsigned long)llc_kb * 1024 * evict_factor;

	nr_evict = DIV_ROUND_UP(bytes, PAGE_SIZE << EVICT_ORDER);
	evict_blk = kvcalloc(nr_evict, sizeof(*evict_blk), GFP_KERNEL);
	if (!evict_blk)
		return -ENOMEM;
	for (unsigned long i = 0; i < nr_evict; i++) {
		evict_blk[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
					   EVICT_ORDER);
		if (!evict_blk[i]) {
			nr_evict = i;
			return -ENOMEM;
		}
	}
	kunit_info(test, "eviction buffer %lu MiB (%u x LLC %u KiB)\n",
		   (nr_evict << (EVICT_ORDER + PAGE_SHIFT)) >> 20,
		   evict_factor, llc_kb);
	return 0;
}

static void evict_free(void)
{
	while (nr_evict)
		__free_pages(evict_blk[--nr_evict], EVICT_ORDER);
	kvfree(evict_blk);
	evict_blk = NULL;
}

static void report(const char *src, unsigned int order, unsigned int lines,
		   unsigned int pass, u64 ns, unsigned long cycles)
{
	u64 x10 = div64_u64(ns * 10, cycles);

	pr_info("kscrub-bench: %s order=%u touch=%u pass=%u ns=%llu.%llu\n",
		src, order, lines, pass, x10 / 10, x10 % 10);
}

/* The pool: blocks of one order, allocated once per order */
struct pool {
	struct page **blk;
	unsigned long n;
	unsigned int order;
};

static int pool_get(struct pool *pl, unsigned int order)
{
	pl->order = order;
	pl->n = ((unsigned long)pool_mb << 20) >> (PAGE_SHIFT + order);
	pl->blk = kvcalloc(pl->n, sizeof(*pl->blk), GFP_KERNEL);
	if (!pl->blk)
		return -ENOMEM;
	for (unsigned long i = 0; i < pl->n; i++) {
		pl->blk[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
		if (!pl->blk[i]) {
			pl->n = i;
			return -ENOMEM;
		}
	}
	return 0;
}

static void pool_put(struct pool *pl)
{
	while (pl->n)
		__free_pages(pl->blk[--pl->n], pl->order);
	kvfree(pl->blk);
}

enum src {
	HOT_NOCLEAR,	/* just-freed block reused, no clear: the floor */
	HOT_CLEAR,	/* just-freed block reused, cleared per 4 KiB */
	HOT_CLEAR_EXT,	/* just-freed block reused, one clear of the extent */
	COLD_CLEAR,	/* cold dirty block, cleared per 4 KiB */
	COLD_CLEAR_EXT,	/* cold dirty block, one clear of the extent */
	COLD_PZ_TEMPORAL, /* cold, zeroed earlier with ordinary stores */
	COLD_PZ_NT,	/* cold, zeroed earlier with non-temporal stores */
	NR_SRC,
};

static const char * const src_name[NR_SRC] = {
	[HOT_NOCLEAR] = "hot-noclear",
	[HOT_CLEAR] = "hot-clear",
	[HOT_CLEAR_EXT] = "hot-clear-extent",
	[COLD_CLEAR] = "cold-clear",
	[COLD_CLEAR_EXT] = "cold-clear-extent",
	[COLD_PZ_TEMPORAL] = "cold-prezeroed-temporal",
	[COLD_PZ_NT] = "cold-prezeroed-nt",
};

/*
 * Hot: the block is allocated, used and freed again and again; the
 * allocator hands back the block just freed (per-cpu lists are LIFO, and
 * so is the head of a buddy list), so it is in the cache.
 */
static u64 hot_pass(unsigned int order, unsigned int lines, enum src s,
		    unsigned long cycles)
{
	u64 t0 = 0;
	unsigned long i;

	for (i = 0; i <= cycles; i++) {
		struct page *page;
		void *p;

		if (i == 1)	/* the first cycle warms up */
			t0 = ktime_get_ns();
		page = alloc_pages(GFP_KERNEL, order);
		if (!page)
			return 0;
		p = page_address(page);
		if (s == HOT_CLEAR)
			clear_per_page(p, order);
		else if (s == HOT_CLEAR_EXT)
			clear_bytes(p, PAGE_SIZE << order);
		touch(p, order, lines);
		end_cycle();
		__free_pages(page, order);
	}
	return ktime_get_ns() - t0;
}

/* Cold: each block of the pool once, after the cache was flushed */
static u64 cold_pass(struct pool *pl, unsigned int lines, enum src s)
{
	unsigned long i, len = PAGE_SIZE << pl->order;
	u64 t0;

	for (i = 0; i < pl->n; i++) {
		void *p = page_address(pl->blk[i]);

		if (s == COLD_PZ_TEMPORAL)
			clear_per_page(p, pl->order);
		else if (s == COLD_PZ_NT)
			nt_zero(p, len);
		else
			memset(p, 0x5a, len);
	}
	evict();
	t0 = ktime_get_ns();
	for (i = 0; i < pl->n; i++) {
		void *p = page_address(pl->blk[i]);

		if (s == COLD_CLEAR)
			clear_per_page(p, pl->order);
		else if (s == COLD_CLEAR_EXT)
			clear_bytes(p, len);
		touch(p, pl->order, lines);
		end_cycle();
	}
	return ktime_get_ns() - t0;
}

/* Every source and touch pattern for blocks of @order */
static void page_sources(struct kunit *test, unsigned int order)
{
	unsigned int ti, pass;
	struct pool pl;
	enum src s;

	if (evict_alloc(test)) {
		evict_free();
		kunit_skip(test, "no memory for a %u x %u KiB eviction buffer",
			   evict_factor, llc_kb);
	}
	if (pool_get(&pl, order)) {
		pool_put(&pl);
		evict_free();
		kunit_skip(test, "no memory for the order-%u pool", order);
	}
	/*
	 * Pass by pass over every figure, not figure by figure: a slow
	 * spell of the host (itself a VM, whose speed drifts by tens of %)
	 * then lands in a pass or two of every figure, which the median
	 * drops, rather than in every pass of a few figures.
	 */
	for (pass = 0; pass < passes; pass++) {
		for (ti = 0; ti < ARRAY_SIZE(touches); ti++) {
			if (!order && !touches[ti])	/* the same as 1 line */
				continue;
			for (s = 0; s < NR_SRC; s++) {
				u64 ns;

				if (s <= HOT_CLEAR_EXT)
					ns = hot_pass(order, touches[ti], s,
						      pl.n);
				else
					ns = cold_pass(&pl, touches[ti], s);
				report(src_name[s], order, touches[ti], pass,
				       ns, pl.n);
				cond_resched();
			}
		}
	}
	pool_put(&pl);
	evict_free();
}

/* One case per order, each well within KUnit's timeout */
static void page_sources_order0(struct kunit *test)
{
	page_sources(test, 0);
}

static void page_sources_order4(struct kunit *test)
{
	page_sources(test, 4);
}

static void page_sources_order9(struct kunit *test)
{
	page_sources(test, 9);
}

/*
 * The allocator itself, cycles of alloc_pages(__GFP_ZERO) + touch + free,
 * under the allocation policies a design could choose:
 *  stock:     no scrubber; the allocator clears the (hot) block it reuses
 *  today:     the series as built, with zeroed blocks present; the hot
 *             block just freed on the per-cpu list first, then a zeroed
 *             one (UML has no THP and so no per-cpu THP list: its order
 *             9 takes a zeroed block first)
 *  hot-first: an alternative: take the hot block just freed and clear it
 *             (timed as a plain allocation + rep stosb), a zeroed block
 *             only when the per-cpu list is empty; in alloc/free churn the
 *             list is never empty, so this is the hot path every time
 * Boot with init_on_alloc=0, so that only __GFP_ZERO clears.
 */
static void bench_coalesced(struct page_scrubber *sc, struct zone *zone,
			    unsigned int order)
{
}

static struct page_scrubber bench_scrubber = {
	.coalesced = bench_coalesced,
	.order = MAX_PAGE_ORDER,
};

static u64 prezeroed_events(void)
{
	unsigned long *ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	u64 v = 0;

	if (ev) {
		all_vm_events(ev);
		v = ev[PGALLOC_PREZEROED];
		kfree(ev);
	}
	return v;
}

static const gfp_t zero_gfp = GFP_HIGHUSER_MOVABLE | __GFP_ZERO;

/* Zero @mb MiB of free blocks by hand, as kscrubd would, with NT stores */
static unsigned long make_zeroed(struct zone *zone, unsigned long mb)
{
	unsigned long done = 0, want = mb << (20 - PAGE_SHIFT);
	unsigned int o = MAX_PAGE_ORDER;

	while (done < want) {
		struct page *page = scrubd_rmpage(zone, o);

		if (!page) {
			if (!o--)
				break;
			continue;
		}
		nt_zero(page_address(page), PAGE_SIZE << o);
		end_zero_page(page, o);
		done += 1UL << o;
	}
	return done;
}

static u64 policy_pass(unsigned int order, unsigned int lines, bool clear,
		       gfp_t gfp, unsigned long cycles)
{
	u64 t0 = ktime_get_ns();
	unsigned long i;

	for (i = 0; i < cycles; i++) {
		struct page *page = alloc_pages(gfp, order);
		void *p;

		if (!page)
			return 0;
		p = page_address(page);
		if (clear)
			clear_per_page(p, order);
		touch(p, order, lines);
		end_cycle();
		__free_pages(page, order);
	}
	return ktime_get_ns() - t0;
}

static void allocator_policies(struct kunit *test)
{
	struct page *probe = alloc_pages(GFP_HIGHUSER_MOVABLE, 0);
	unsigned int oi, ti, pass;
	struct zone *zone;

	KUNIT_ASSERT_NOT_NULL(test, probe);
	zone = page_zone(probe);
	__free_pages(probe, 0);
	if (want_init_on_alloc(GFP_KERNEL))
		kunit_skip(test, "boot with init_on_alloc=0");

	if (evict_alloc(test)) {
		evict_free();
		kunit_skip(test, "no memory for the eviction buffer");
	}
	for (oi = 0; oi < ARRAY_SIZE(orders); oi++) {
		unsigned long cycles = ((unsigned long)pool_mb << 20) >>
				       (PAGE_SHIFT + orders[oi]);

		for (pass = 0; pass < passes; pass++) {
			for (ti = 0; ti < ARRAY_SIZE(touches); ti++) {
				u64 ns;

				if (!orders[oi] && !touches[ti])
					continue;
				/* warm: the block reused is hot */
				policy_pass(orders[oi], touches[ti], false,
					    zero_gfp, 1);
				ns = policy_pass(orders[oi], touches[ti], false,
						 zero_gfp, cycles);
				report("alloc-stock", orders[oi], touches[ti],
				       pass, ns, cycles);
				policy_pass(orders[oi], touches[ti], true,
					    GFP_HIGHUSER_MOVABLE, 1);
				ns = policy_pass(orders[oi], touches[ti], true,
						 GFP_HIGHUSER_MOVABLE, cycles);
				report("alloc-hot-first", orders[oi],
				       touches[ti], pass, ns, cycles);
			}
		}
	}

	if (page_scrubber_register(&bench_scrubber)) {
		evict_free();
		kunit_skip(test, "another scrubber is registered");
	}
	for (oi = 0; oi < ARRAY_SIZE(orders); oi++) {
		unsigned long cycles = ((unsigned long)pool_mb << 20) >>
				       (PAGE_SHIFT + orders[oi]);

		for (pass = 0; pass < passes; pass++) {
			for (ti = 0; ti < ARRAY_SIZE(touches); ti++) {
				unsigned long got;
				u64 ns, served;

				if (!orders[oi] && !touches[ti])
					continue;
				/* twice what the pass takes, all cold */
				got = make_zeroed(zone, 2 * pool_mb);
				evict();
				served = prezeroed_events();
				ns = policy_pass(orders[oi], touches[ti], false,
						 zero_gfp, cycles);
				served = prezeroed_events() - served;
				pr_info("kscrub-bench-served: order=%u touch=%u pass=%u served=%llu of=%lu zeroed=%lu\n",
					orders[oi], touches[ti], pass, served,
					cycles << orders[oi], got);
				report("alloc-today", orders[oi], touches[ti],
				       pass, ns, cycles);
				cond_resched();
			}
		}
	}
	page_scrubber_unregister(&bench_scrubber);
	evict_free();
}

/*
 * A working set churned as a process churns it with mmap, touch and
 * munmap: @ws_mb MiB of order-0 pages taken one by one, each cleared and
 * touched as it is taken (a fault), then all given back.  This is the
 * case between the hot and the cold figures above, which the projection
 * could only bound: pages given back beyond the per-cpu list's high mark
 * drain to the buddy lists, still in the cache while the working set
 * fits in it, and stock's next round clears them cheaply, while the
 * series hands out cold zeroed pages in their place.
 *  ws-stock:       no scrubber, __GFP_ZERO: the allocator clears every
 *                  page with UML's clear_page(), as ws-today's pages that
 *                  do not come prezeroed are cleared
 *  ws-stock-stosb: no scrubber, a plain allocation cleared with rep
 *                  stosb, as x86's clear_page() clears (UML's is a memset
 *                  loop, slower when the page is in the cache): compared
 *                  with it, any error favours stock
 *  ws-today:       a scrubber registered and, between rounds, what
 *                  kscrubd does when it keeps up: the per-cpu list drained
 *                  down to the CPU's slice of the host's last-level cache
 *                  (llc_kb / llc_sharers: UML knows no cacheinfo, and its
 *                  scrubd_pcp_cache_pages() says 0),
 *                  and as much memory zeroed (non-temporal) as the round
 *                  took; __GFP_ZERO
 *  ws-today-keep1m: the same, keeping only 1 MiB (kscrubd's rule before
 *                  the drain kept the cache slice)
 * A round's time is its allocations, clears, touches and frees.
 */
static const unsigned int ws_mbs[] = { 2, 8, 24, 96 };
static const unsigned int ws_touches[] = { 1, 64 };
#define WS_PASS_MB	128	/* each timed pass takes at least this much */

enum ws_policy { WS_STOCK, WS_STOCK_STOSB, WS_TODAY, WS_TODAY_KEEP1M,
		 NR_WS_POLICIES };

static const char * const ws_name[NR_WS_POLICIES] = {
	[WS_STOCK] = "ws-stock",
	[WS_STOCK_STOSB] = "ws-stock-stosb",
	[WS_TODAY] = "ws-today",
	[WS_TODAY_KEEP1M] = "ws-today-keep1m",
};

/*
 * What ws-today keeps on the per-cpu list: the host CPU's slice of its
 * last-level cache, at least kscrubd's 1 MiB (kscrubd_pcp_keep_pages())
 */
static int ws_keep_pages(void)
{
	unsigned long slice = ((unsigned long)llc_kb << 10) /
			      max(llc_sharers, 1U);

	return max_t(int, KSCRUBD_PCP_KEEP, slice >> PAGE_SHIFT);
}

static u64 ws_round(unsigned int ws_mb, unsigned int lines, bool stosb)
{
	unsigned long i, n = (unsigned long)ws_mb << (20 - PAGE_SHIFT);
	struct page *page, *next;
	LIST_HEAD(held);
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		page = alloc_pages(stosb ? GFP_HIGHUSER_MOVABLE : zero_gfp, 0);
		if (!page)
			break;
		if (stosb)
			clear_bytes(page_address(page), PAGE_SIZE);
		touch(page_address(page), 0, lines);
		end_cycle();
		list_add_tail(&page->lru, &held);
	}
	list_for_each_entry_safe(page, next, &held, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	return i == n ? ktime_get_ns() - t0 : 0;
}

/* What kscrubd does between two rounds when it keeps up; not timed */
static void ws_kscrubd(struct zone *zone, unsigned int ws_mb, int keep)
{
	struct per_cpu_pages *pcp = raw_cpu_ptr(zone->per_cpu_pageset);

	/* kscrubd's rule (drain_zone_pcp()), for UML's one CPU */
	if (READ_ONCE(pcp->count) >= keep + KSCRUBD_PCP_MIN)
		scrubd_drain_pcp(zone, keep);
	make_zeroed(zone, ws_mb);
}

static void ws_report(const char *name, unsigned int ws, unsigned int lines,
		      unsigned int pass, u64 ns, u64 served, u64 pages)
{
	u64 x10 = div64_u64(ns * 10, pages);

	pr_info("kscrub-bench-ws: %s ws_mb=%u touch=%u pass=%u ns=%llu.%llu served=%llu of=%llu\n",
		name, ws, lines, pass, x10 / 10, x10 % 10, served, pages);
}

static int ws_policy(struct zone *zone, enum ws_policy pol)
{
	bool today = pol == WS_TODAY || pol == WS_TODAY_KEEP1M;
	int keep = pol == WS_TODAY ? ws_keep_pages() : KSCRUBD_PCP_KEEP;
	unsigned int wi, ti, pass, r;

	for (pass = 0; pass < passes; pass++) {
		for (wi = 0; wi < ARRAY_SIZE(ws_mbs); wi++) {
			unsigned int ws = ws_mbs[wi];
			unsigned int rounds = max(1U, WS_PASS_MB / ws);
			u64 pages = ((u64)rounds * ws) << (20 - PAGE_SHIFT);

			for (ti = 0; ti < ARRAY_SIZE(ws_touches); ti++) {
				u64 ns = 0, served = 0, one;

				/* round 0 only brings the steady state */
				for (r = 0; r <= rounds; r++) {
					u64 ev;

					if (today)
						ws_kscrubd(zone, ws, keep);
					ev = prezeroed_events();
					one = ws_round(ws, ws_touches[ti],
						       pol == WS_STOCK_STOSB);
					if (!one)
						return -ENOMEM;
					if (r) {
						ns += one;
						served += prezeroed_events() - ev;
					}
					cond_resched();
				}
				ws_report(ws_name[pol], ws, ws_touches[ti], pass,
					  ns, served, pages);
			}
		}
	}
	return 0;
}

static void working_set_churn(struct kunit *test)
{
	struct page *probe = alloc_pages(GFP_HIGHUSER_MOVABLE, 0);
	struct per_cpu_pages *pcp;
	struct zone *zone;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, probe);
	zone = page_zone(probe);
	__free_pages(probe, 0);
	if (want_init_on_alloc(GFP_KERNEL))
		kunit_skip(test, "boot with init_on_alloc=0");
	pcp = raw_cpu_ptr(zone->per_cpu_pageset);
	kunit_info(test, "per-cpu list high %d, high_max %d pages; ws-today keeps %lu KiB\n",
		   READ_ONCE(pcp->high), READ_ONCE(pcp->high_max),
		   (unsigned long)ws_keep_pages() << (PAGE_SHIFT - 10));

	if (ws_policy(zone, WS_STOCK) || ws_policy(zone, WS_STOCK_STOSB))
		kunit_skip(test, "no memory for the working set");
	if (page_scrubber_register(&bench_scrubber))
		kunit_skip(test, "another scrubber is registered");
	err = ws_policy(zone, WS_TODAY) ?: ws_policy(zone, WS_TODAY_KEEP1M);
	page_scrubber_unregister(&bench_scrubber);
	if (err)
		kunit_skip(test, "no memory for the working set");
}

static struct kunit_case bench_cases[] = {
	KUNIT_CASE_SLOW(page_sources_order0),
	KUNIT_CASE_SLOW(page_sources_order4),
	KUNIT_CASE_SLOW(page_sources_order9),
	KUNIT_CASE_SLOW(allocator_policies),
	KUNIT_CASE_SLOW(working_set_churn),
	{}
};

static struct kunit_suite bench_suite = {
	.name = "prezero_bench",
	.test_cases = bench_cases,
};

kunit_test_suite(bench_suite);

MODULE_DESCRIPTION("Native cost of a page by where it came from (for UML)");
MODULE_LICENSE("GPL");
