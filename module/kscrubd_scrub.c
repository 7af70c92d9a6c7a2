// SPDX-License-Identifier: GPL-2.0
/*
 * One scrub pass over a node: take the highest-order not-yet-zeroed free
 * blocks out of the buddy allocator, zero them and give them back as
 * zeroed, down to vm.scrub_stop, for as long as the system lets us.
 */
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/page_prezero.h>
#include <linux/sched/loadavg.h>
#include <linux/vmstat.h>

#include "kscrubd.h"

/* Whether a pass may run now: KSCRUBD_PASS_DONE, or what stops it */
enum kscrubd_pass_end kscrubd_may_run(void)
{
	return kscrubd_why_stop(READ_ONCE(kscrub_enabled),
				READ_ONCE(kscrub_load), READ_ONCE(avenrun[0]),
				freezing(current));
}

static bool should_stop(void)
{
	return kthread_should_stop() || kscrubd_may_run() != KSCRUBD_PASS_DONE;
}

/*
 * Leave the zone alone near its watermarks: zeroing ahead of time is
 * worth nothing if it makes an allocation wait or wakes kswapd.
 */
static bool zone_has_room(struct zone *zone, unsigned int order)
{
	return zone_page_state(zone, NR_FREE_PAGES) >
	       high_wmark_pages(zone) + (2UL << order);
}

/* The zone's zeroed free pages, exactly (the vmstat counter lags) */
static unsigned long zone_zeroed_pages(struct zone *zone)
{
	unsigned long sum = 0;
	int mt;

	for (mt = 0; mt < MIGRATE_TYPES; mt++)
		sum += READ_ONCE(zone->nr_free_zeroed[mt]);
	return sum;
}

/* The zone's share of vm.scrub_reserve_mb, in pages */
unsigned long kscrubd_zone_reserve(struct zone *zone)
{
	return kscrubd_reserve_share(READ_ONCE(kscrub_reserve_mb),
				     zone_managed_pages(zone),
				     totalram_pages());
}

/*
 * Where page reporting drops the mark of what it reports, keep no more
 * zeroed than the zone's share of the reserve: page reporting leaves
 * that much alone (kscrubd's report_reserve), and it would throw the
 * rest away.  Whole blocks only, so that no block is zeroed just to be
 * reported.
 */
static bool zone_reserve_has_room(struct zone *zone, unsigned int order)
{
	unsigned int reporting_order;

	if (scrubd_reporting(&reporting_order) != SCRUBD_REPORTING_DISCARDS)
		return true;
	return zone_zeroed_pages(zone) + (1UL << order) <=
	       kscrubd_zone_reserve(zone);
}

static bool zone_has_dirty_blocks(struct zone *zone, unsigned int order)
{
	struct free_area *area = &zone->free_area[order];

	return READ_ONCE(area->nr_free) > READ_ONCE(area->nr_zeroed);
}

/*
 * Each engine is charged only the time it spent on the blocks it zeroed:
 * a driver that failed or timed out does not make the CPU engine that
 * then zeroed the block look slow.
 */
static void zero_block(struct kscrubd_node *kn, struct page *page,
		       unsigned int order)
{
	unsigned long len = PAGE_SIZE << order;
	void *addr = page_address(page);
	unsigned int id = KSCRUB_ENGINE_DRIVER;
	u64 t0 = ktime_get_ns(), t1;
	int ret;

	ret = kscrub_driver_zero(kn, kn->nid, addr, len);
	t1 = ktime_get_ns();
	if (ret) {
		if (ret != -ENODEV)
			kn->stats.driver_lost_ns += t1 - t0;
		t0 = t1;
		id = kscrub_engine_for(READ_ONCE(kscrub_engine), order);
		kscrub_cpu_zero(id, addr, len);
	}
	kn->stats.engine[id].pages += 1UL << order;
	kn->stats.order_pages[id][order] += 1UL << order;
	kn->stats.engine[id].ns += ktime_get_ns() - t0;
}

/* The highest order a pass zeroes, after what page reporting does */
static int pass_top_order(void)
{
	unsigned int reporting_order = 0;
	enum scrubd_reporting reporting = scrubd_reporting(&reporting_order);

	return kscrubd_top_order(reporting, reporting_order);
}

/*
 * Free pages in blocks kscrubd can zero (of order vm.scrub_stop up to
 * what the host leaves it, pass_top_order()), and how many of them are
 * zeroed; racily
 */
void kscrubd_node_pages(int nid, unsigned long *zeroable,
			unsigned long *zeroed)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int order, top = pass_top_order();
	int z;

	*zeroable = 0;
	*zeroed = 0;
	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		for (order = READ_ONCE(kscrub_stop_order); order <= top;
		     order++) {
			struct free_area *area = &zone->free_area[order];
			unsigned long n = READ_ONCE(area->nr_free);

			*zeroable += n << order;
			*zeroed += min(n, READ_ONCE(area->nr_zeroed)) << order;
		}
	}
}

static bool node_reached_high(int nid)
{
	unsigned long zeroable, zeroed;

	kscrubd_node_pages(nid, &zeroable, &zeroed);
	return kscrubd_reached_high(zeroed, zeroable,
				    READ_ONCE(kscrub_high_pct));
}

/*
 * Keep the pass within vm.scrub_rate pages per second: sleep until the
 * pages zeroed since pacing began are due, a tenth of a second at a time
 * so that a stop, a freeze or a new rate is seen.  A new rate paces from
 * now, not from what was zeroed before it.
 */
static void pace(struct kscrubd_node *kn, unsigned long pages)
{
	unsigned int rate = READ_ONCE(kscrub_rate);
	u64 delay, t;

	if (rate != kn->pace_rate) {
		kn->pace_rate = rate;
		kn->pace_t0 = ktime_get_ns();
		kn->pace_pages = 0;
	}
	kn->pace_pages += pages;
	for (;;) {
		t = ktime_get_ns();
		delay = kscrubd_rate_delay(kn->pace_pages, t - kn->pace_t0,
					   rate);
		if (!delay || should_stop())
			break;
		delay = min_t(u64, delay, NSEC_PER_SEC / 10);
		schedule_timeout_idle(max(1UL, nsecs_to_jiffies(delay)));
		kn->stats.paced_ns += ktime_get_ns() - t;
		if (READ_ONCE(kscrub_rate) != rate)
			break;
	}
}

/* Pages on the zone's per-cpu lists beyond what each CPU keeps; racy */
static unsigned long zone_pcp_excess(struct zone *zone, int keep)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		int n = READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count);

		if (n > keep)
			sum += n - keep;
	}
	return sum;
}

/*
 * 6.12 tunes a per-cpu list up to a large part of its zone under a
 * free-heavy load (122 MiB of a 1 GiB zone in a map/touch/unmap loop),
 * where freed pages wait, dirty, until they drain: allocations then take
 * them and clear them instead of prezeroed ones.
 */
static void drain_zone_pcp(struct kscrubd_node *kn, struct zone *zone)
{
	int keep = kscrubd_pcp_keep_pages(scrubd_pcp_cache_pages());

	if (zone_pcp_excess(zone, keep) < KSCRUBD_PCP_MIN)
		return;
	kn->stats.pcp_drained += scrubd_drain_pcp(zone, keep);
	kn->look_again = true;
}

static unsigned long scrub_zone_order(struct kscrubd_node *kn,
				      struct zone *zone, unsigned int order)
{
	unsigned long pages = 0;
	struct page *page;

	while (zone_has_dirty_blocks(zone, order) &&
	       zone_has_room(zone, order) &&
	       zone_reserve_has_room(zone, order) && !should_stop() &&
	       !node_reached_high(kn->nid)) {
		page = scrubd_rmpage(zone, order);
		if (!page)
			break;
		zero_block(kn, page, order);
		end_zero_page(page, order);
		pages += 1UL << order;
		pace(kn, 1UL << order);
		cond_resched();
	}
	return pages;
}

/**
 * kscrubd_scrub_node - one pass over a node
 * @kn: the node
 *
 * Return: KSCRUBD_PASS_DONE if the pass ran to its end, else what cut it
 * short, so that the thread knows when to try again.
 */
enum kscrubd_pass_end kscrubd_scrub_node(struct kscrubd_node *kn)
{
	pg_data_t *pgdat = NODE_DATA(kn->nid);
	unsigned int stop = READ_ONCE(kscrub_stop_order);
	unsigned long pages = 0, zeroable, zeroed, zeroed_at_start;
	enum kscrubd_pass_end end;
	u64 t0 = ktime_get_ns();
	int order, z;

	kn->look_again = false;
	kscrubd_node_pages(kn->nid, &zeroable, &zeroed_at_start);
	/*
	 * Hysteresis: a node that reached the high mark restarts only below
	 * the low one; between them a wake-up leaves it at that
	 */
	if (kn->above_high &&
	    !kscrubd_below_low(zeroed_at_start, zeroable,
			       READ_ONCE(kscrub_low_pct))) {
		kn->stats.held++;
		return KSCRUBD_PASS_DONE;
	}
	kn->above_high = false;
	/* Pace each pass from its start: time asleep is no credit */
	kn->pace_rate = READ_ONCE(kscrub_rate);
	kn->pace_t0 = ktime_get_ns();
	kn->pace_pages = 0;
	kscrubd_summary_open(kn);
	for (z = 0; z < MAX_NR_ZONES; z++)
		if (populated_zone(&pgdat->node_zones[z]))
			drain_zone_pcp(kn, &pgdat->node_zones[z]);

	for (order = pass_top_order(); order >= (int)stop; order--) {
		for (z = MAX_NR_ZONES - 1; z >= 0; z--) {
			struct zone *zone = &pgdat->node_zones[z];

			if (populated_zone(zone))
				pages += scrub_zone_order(kn, zone, order);
		}
		if (should_stop())
			break;
	}
	kn->stats.passes++;
	/*
	 * Pages just freed wait on the per-cpu lists, where they form no
	 * coalesce to wake us: look again soon while there is work, or
	 * zeroed memory is being taken (kscrubd_look_again()).
	 */
	if (kscrubd_look_again(pages, kn->zeroed_seen, zeroed_at_start))
		kn->look_again = true;
	kscrubd_node_pages(kn->nid, &zeroable, &zeroed);
	kn->zeroed_seen = zeroed;
	kn->above_high = kscrubd_reached_high(zeroed, zeroable,
					      READ_ONCE(kscrub_high_pct));
	end = kthread_should_stop() ? KSCRUBD_PASS_DONE : kscrubd_may_run();
	if (end != KSCRUBD_PASS_DONE)
		kn->stats.passes_cut++;
	kscrubd_summary_add(kn, pages, ktime_get_ns() - t0);
	return end;
}
