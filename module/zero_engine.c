// SPDX-License-Identifier: GPL-2.0
/*
 * CPU zeroing engines.  "clear" is the kernel's clear_page(), which the
 * fault path would have used (rep stosb/stosq or unrolled stores, picked
 * by alternatives).  "nt" uses non-temporal SSE2 stores: a scrubbed page is
 * not touched again until it is allocated, so there is no point in
 * pulling it into the cache and evicting someone's working set.  "extent"
 * is the series' clear_pages(): one rep stosb (or stosq) over up to
 * 2 MiB, where "clear" makes one per 4 KiB page.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/fpu/api.h>

#include "kscrubd.h"

/*
 * Bytes zeroed between two cond_resched() calls: nt keeps preemption off
 * for a chunk; extent does not, and a longer run is what it is for
 */
#define KSCRUB_CHUNK		(256UL << 10)
#define KSCRUB_EXTENT_CHUNK	(2UL << 20)

static const char * const engine_names[KSCRUB_NR_ENGINES] = {
	[KSCRUB_ENGINE_CLEAR] = "clear",
	[KSCRUB_ENGINE_NT] = "nt",
	[KSCRUB_ENGINE_EXTENT] = "extent",
	[KSCRUB_ENGINE_DRIVER] = "driver",
};

const char *kscrub_engine_name(unsigned int id)
{
	if (id == KSCRUB_ENGINE_AUTO)
		return "auto";
	return id < KSCRUB_NR_ENGINES ? engine_names[id] : "?";
}

/* Only CPU engines and auto can be selected; drivers are used when registered */
int kscrub_engine_lookup(const char *name)
{
	int i;

	if (sysfs_streq(name, "auto"))
		return KSCRUB_ENGINE_AUTO;
	for (i = 0; i < KSCRUB_NR_CPU_ENGINES; i++)
		if (sysfs_streq(name, engine_names[i]))
			return i;
	return -EINVAL;
}

static void zero_clear(void *addr, unsigned long len)
{
	unsigned long off;

	for (off = 0; off < len; off += PAGE_SIZE)
		clear_page(addr + off);
}

/*
 * 16-byte non-temporal stores: natively they stream at about 1.6x the rate
 * of 8-byte movnti (userspace/results/clearbw.md).  The xmm registers need
 * kernel_fpu_begin(), which disables preemption; one chunk bounds that.
 * As in lib/raid6/sse2.c, the compiler never allocates xmm registers in
 * kernel code, so the asm statements may share %xmm0 without clobbers.
 */
static void zero_nt(void *addr, unsigned long len)
{
	void *end = addr + len;

	kernel_fpu_begin();
	asm volatile("pxor %xmm0, %xmm0");
	/* One cache line per iteration; len is a multiple of PAGE_SIZE */
	for (; addr < end; addr += 64)
		asm volatile("movntdq %%xmm0, 0(%0)\n\t"
			     "movntdq %%xmm0, 16(%0)\n\t"
			     "movntdq %%xmm0, 32(%0)\n\t"
			     "movntdq %%xmm0, 48(%0)"
			     : : "r" (addr) : "memory");
	/* Order the weakly ordered stores before the block is handed back */
	asm volatile("sfence" : : : "memory");
	kernel_fpu_end();
}

void kscrub_cpu_zero(unsigned int id, void *addr, unsigned long len)
{
	unsigned long chunk = id == KSCRUB_ENGINE_EXTENT ?
			      KSCRUB_EXTENT_CHUNK : KSCRUB_CHUNK;

	while (len) {
		unsigned long n = min(len, chunk);

		if (id == KSCRUB_ENGINE_NT)
			zero_nt(addr, n);
		else if (id == KSCRUB_ENGINE_EXTENT)
			clear_pages(addr, n >> PAGE_SHIFT);
		else
			zero_clear(addr, n);
		addr += n;
		len -= n;
		cond_resched();
	}
}
