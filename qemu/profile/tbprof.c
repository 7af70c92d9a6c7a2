// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin: instructions executed per translation block in the
 * guest kernel, written at exit as "vaddr insns" lines to out=PATH, so
 * that two kernels can be compared function by function (symdiff.py).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The kernel's text mapping and modules, not user space */
#define KERNEL_TEXT	0xffffffff80000000ull

/* One per translation; a block translated twice is summed at exit */
struct tb_count {
	uint64_t vaddr;
	uint64_t insns;
	/*
	 * Bumped inline by the translated code, not atomically: two vCPUs
	 * running one block at once can lose a count.  The fault loop runs
	 * on one vCPU while the other idles, so the loss is small.
	 */
	uint64_t execs;
	struct tb_count *next;
};

static struct tb_count *counts;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static char out_path[4096] = "tbprof.out";

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct tb_count *c;

	if (vaddr < KERNEL_TEXT)
		return;
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->vaddr = vaddr;
	c->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&counts_lock);
	c->next = counts;
	counts = c;
	pthread_mutex_unlock(&counts_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->execs, 1);
}

static void dump(qemu_plugin_id_t id, void *p)
{
	static int done;
	struct tb_count *c;
	FILE *f;

	if (done++)
		return;
	f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	for (c = counts; c; c = c->next)
		if (c->execs)
			fprintf(f, "%llx %llu\n", (unsigned long long)c->vaddr,
				(unsigned long long)(c->execs * c->insns));
	fclose(f);
}

/* QEMU may exit without calling the atexit callback when the guest dies */
static void __attribute__((destructor)) tbprof_fini(void)
{
	dump(0, NULL);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, dump, NULL);
	return 0;
}
