// SPDX-License-Identifier: GPL-2.0
/*
 * The SGI Altix (SN2) Block Transfer Engine as a zeroing engine for
 * kscrubd, after the driver in the 2005 prezeroing series
 * (seeds/004-patch-prezeroing-v3-4-4-...).
 *
 * One engine per node with memory, each a zero_driver instance serving its
 * node's kscrubd thread, as SN2 had BTEs on every node.  The engines are
 * software models (bte_model.c); this file is what a driver for the real
 * SHub would do with them: program a transfer as bte_copy() did, take the
 * completion interrupt, read the result from the notify word.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "bte_model.h"
#include "zero_driver.h"

/* Values software keeps in the notify word; no real status looks like them */
#define BTE_WORD_AVAILABLE	(IBLS_BUSY << 1)
#define BTE_WORD_BUSY		(~BTE_WORD_AVAILABLE)

/* The seed's limit: smaller blocks cost more BTE traffic than they save */
#define BTE_MIN_XFER		60000

/* The model raises any non-zero target; a real one names a CPU's vector */
#define BTE_INT_TARGET		1

/* Statistics over every engine */
static atomic_long_t transfers, bytes, errors, refused, aborted;

static int counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops counter_ops = {
	.get = counter_get,
};

module_param_cb(transfers, &counter_ops, &transfers, 0444);
MODULE_PARM_DESC(transfers, "Transfers started");
module_param_cb(bytes, &counter_ops, &bytes, 0444);
MODULE_PARM_DESC(bytes, "Bytes handed to the engines");
module_param_cb(errors, &counter_ops, &errors, 0444);
MODULE_PARM_DESC(errors, "Transfers that completed with an error");
module_param_cb(refused, &counter_ops, &refused, 0444);
MODULE_PARM_DESC(refused, "Blocks refused (size, system state, busy)");
module_param_cb(aborted, &counter_ops, &aborted, 0444);
MODULE_PARM_DESC(aborted, "Transfers kscrubd aborted");

struct bte_engine {
	struct zero_driver zd;
	struct bte_model *hw;
	/* The notify word has a cache line to itself, as in struct bteinfo_s */
	u64 *notify;
};

/* Indexed by node id; NULL for a node without memory */
static struct bte_engine **engines;

static struct bte_engine *to_engine(struct zero_driver *zd)
{
	return container_of(zd, struct bte_engine, zd);
}

/* The completion interrupt: kscrubd reads the notify word next */
static void bte_zero_irq(void *arg)
{
	struct bte_engine *e = arg;

	zero_driver_done(&e->zd);
}

static int bte_zero_start(struct zero_driver *zd, void *addr,
			  unsigned long len)
{
	struct bte_engine *e = to_engine(zd);
	int ret = 0;

	if (len < BTE_MIN_XFER || len >= BTE_MAX_XFER || (len & BTE_LINE_MASK))
		ret = -EINVAL;
	/* The seed's rule: weird things happen during bootup */
	else if (system_state != SYSTEM_RUNNING)
		ret = -EOPNOTSUPP;
	/* bte_copy()'s test: last notification consumed, IBLS quiet */
	else if (!(READ_ONCE(*e->notify) & BTE_WORD_AVAILABLE) ||
		 (bte_model_read(e->hw, BTEOFF_STAT) & BTE_ACTIVE))
		ret = -EBUSY;
	if (ret) {
		atomic_long_inc(&refused);
		return ret;
	}

	WRITE_ONCE(*e->notify, BTE_WORD_BUSY);
	bte_model_write(e->hw, BTEOFF_SRC, 0);
	bte_model_write(e->hw, BTEOFF_DEST, virt_to_phys(addr));
	bte_model_write(e->hw, BTEOFF_NOTIFY, virt_to_phys(e->notify));
	bte_model_write(e->hw, BTEOFF_STAT,
			(len >> BTE_LINE_SHIFT) & BTE_LEN_MASK);
	/* A polled block needs no interrupt, as bte_copy() polled without */
	bte_model_write(e->hw, BTEOFF_INT, zd->polled ? 0 : BTE_INT_TARGET);
	/* The engine must see the busy word and the setup before it starts */
	wmb();
	bte_model_write(e->hw, BTEOFF_CTRL, BTE_VALID_MODE(BTE_ZERO_FILL));
	atomic_long_inc(&transfers);
	atomic_long_add(len, &bytes);
	return 0;
}

static int bte_zero_check(struct zero_driver *zd, void *addr)
{
	struct bte_engine *e = to_engine(zd);
	u64 status = READ_ONCE(*e->notify);

	/* As bte_copy() polled: the notify word, and IBLS to see it end */
	if (status == BTE_WORD_BUSY &&
	    (bte_model_read(e->hw, BTEOFF_STAT) & IBLS_BUSY))
		return -EBUSY;
	status = READ_ONCE(*e->notify);
	if (status == BTE_WORD_BUSY)
		return -EBUSY;
	/* Nothing of the block may be read before the notification */
	rmb();
	if (status & IBLS_ERROR) {
		atomic_long_inc(&errors);
		pr_debug("transfer to %p failed: error %llu\n", addr,
			 status & ~IBLS_ERROR);
		/* Left unconsumed: start() refuses until abort() recovers */
		return -EIO;
	}
	WRITE_ONCE(*e->notify, BTE_WORD_AVAILABLE);
	return 0;
}

static void bte_zero_abort(struct zero_driver *zd, void *addr)
{
	struct bte_engine *e = to_engine(zd);

	atomic_long_inc(&aborted);
	bte_model_reset(e->hw);
	WRITE_ONCE(*e->notify, BTE_WORD_AVAILABLE);
}

static void bte_engine_free(struct bte_engine *e)
{
	bte_model_destroy(e->hw);
	kfree(e->notify);
	kfree(e);
}

static struct bte_engine *bte_engine_alloc(int nid)
{
	struct bte_engine *e = kzalloc_node(sizeof(*e), GFP_KERNEL, nid);

	if (!e)
		return NULL;
	/* kmalloc() aligns it to its size; the engine needs its address */
	e->notify = kmalloc_node(L1_CACHE_BYTES, GFP_KERNEL, nid);
	e->hw = bte_model_create(nid, bte_zero_irq, e);
	if (!e->notify || !e->hw) {
		bte_engine_free(e);
		return NULL;
	}
	*e->notify = BTE_WORD_AVAILABLE;
	e->zd = (struct zero_driver) {
		.name = "bte_zero",
		.start = bte_zero_start,
		.check = bte_zero_check,
		.abort = bte_zero_abort,
		.rate = BTE_RATE,
		.nid = nid,
	};
	return e;
}

static void bte_zero_teardown(void)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++) {
		if (!engines[nid])
			continue;
		/* After this kscrubd no longer calls it: the engine stays idle */
		unregister_zero_driver(&engines[nid]->zd);
		bte_engine_free(engines[nid]);
	}
	kfree(engines);
}

static int __init bte_zero_init(void)
{
	int nid, ret;

	engines = kcalloc(nr_node_ids, sizeof(*engines), GFP_KERNEL);
	if (!engines)
		return -ENOMEM;
	/* A node that gains memory after the load gets no engine */
	for_each_node_state(nid, N_MEMORY) {
		struct bte_engine *e = bte_engine_alloc(nid);

		ret = e ? register_zero_driver(&e->zd) : -ENOMEM;
		if (ret) {
			if (e)
				bte_engine_free(e);
			bte_zero_teardown();
			return ret;
		}
		engines[nid] = e;
	}
	/*
	 * No machine this runs on has a BTE: say that the engines are a
	 * model, so that nobody reads its rate as offloaded zeroing.
	 */
	pr_info("%d engines, a software model of SGI's BTE: the CPU does the fill, paced at %lu MB/s\n",
		num_node_state(N_MEMORY), BTE_RATE / 1000000);
	return 0;
}

static void __exit bte_zero_exit(void)
{
	bte_zero_teardown();
}

module_init(bte_zero_init);
module_exit(bte_zero_exit);
MODULE_DESCRIPTION("SGI Altix BTE zeroing engine for kscrubd (emulated)");
MODULE_LICENSE("GPL");
