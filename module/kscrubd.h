/* SPDX-License-Identifier: GPL-2.0 */
/* kscrubd internals shared between its source files. */
#ifndef _KSCRUBD_H
#define _KSCRUBD_H

#include <linux/irq_work.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/page_prezero.h>
#include <linux/sizes.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct dentry;
struct seq_file;

/*
 * The pages each CPU freed last stay on its per-cpu lists: they are the
 * ones likely still in its cache, cheaper to reuse and clear than a
 * prezeroed page is to touch cold (make native): the CPU's slice of the
 * last-level cache (kscrubd_pcp_keep_pages()), and at least 1 MiB (a
 * common L2 size, and all there is where the slice is unknown).  The rest
 * is sent back to be zeroed, once it is worth a look: 4 MiB.
 * prezero_bench_kunit.c models kscrubd with the same rule.
 */
#define KSCRUBD_PCP_KEEP	(SZ_1M >> PAGE_SHIFT)
#define KSCRUBD_PCP_MIN		(SZ_4M >> PAGE_SHIFT)

enum kscrub_engine_id {
	KSCRUB_ENGINE_CLEAR,	/* the kernel's clear_page() */
	KSCRUB_ENGINE_NT,	/* movntdq: leaves the cache alone */
	KSCRUB_ENGINE_EXTENT,	/* clear_pages(): one string op per chunk */
	KSCRUB_NR_CPU_ENGINES,
	KSCRUB_ENGINE_DRIVER = KSCRUB_NR_CPU_ENGINES,	/* a zero_driver */
	KSCRUB_NR_ENGINES,
	/* vm.scrub_engine=auto: the CPU engine measured fastest per order */
	KSCRUB_ENGINE_AUTO = KSCRUB_NR_ENGINES,
};

struct kscrub_engine_stats {
	u64 pages;
	u64 ns;
};

/*
 * Written only by the node's thread, except widened (under the node's
 * affinity_lock); read racily for reporting
 */
struct kscrubd_stats {
	struct kscrub_engine_stats engine[KSCRUB_NR_ENGINES];
	u64 wakeups;
	u64 passes;
	u64 passes_cut;		/* stopped by load, freezer or a switch */
	u64 retries;		/* timer wake-ups to finish a cut pass */
	u64 driver_refused;
	u64 driver_failed;
	u64 driver_lost_ns;	/* waiting for drivers that then failed */
	u64 held;		/* wake-ups left alone above the low mark */
	u64 paced_ns;		/* slept to keep within vm.scrub_rate */
	u64 pcp_drained;	/* pages sent back from per-cpu lists */
	u64 pcp_looks;		/* timer wake-ups to look again */
	u64 widened;		/* let off its node's busy CPUs (below) */
	u64 order_pages[KSCRUB_NR_ENGINES][NR_PAGE_ORDERS];
};

/* The passes one dmesg summary line covers, see kscrubd_summary.c */
struct kscrubd_summary {
	u64 before[KSCRUB_NR_ENGINES];	/* engine pages when it opened */
	u64 t_open;		/* ktime of the first pass */
	u64 ns;			/* time spent in its passes */
	unsigned long pages;
	unsigned int passes;	/* 0: closed */
};

/* Allocated for every possible node; a thread runs while it has memory */
struct kscrubd_node {
	int nid;
	struct task_struct *task;
	wait_queue_head_t wait;
	struct irq_work wake_work;
	unsigned long pending;		/* bit 0: work to do */
	bool above_high;	/* reached the high mark: wait for the low */
	bool look_again;	/* the last pass found work, or zeroed pages taken */
	unsigned long zeroed_seen;	/* zeroed free pages after it */
	/* vm.scrub_rate pacing: pages zeroed since pace_t0 at pace_rate */
	u64 pace_t0;
	u64 pace_pages;
	unsigned int pace_rate;
	struct kscrubd_stats stats;
	struct kscrubd_summary summary;
	/* Starvation watch, see kscrubd_starved_check(), and its sample */
	struct delayed_work starved_work;
	bool in_pass;
	bool was_runnable;
	u64 ran_seen;			/* the thread's CPU time, ns */
	struct mutex affinity_lock;	/* widened and the thread's CPUs */
	bool widened;			/* may run on any online CPU */
	unsigned long widened_at;	/* jiffies */
};

/* How a scrub pass ended, and so when the thread looks again */
enum kscrubd_pass_end {
	KSCRUBD_PASS_DONE,	/* nothing left: sleep until woken */
	KSCRUBD_PASS_LOADED,	/* load average too high: retry later */
	KSCRUBD_PASS_FROZEN,	/* freezer: retry as soon as thawed */
	KSCRUBD_PASS_OFF,	/* switched off: sleep until a sysctl write */
};

/* Knobs, see kscrubd_sysctl.c */
extern unsigned int kscrub_start_order;
extern unsigned int kscrub_stop_order;
extern unsigned int kscrub_load;
extern unsigned int kscrub_enabled;
extern unsigned int kscrub_verify;
extern unsigned int kscrub_engine;
extern unsigned int kscrub_high_pct;
extern unsigned int kscrub_low_pct;
extern unsigned int kscrub_rate;
extern unsigned int kscrub_reserve_mb;

int kscrubd_sysctl_init(void);
void kscrubd_sysctl_exit(void);

/* kscrubd_main.c */
void kscrubd_wake_all(void);
void kscrubd_set_start_order(unsigned int order);
struct kscrubd_node *kscrubd_node(int nid);

/* kscrubd_policy.c: decisions kept apart so KUnit can test them */
bool kscrubd_switched_off(unsigned int enabled, unsigned int load);
enum kscrubd_pass_end kscrubd_why_stop(unsigned int enabled,
				       unsigned int load,
				       unsigned long load_avg, bool freezing);
long kscrubd_next_timeout(enum kscrubd_pass_end end, bool look_again);
int kscrubd_pcp_keep_pages(unsigned long cache_pages);
bool kscrubd_look_again(unsigned long pages, unsigned long zeroed_seen,
			unsigned long zeroed_now);
bool kscrubd_summary_due(enum kscrubd_pass_end end, bool look_again,
			 u64 open_ns);
int kscrubd_parse_timeout_ms(const char *val, unsigned int *ms);
bool kscrubd_driver_rate_ok(unsigned long rate);
bool kscrubd_reached_high(unsigned long zeroed, unsigned long zeroable,
			  unsigned int high_pct);
bool kscrubd_below_low(unsigned long zeroed, unsigned long zeroable,
		       unsigned int low_pct);
bool kscrubd_marks_ok(unsigned int low_pct, unsigned int high_pct);
unsigned int kscrubd_engine_best(const u32 *mbps);
u64 kscrubd_rate_delay(u64 pages, u64 elapsed_ns, unsigned int rate);
unsigned long kscrubd_reserve_share(unsigned int reserve_mb,
				    unsigned long pages, unsigned long total);
int kscrubd_top_order(enum scrubd_reporting reporting,
		      unsigned int reporting_order);

/* kscrubd_scrub.c */
enum kscrubd_pass_end kscrubd_scrub_node(struct kscrubd_node *kn);
enum kscrubd_pass_end kscrubd_may_run(void);
unsigned long kscrubd_zone_reserve(struct zone *zone);
void kscrubd_node_pages(int nid, unsigned long *zeroable,
			unsigned long *zeroed);

/* kscrubd_summary.c */
void kscrubd_summary_open(struct kscrubd_node *kn);
void kscrubd_summary_add(struct kscrubd_node *kn, unsigned long pages,
			 u64 ns);
void kscrubd_summary_close(struct kscrubd_node *kn);

/* zero_engine.c */
const char *kscrub_engine_name(unsigned int id);
int kscrub_engine_lookup(const char *name);
void kscrub_cpu_zero(unsigned int id, void *addr, unsigned long len);

/* zero_engine_pick.c */
void kscrub_engines_pick(void);
unsigned int kscrub_engine_for(unsigned int engine, unsigned int order);
void kscrub_engines_show(struct seq_file *m);

/* zero_driver.c */
int kscrub_driver_zero(struct kscrubd_node *kn, int nid, void *addr,
		       unsigned long len);
void kscrub_drivers_show(struct seq_file *m);

/* zero_driver_bench.c */
void kscrub_driver_bench_init(struct dentry *dir);

/* kscrubd_stats.c */
extern atomic64_t kscrub_verified_pages;
extern atomic64_t kscrub_verify_bad;
int kscrubd_stats_init(void);
void kscrubd_stats_exit(void);
void kscrubd_stats_log(const char *when);
bool kscrubd_verify(struct page *page, unsigned int order);

#endif /* _KSCRUBD_H */
