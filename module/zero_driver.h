/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zeroing engines that kscrubd can hand free blocks to instead of clearing
 * them on the CPU.
 */
#ifndef _KSCRUB_ZERO_DRIVER_H
#define _KSCRUB_ZERO_DRIVER_H

#include <linux/list.h>
#include <linux/types.h>

/**
 * struct zero_driver - a memory-zeroing engine
 * @name: shown in kscrubd's statistics and messages
 * @start: begin zeroing @len bytes at @addr (page aligned, physically
 *	contiguous).  Return 0 if started, or an error to refuse the block,
 *	which the CPU then zeroes.  Called from kscrubd's thread; may sleep.
 * @check: return 0 once the block started last is zero, -EBUSY while the
 *	engine is still working, any other error if it failed.
 * @abort: stop the transfer started last.  Called when @check fails or
 *	does not finish in time; on return the engine must no longer write
 *	to the block.
 * @rate: bytes per second the engine zeroes, at least 1000000; kscrubd
 *	waits len * HZ / @rate jiffies before its first @check.
 *
 * kscrubd starts one block at a time per driver and never marks a block
 * zeroed unless @check said so.
 */
struct zero_driver {
	const char *name;
	int (*start)(void *addr, unsigned long len);
	int (*check)(void *addr);
	void (*abort)(void *addr);
	unsigned long rate;

	/* Owned by kscrubd */
	struct list_head list;
	struct mutex lock;	/* one block at a time */
	bool broken;		/* timed out: not used again */
	bool gone;		/* being unregistered: abort the wait */
	atomic64_t pages;	/* zeroed by the engine */
	atomic64_t refused;	/* blocks @start refused */
	atomic64_t failed;	/* @check reported an error */
	atomic64_t timeouts;	/* @check never finished */
};

int register_zero_driver(struct zero_driver *drv);
void unregister_zero_driver(struct zero_driver *drv);

#endif /* _KSCRUB_ZERO_DRIVER_H */
