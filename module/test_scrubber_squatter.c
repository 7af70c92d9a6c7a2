// SPDX-License-Identifier: GPL-2.0
/*
 * Registers as the page allocator's scrubber and does nothing, so that
 * kscrubd's load is refused: a test that the refusal says why and leaves
 * nothing behind.
 */
#include <linux/module.h>
#include <linux/page_prezero.h>

static void squatter_coalesced(struct page_scrubber *s, struct zone *zone,
			       unsigned int order)
{
}

static struct page_scrubber squatter = {
	.coalesced = squatter_coalesced,
	.order = MAX_PAGE_ORDER,
};

static int __init squatter_init(void)
{
	return page_scrubber_register(&squatter);
}

static void __exit squatter_exit(void)
{
	page_scrubber_unregister(&squatter);
}

module_init(squatter_init);
module_exit(squatter_exit);
MODULE_DESCRIPTION("Hold the page scrubber slot to test kscrubd's refusal");
MODULE_LICENSE("GPL");
