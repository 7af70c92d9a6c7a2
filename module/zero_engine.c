// SPDX-License-Identifier: GPL-2.0
/*
 * CPU zeroing engines.  "clear" is the kernel's clear_page(), which the
 * fault path would have used (rep stosb/stosq or unrolled stores, picked
 * by alternatives).  "nt" uses non-temporal stores: a scrubbed page is
 * not touched again until it is allocated, so there is no point in
 * pulling it into the cache and evicting someone's working set.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "kscrubd.h"

/* Bytes zeroed between two cond_resched() calls */
#define KSCRUB_CHUNK	(256UL << 10)

static const char * const engine_names[KSCRUB_NR_ENGINES] = {
	[KSCRUB_ENGINE_CLEAR] = "clear",
	[KSCRUB_ENGINE_NT] = "nt",
	[KSCRUB_ENGINE_DRIVER] = "driver",
};

const char *kscrub_engine_name(unsigned int id)
{
	return id < KSCRUB_NR_ENGINES ? engine_names[id] : "?";
}

/* Only CPU engines can be selected; drivers are used when registered */
int kscrub_engine_lookup(const char *name)
{
	int i;

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

static void zero_nt(void *addr, unsigned long len)
{
	void *end = addr + len;

	/* One cache line per iteration; len is a multiple of PAGE_SIZE */
	for (; addr < end; addr += 64)
		asm volatile("movnti %1, 0(%0)\n\t"
			     "movnti %1, 8(%0)\n\t"
			     "movnti %1, 16(%0)\n\t"
			     "movnti %1, 24(%0)\n\t"
			     "movnti %1, 32(%0)\n\t"
			     "movnti %1, 40(%0)\n\t"
			     "movnti %1, 48(%0)\n\t"
			     "movnti %1, 56(%0)"
			     : : "r" (addr), "r" (0UL) : "memory");
	/* Order the weakly ordered stores before the block is handed back */
	asm volatile("sfence" : : : "memory");
}

void kscrub_cpu_zero(unsigned int id, void *addr, unsigned long len)
{
	while (len) {
		unsigned long n = min(len, KSCRUB_CHUNK);

		if (id == KSCRUB_ENGINE_NT)
			zero_nt(addr, n);
		else
			zero_clear(addr, n);
		addr += n;
		len -= n;
		cond_resched();
	}
}
