// SPDX-License-Identifier: GPL-2.0
/*
 * A software model of one SN2 Block Transfer Engine, standing in for the
 * SHub that does not exist here: its register block is module memory, a
 * store to the control register starts a transfer, and the notification
 * (and the completion interrupt, if a target is set) comes when a
 * BTE_RATE engine would have finished, timed by an hrtimer.
 *
 * The model has no engine to move the data, so the CPU that starts a
 * transfer does the fill right away, before it returns, while the timer
 * runs; only the timing is the engine's.  The notification is posted when
 * both are over, so a transfer costs what the real one would, its length
 * over the rate plus the interrupt, as long as the CPU fills faster than
 * the engine would (zero fills use clear_page(), rep stosq: several GB/s
 * under TCG, where the kernel's memset() without ERMS is a loop of 8-byte
 * stores that filled at about 500 MB/s).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bte_model.h"

/* Make every Nth transfer end with an error in the notify word (0: never) */
static unsigned int fail_every;
module_param(fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every, "Every Nth transfer fails (0: none)");

/* Leave transfers busy for ever, as a wedged engine would */
static bool stall;
module_param(stall, bool, 0644);
MODULE_PARM_DESC(stall, "Transfers never complete");

/* Bytes filled between two cond_resched() calls: 8 MiB is a few ms */
#define BTE_FILL_CHUNK	(256UL << 10)

struct bte_model {
	u64 regs[BTE_NR_REGS];
	struct hrtimer done;	/* when the transfer would end */
	atomic_t parts;		/* of the fill and the timer, still running */
	u64 end_ns;		/* when the transfer is over */
	u64 status;		/* IBLS once the transfer is over */
	unsigned long seq;	/* transfers started, for fail_every */
	void (*irq)(void *arg);
	void *irq_arg;
};

static u64 reg(struct bte_model *bte, unsigned int off)
{
	return READ_ONCE(bte->regs[off / 8]);
}

static void set_reg(struct bte_model *bte, unsigned int off, u64 val)
{
	WRITE_ONCE(bte->regs[off / 8], val);
}

static void fill(void *dst, int c, size_t len)
{
	bool pages = !c && PAGE_ALIGNED(dst) && PAGE_ALIGNED(len);

	while (len) {
		size_t n = min(len, BTE_FILL_CHUNK), off;

		if (pages)
			for (off = 0; off < n; off += PAGE_SIZE)
				clear_page(dst + off);
		else
			memset(dst, c, n);
		dst += n;
		len -= n;
		cond_resched();
	}
}

/* The transfer is over, data and time: post its status */
static void bte_model_post(struct bte_model *bte)
{
	/* Idle, length counted down to zero, an error latched until reset */
	set_reg(bte, BTEOFF_STAT, bte->status);
	/* The SHub posts the notification only after the data */
	wmb();
	if (reg(bte, BTEOFF_CTRL) & IBCT_NOTIFY)
		WRITE_ONCE(*(u64 *)phys_to_virt(reg(bte, BTEOFF_NOTIFY)),
			   bte->status);
	if (reg(bte, BTEOFF_INT))
		bte->irq(bte->irq_arg);
}

/* Whichever of the fill and the timer ends last posts */
static void bte_model_part_done(struct bte_model *bte)
{
	if (atomic_dec_and_test(&bte->parts))
		bte_model_post(bte);
}

static enum hrtimer_restart bte_model_timer(struct hrtimer *t)
{
	bte_model_part_done(container_of(t, struct bte_model, done));
	return HRTIMER_NORESTART;
}

/* A store to IBCT: move the lines IBLS holds; process context */
static void bte_model_go(struct bte_model *bte)
{
	u64 lines = reg(bte, BTEOFF_STAT) & IBLS_LENGTH_MASK;
	size_t len = lines << BTE_LINE_SHIFT;
	void *dst = phys_to_virt(reg(bte, BTEOFF_DEST));
	unsigned int n = READ_ONCE(fail_every);

	might_sleep();
	set_reg(bte, BTEOFF_STAT, IBLS_BUSY | lines);
	bte->seq++;
	if (READ_ONCE(stall))
		return;
	bte->status = 0;
	if (n && !(bte->seq % n))
		bte->status = IBLS_ERROR | BTEFAIL_PWERR;
	/* The engine's time runs from the store, the fill's alongside it */
	atomic_set(&bte->parts, 2);
	bte->end_ns = ktime_get_ns() + div_u64((u64)len * NSEC_PER_SEC, BTE_RATE);
	/* Without an interrupt target, a read of IBLS posts (below) */
	if (reg(bte, BTEOFF_INT))
		hrtimer_start(&bte->done, ns_to_ktime(bte->end_ns),
			      HRTIMER_MODE_ABS);
	/* The block is undefined after an error: make it visibly so */
	if (bte->status)
		fill(dst, 0xa5, len);
	else if (reg(bte, BTEOFF_CTRL) & IBCT_ZFIL_MODE)
		fill(dst, 0, len);
	else
		memcpy(dst, phys_to_virt(reg(bte, BTEOFF_SRC)), len);
	bte_model_part_done(bte);
}

/*
 * Reading IBLS shows the transfer over once its time is: a driver polling
 * it sees the engine finish when it does, not when the timer's interrupt
 * gets through (tens of microseconds under TCG).  The timer, if armed (an
 * interrupt target is set), is cancelled first, so that exactly one of
 * them posts; without one only such a read posts, and the notification
 * word stays busy until the driver reads IBLS.
 */
u64 bte_model_read(struct bte_model *bte, unsigned int off)
{
	if (off == BTEOFF_STAT && (reg(bte, off) & IBLS_BUSY) &&
	    atomic_read(&bte->parts) == 1 && ktime_get_ns() >= bte->end_ns &&
	    (!reg(bte, BTEOFF_INT) || hrtimer_try_to_cancel(&bte->done) == 1))
		bte_model_part_done(bte);
	return reg(bte, off);
}

void bte_model_write(struct bte_model *bte, unsigned int off, u64 val)
{
	set_reg(bte, off, val);
	if (off == BTEOFF_CTRL)
		bte_model_go(bte);
}

/*
 * Stop the engine and clear a latched error, standing in for the recovery
 * bte_error_handler() did through registers not modelled here.  Nothing is
 * written to memory, and no interrupt comes, once it returns.
 */
void bte_model_reset(struct bte_model *bte)
{
	hrtimer_cancel(&bte->done);
	set_reg(bte, BTEOFF_STAT, 0);
}

struct bte_model *bte_model_create(int nid, void (*irq)(void *arg), void *arg)
{
	struct bte_model *bte = kzalloc_node(sizeof(*bte), GFP_KERNEL, nid);

	if (!bte)
		return NULL;
	hrtimer_init(&bte->done, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	bte->done.function = bte_model_timer;
	bte->irq = irq;
	bte->irq_arg = arg;
	return bte;
}

void bte_model_destroy(struct bte_model *bte)
{
	if (!bte)
		return;
	bte_model_reset(bte);
	kfree(bte);
}
