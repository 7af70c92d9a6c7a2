/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zeroing engines that kscrubd can hand free blocks to instead of clearing
 * them on the CPU.
 */
#ifndef _KSCRUB_ZERO_DRIVER_H
#define _KSCRUB_ZERO_DRIVER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

/**
 * struct zero_driver - one memory-zeroing engine
 * @name: shown in kscrubd's statistics and messages
 * @start: begin zeroing @len bytes at @addr (page aligned, physically
 *	contiguous).  Return 0 if started, or an error to refuse the block,
 *	which the CPU then zeroes.  Called from kscrubd's thread; may sleep.
 * @check: return 0 once the block started last is zero, -EBUSY while the
 *	engine is still working, any other error if it failed.
 * @abort: stop the transfer started last.  Called when @check fails or
 *	does not finish in time; on return the engine must no longer write
 *	to the block.
 * @rate: bytes per second the engine zeroes, at least 1000000.  kscrubd
 *	polls for a block due within a tick and sleeps for a longer one;
 *	either way it gives up @rate's estimate plus kscrubd.driver_timeout_ms
 *	after @start.
 * @nid: the node whose kscrubd thread uses this engine, or NUMA_NO_NODE
 *	for every node's.
 *
 * Each operation gets the instance it was registered as, so a driver with
 * several engines (one per node, say) registers one zero_driver each,
 * embedded in its own per-engine struct, and finds that with
 * container_of().  When the block started last is finished, zeroed or
 * failed, the driver calls zero_driver_done() (from any context: its
 * interrupt handler, a timer); kscrubd then calls @check.  A block never
 * signalled is checked once, at the deadline, unless @polled: kscrubd sets
 * it before @start for a block due within a tick, which it polls with
 * @check (a tick apart once the first tick is over), so the driver may
 * leave its completion interrupt off, as a dmaengine client leaves out
 * DMA_PREP_INTERRUPT when it polls.  Under TCG, programming and cancelling
 * a timer for each 64 KiB block cost bte_zero a fifth of its rate.
 *
 * kscrubd starts one block at a time per instance and never marks a block
 * zeroed unless @check said so.
 */
struct zero_driver {
	const char *name;
	int (*start)(struct zero_driver *drv, void *addr, unsigned long len);
	int (*check)(struct zero_driver *drv, void *addr);
	void (*abort)(struct zero_driver *drv, void *addr);
	unsigned long rate;
	int nid;

	/* Owned by kscrubd */
	struct list_head list;
	struct mutex lock;	/* one block at a time */
	wait_queue_head_t wait;	/* kscrubd waits here for the block */
	bool done;		/* zero_driver_done() since the last start */
	bool polled;		/* this block is polled: no signal needed */
	bool broken;		/* timed out: not used again */
	bool gone;		/* being unregistered: abort the wait */
	atomic64_t pages;	/* zeroed by the engine */
	atomic64_t ns;		/* start to check() == 0, for those pages */
	atomic64_t refused;	/* blocks @start refused */
	atomic64_t failed;	/* @check reported an error */
	atomic64_t timeouts;	/* @check never finished */
};

int register_zero_driver(struct zero_driver *drv);
void unregister_zero_driver(struct zero_driver *drv);
void zero_driver_done(struct zero_driver *drv);

#endif /* _KSCRUB_ZERO_DRIVER_H */
