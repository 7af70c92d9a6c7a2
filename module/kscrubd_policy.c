// SPDX-License-Identifier: GPL-2.0
/*
 * kscrubd's decisions that depend on nothing but their inputs: whether a
 * pass may run, when the thread looks again after one, and which knob
 * values are acceptable.  Kept apart from the thread so that
 * kscrubd_kunit.ko tests them as they are built.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/sizes.h>

#include "kscrubd.h"

/* A pass stopped by the load average looks again after this long */
#define KSCRUBD_RETRY			(10 * HZ)
/*
 * A pass that drained per-cpu lists looks at them again after this long.
 * A 128 MiB map/touch/unmap loop refills them in a quarter of a second
 * under TCG, and its next round takes that round's dirty pages back,
 * hot-first, unless they were drained meanwhile: with looks every 250 ms
 * 89% of its faults came prezeroed, with 50 ms 96% (make bench, churn).
 */
#define KSCRUBD_PCP_LOOK		(HZ / 20)
/* Passes folded into one dmesg summary cover at most this long */
#define KSCRUBD_SUMMARY_NS		(10 * NSEC_PER_SEC)

/* Another engine must beat nt by this much (%) to be picked over it */
#define KSCRUB_PICK_MARGIN		5

/* Bounds for kscrubd.driver_timeout_ms */
#define KSCRUBD_DRIVER_TIMEOUT_MIN_MS	1
#define KSCRUBD_DRIVER_TIMEOUT_MAX_MS	10000

/*
 * A zero driver must zero a whole MAX_PAGE_ORDER block (4 MiB) within a
 * few seconds, or kscrubd's wait for it (and rmmod, and suspend) is not
 * bounded: at 1 MB/s that is 4 s.
 */
#define KSCRUBD_DRIVER_MIN_RATE		1000000UL

/* scrub_enabled=0 and scrub_load=0 both mean "never": no timer either */
bool kscrubd_switched_off(unsigned int enabled, unsigned int load)
{
	return !enabled || !load;
}

/**
 * kscrubd_why_stop - whether a pass may run now
 * @enabled: vm.scrub_enabled
 * @load: vm.scrub_load
 * @load_avg: avenrun[0], fixed point
 * @freezing: the thread is asked to freeze
 *
 * Return: KSCRUBD_PASS_DONE if nothing stops a pass, else what does.
 */
enum kscrubd_pass_end kscrubd_why_stop(unsigned int enabled,
				       unsigned int load,
				       unsigned long load_avg, bool freezing)
{
	if (kscrubd_switched_off(enabled, load))
		return KSCRUBD_PASS_OFF;
	if (freezing)
		return KSCRUBD_PASS_FROZEN;
	if (LOAD_INT(load_avg) >= load)
		return KSCRUBD_PASS_LOADED;
	return KSCRUBD_PASS_DONE;
}

/*
 * How long the thread sleeps after a pass that ended so, unless woken: a
 * pass the load cut short is retried later, one the freezer cut short as
 * soon as the thread thaws (the wait freezes first), and a finished or
 * switched-off one waits for a coalesce or a sysctl write.  A finished
 * pass that drained per-cpu lists or zeroed something, or found zeroed
 * pages taken since the last one (@look_again), looks again soon: pages
 * freed onto those lists form no coalesce until they overflow, and the
 * task allocating or freeing them is likely to go on.
 */
long kscrubd_next_timeout(enum kscrubd_pass_end end, bool look_again)
{
	switch (end) {
	case KSCRUBD_PASS_LOADED:
		return KSCRUBD_RETRY;
	case KSCRUBD_PASS_FROZEN:
		return 1;
	case KSCRUBD_PASS_DONE:
		return look_again ? KSCRUBD_PCP_LOOK : MAX_SCHEDULE_TIMEOUT;
	default:
		return MAX_SCHEDULE_TIMEOUT;
	}
}

/**
 * kscrubd_look_again - whether a finished pass looks again soon
 * @pages: pages the pass zeroed
 * @zeroed_seen: the node's zeroed free pages when the previous pass ended
 * @zeroed_now: and when this one began
 *
 * A pass that zeroed something looks again, and so does one that finds
 * zeroed memory taken since the last: a task allocating it will free
 * it, onto per-cpu lists that 6.12 tunes up to hold all of it and that
 * wake no one.  Under a 128 MiB map/touch/unmap loop the looks otherwise
 * stopped while a round faulted, and in about one round of thirty the
 * unmap then overflowed no list and the next round took every page back
 * dirty (0-2% of its faults prezeroed).  Once nothing is taken, zeroed or
 * drained, the looks stop.
 */
bool kscrubd_look_again(unsigned long pages, unsigned long zeroed_seen,
			unsigned long zeroed_now)
{
	return pages || zeroed_now < zeroed_seen;
}

/**
 * kscrubd_pcp_keep_pages - pages a drain leaves on each CPU's lists
 * @cache_pages: a CPU's slice of the last-level cache, in pages
 *	(scrubd_pcp_cache_pages(); 0 where unknown)
 *
 * The pages a CPU freed last stay: as many as its slice of the cache
 * holds, and at least KSCRUBD_PCP_KEEP.  make native: a process churning
 * 8 MiB of 4 KiB pages ran 1.45-2.55x slower per page when a drain that
 * kept 1 MiB handed its pages back prezeroed and cold.
 */
int kscrubd_pcp_keep_pages(unsigned long cache_pages)
{
	return clamp_t(unsigned long, cache_pages, KSCRUBD_PCP_KEEP, INT_MAX);
}

/*
 * Whether the dmesg summary of the passes since @open_ns ago is due after
 * a pass that ended so.  The looks again after a pass that found work
 * are a continuation of it: one line each would be twenty
 * a second under steady churn, and the ratelimit would then drop the line
 * of a pass that mattered.  A churn that never lets up still gets a line
 * every KSCRUBD_SUMMARY_NS.
 */
bool kscrubd_summary_due(enum kscrubd_pass_end end, bool look_again,
			 u64 open_ns)
{
	if (end == KSCRUBD_PASS_DONE && look_again)
		return open_ns >= KSCRUBD_SUMMARY_NS;
	return true;
}

/*
 * nt unless another engine is KSCRUB_PICK_MARGIN% faster: nt leaves the
 * cache to the running tasks, which a timing loop cannot credit
 */
unsigned int kscrubd_engine_best(const u32 *mbps)
{
	unsigned int best = KSCRUB_ENGINE_NT, id;
	u64 bar = (u64)mbps[KSCRUB_ENGINE_NT] * (100 + KSCRUB_PICK_MARGIN);

	for (id = 0; id < KSCRUB_NR_CPU_ENGINES; id++) {
		if (id == KSCRUB_ENGINE_NT)
			continue;
		if ((u64)mbps[id] * 100 > bar) {
			best = id;
			bar = (u64)mbps[id] * 100;
		}
	}
	return best;
}

/* Parse a driver_timeout_ms value; -EINVAL outside its bounds */
int kscrubd_parse_timeout_ms(const char *val, unsigned int *ms)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < KSCRUBD_DRIVER_TIMEOUT_MIN_MS ||
	    v > KSCRUBD_DRIVER_TIMEOUT_MAX_MS)
		return -EINVAL;
	*ms = v;
	return 0;
}

bool kscrubd_driver_rate_ok(unsigned long rate)
{
	return rate >= KSCRUBD_DRIVER_MIN_RATE;
}

/*
 * Hysteresis, after FreeBSD's and DragonFly's idle zeroing (4/5 and 2/3):
 * a pass zeroes until @high_pct percent of the free memory it can zero
 * (blocks of order >= vm.scrub_stop) is zeroed, and a thread that got
 * there leaves wake-ups alone until the share falls below @low_pct.  An
 * empty node has reached every mark.
 */
bool kscrubd_reached_high(unsigned long zeroed, unsigned long zeroable,
			  unsigned int high_pct)
{
	return (u64)zeroed * 100 >= (u64)zeroable * high_pct;
}

/* @low_pct 0: no low mark, any wake-up below the high mark restarts */
bool kscrubd_below_low(unsigned long zeroed, unsigned long zeroable,
		       unsigned int low_pct)
{
	if (!low_pct)
		return true;
	return (u64)zeroed * 100 < (u64)zeroable * low_pct;
}

/* vm.scrub_low_pct and vm.scrub_high_pct: 0 <= low < high <= 100 */
bool kscrubd_marks_ok(unsigned int low_pct, unsigned int high_pct)
{
	return high_pct <= 100 && low_pct < high_pct;
}

/**
 * kscrubd_reserve_share - a zone's or node's part of vm.scrub_reserve_mb
 * @reserve_mb: vm.scrub_reserve_mb
 * @pages: the zone's or node's managed pages
 * @total: all managed pages
 *
 * Where page reporting drops the mark of what it reports, kscrubd keeps
 * at most this much zeroed, and page reporting leaves it alone: split
 * over the zones by size, so that every node has its share near it.
 */
unsigned long kscrubd_reserve_share(unsigned int reserve_mb,
				    unsigned long pages, unsigned long total)
{
	if (!total)
		return 0;
	return div64_u64((u64)reserve_mb * (SZ_1M >> PAGE_SHIFT) * pages,
			 total);
}

/**
 * kscrubd_top_order - the highest order a pass zeroes
 * @reporting: what page reporting does, scrubd_reporting()
 * @reporting_order: its order, where it is on
 *
 * Where the host zeroes reported memory, blocks of the reporting order
 * and larger are left to it: they come back zeroed for nothing, and
 * zeroing one first would only make the host back it again.
 *
 * Return: the order, -1 where there is none.
 */
int kscrubd_top_order(enum scrubd_reporting reporting,
		      unsigned int reporting_order)
{
	if (reporting == SCRUBD_REPORTING_ZEROES)
		return min_t(int, MAX_PAGE_ORDER, (int)reporting_order - 1);
	return MAX_PAGE_ORDER;
}

/**
 * kscrubd_rate_delay - how long to wait before zeroing more
 * @pages: pages zeroed since @elapsed_ns ago
 * @elapsed_ns: time since the pacing started
 * @rate: vm.scrub_rate, pages per second; 0 for no cap
 *
 * Return: nanoseconds until @pages are within @rate, 0 if they are.
 */
u64 kscrubd_rate_delay(u64 pages, u64 elapsed_ns, unsigned int rate)
{
	u64 due;

	if (!rate)
		return 0;
	due = div_u64(pages * NSEC_PER_SEC, rate);
	return due > elapsed_ns ? due - elapsed_ns : 0;
}
