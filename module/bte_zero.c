// SPDX-License-Identifier: GPL-2.0
/*
 * The SGI Altix (SN2) Block Transfer Engine as a zeroing engine for
 * kscrubd, after the driver in the 2005 prezeroing series
 * (seeds/004-patch-prezeroing-v3-4-4-...).
 *
 * No SHub exists here, so the BTE's register window is a block of module
 * memory and the engine behind it is emulated: a store to the control
 * register starts a transfer, and delayed work does the fill after the
 * time a 500 MB/s engine would take, then posts the status to the
 * notification word as the SHub does.  The driver reaches the window only
 * through bte_read() and bte_write(), so an ioremap()ed one could replace
 * it; the emulation is everything below "The engine".
 *
 * Register offsets, bits and limits are those of the SHub1 BTE as Linux
 * had them until ia64 was removed: include/asm-ia64/sn/bte.h (later
 * arch/ia64/include/asm/sn/bte.h), include/asm-ia64/sn/shubio.h
 * (IIO_IBLS0..IIO_IBIA0 at 0x410000..0x410028, IBLS_ and IBCT_ bits) and
 * the programming sequence of bte_copy() in arch/ia64/sn/kernel/bte.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "zero_driver.h"

/* One BTE's registers, u64 each, offsets from IIO_IBLS0 */
#define BTEOFF_STAT	0x00	/* IIO_IBLS: length (lines) and status */
#define BTEOFF_SRC	0x08	/* IIO_IBSA: source physical address */
#define BTEOFF_DEST	0x10	/* IIO_IBDA: destination physical address */
#define BTEOFF_CTRL	0x18	/* IIO_IBCT: mode; storing it starts */
#define BTEOFF_NOTIFY	0x20	/* IIO_IBNA: physical address of notify word */
#define BTEOFF_INT	0x28	/* IIO_IBIA: interrupt target, unused: we poll */
#define BTE_NR_REGS	6

#define IBLS_BUSY		BIT_ULL(20)
#define IBLS_ERROR		BIT_ULL(16)
#define IBLS_LENGTH_MASK	0xffffULL

#define IBCT_NOTIFY		BIT_ULL(4)
#define IBCT_ZFIL_MODE		BIT_ULL(0)
#define BTE_NOTIFY		IBCT_NOTIFY
#define BTE_ZERO_FILL		(BTE_NOTIFY | IBCT_ZFIL_MODE)
#define BTE_VALID_MODE(x)	((x) & (IBCT_NOTIFY | IBCT_ZFIL_MODE))

/* Busy or failed: the engine takes no new transfer until recovered */
#define BTE_ACTIVE		(IBLS_BUSY | IBLS_ERROR)
/* Values software keeps in the notify word; no real status looks like them */
#define BTE_WORD_AVAILABLE	(IBLS_BUSY << 1)
#define BTE_WORD_BUSY		(~BTE_WORD_AVAILABLE)

/*
 * Lengths count SN2 cache lines (128 bytes whatever this CPU's are) in the
 * 16-bit IBLS field; the 2004 header's (1 << 16) lines did not fit it, the
 * later one's BTE_LEN_MASK lines do.
 */
#define BTE_LINE_SHIFT		7
#define BTE_LINE_MASK		(BIT(BTE_LINE_SHIFT) - 1)
#define BTE_LEN_MASK		0xffffUL
#define BTE_MAX_XFER		(BTE_LEN_MASK << BTE_LINE_SHIFT)

/* bte_result_t: the SHub's IIO_ICRB_ECODE_* plus BTEFAIL_OFFSET (1) */
#define BTEFAIL_PWERR		5	/* partial write error */

/* The seed's limit: smaller blocks cost more BTE traffic than they save */
#define BTE_MIN_XFER		60000
#define BTE_RATE		500000000UL	/* bytes/s, the seed's figure */

/* Make every Nth transfer end with an error in the notify word (0: never) */
static unsigned int fail_every;
module_param(fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every, "Every Nth transfer fails (0: none)");

/* Leave transfers busy for ever, as a wedged engine would */
static bool stall;
module_param(stall, bool, 0644);
MODULE_PARM_DESC(stall, "Transfers never complete");

/* Statistics; kscrubd serialises the calls that update them */
static unsigned long transfers, bytes, errors, refused, aborted;
module_param(transfers, ulong, 0444);
MODULE_PARM_DESC(transfers, "Transfers started");
module_param(bytes, ulong, 0444);
MODULE_PARM_DESC(bytes, "Bytes handed to the engine");
module_param(errors, ulong, 0444);
MODULE_PARM_DESC(errors, "Transfers that completed with an error");
module_param(refused, ulong, 0444);
MODULE_PARM_DESC(refused, "Blocks refused (size, system state, busy)");
module_param(aborted, ulong, 0444);
MODULE_PARM_DESC(aborted, "Transfers kscrubd aborted");

/* The engine: stands in for the SHub, owns everything in this section */

static u64 bte_regs[BTE_NR_REGS];
static bool bte_hw_fail;	/* the current transfer will fail */
static unsigned long bte_hw_seq;

static u64 hw_reg(unsigned int off)
{
	return READ_ONCE(bte_regs[off / 8]);
}

static void hw_set(unsigned int off, u64 val)
{
	WRITE_ONCE(bte_regs[off / 8], val);
}

/* Process context: a fill of up to 8 MiB does not belong in a timer */
static void bte_hw_complete(struct work_struct *work)
{
	u64 lines = hw_reg(BTEOFF_STAT) & IBLS_LENGTH_MASK;
	u64 mode = hw_reg(BTEOFF_CTRL);
	void *dst = phys_to_virt(hw_reg(BTEOFF_DEST));
	size_t len = lines << BTE_LINE_SHIFT;
	u64 status = 0;

	if (bte_hw_fail) {
		/* The block is undefined after an error: make it visibly so */
		memset(dst, 0xa5, len);
		status = IBLS_ERROR | BTEFAIL_PWERR;
	} else if (mode & IBCT_ZFIL_MODE) {
		memset(dst, 0, len);
	} else {
		memcpy(dst, phys_to_virt(hw_reg(BTEOFF_SRC)), len);
	}
	/* Idle, length counted down to zero, an error latched until reset */
	hw_set(BTEOFF_STAT, status);
	/* The SHub posts the notification only after the data */
	wmb();
	if (mode & IBCT_NOTIFY)
		WRITE_ONCE(*(u64 *)phys_to_virt(hw_reg(BTEOFF_NOTIFY)), status);
}

static DECLARE_DELAYED_WORK(bte_hw_work, bte_hw_complete);

/* A store to IBCT: start moving the lines IBLS holds */
static void bte_hw_go(void)
{
	u64 lines = hw_reg(BTEOFF_STAT) & IBLS_LENGTH_MASK;
	unsigned int n = READ_ONCE(fail_every);

	hw_set(BTEOFF_STAT, IBLS_BUSY | lines);
	bte_hw_seq++;
	bte_hw_fail = n && !(bte_hw_seq % n);
	if (READ_ONCE(stall))
		return;
	queue_delayed_work(system_unbound_wq, &bte_hw_work,
			   div_u64((lines << BTE_LINE_SHIFT) * HZ, BTE_RATE));
}

/*
 * Stop the engine and clear a latched error, standing in for the recovery
 * bte_error_handler() did through registers not modelled here.  Nothing is
 * written to memory once it returns.
 */
static void bte_hw_reset(void)
{
	cancel_delayed_work_sync(&bte_hw_work);
	hw_set(BTEOFF_STAT, 0);
}

/* The driver: what a real one would do with the SHub's MMR window */

/* The notify word has a cache line to itself, as in struct bteinfo_s */
static u64 *bte_notify;

static u64 bte_read(unsigned int off)
{
	return hw_reg(off);
}

static void bte_write(unsigned int off, u64 val)
{
	hw_set(off, val);
	if (off == BTEOFF_CTRL)
		bte_hw_go();
}

static int bte_zero_start(void *addr, unsigned long len)
{
	int ret = 0;

	if (len < BTE_MIN_XFER || len >= BTE_MAX_XFER || (len & BTE_LINE_MASK))
		ret = -EINVAL;
	/* The seed's rule: weird things happen during bootup */
	else if (system_state != SYSTEM_RUNNING)
		ret = -EOPNOTSUPP;
	/* bte_copy()'s test: last notification consumed, IBLS quiet */
	else if (!(READ_ONCE(*bte_notify) & BTE_WORD_AVAILABLE) ||
		 (bte_read(BTEOFF_STAT) & BTE_ACTIVE))
		ret = -EBUSY;
	if (ret) {
		refused++;
		return ret;
	}

	WRITE_ONCE(*bte_notify, BTE_WORD_BUSY);
	bte_write(BTEOFF_SRC, 0);
	bte_write(BTEOFF_DEST, virt_to_phys(addr));
	bte_write(BTEOFF_NOTIFY, virt_to_phys(bte_notify));
	bte_write(BTEOFF_STAT, (len >> BTE_LINE_SHIFT) & BTE_LEN_MASK);
	/* The engine must see the busy word and the setup before it starts */
	wmb();
	bte_write(BTEOFF_CTRL, BTE_VALID_MODE(BTE_ZERO_FILL));
	transfers++;
	bytes += len;
	return 0;
}

static int bte_zero_check(void *addr)
{
	u64 status = READ_ONCE(*bte_notify);

	if (status == BTE_WORD_BUSY)
		return -EBUSY;
	/* Nothing of the block may be read before the notification */
	rmb();
	if (status & IBLS_ERROR) {
		errors++;
		pr_debug("transfer to %p failed: error %llu\n", addr,
			 status & ~IBLS_ERROR);
		/* Left unconsumed: start() refuses until abort() recovers */
		return -EIO;
	}
	WRITE_ONCE(*bte_notify, BTE_WORD_AVAILABLE);
	return 0;
}

static void bte_zero_abort(void *addr)
{
	aborted++;
	bte_hw_reset();
	WRITE_ONCE(*bte_notify, BTE_WORD_AVAILABLE);
}

static struct zero_driver bte_zero_drv = {
	.name = "bte_zero",
	.start = bte_zero_start,
	.check = bte_zero_check,
	.abort = bte_zero_abort,
	.rate = BTE_RATE,
};

static int __init bte_zero_init(void)
{
	int ret;

	/* kmalloc() aligns it to its size; the engine needs its address */
	bte_notify = kmalloc(L1_CACHE_BYTES, GFP_KERNEL);
	if (!bte_notify)
		return -ENOMEM;
	*bte_notify = BTE_WORD_AVAILABLE;

	ret = register_zero_driver(&bte_zero_drv);
	if (ret)
		kfree(bte_notify);
	return ret;
}

static void __exit bte_zero_exit(void)
{
	/* After this kscrubd no longer calls us, so the engine stays idle */
	unregister_zero_driver(&bte_zero_drv);
	bte_hw_reset();
	kfree(bte_notify);
}

module_init(bte_zero_init);
module_exit(bte_zero_exit);
MODULE_DESCRIPTION("SGI Altix BTE zeroing engine for kscrubd (emulated)");
MODULE_LICENSE("GPL");
