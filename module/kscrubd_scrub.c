// SPDX-License-Identifier: GPL-2.0
/*
 * One scrub pass over a node: take the highest-order not-yet-zeroed free
 * blocks out of the buddy allocator, zero them and give them back as
 * zeroed, down to vm.scrub_stop, for as long as the system lets us.
 */
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/page_prezero.h>
#include <linux/sched/loadavg.h>
#include <linux/vmstat.h>

#include "kscrubd.h"

/* Whether scrubbing is allowed right now: switched on, not under load */
bool kscrubd_may_run(void)
{
	if (!READ_ONCE(kscrub_enabled))
		return false;
	return LOAD_INT(READ_ONCE(avenrun[0])) < READ_ONCE(kscrub_load);
}

static bool should_stop(void)
{
	return kthread_should_stop() || freezing(current) || !kscrubd_may_run();
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

static bool zone_has_dirty_blocks(struct zone *zone, unsigned int order)
{
	struct free_area *area = &zone->free_area[order];

	return READ_ONCE(area->nr_free) > READ_ONCE(area->nr_zeroed);
}

static void zero_block(struct kscrubd_node *kn, struct page *page,
		       unsigned int order)
{
	unsigned long len = PAGE_SIZE << order;
	void *addr = page_address(page);
	unsigned int id = KSCRUB_ENGINE_DRIVER;
	u64 t0 = ktime_get_ns();

	if (kscrub_driver_zero(kn, addr, len)) {
		id = READ_ONCE(kscrub_engine);
		kscrub_cpu_zero(id, addr, len);
	}
	kn->stats.engine[id].pages += 1UL << order;
	kn->stats.engine[id].ns += ktime_get_ns() - t0;
}

static unsigned long scrub_zone_order(struct kscrubd_node *kn,
				      struct zone *zone, unsigned int order)
{
	unsigned long pages = 0;
	struct page *page;

	while (zone_has_dirty_blocks(zone, order) &&
	       zone_has_room(zone, order) && !should_stop()) {
		page = scrubd_rmpage(zone, order);
		if (!page)
			break;
		zero_block(kn, page, order);
		end_zero_page(page, order);
		pages += 1UL << order;
		cond_resched();
	}
	return pages;
}

static u64 engine_pages(struct kscrubd_stats *s)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < KSCRUB_NR_ENGINES; i++)
		sum += s->engine[i].pages;
	return sum;
}

/* Free pages in not-zeroed blocks of order >= vm.scrub_stop, racily */
unsigned long kscrubd_dirty_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pages = 0;
	unsigned int order;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		for (order = READ_ONCE(kscrub_stop_order);
		     order < NR_PAGE_ORDERS; order++) {
			struct free_area *area = &zone->free_area[order];
			long n = READ_ONCE(area->nr_free) -
				 READ_ONCE(area->nr_zeroed);

			if (n > 0)
				pages += n << order;
		}
	}
	return pages;
}

void kscrubd_scrub_node(struct kscrubd_node *kn)
{
	pg_data_t *pgdat = NODE_DATA(kn->nid);
	unsigned int stop = READ_ONCE(kscrub_stop_order);
	unsigned long pages = 0;
	u64 t0 = ktime_get_ns(), ns;
	int order, z;

	for (order = MAX_PAGE_ORDER; order >= (int)stop; order--) {
		for (z = MAX_NR_ZONES - 1; z >= 0; z--) {
			struct zone *zone = &pgdat->node_zones[z];

			if (populated_zone(zone))
				pages += scrub_zone_order(kn, zone, order);
		}
		if (should_stop())
			break;
	}
	kn->stats.passes++;
	if (!pages)
		return;

	ns = max_t(u64, ktime_get_ns() - t0, 1);
	pr_info_ratelimited("kscrubd%d: zeroed %lu pages (%lu MiB) in %llu.%03llu s, %llu MB/s, engine %s, total %llu pages\n",
			    kn->nid, pages, pages >> (20 - PAGE_SHIFT),
			    ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / NSEC_PER_MSEC,
			    div64_u64((u64)pages * PAGE_SIZE * 1000, ns),
			    kscrub_engine_name(READ_ONCE(kscrub_engine)),
			    engine_pages(&kn->stats));
}
