// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of kscrubd's decisions: when a pass may run, when the thread
 * looks again, the hysteresis marks and the rate cap, which knob values it
 * takes.  The code under test is
 * compiled in from kscrubd_policy.c, as mm/damon's tests include theirs,
 * so the suite needs no exported symbol and does not start kscrubd.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "kscrubd_policy.c"

static const unsigned long busy = 3 * FIXED_1;	/* load average 3.0 */

static void may_run_when_idle(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kscrubd_why_stop(1, 999, busy, false),
			KSCRUBD_PASS_DONE);
	KUNIT_EXPECT_EQ(test, kscrubd_why_stop(1, 4, busy, false),
			KSCRUBD_PASS_DONE);
}

/* A pass cut short by the load average is retried, not forgotten */
static void loaded_pass_is_retried(struct kunit *test)
{
	enum kscrubd_pass_end end = kscrubd_why_stop(1, 3, busy, false);

	KUNIT_EXPECT_EQ(test, end, KSCRUBD_PASS_LOADED);
	KUNIT_EXPECT_EQ(test, kscrubd_next_timeout(end, false), 10L * HZ);
}

/* One cut short by the freezer runs again as soon as the thread thaws */
static void frozen_pass_is_retried_at_once(struct kunit *test)
{
	enum kscrubd_pass_end end = kscrubd_why_stop(1, 999, 0, true);

	KUNIT_EXPECT_EQ(test, end, KSCRUBD_PASS_FROZEN);
	KUNIT_EXPECT_LE(test, kscrubd_next_timeout(end, false), 1L);
	KUNIT_EXPECT_GT(test, kscrubd_next_timeout(end, false), 0L);
}

/* scrub_load=0 and scrub_enabled=0 mean never: no timer wake-ups */
static void switched_off_sleeps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kscrubd_why_stop(1, 0, 0, false),
			KSCRUBD_PASS_OFF);
	KUNIT_EXPECT_EQ(test, kscrubd_why_stop(0, 999, 0, false),
			KSCRUBD_PASS_OFF);
	KUNIT_EXPECT_EQ(test, kscrubd_why_stop(0, 999, 0, true),
			KSCRUBD_PASS_OFF);
	KUNIT_EXPECT_EQ(test, kscrubd_next_timeout(KSCRUBD_PASS_OFF, false),
			MAX_SCHEDULE_TIMEOUT);
	KUNIT_EXPECT_EQ(test, kscrubd_next_timeout(KSCRUBD_PASS_OFF, true),
			MAX_SCHEDULE_TIMEOUT);
	KUNIT_EXPECT_EQ(test, kscrubd_next_timeout(KSCRUBD_PASS_DONE, false),
			MAX_SCHEDULE_TIMEOUT);
}

/*
 * A finished pass that drained per-cpu lists looks again within a second,
 * as pages freed onto them wake nobody; one that did not sleeps until woken
 */
static void pcp_drain_looks_again(struct kunit *test)
{
	long t = kscrubd_next_timeout(KSCRUBD_PASS_DONE, true);

	KUNIT_EXPECT_GT(test, t, 0L);
	KUNIT_EXPECT_LE(test, t, (long)HZ);
	KUNIT_EXPECT_EQ(test, kscrubd_next_timeout(KSCRUBD_PASS_LOADED, true),
			10L * HZ);
}

/*
 * A pass looks again while it zeroes or zeroed memory is being taken,
 * and stops once neither: a task allocating zeroed memory will free it
 * onto per-cpu lists that wake no one (a 128 MiB churn loop had one
 * round in thirty take every page back dirty before this rule)
 */
static void taken_zeroed_looks_again(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, kscrubd_look_again(512, 1000, 1000));
	KUNIT_EXPECT_TRUE(test, kscrubd_look_again(0, 1000, 999));
	KUNIT_EXPECT_FALSE(test, kscrubd_look_again(0, 1000, 1000));
	/* More zeroed than before: nothing was taken */
	KUNIT_EXPECT_FALSE(test, kscrubd_look_again(0, 1000, 1001));
	/* The first pass has seen nothing */
	KUNIT_EXPECT_FALSE(test, kscrubd_look_again(0, 0, 1000));
}

/*
 * The looks again after a drain fold into the summary line of the pass
 * that drained, for up to ten seconds; any other end closes the line
 */
static void summary_folds_looks(struct kunit *test)
{
	const u64 s = NSEC_PER_SEC;

	KUNIT_EXPECT_FALSE(test, kscrubd_summary_due(KSCRUBD_PASS_DONE, true,
						     s));
	KUNIT_EXPECT_TRUE(test, kscrubd_summary_due(KSCRUBD_PASS_DONE, true,
						    10 * s));
	KUNIT_EXPECT_TRUE(test, kscrubd_summary_due(KSCRUBD_PASS_DONE, false,
						    0));
	KUNIT_EXPECT_TRUE(test, kscrubd_summary_due(KSCRUBD_PASS_LOADED,
						    true, 0));
	KUNIT_EXPECT_TRUE(test, kscrubd_summary_due(KSCRUBD_PASS_OFF, true,
						    0));
}

/* auto keeps nt unless another engine is more than 5% faster */
static void engine_pick_margin(struct kunit *test)
{
	u32 mbps[KSCRUB_NR_CPU_ENGINES] = { };

	mbps[KSCRUB_ENGINE_NT] = 1000;
	mbps[KSCRUB_ENGINE_CLEAR] = 1040;
	mbps[KSCRUB_ENGINE_EXTENT] = 1050;
	KUNIT_EXPECT_EQ(test, kscrubd_engine_best(mbps), KSCRUB_ENGINE_NT);
	mbps[KSCRUB_ENGINE_CLEAR] = 1100;
	KUNIT_EXPECT_EQ(test, kscrubd_engine_best(mbps), KSCRUB_ENGINE_CLEAR);
	mbps[KSCRUB_ENGINE_EXTENT] = 2000;
	KUNIT_EXPECT_EQ(test, kscrubd_engine_best(mbps), KSCRUB_ENGINE_EXTENT);
	/* Nothing measured (no memory at load): nt */
	memset(mbps, 0, sizeof(mbps));
	KUNIT_EXPECT_EQ(test, kscrubd_engine_best(mbps), KSCRUB_ENGINE_NT);
}

static void driver_timeout_bounds(struct kunit *test)
{
	static const char * const bad[] = {
		"0", "10001", "-1", "abc", "", "1x", "99999999999",
	};
	unsigned int ms = 1234;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kscrubd_parse_timeout_ms(bad[i], &ms),
				    -EINVAL, "value '%s'", bad[i]);
		KUNIT_EXPECT_EQ(test, ms, 1234U);
	}
	KUNIT_EXPECT_EQ(test, kscrubd_parse_timeout_ms("1", &ms), 0);
	KUNIT_EXPECT_EQ(test, ms, 1U);
	KUNIT_EXPECT_EQ(test, kscrubd_parse_timeout_ms("10000\n", &ms), 0);
	KUNIT_EXPECT_EQ(test, ms, 10000U);
}

/* The slowest engine still zeroes a 4 MiB block in a few seconds */
static void driver_rate_floor(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, kscrubd_driver_rate_ok(0));
	KUNIT_EXPECT_FALSE(test, kscrubd_driver_rate_ok(999999));
	KUNIT_EXPECT_TRUE(test, kscrubd_driver_rate_ok(1000000));
	KUNIT_EXPECT_LE(test, (PAGE_SIZE << MAX_PAGE_ORDER) / 1000000UL, 8UL);
}

/* FreeBSD's marks: zero up to 4/5 of free memory, restart below 2/3 */
static void hysteresis_marks(struct kunit *test)
{
	/* 1000 pages zeroable: the pass goes on below 800 zeroed */
	KUNIT_EXPECT_FALSE(test, kscrubd_reached_high(799, 1000, 80));
	KUNIT_EXPECT_TRUE(test, kscrubd_reached_high(800, 1000, 80));
	/* Between the marks a wake-up changes nothing */
	KUNIT_EXPECT_FALSE(test, kscrubd_below_low(700, 1000, 66));
	KUNIT_EXPECT_FALSE(test, kscrubd_below_low(660, 1000, 66));
	KUNIT_EXPECT_TRUE(test, kscrubd_below_low(659, 1000, 66));
	/* The default: everything, and any wake-up restarts */
	KUNIT_EXPECT_FALSE(test, kscrubd_reached_high(999, 1000, 100));
	KUNIT_EXPECT_TRUE(test, kscrubd_reached_high(1000, 1000, 100));
	KUNIT_EXPECT_TRUE(test, kscrubd_below_low(999, 1000, 0));
	KUNIT_EXPECT_TRUE(test, kscrubd_below_low(1000, 1000, 0));
	/* An empty node has nothing to do */
	KUNIT_EXPECT_TRUE(test, kscrubd_reached_high(0, 0, 100));
	KUNIT_EXPECT_FALSE(test, kscrubd_below_low(0, 0, 50));
	/* No overflow on a node with 2^40 pages */
	KUNIT_EXPECT_FALSE(test, kscrubd_reached_high(1UL << 39, 1UL << 40, 80));
	KUNIT_EXPECT_TRUE(test, kscrubd_below_low(1UL << 39, 1UL << 40, 66));
}

static void marks_bounds(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, kscrubd_marks_ok(66, 80));
	KUNIT_EXPECT_TRUE(test, kscrubd_marks_ok(0, 100));
	KUNIT_EXPECT_TRUE(test, kscrubd_marks_ok(99, 100));
	KUNIT_EXPECT_TRUE(test, kscrubd_marks_ok(0, 1));
	KUNIT_EXPECT_FALSE(test, kscrubd_marks_ok(80, 80));
	KUNIT_EXPECT_FALSE(test, kscrubd_marks_ok(81, 80));
	KUNIT_EXPECT_FALSE(test, kscrubd_marks_ok(0, 0));
	KUNIT_EXPECT_FALSE(test, kscrubd_marks_ok(50, 101));
}

/* vm.scrub_rate: pages are due at rate per second from the start */
static void rate_cap(struct kunit *test)
{
	/* No cap */
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1 << 20, 0, 0), 0ULL);
	/* 1024 pages at 1024/s are due after a second */
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1024, 0, 1024),
			(u64)NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1024, NSEC_PER_SEC / 4, 1024),
			(u64)NSEC_PER_SEC * 3 / 4);
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1024, NSEC_PER_SEC, 1024),
			0ULL);
	/* Behind the rate: no wait, and no credit beyond it */
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(10, 5 * NSEC_PER_SEC, 1024),
			0ULL);
	/* A 4 MiB block at one page a second, without overflow */
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1024, 0, 1),
			1024ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, kscrubd_rate_delay(1ULL << 32, 0, 100000000),
			div_u64((1ULL << 32) * NSEC_PER_SEC, 100000000));
}

/*
 * A drain leaves each CPU its slice of the last-level cache, and at
 * least 1 MiB where the slice is smaller or unknown (UML: 0)
 */
static void pcp_keep_is_cache_slice(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kscrubd_pcp_keep_pages(0), KSCRUBD_PCP_KEEP);
	KUNIT_EXPECT_EQ(test, kscrubd_pcp_keep_pages(16), KSCRUBD_PCP_KEEP);
	KUNIT_EXPECT_EQ(test, kscrubd_pcp_keep_pages(SZ_16M >> PAGE_SHIFT),
			SZ_16M >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, kscrubd_pcp_keep_pages(ULONG_MAX), INT_MAX);
}

/* vm.scrub_reserve_mb split over zones by size, and never past it */
static void reserve_split_by_size(struct kunit *test)
{
	unsigned long mb = SZ_1M >> PAGE_SHIFT;

	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(256, 1000, 1000), 256 * mb);
	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(256, 250, 1000), 64 * mb);
	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(256, 0, 1000), 0UL);
	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(0, 1000, 1000), 0UL);
	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(256, 1000, 0), 0UL);
	/* 1 TiB over a 4 TiB node of a 16 TiB machine: no overflow */
	KUNIT_EXPECT_EQ(test, kscrubd_reserve_share(1U << 20, 1UL << 30,
						    1UL << 32),
			(1UL << 18) * mb);
	/* three zones of a third each add up to no more than the whole */
	KUNIT_EXPECT_LE(test, 3 * kscrubd_reserve_share(100, 1, 3), 100 * mb);
}

/* Where the host zeroes, the reporting order and up are left to it */
static void top_order_leaves_reporting_to_host(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kscrubd_top_order(SCRUBD_REPORTING_NONE, 9),
			MAX_PAGE_ORDER);
	KUNIT_EXPECT_EQ(test, kscrubd_top_order(SCRUBD_REPORTING_DISCARDS, 9),
			MAX_PAGE_ORDER);
	KUNIT_EXPECT_EQ(test, kscrubd_top_order(SCRUBD_REPORTING_ZEROES, 9), 8);
	KUNIT_EXPECT_EQ(test, kscrubd_top_order(SCRUBD_REPORTING_ZEROES, 0), -1);
	KUNIT_EXPECT_EQ(test,
			kscrubd_top_order(SCRUBD_REPORTING_ZEROES,
					  MAX_PAGE_ORDER + 5),
			MAX_PAGE_ORDER);
}

static struct kunit_case kscrubd_policy_cases[] = {
	KUNIT_CASE(may_run_when_idle),
	KUNIT_CASE(loaded_pass_is_retried),
	KUNIT_CASE(frozen_pass_is_retried_at_once),
	KUNIT_CASE(switched_off_sleeps),
	KUNIT_CASE(pcp_drain_looks_again),
	KUNIT_CASE(taken_zeroed_looks_again),
	KUNIT_CASE(pcp_keep_is_cache_slice),
	KUNIT_CASE(summary_folds_looks),
	KUNIT_CASE(engine_pick_margin),
	KUNIT_CASE(driver_timeout_bounds),
	KUNIT_CASE(driver_rate_floor),
	KUNIT_CASE(hysteresis_marks),
	KUNIT_CASE(marks_bounds),
	KUNIT_CASE(rate_cap),
	KUNIT_CASE(reserve_split_by_size),
	KUNIT_CASE(top_order_leaves_reporting_to_host),
	{}
};

static struct kunit_suite kscrubd_policy_suite = {
	.name = "kscrubd_policy",
	.test_cases = kscrubd_policy_cases,
};

kunit_test_suite(kscrubd_policy_suite);

MODULE_DESCRIPTION("KUnit tests for kscrubd's policy decisions");
MODULE_LICENSE("GPL");
