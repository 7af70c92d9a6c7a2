// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the allocator's prezeroing hooks (mm/page_prezero.c and
 * the zeroed free lists).  The suite registers a scrubber of its own, so
 * it skips when kscrubd is loaded.  Blocks are made zeroed by hand with
 * scrubd_rmpage() + memset() + end_zero_page(), and each case takes back
 * what it made, so that the zeroed lists hold only the case's blocks
 * (checked as each case ends).
 * A second suite checks the series' clear_pages() and
 * clear_user_highpages() byte by byte.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/page_prezero.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <asm/cpufeature.h>

/* Calls of the coalesced hook: all, and those below the suite's order */
static atomic_t coalesced_all, coalesced_small;

static void test_coalesced(struct page_scrubber *s, struct zone *zone,
			   unsigned int order)
{
	atomic_inc(&coalesced_all);
	if (order < MAX_PAGE_ORDER)
		atomic_inc(&coalesced_small);
}

/* Blocks the verify hook found not zero, and how many it checked */
static atomic_t verify_bad, verify_checked;

static bool test_verify(struct page_scrubber *s, struct page *page,
			unsigned int order)
{
	atomic_inc(&verify_checked);
	if (!memchr_inv(page_address(page), 0, PAGE_SIZE << order))
		return true;
	atomic_inc(&verify_bad);
	return false;
}

static struct page_scrubber test_scrubber = {
	.coalesced = test_coalesced,
	.verify = test_verify,
	.order = MAX_PAGE_ORDER,
};

static bool registered;

static u64 event_count(enum vm_event_item item)
{
	unsigned long *ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	u64 v;

	if (!ev)
		return 0;
	all_vm_events(ev);
	v = ev[item];
	kfree(ev);
	return v;
}

static bool all_zero(struct page *page, unsigned int order)
{
	return !memchr_inv(page_address(page), 0, PAGE_SIZE << order);
}

static const gfp_t mt_gfp[MIGRATE_PCPTYPES] = {
	[MIGRATE_UNMOVABLE] = GFP_KERNEL,
	[MIGRATE_MOVABLE] = GFP_HIGHUSER_MOVABLE,
	[MIGRATE_RECLAIMABLE] = GFP_KERNEL | __GFP_RECLAIMABLE,
};

/* Which zeroed list holds @page as a free block of @order, or -1 */
static int zeroed_list_of(struct zone *zone, struct page *page,
			  unsigned int order)
{
	struct free_area *area = &zone->free_area[order];
	unsigned long flags;
	struct page *p;
	int mt, found = -1;

	spin_lock_irqsave(&zone->lock, flags);
	for (mt = 0; mt < MIGRATE_TYPES && found < 0; mt++)
		list_for_each_entry(p, &area->zero_list[mt], buddy_list)
			if (p == page) {
				found = mt;
				break;
			}
	spin_unlock_irqrestore(&zone->lock, flags);
	return found;
}

/* The zone an allocation of @gfp on this node is served from */
static struct zone *alloc_zone(struct kunit *test, gfp_t gfp)
{
	struct page *p = alloc_pages_node(numa_node_id(), gfp | __GFP_THISNODE,
					  0);
	struct zone *zone;

	KUNIT_ASSERT_NOT_NULL(test, p);
	zone = page_zone(p);
	__free_pages(p, 0);
	return zone;
}

/*
 * Blocks held out of the free lists until the case ends: the upper halves
 * take_block() splits off, and buddies a case keeps from merging.  Back
 * there, they would merge with the case's block.
 */
static struct {
	struct page *page;
	unsigned int order;
} held[4 * NR_PAGE_ORDERS];
static int nr_held;

static void release_held(void)
{
	while (nr_held > 0) {
		nr_held--;
		scrubd_putback_page(held[nr_held].page, held[nr_held].order);
	}
}

/* Keep a block taken with scrubd_rmpage() out until the case ends */
static void hold_block(struct page *page, unsigned int order)
{
	if (nr_held == ARRAY_SIZE(held)) {
		scrubd_putback_page(page, order);
		return;
	}
	held[nr_held].page = page;
	held[nr_held++].order = order;
}

/*
 * Take a free block of exactly @order out of @zone, splitting a larger one
 * if need be, like expand() does.
 */
static struct page *take_block(struct kunit *test, struct zone *zone,
			       unsigned int order)
{
	unsigned int o;

	for (o = order; o <= MAX_PAGE_ORDER; o++) {
		struct page *page = scrubd_rmpage(zone, o);

		if (!page)
			continue;
		while (o > order) {
			o--;
			hold_block(page + (1 << o), o);
		}
		return page;
	}
	kunit_skip(test, "no free block of order >= %u in %s", order,
		   zone->name);
	return NULL;
}

/*
 * Make a zeroed free block of @order by hand, and say its migratetype.
 * Its buddy is held out until the case ends: the block cannot merge into
 * a larger zeroed one meanwhile, and if the case leaves it free, it merges
 * into a dirty one when the buddy goes back, rather than wait zeroed for
 * the next case (or the next load of this module) to be served it.
 */
static struct page *make_zeroed(struct kunit *test, struct zone *zone,
				unsigned int order, int *mt)
{
	struct page *page;

	if (order < MAX_PAGE_ORDER) {
		page = take_block(test, zone, order + 1);
		hold_block(page + (1 << order), order);
	} else {
		page = take_block(test, zone, order);
	}

	memset(page_address(page), 0, PAGE_SIZE << order);
	end_zero_page(page, order);
	*mt = zeroed_list_of(zone, page, order);
	KUNIT_ASSERT_GE_MSG(test, *mt, 0, "block not on a zeroed list");
	KUNIT_ASSERT_LT(test, *mt, MIGRATE_PCPTYPES);
	return page;
}

/*
 * Whether a zeroing allocation of @order takes a block from the ordinary
 * per-cpu list before a zeroed one: at order 0 and for a THP
 */
static bool pcp_goes_first(unsigned int order)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	if (order == HPAGE_PMD_ORDER)
		return true;
#endif
	return !order;
}

/*
 * The index of @mt's ordinary per-cpu list for @order, as in
 * order_to_pindex(): above PAGE_ALLOC_COSTLY_ORDER only a THP has them,
 * one list for movable THPs and one for the others.
 */
static int pcp_index(int mt, unsigned int order)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		return NR_LOWORDER_PCP_LISTS + (mt == MIGRATE_MOVABLE);
	return MIGRATE_PCPTYPES * order + mt;
}

/* @page is on top of this CPU's ordinary per-cpu list; racy */
static bool on_pcp_top(struct zone *zone, struct page *page, int mt,
		       unsigned int order)
{
	struct per_cpu_pages *pcp = raw_cpu_ptr(zone->per_cpu_pageset);

	return page_zone(page) == zone &&
	       list_first_entry_or_null(&pcp->lists[pcp_index(mt, order)],
					struct page, pcp_list) == page;
}

/*
 * A zeroing allocation of order 0 or of a THP takes this CPU's ordinary
 * per-cpu list first, where a block just freed is cache-hot, and a zeroed
 * block only when that is empty.  Empty it of @mt's blocks onto @held,
 * so that the zeroed ones come next.  The case runs on one CPU
 * (prezero_test_init()).
 */
static void hold_ordinary(struct zone *zone, int mt, unsigned int order,
			  struct list_head *held)
{
	struct per_cpu_pages *pcp = raw_cpu_ptr(zone->per_cpu_pageset);
	struct page *p;

	while (!list_empty(&pcp->lists[pcp_index(mt, order)])) {
		p = alloc_pages_node(zone_to_nid(zone),
				     mt_gfp[mt] | __GFP_THISNODE, order);
		if (!p)
			break;
		list_add(&p->lru, held);
	}
}

static void release_ordinary(struct list_head *held, unsigned int order)
{
	struct page *p, *next;

	list_for_each_entry_safe(p, next, held, lru) {
		list_del(&p->lru);
		__free_pages(p, order);
	}
}

/*
 * A zeroing allocation of @order and @mt from @zone that a zeroed block
 * serves if there is one: where the ordinary per-cpu list goes first, it
 * is held empty for the time.
 */
static struct page *alloc_zeroing(struct zone *zone, int mt,
				  unsigned int order)
{
	LIST_HEAD(held);
	struct page *p;

	if (pcp_goes_first(order))
		hold_ordinary(zone, mt, order, &held);
	p = alloc_pages_node(zone_to_nid(zone),
			     mt_gfp[mt] | __GFP_ZERO | __GFP_THISNODE, order);
	release_ordinary(&held, order);
	return p;
}

/*
 * Give the case's zeroed block to a zeroing allocation and free it, dirty,
 * so that it does not stay for the next case to find
 */
static void consume_zeroed(struct zone *zone, unsigned int order, int mt)
{
	struct page *p = alloc_zeroing(zone, mt, order);

	if (p)
		__free_pages(p, order);
}

/*
 * A zeroed block of @order on the movable list, or NULL: the block
 * take_block() finds may be of another migratetype, and a zeroed page of
 * another kind would be taken by a fallback rather than by the movable
 * allocations the callers make.
 */
static struct page *make_movable_zeroed(struct kunit *test,
					struct zone *zone, unsigned int order)
{
	struct page *page;
	int i, mt;

	for (i = 0; i < 8; i++) {
		page = make_zeroed(test, zone, order, &mt);
		if (mt == MIGRATE_MOVABLE)
			return page;
		consume_zeroed(zone, order, mt);
	}
	return NULL;
}

/*
 * A zeroing allocation of @order takes the case's zeroed block at @page,
 * skips the clear for it and hands out zeroes.
 */
static struct page *expect_served_prezeroed(struct kunit *test,
					    struct zone *zone,
					    struct page *page, int mt,
					    unsigned int order)
{
	u64 prezeroed = event_count(PGALLOC_PREZEROED);
	struct page *got = alloc_zeroing(zone, mt, order);

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_PTR_EQ(test, got, page);
	KUNIT_EXPECT_GE(test, event_count(PGALLOC_PREZEROED) - prezeroed,
			1ULL << order);
	KUNIT_EXPECT_TRUE(test, all_zero(got, order));
	return got;
}

static bool free_block_is(struct zone *zone, struct page *page,
			  unsigned int order, bool zeroed)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&zone->lock, flags);
	ret = PageBuddy(page) && page_private(page) == order &&
	      !!PageZeroed(page) == zeroed;
	spin_unlock_irqrestore(&zone->lock, flags);
	return ret;
}

static int prezero_test_init(struct kunit *test)
{
	if (!registered)
		kunit_skip(test, "another scrubber is registered");
	if (want_init_on_free())
		kunit_skip(test, "init_on_free=1: every free page is zero already");
	/* The per-cpu zeroed lists are per CPU: stay on one */
	set_cpus_allowed_ptr(current, cpumask_of(raw_smp_processor_id()));
	return 0;
}

/* Zeroed pages on the buddy lists of every zone */
static unsigned long zeroed_free_pages(void)
{
	unsigned long n = 0;
	int nid, i, mt;

	for_each_online_node(nid) {
		for (i = 0; i < MAX_NR_ZONES; i++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[i];

			if (!populated_zone(zone))
				continue;
			for (mt = 0; mt < MIGRATE_TYPES; mt++)
				n += READ_ONCE(zone->nr_free_zeroed[mt]);
		}
	}
	return n;
}

static void prezero_test_exit(struct kunit *test)
{
	release_held();
	/*
	 * Only the cases make zeroed blocks (no other scrubber can be
	 * registered): one left behind would be served to the next case
	 * ahead of that case's own.
	 */
	if (registered && !want_init_on_free())
		KUNIT_EXPECT_EQ_MSG(test, zeroed_free_pages(), 0UL,
				    "zeroed pages left behind");
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static void served_prezeroed_without_clear(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *page;
	int mt;

	page = make_zeroed(test, zone, 0, &mt);
	__free_pages(expect_served_prezeroed(test, zone, page, mt, 0), 0);
}

/*
 * A page freed on this CPU a moment ago is cache-hot: a zeroing order-0
 * allocation takes it and clears it, as without a scrubber, rather than
 * a prezeroed page that was zeroed long ago and is cold (issue 15 item 3;
 * natively 93-123 ns a cycle against 220-315 ns in two runs of make
 * native).
 */
static void hot_page_reused_before_prezeroed(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *hot, *zeroed, *got;
	u64 cleared, prezeroed;
	int mt;

	hot = alloc_pages_node(zone_to_nid(zone),
			       GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, hot);
	/* A movable zeroed page, of the same kind as the hot one */
	zeroed = make_movable_zeroed(test, zone, 0);
	if (!zeroed) {
		__free_pages(hot, 0);
		kunit_skip(test, "no movable order-0 block");
	}
	mt = MIGRATE_MOVABLE;
	memset(page_address(hot), 0x5a, PAGE_SIZE);
	__free_pages(hot, 0);

	cleared = event_count(PGALLOC_CLEARED);
	prezeroed = event_count(PGALLOC_PREZEROED);
	got = alloc_pages_node(zone_to_nid(zone),
			       GFP_HIGHUSER_MOVABLE | __GFP_ZERO |
			       __GFP_THISNODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_PTR_EQ(test, got, hot);
	KUNIT_EXPECT_TRUE(test, all_zero(got, 0));
	KUNIT_EXPECT_GE(test, event_count(PGALLOC_CLEARED) - cleared, 1ULL);
	KUNIT_EXPECT_EQ(test, event_count(PGALLOC_PREZEROED) - prezeroed, 0ULL);
	/* The prezeroed page waits for an allocation that finds no hot one */
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, zeroed, 0), mt);
	__free_pages(got, 0);
	__free_pages(expect_served_prezeroed(test, zone, zeroed, mt, 0), 0);
}

/* A not-zeroed free block of @mt in @zone, of order @from to @to */
static bool has_dirty_block(struct zone *zone, unsigned int from,
			    unsigned int to, int mt)
{
	unsigned long flags;
	unsigned int o;
	bool ret = false;

	spin_lock_irqsave(&zone->lock, flags);
	for (o = from; o <= to && !ret; o++)
		ret = !list_empty(&zone->free_area[o].free_list[mt]);
	spin_unlock_irqrestore(&zone->lock, flags);
	return ret;
}

/*
 * Take every not-zeroed free order-0 block off @zone's movable list onto
 * @dirty; scrubd_rmpage() tries the movable list first.
 */
static void hold_dirty_order0(struct zone *zone, struct list_head *dirty)
{
	struct page *p;

	while (has_dirty_block(zone, 0, 0, MIGRATE_MOVABLE) &&
	       (p = scrubd_rmpage(zone, 0)))
		list_add(&p->lru, dirty);
}

static void release_dirty(struct list_head *dirty)
{
	struct page *p, *next;

	list_for_each_entry_safe(p, next, dirty, lru) {
		list_del(&p->lru);
		scrubd_putback_page(p, 0);
	}
}

/*
 * Smallest-first holds with a scrubber registered: a plain order-0
 * allocation takes a zeroed order-0 block rather than split a larger
 * not-zeroed one (issue 15 item 4; before, plain allocations took
 * not-zeroed blocks first at every order, and split a dirty pageblock
 * while a zeroed page sat idle).
 */
static void plain_alloc_takes_smallest_fit(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	const int mt = MIGRATE_MOVABLE;
	LIST_HEAD(dirty);
	LIST_HEAD(held);
	struct page *page, *got;

	if (want_init_on_alloc(GFP_KERNEL))
		kunit_skip(test, "init_on_alloc=1: every allocation wants zeroed memory");
	page = make_movable_zeroed(test, zone, 0);
	if (!page)
		kunit_skip(test, "no movable order-0 block");
	hold_dirty_order0(zone, &dirty);
	if (!has_dirty_block(zone, 1, MAX_PAGE_ORDER, mt)) {
		release_dirty(&dirty);
		consume_zeroed(zone, 0, mt);
		kunit_skip(test, "no larger not-zeroed movable block to tell");
	}
	/* The per-cpu list next: an empty one refills from the buddy lists */
	hold_ordinary(zone, mt, 0, &held);
	got = alloc_pages_node(zone_to_nid(zone), mt_gfp[mt] | __GFP_THISNODE,
			       0);
	release_ordinary(&held, 0);
	release_dirty(&dirty);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_PTR_EQ(test, got, page);
	__free_pages(got, 0);
	if (got != page)
		consume_zeroed(zone, 0, mt);
}

/*
 * The zeroed per-cpu list is refilled with zeroed blocks only where one is
 * the smallest fit: with a not-zeroed order-0 block free and a zeroed one
 * of order 1, a zeroing order-0 allocation takes a not-zeroed page and
 * clears it (before, the refill split the zeroed block, and larger ones,
 * while exact fits stayed free).
 */
static void zeroed_refill_takes_smallest_fit(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	const int mt = MIGRATE_MOVABLE;
	u64 cleared, prezeroed;
	struct page *page, *got;
	LIST_HEAD(held);

	page = make_movable_zeroed(test, zone, 1);
	if (!page)
		kunit_skip(test, "no movable order-1 block");
	if (!has_dirty_block(zone, 0, 0, mt)) {
		consume_zeroed(zone, 1, mt);
		kunit_skip(test, "no not-zeroed movable order-0 block");
	}
	hold_ordinary(zone, mt, 0, &held);
	cleared = event_count(PGALLOC_CLEARED);
	prezeroed = event_count(PGALLOC_PREZEROED);
	got = alloc_pages_node(zone_to_nid(zone),
			       mt_gfp[mt] | __GFP_ZERO | __GFP_THISNODE, 0);
	release_ordinary(&held, 0);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_TRUE(test, all_zero(got, 0));
	KUNIT_EXPECT_GE(test, event_count(PGALLOC_CLEARED) - cleared, 1ULL);
	KUNIT_EXPECT_EQ(test, event_count(PGALLOC_PREZEROED) - prezeroed, 0ULL);
	/*
	 * Not a half of the zeroed block.  The ordinary list's refill may
	 * have taken the block after the dirty pages, as smallest-first
	 * does, so whether it is still free says nothing.
	 */
	KUNIT_EXPECT_TRUE(test, got != page && got != page + 1);
	__free_pages(got, 0);
	if (zeroed_list_of(zone, page, 1) == mt)
		consume_zeroed(zone, 1, mt);
}

/*
 * A zeroing allocation of pageblock_order goes to the buddy lists where a
 * zeroed block of its order or larger is there, and from pageblock_order
 * up it splits a larger zeroed block rather than clear a dirty exact fit
 * (below that order, the exact fit wins: zeroed_refill_takes_smallest_fit).
 */
static void split_keeps_mark_merge_loses_it(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	const unsigned int order = pageblock_order;
	const unsigned long half = 1UL << order;
	struct page *page, *got;
	int mt;

	if (order >= MAX_PAGE_ORDER)
		kunit_skip(test, "no order above pageblock_order");
	page = make_zeroed(test, zone, order + 1, &mt);
	got = expect_served_prezeroed(test, zone, page, mt, order);
	/* The other half is still a zeroed free block */
	KUNIT_EXPECT_TRUE(test, free_block_is(zone, page + half, order, true));

	/*
	 * Freed dirty, the lower half merges with it into a dirty block,
	 * once it leaves the per-cpu THP list it is freed to
	 */
	memset(page_address(got), 0x5a, PAGE_SIZE << order);
	__free_pages(got, order);
	scrubd_drain_pcp(zone, 0);
	KUNIT_EXPECT_FALSE(test, PageZeroed(page));
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, page + half, order), -1);
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, page, order + 1), -1);
}

static void merge_of_zeroed_halves_is_zeroed(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *page = take_block(test, zone, 5);
	int mt;

	memset(page_address(page), 0, PAGE_SIZE << 5);
	end_zero_page(page, 4);
	KUNIT_EXPECT_TRUE(test, free_block_is(zone, page, 4, true));
	end_zero_page(page + 16, 4);
	KUNIT_EXPECT_TRUE(test, free_block_is(zone, page, 5, true));
	mt = zeroed_list_of(zone, page, 5);
	KUNIT_EXPECT_GE(test, mt, 0);
	if (mt >= 0 && mt < MIGRATE_PCPTYPES)
		consume_zeroed(zone, 5, mt);
}

static void putback_unzeroed_stays_dirty(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *page = take_block(test, zone, 3);

	scrubd_putback_page(page, 3);
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, page, 3), -1);
}

/* Under zone->lock: the lists, the flags and the counters agree */
static void counters_equal_lists(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	unsigned int order, orders[] = { 0, 3, 9 };
	unsigned long flags, listed = 0, exact;
	int mt, i, made[ARRAY_SIZE(orders)];
	bool flags_ok = true, nr_ok = true;
	long counted;

	/* Some zeroed blocks, so that there is something to count */
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		make_zeroed(test, zone, orders[i], &made[i]);

	spin_lock_irqsave(&zone->lock, flags);
	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		struct free_area *area = &zone->free_area[order];
		unsigned long n = 0;
		struct page *p;

		for (mt = 0; mt < MIGRATE_TYPES; mt++) {
			list_for_each_entry(p, &area->zero_list[mt], buddy_list) {
				flags_ok &= PageBuddy(p) && PageZeroed(p);
				n++;
			}
			list_for_each_entry(p, &area->free_list[mt], buddy_list)
				flags_ok &= !PageZeroed(p);
		}
		nr_ok &= n == area->nr_zeroed;
		listed += n << order;
	}
	counted = zone_page_state_snapshot(zone, NR_FREE_ZEROED_PAGES);
	exact = 0;
	for (mt = 0; mt < MIGRATE_TYPES; mt++)
		exact += zone->nr_free_zeroed[mt];
	spin_unlock_irqrestore(&zone->lock, flags);

	KUNIT_EXPECT_TRUE_MSG(test, flags_ok, "PG_zeroed does not match the list");
	KUNIT_EXPECT_TRUE_MSG(test, nr_ok, "free_area::nr_zeroed is off");
	KUNIT_EXPECT_EQ(test, (long)listed, counted);
	KUNIT_EXPECT_EQ(test, listed, exact);

	for (i = 0; i < ARRAY_SIZE(orders); i++)
		consume_zeroed(zone, orders[i], made[i]);
}

/*
 * A planted fault: a block given back through end_zero_page() with one
 * non-zero byte, as a buggy scrubber or engine would.  The verify hook
 * must see it before the block is handed out, and the allocator must
 * then clear it; if either fails, a process gets another's data.
 */
static void planted_byte_is_caught(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *page = take_block(test, zone, 0), *got = NULL;
	int bad = atomic_read(&verify_bad), mt, i, n = 0;
	struct page **others;
	LIST_HEAD(held);

	others = kunit_kcalloc(test, 1024, sizeof(*others), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, others);
	memset(page_address(page), 0, PAGE_SIZE);
	((u8 *)page_address(page))[PAGE_SIZE / 2 + 3] = 0x5a;
	end_zero_page(page, 0);
	mt = zeroed_list_of(zone, page, 0);
	KUNIT_ASSERT_GE(test, mt, 0);
	KUNIT_ASSERT_LT(test, mt, MIGRATE_PCPTYPES);

	/*
	 * Earlier cases may have left zeroed pages on this CPU's per-cpu
	 * zeroed list, which come first: allocate until the planted one.
	 */
	hold_ordinary(zone, mt, 0, &held);
	while (n < 1024) {
		got = alloc_pages_node(zone_to_nid(zone),
				       mt_gfp[mt] | __GFP_ZERO | __GFP_THISNODE,
				       0);
		if (!got || got == page)
			break;
		KUNIT_EXPECT_TRUE(test, all_zero(got, 0));
		others[n++] = got;
	}
	for (i = 0; i < n; i++)
		__free_pages(others[i], 0);
	release_ordinary(&held, 0);
	KUNIT_ASSERT_PTR_EQ(test, got, page);
	KUNIT_EXPECT_EQ(test, atomic_read(&verify_bad) - bad, 1);
	KUNIT_EXPECT_TRUE(test, all_zero(got, 0));
	__free_pages(got, 0);
}

/*
 * A zeroing THP allocation goes to the buddy lists only for a zeroed block
 * of its order or larger.  Zeroed pages in smaller blocks do not count:
 * the THP this CPU has just freed, on its per-cpu list, is taken as it
 * would be without a scrubber (and not a dirty block from the buddy lists,
 * cleared all the same).
 */
static void thp_needs_zeroed_block_of_its_order(struct kunit *test)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	const unsigned int order = pageblock_order, q = order - 1;
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	int nid = zone_to_nid(zone), mt[2], i;
	struct page *blk, *thp, *got;
	bool on_pcp;

	/*
	 * 512 zeroed pages in two blocks of half a THP, each with its buddy
	 * held out dirty, so that neither merges into a zeroed THP
	 */
	blk = take_block(test, zone, order + 1);
	for (i = 0; i < 2; i++) {
		struct page *half = blk + (i << order);

		memset(page_address(half), 0, PAGE_SIZE << q);
		hold_block(half + (1 << q), q);
		end_zero_page(half, q);
		mt[i] = zeroed_list_of(zone, half, q);
	}
	if (mt[0] != MIGRATE_MOVABLE || mt[1] != MIGRATE_MOVABLE) {
		for (i = 0; i < 2; i++)
			if (mt[i] >= 0 && mt[i] < MIGRATE_PCPTYPES)
				consume_zeroed(zone, q, mt[i]);
		kunit_skip(test, "the zeroed halves are not movable");
	}

	thp = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE,
			       order);
	KUNIT_ASSERT_NOT_NULL(test, thp);
	__free_pages(thp, order);
	on_pcp = on_pcp_top(zone, thp, MIGRATE_MOVABLE, order);

	got = on_pcp ? alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE |
					     __GFP_ZERO | __GFP_THISNODE, order) :
		       NULL;
	if (got) {
		KUNIT_EXPECT_PTR_EQ(test, got, thp);
		KUNIT_EXPECT_TRUE(test, all_zero(got, order));
		__free_pages(got, order);
	}
	consume_zeroed(zone, q, mt[0]);
	consume_zeroed(zone, q, mt[1]);
	if (!on_pcp)
		kunit_skip(test, "the freed THP did not stay on this CPU's list");
	KUNIT_EXPECT_NOT_NULL(test, got);
#else
	kunit_skip(test, "CONFIG_TRANSPARENT_HUGEPAGE is off");
#endif
}

/*
 * A THP freed on this CPU a moment ago is taken before a zeroed block, as
 * a page is at order 0: touched everywhere, a hot 2 MiB block cleared
 * costs 53-56 us natively against 73-77 us for a cold prezeroed one
 * (make native, User-mode Linux on an AMD EPYC).  The zeroed block waits
 * for a THP allocation that finds the per-cpu list empty.
 */
static void hot_thp_reused_before_prezeroed(struct kunit *test)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	const unsigned int order = HPAGE_PMD_ORDER;
	const int mt = MIGRATE_MOVABLE;
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	int nid = zone_to_nid(zone);
	struct page *hot, *zeroed, *got;
	u64 cleared, prezeroed;

	hot = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE,
			       order);
	KUNIT_ASSERT_NOT_NULL(test, hot);
	zeroed = make_movable_zeroed(test, zone, order);
	if (!zeroed) {
		__free_pages(hot, order);
		kunit_skip(test, "no movable block of order %u", order);
	}
	memset(page_address(hot), 0x5a, PAGE_SIZE << order);
	/*
	 * Counted before the free: event_count()'s own kfree() may drain
	 * the per-cpu lists, THP and all, when they are over their high mark
	 */
	cleared = event_count(PGALLOC_CLEARED);
	prezeroed = event_count(PGALLOC_PREZEROED);
	__free_pages(hot, order);
	got = on_pcp_top(zone, hot, mt, order) ?
	      alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_ZERO |
			       __GFP_THISNODE, order) : NULL;
	if (!got) {
		consume_zeroed(zone, order, mt);
		kunit_skip(test, "the freed THP did not stay on this CPU's list");
	}
	KUNIT_EXPECT_PTR_EQ(test, got, hot);
	KUNIT_EXPECT_TRUE(test, all_zero(got, order));
	KUNIT_EXPECT_GE(test, event_count(PGALLOC_CLEARED) - cleared,
			1ULL << order);
	KUNIT_EXPECT_EQ(test, event_count(PGALLOC_PREZEROED) - prezeroed, 0ULL);
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, zeroed, order), mt);
	/* Kept out, so that the per-cpu list is empty for the next one */
	__free_pages(expect_served_prezeroed(test, zone, zeroed, mt, order),
		     order);
	__free_pages(got, order);
#else
	kunit_skip(test, "CONFIG_TRANSPARENT_HUGEPAGE is off");
#endif
}

/*
 * memory_failure() on a page of a block out for zeroing finds it neither
 * allocated nor free: it sets PG_hwpoison and leaves the page to us.  On
 * its way back the page stays out, as take_page_off_buddy() leaves one,
 * and the rest of the block is free and still zeroed.
 */
static void poisoned_while_out_stays_out(struct kunit *test)
{
	struct zone *zone = alloc_zone(test, GFP_HIGHUSER_MOVABLE);
	struct page *page, *bad;
	bool kept_out;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "CONFIG_MEMORY_FAILURE is off");
	page = take_block(test, zone, 2);
	bad = page + 1;
	memset(page_address(page), 0, PAGE_SIZE << 2);
	SetPageHWPoison(bad);
	end_zero_page(page, 2);

	kept_out = page_count(bad) == 1;
	KUNIT_EXPECT_TRUE(test, kept_out);
	KUNIT_EXPECT_TRUE(test, free_block_is(zone, page, 0, true));
	KUNIT_EXPECT_TRUE(test, free_block_is(zone, page + 2, 1, true));

	/* Unpoison by hand, then let it merge the rest back into one block */
	ClearPageHWPoison(bad);
	if (kept_out) {
		set_page_private(bad, 0);
		__free_pages(bad, 0);
		scrubd_drain_pcp(zone, 0);
	}
	KUNIT_EXPECT_EQ(test, page_count(bad), 0);
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, page, 0), -1);
	KUNIT_EXPECT_EQ(test, zeroed_list_of(zone, page + 2, 1), -1);
}

/*
 * __free_one_page() tests the scrubber's order inline, from a copy that
 * page_scrubber_set_order() keeps; both directions must take effect.
 * Order 4 is above PAGE_ALLOC_COSTLY_ORDER: it is freed straight to the
 * buddy lists, not to a per-cpu list.
 */
static void set_order_moves_threshold(struct kunit *test)
{
	int nid = numa_node_id();
	struct page *page;
	int calls;

	page = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 4);
	if (!page)
		kunit_skip(test, "no free order-4 block on node %d", nid);
	page_scrubber_set_order(&test_scrubber, 4);
	calls = atomic_read(&coalesced_all);
	__free_pages(page, 4);
	KUNIT_EXPECT_GT(test, atomic_read(&coalesced_all), calls);

	page_scrubber_set_order(&test_scrubber, MAX_PAGE_ORDER);
	/* Frees run with interrupts off: this waits for any still testing 4 */
	synchronize_rcu();
	page = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 4);
	if (!page)
		kunit_skip(test, "no free order-4 block on node %d", nid);
	calls = atomic_read(&coalesced_small);
	__free_pages(page, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&coalesced_small), calls);
}

static void second_scrubber_is_busy(struct kunit *test)
{
	struct page_scrubber other = { .coalesced = test_coalesced };

	KUNIT_EXPECT_EQ(test, page_scrubber_register(&other), -EBUSY);
}

static int prezero_suite_init(struct kunit_suite *suite)
{
	registered = !page_scrubber_register(&test_scrubber);
	return 0;
}

static void prezero_suite_exit(struct kunit_suite *suite)
{
	if (registered)
		page_scrubber_unregister(&test_scrubber);
	registered = false;
}

static struct kunit_case prezero_cases[] = {
	KUNIT_CASE(served_prezeroed_without_clear),
	KUNIT_CASE(hot_page_reused_before_prezeroed),
	KUNIT_CASE(plain_alloc_takes_smallest_fit),
	KUNIT_CASE(zeroed_refill_takes_smallest_fit),
	KUNIT_CASE(split_keeps_mark_merge_loses_it),
	KUNIT_CASE(merge_of_zeroed_halves_is_zeroed),
	KUNIT_CASE(putback_unzeroed_stays_dirty),
	KUNIT_CASE(counters_equal_lists),
	KUNIT_CASE(planted_byte_is_caught),
	KUNIT_CASE(thp_needs_zeroed_block_of_its_order),
	KUNIT_CASE(hot_thp_reused_before_prezeroed),
	KUNIT_CASE(poisoned_while_out_stays_out),
	KUNIT_CASE(set_order_moves_threshold),
	KUNIT_CASE(second_scrubber_is_busy),
	{}
};

static struct kunit_suite prezero_suite = {
	.name = "page_prezero",
	.init = prezero_test_init,
	.exit = prezero_test_exit,
	.suite_init = prezero_suite_init,
	.suite_exit = prezero_suite_exit,
	.test_cases = prezero_cases,
};

/*
 * The @order pages at @page are part of a free block marked zeroed (they
 * may have merged into a larger one), and read all zero.  Under
 * zone->lock, so that nobody allocates them while they are read; free
 * memory is poisoned for KASAN, and this read is on purpose.  With
 * debug_pagealloc free memory is unmapped, and only the mark is checked.
 */
static bool free_block_reads_zero(struct zone *zone, struct page *page,
				  unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), flags;
	struct page *head = NULL;
	unsigned int o;
	bool ret;

	spin_lock_irqsave(&zone->lock, flags);
	for (o = order; o < NR_PAGE_ORDERS && !head; o++) {
		struct page *h = pfn_to_page(pfn & ~((1UL << o) - 1));

		if (PageBuddy(h) && page_private(h) >= o)
			head = h;
	}
	ret = head && PageZeroed(head);
	if (ret && !debug_pagealloc_enabled_static()) {
		kasan_disable_current();
		ret = all_zero(page, order);
		kasan_enable_current();
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return ret;
}

static int init_on_free_test_init(struct kunit *test)
{
	if (!want_init_on_free())
		kunit_skip(test, "needs init_on_free=1");
	if (!registered)
		kunit_skip(test, "another scrubber is registered");
	return 0;
}

/*
 * Under init_on_free a zeroing allocation does not clear: every free page
 * must be zero, a block that a scrubber wrote to and gave back unzeroed
 * too.  All free blocks are zeroed here, so scrubd_rmpage() finds none;
 * an allocated block with its reference dropped stands in for one it took
 * out (neither is on a list, nor PageBuddy, and both have no reference).
 */
static void putback_dirty_is_cleared(struct kunit *test)
{
	struct page *page = alloc_pages(GFP_HIGHUSER_MOVABLE, 3);
	struct zone *zone;

	KUNIT_ASSERT_NOT_NULL(test, page);
	zone = page_zone(page);
	memset(page_address(page), 0x5a, PAGE_SIZE << 3);
	set_page_count(page, 0);
	scrubd_putback_page(page, 3);
	KUNIT_EXPECT_TRUE(test, free_block_reads_zero(zone, page, 3));
}

static struct kunit_case init_on_free_cases[] = {
	KUNIT_CASE(putback_dirty_is_cleared),
	{}
};

static struct kunit_suite init_on_free_suite = {
	.name = "page_prezero_init_on_free",
	.init = init_on_free_test_init,
	.exit = prezero_test_exit,
	.suite_init = prezero_suite_init,
	.suite_exit = prezero_suite_exit,
	.test_cases = init_on_free_cases,
};

/*
 * clear_pages() (patch 4, backported from Linux 7.0) clears exactly the
 * run it is given: poison a block, clear all but its first and last page,
 * and look at every byte.
 */
static void check_run_cleared(struct kunit *test, void *addr,
			      unsigned int npages)
{
	unsigned long run = (unsigned long)npages * PAGE_SIZE;

	KUNIT_EXPECT_NULL(test, memchr_inv(addr, 0xa5, PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, memchr_inv(addr + PAGE_SIZE, 0, run));
	KUNIT_EXPECT_NULL(test, memchr_inv(addr + PAGE_SIZE + run, 0xa5,
					   PAGE_SIZE));
}

static void clear_run(struct kunit *test, unsigned int order, bool user)
{
	unsigned int npages = (1U << order) - 2;
	struct page *page;
	void *addr;

	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	if (!page)
		kunit_skip(test, "no free block of order %u", order);
	addr = page_address(page);
	memset(addr, 0xa5, PAGE_SIZE << order);
	if (user)
		clear_user_highpages(nth_page(page, 1), 0x400000, npages);
	else
		clear_pages(addr + PAGE_SIZE, npages);
	check_run_cleared(test, addr, npages);
	__free_pages(page, order);
}

static void clear_pages_short_run(struct kunit *test)
{
	kunit_info(test, "clear_pages() uses %s\n",
		   boot_cpu_has(X86_FEATURE_ERMS) ? "rep stosb" :
		   boot_cpu_has(X86_FEATURE_REP_GOOD) ? "rep stosq" :
		   "unrolled stores");
	clear_run(test, 2, false);
}

/* 510 pages in one call: a count far beyond one page's */
static void clear_pages_long_run(struct kunit *test)
{
	clear_run(test, 9, false);
}

/* What folio_zero_user() now calls for a THP that did not come zeroed */
static void clear_user_highpages_run(struct kunit *test)
{
	clear_run(test, 9, true);
}

static struct kunit_case clear_pages_cases[] = {
	KUNIT_CASE(clear_pages_short_run),
	KUNIT_CASE(clear_pages_long_run),
	KUNIT_CASE(clear_user_highpages_run),
	{}
};

static struct kunit_suite clear_pages_suite = {
	.name = "clear_pages",
	.test_cases = clear_pages_cases,
};

kunit_test_suites(&prezero_suite, &init_on_free_suite, &clear_pages_suite);

MODULE_DESCRIPTION("KUnit tests for page prezeroing");
MODULE_LICENSE("GPL");
