// SPDX-License-Identifier: GPL-2.0
/*
 * Control for the "Oops: int3" seen with CONFIG_JUMP_LABEL=y under QEMU's
 * multi-threaded TCG: flip a static key many times while every other CPU
 * executes a site that tests it.  Nothing here touches the page allocator
 * or the prezeroing series, so a crash with this module alone is not ours.
 *
 *   key=own            a key of this module, tested in a tight loop
 *   key=init_on_alloc  the stock key want_init_on_alloc() tests, with the
 *                      other CPUs allocating and freeing pages
 *
 * text_poke_bp() writes an int3 over the site, synchronizes every CPU,
 * writes the new instruction and synchronizes again; a CPU that still
 * executes the int3 after that is not following the architecture's
 * cross-modifying-code rules, and the int3 is reported as a stray
 * breakpoint.  On a sound CPU (or single-threaded TCG) the load completes
 * and logs how often each side ran.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static unsigned int flips = 2000;
module_param(flips, uint, 0444);
MODULE_PARM_DESC(flips, "How many times to enable and disable the key");

static char *key = "own";
module_param(key, charp, 0444);
MODULE_PARM_DESC(key, "own or init_on_alloc");

static DEFINE_STATIC_KEY_FALSE(jlr_key);

struct jlr_spinner {
	struct task_struct *task;
	unsigned long iters;
	unsigned long taken;
};

static bool use_stock_key;

static noinline void jlr_spin_once(struct jlr_spinner *s)
{
	if (static_branch_unlikely(&jlr_key))
		s->taken++;
}

static noinline void jlr_alloc_once(struct jlr_spinner *s)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (page) {
		/* The stock site: want_init_on_alloc() in post_alloc_hook() */
		if (want_init_on_alloc(GFP_KERNEL))
			s->taken++;
		__free_page(page);
	}
}

static int jlr_spinner_fn(void *arg)
{
	struct jlr_spinner *s = arg;

	while (!kthread_should_stop()) {
		if (use_stock_key)
			jlr_alloc_once(s);
		else
			jlr_spin_once(s);
		if (!(++s->iters & 0x3ff))
			cond_resched();
	}
	return 0;
}

static void jlr_flip(bool on)
{
	if (use_stock_key) {
		if (on)
			static_branch_enable(&init_on_alloc);
		else
			static_branch_disable(&init_on_alloc);
	} else {
		if (on)
			static_branch_enable(&jlr_key);
		else
			static_branch_disable(&jlr_key);
	}
}

static int __init jlr_init(void)
{
	struct jlr_spinner *spinners;
	unsigned long iters = 0, taken = 0;
	bool stock_was_on;
	unsigned int i;
	int cpu, self;

	if (sysfs_streq(key, "init_on_alloc")) {
		use_stock_key = true;
	} else if (!sysfs_streq(key, "own")) {
		pr_err("jump_label_race: key=%s: want own or init_on_alloc\n",
		       key);
		return -EINVAL;
	}
	stock_was_on = static_key_enabled(&init_on_alloc);

	spinners = kcalloc(nr_cpu_ids, sizeof(*spinners), GFP_KERNEL);
	if (!spinners)
		return -ENOMEM;

	self = get_cpu();
	put_cpu();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (cpu == self)
			continue;
		t = kthread_create_on_cpu(jlr_spinner_fn, &spinners[cpu], cpu,
					  "jlr_spin/%u");
		if (IS_ERR(t))
			continue;
		spinners[cpu].task = t;
		wake_up_process(t);
	}

	/* Give the spinners time to get their loop translated and running */
	msleep(100);
	for (i = 0; i < flips; i++) {
		jlr_flip(true);
		jlr_flip(false);
	}
	jlr_flip(use_stock_key && stock_was_on);

	for_each_online_cpu(cpu) {
		if (!spinners[cpu].task)
			continue;
		kthread_stop(spinners[cpu].task);
		iters += spinners[cpu].iters;
		taken += spinners[cpu].taken;
	}
	kfree(spinners);
	pr_info("jump_label_race: key %s flipped %u times while other CPUs ran the site %lu times (%lu taken)\n",
		key, flips, iters, taken);
	return 0;
}

static void __exit jlr_exit(void)
{
}

module_init(jlr_init);
module_exit(jlr_exit);
MODULE_DESCRIPTION("Flip a static key while other CPUs run its site (TCG control)");
MODULE_LICENSE("GPL");
