/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SGI Altix (SN2) Block Transfer Engine: its registers, and the
 * software model of one that bte_zero drives because no SHub exists here.
 * A driver for the real engine would keep the register layout and replace
 * bte_model_*() with accessors on the SHub's ioremap()ed MMR window and a
 * real interrupt handler.
 *
 * Register offsets, bits and limits are those of the SHub1 BTE as Linux
 * had them until ia64 was removed: include/asm-ia64/sn/bte.h (later
 * arch/ia64/include/asm/sn/bte.h), include/asm-ia64/sn/shubio.h
 * (IIO_IBLS0..IIO_IBIA0 at 0x410000..0x410028, IBLS_ and IBCT_ bits) and
 * the programming sequence of bte_copy() in arch/ia64/sn/kernel/bte.c.
 */
#ifndef _KSCRUB_BTE_MODEL_H
#define _KSCRUB_BTE_MODEL_H

#include <linux/bits.h>
#include <linux/types.h>

/* One BTE's registers, u64 each, offsets from IIO_IBLS0 */
#define BTEOFF_STAT	0x00	/* IIO_IBLS: length (lines) and status */
#define BTEOFF_SRC	0x08	/* IIO_IBSA: source physical address */
#define BTEOFF_DEST	0x10	/* IIO_IBDA: destination physical address */
#define BTEOFF_CTRL	0x18	/* IIO_IBCT: mode; storing it starts */
#define BTEOFF_NOTIFY	0x20	/* IIO_IBNA: physical address of notify word */
#define BTEOFF_INT	0x28	/* IIO_IBIA: interrupt target */
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

/* Bytes per second, the seed's figure; the model takes exactly this long */
#define BTE_RATE		500000000UL

struct bte_model;

/*
 * @irq is the completion interrupt, called once the notification is
 * posted when BTEOFF_INT holds a non-zero target; from hard interrupt
 * context or from a workqueue.
 */
struct bte_model *bte_model_create(int nid, void (*irq)(void *arg),
				   void *arg);
void bte_model_destroy(struct bte_model *bte);
u64 bte_model_read(struct bte_model *bte, unsigned int off);
void bte_model_write(struct bte_model *bte, unsigned int off, u64 val);
void bte_model_reset(struct bte_model *bte);

#endif /* _KSCRUB_BTE_MODEL_H */
