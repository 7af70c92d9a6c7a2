// SPDX-License-Identifier: GPL-2.0
/*
 * kscrubd's dmesg line for a run of passes: how much a node zeroed, how
 * fast, and which engines did it.  A pass and the looks again that follow
 * a per-cpu drain are one run (kscrubd_summary_due()), so that a steady
 * churn gives a line every few seconds, not four a second.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/printk.h>

#include "kscrubd.h"

static u64 engine_pages(struct kscrubd_stats *s)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < KSCRUB_NR_ENGINES; i++)
		sum += s->engine[i].pages;
	return sum;
}

/* "nt 1024, driver 512": the engines that zeroed pages since @before */
static void engines_used(char *buf, size_t size, struct kscrubd_stats *s,
			 const u64 *before)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < KSCRUB_NR_ENGINES; i++) {
		u64 pages = s->engine[i].pages - before[i];

		if (pages)
			n += scnprintf(buf + n, size - n, "%s%s %llu",
				       n ? ", " : "", kscrub_engine_name(i),
				       pages);
	}
}

/* Called as a pass starts: the first pass of a run notes where it began */
void kscrubd_summary_open(struct kscrubd_node *kn)
{
	struct kscrubd_summary *s = &kn->summary;
	int i;

	if (s->passes)
		return;
	s->t_open = ktime_get_ns();
	for (i = 0; i < KSCRUB_NR_ENGINES; i++)
		s->before[i] = kn->stats.engine[i].pages;
}

/* Called as a pass ends, with what it zeroed and how long it took */
void kscrubd_summary_add(struct kscrubd_node *kn, unsigned long pages, u64 ns)
{
	struct kscrubd_summary *s = &kn->summary;

	s->pages += pages;
	s->ns += ns;
	s->passes++;
}

/* Log the run if it zeroed anything, and start the next one afresh */
void kscrubd_summary_close(struct kscrubd_node *kn)
{
	struct kscrubd_summary *s = &kn->summary;
	u64 ns = max_t(u64, s->ns, 1);
	char used[64];

	if (s->pages) {
		engines_used(used, sizeof(used), &kn->stats, s->before);
		pr_info_ratelimited("kscrubd%d: zeroed %lu pages (%lu MiB) in %llu.%03llu s, %llu MB/s, engine %s, total %llu pages, %u passes\n",
				    kn->nid, s->pages,
				    s->pages >> (20 - PAGE_SHIFT),
				    ns / NSEC_PER_SEC,
				    ns % NSEC_PER_SEC / NSEC_PER_MSEC,
				    div64_u64((u64)s->pages * PAGE_SIZE * 1000,
					      ns),
				    used, engine_pages(&kn->stats), s->passes);
	}
	s->pages = 0;
	s->ns = 0;
	s->passes = 0;
}
