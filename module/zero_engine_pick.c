// SPDX-License-Identifier: GPL-2.0
/*
 * vm.scrub_engine=auto: which CPU engine zeroes a block of each order
 * fastest on this machine, measured once at load.  Each engine zeroes
 * the same 32 MiB in blocks of the order, a working set larger than most
 * last-level caches, as kscrubd's blocks are cold when it takes them.
 */
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/seq_file.h>

#include "kscrubd.h"

#define KSCRUB_PICK_BLOCKS	8	/* of MAX_PAGE_ORDER: 32 MiB */

static u8 engine_for_order[NR_PAGE_ORDERS];
static u32 engine_mbps[NR_PAGE_ORDERS][KSCRUB_NR_CPU_ENGINES];

static u32 time_engine(unsigned int id, struct page **blocks,
		       unsigned int order)
{
	unsigned long len = PAGE_SIZE << order, off;
	u64 t0 = ktime_get_ns(), ns;
	int b;

	for (b = 0; b < KSCRUB_PICK_BLOCKS; b++) {
		void *addr = page_address(blocks[b]);

		for (off = 0; off < PAGE_SIZE << MAX_PAGE_ORDER; off += len)
			kscrub_cpu_zero(id, addr + off, len);
	}
	ns = max_t(u64, ktime_get_ns() - t0, 1);
	return div64_u64((u64)KSCRUB_PICK_BLOCKS * (PAGE_SIZE << MAX_PAGE_ORDER) *
			 1000, ns);
}

/* Called once at load; without the memory to measure, nt for every order */
void kscrub_engines_pick(void)
{
	struct page *blocks[KSCRUB_PICK_BLOCKS] = { };
	unsigned int order, id;
	char line[NR_PAGE_ORDERS * 3 + 1];
	int b, n = 0;

	for (order = 0; order < NR_PAGE_ORDERS; order++)
		engine_for_order[order] = KSCRUB_ENGINE_NT;
	for (b = 0; b < KSCRUB_PICK_BLOCKS; b++) {
		/* Not worth reclaim or compaction: nt is a sound default */
		blocks[b] = alloc_pages(GFP_KERNEL | __GFP_NOWARN |
					__GFP_NORETRY, MAX_PAGE_ORDER);
		if (!blocks[b]) {
			pr_info("kscrubd: no 32 MiB to time the engines in; engine auto is nt\n");
			goto out;
		}
	}
	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		for (id = 0; id < KSCRUB_NR_CPU_ENGINES; id++)
			engine_mbps[order][id] = time_engine(id, blocks, order);
		engine_for_order[order] = kscrubd_engine_best(engine_mbps[order]);
		n += scnprintf(line + n, sizeof(line) - n, "%s%c",
			       order ? " " : "",
			       kscrub_engine_name(engine_for_order[order])[0]);
	}
	pr_info("kscrubd: engine auto by order 0-%d: %s (c clear, n nt, e extent; rates in debugfs kscrubd/engines)\n",
		MAX_PAGE_ORDER, line);
out:
	for (b = 0; b < KSCRUB_PICK_BLOCKS; b++)
		if (blocks[b])
			__free_pages(blocks[b], MAX_PAGE_ORDER);
}

/* The engine that zeroes a block of @order under vm.scrub_engine=@engine */
unsigned int kscrub_engine_for(unsigned int engine, unsigned int order)
{
	if (engine != KSCRUB_ENGINE_AUTO)
		return engine;
	return engine_for_order[min_t(unsigned int, order, MAX_PAGE_ORDER)];
}

/* Pages zeroed in blocks of @order by engine @id, all nodes, racily */
static u64 order_pages(unsigned int id, unsigned int order)
{
	u64 sum = 0;
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		sum += READ_ONCE(kscrubd_node(nid)->stats.order_pages[id][order]);
	return sum;
}

/* debugfs kscrubd/engines: per order, the rates measured, the pick, use */
void kscrub_engines_show(struct seq_file *m)
{
	unsigned int order, id;

	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		seq_printf(m, "order=%u auto=%s", order,
			   kscrub_engine_name(engine_for_order[order]));
		for (id = 0; id < KSCRUB_NR_CPU_ENGINES; id++)
			seq_printf(m, " %s_mbps=%u", kscrub_engine_name(id),
				   engine_mbps[order][id]);
		for (id = 0; id < KSCRUB_NR_ENGINES; id++)
			seq_printf(m, " %s_pages=%llu", kscrub_engine_name(id),
				   order_pages(id, order));
		seq_putc(m, '\n');
	}
}
