// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: leave free pageblocks of type UNMOVABLE behind, as a burst
 * of large unmovable allocations does.  An unmovable allocation of
 * pageblock_order that falls back to a movable pageblock takes the whole
 * pageblock for UNMOVABLE; freed, the pageblock keeps that type.
 * 87-kscrubd-pageblock-types loads it with blocks=N, counts pageblock
 * types in /proc/pagetypeinfo, and unloads it.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static unsigned int blocks = 32;
module_param(blocks, uint, 0444);
MODULE_PARM_DESC(blocks, "pageblocks to allocate unmovable and free (1-256)");

static int __init test_unmovable_blocks_init(void)
{
	struct page **held;
	unsigned int n = 0;

	if (!blocks || blocks > 256) {
		pr_err("test_unmovable_blocks: blocks=%u is not in 1-256\n",
		       blocks);
		return -EINVAL;
	}
	held = kcalloc(blocks, sizeof(*held), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	/* All held at once, so that each takes a pageblock of its own */
	while (n < blocks) {
		held[n] = alloc_pages(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN,
				      pageblock_order);
		if (!held[n])
			break;
		n++;
	}
	pr_info("test_unmovable_blocks: allocated and freed %u unmovable blocks of order %u\n",
		n, pageblock_order);
	while (n)
		__free_pages(held[--n], pageblock_order);
	kfree(held);
	return 0;
}

static void __exit test_unmovable_blocks_exit(void)
{
}

module_init(test_unmovable_blocks_init);
module_exit(test_unmovable_blocks_exit);
MODULE_DESCRIPTION("Test helper: leaves free unmovable pageblocks");
MODULE_LICENSE("GPL");
