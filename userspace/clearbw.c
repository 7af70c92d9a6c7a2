// SPDX-License-Identifier: GPL-2.0
/*
 * clearbw - memory clearing bandwidth by instruction sequence and extent.
 *
 * Answers "how fast can this machine zero memory" for the candidate
 * clearing primitives, at the extents a page scrubber works in (4 KiB
 * page, 2 MiB huge page, 1 GiB gigantic page).  Each extent is cleared
 * while walking a large buffer, so the destination is cold as it is for
 * a scrubber working through free memory, not hot in the cache.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE_SZ		4096UL
#define HPAGE_SZ	(2UL << 20)
#define COLD_MIN	(256UL << 20)
#define MAX_EXTENTS	16

typedef void (*clear_fn)(void *dst, size_t len);

/*
 * All loops below are written in asm so the compiler can neither turn
 * them into a memset call nor pick different instructions; the point is
 * to measure exactly the named sequence.  Lengths are multiples of 1 KiB
 * and destinations 2 MiB aligned plus a multiple of the extent, which
 * satisfies every unroll and alignment requirement here.
 */

static void clear_memset(void *dst, size_t len)
{
	memset(dst, 0, len);
	asm volatile("" : : "r"(dst) : "memory");
}

static void clear_stosb(void *dst, size_t len)
{
	asm volatile("rep stosb"
		     : "+D"(dst), "+c"(len)
		     : "a"(0)
		     : "memory");
}

static void clear_stosq(void *dst, size_t len)
{
	size_t n = len / 8;

	asm volatile("rep stosq"
		     : "+D"(dst), "+c"(n)
		     : "a"(0UL)
		     : "memory");
}

__attribute__((target("avx2")))
static void clear_avx2(void *dst, size_t len)
{
	char *p = dst, *end = p + len;

	asm volatile("vpxor %%ymm0, %%ymm0, %%ymm0\n"
		     "1:\n\t"
		     "vmovdqa %%ymm0, 0(%0)\n\t"
		     "vmovdqa %%ymm0, 32(%0)\n\t"
		     "vmovdqa %%ymm0, 64(%0)\n\t"
		     "vmovdqa %%ymm0, 96(%0)\n\t"
		     "add $128, %0\n\t"
		     "cmp %1, %0\n\t"
		     "jb 1b\n\t"
		     /* Avoid SSE/AVX transition penalties in later code. */
		     "vzeroupper"
		     : "+r"(p)
		     : "r"(end)
		     : "xmm0", "memory", "cc");
}

static void clear_sse2(void *dst, size_t len)
{
	char *p = dst, *end = p + len;

	asm volatile("pxor %%xmm0, %%xmm0\n"
		     "1:\n\t"
		     "movdqa %%xmm0, 0(%0)\n\t"
		     "movdqa %%xmm0, 16(%0)\n\t"
		     "movdqa %%xmm0, 32(%0)\n\t"
		     "movdqa %%xmm0, 48(%0)\n\t"
		     "add $64, %0\n\t"
		     "cmp %1, %0\n\t"
		     "jb 1b"
		     : "+r"(p)
		     : "r"(end)
		     : "xmm0", "memory", "cc");
}

/*
 * The sfence is part of the cost: a kernel clearing with non-temporal
 * stores has to order them before the page is handed out.
 */
static void clear_movnti(void *dst, size_t len)
{
	char *p = dst, *end = p + len;

	asm volatile("xor %%eax, %%eax\n"
		     "1:\n\t"
		     "movnti %%rax, 0(%0)\n\t"
		     "movnti %%rax, 8(%0)\n\t"
		     "movnti %%rax, 16(%0)\n\t"
		     "movnti %%rax, 24(%0)\n\t"
		     "movnti %%rax, 32(%0)\n\t"
		     "movnti %%rax, 40(%0)\n\t"
		     "movnti %%rax, 48(%0)\n\t"
		     "movnti %%rax, 56(%0)\n\t"
		     "add $64, %0\n\t"
		     "cmp %1, %0\n\t"
		     "jb 1b\n\t"
		     "sfence"
		     : "+r"(p)
		     : "r"(end)
		     : "rax", "memory", "cc");
}

static void clear_movntdq(void *dst, size_t len)
{
	char *p = dst, *end = p + len;

	asm volatile("pxor %%xmm0, %%xmm0\n"
		     "1:\n\t"
		     "movntdq %%xmm0, 0(%0)\n\t"
		     "movntdq %%xmm0, 16(%0)\n\t"
		     "movntdq %%xmm0, 32(%0)\n\t"
		     "movntdq %%xmm0, 48(%0)\n\t"
		     "add $64, %0\n\t"
		     "cmp %1, %0\n\t"
		     "jb 1b\n\t"
		     "sfence"
		     : "+r"(p)
		     : "r"(end)
		     : "xmm0", "memory", "cc");
}

struct method {
	const char *name;
	clear_fn fn;
	int needs_avx2;
	int selected;
};

static struct method methods[] = {
	{ "memset",	clear_memset,	0, 1 },
	{ "rep_stosb",	clear_stosb,	0, 1 },
	{ "rep_stosq",	clear_stosq,	0, 1 },
	{ "avx2",	clear_avx2,	1, 1 },
	{ "sse2",	clear_sse2,	0, 1 },
	{ "movnti",	clear_movnti,	0, 1 },
	{ "movntdq",	clear_movntdq,	0, 1 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_METHODS	ARRAY_SIZE(methods)

static unsigned long extents_kib[MAX_EXTENTS] = { 4, 2048, 1048576 };
static unsigned int nr_extents = 3;
static unsigned long buf_mib = 512;
static unsigned long cap_mib = 1024;
static unsigned int reps = 1;
static int machine;

static const char *env_name = "native";
static char hv_sig[13];

static FILE *notes(void)
{
	/* Keep -k output one measurement per line for scripts. */
	return machine ? stderr : stdout;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int has_flag(const char *line, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = line;

	while ((p = strstr(p, flag))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static const char *hv_kind(void)
{
	if (!strcmp(hv_sig, "TCGTCGTCGTCG"))
		return "tcg";
	if (!strcmp(hv_sig, "KVMKVMKVM"))
		return "kvm";
	if (!strcmp(hv_sig, "Microsoft Hv"))
		return "hyperv";
	if (!strcmp(hv_sig, "VMwareVMware"))
		return "vmware";
	if (!strcmp(hv_sig, "bhyve bhyve "))
		return "bhyve";
	if (!strcmp(hv_sig, "XenVMMXenVMM"))
		return "xen";
	return hv_sig[0] ? "other" : "unknown";
}

/*
 * Emulated (TCG) and virtualized numbers differ from native ones by
 * orders of magnitude, so every report must say where it came from.
 */
static void detect_env(char *model, size_t model_sz)
{
	unsigned int eax, ebx, ecx, edx;
	char line[4096];
	int flags_seen = 0;
	char *p;
	FILE *f;

	snprintf(model, model_sz, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			p = strchr(line, ':');
			if (p && !strncmp(line, "model name", 10) &&
			    !strcmp(model, "unknown")) {
				snprintf(model, model_sz, "%s", p + 2);
				model[strcspn(model, "\n")] = '\0';
			}
			if (!flags_seen && !strncmp(line, "flags", 5)) {
				flags_seen = 1;
				if (has_flag(line, "hypervisor"))
					env_name = "vm";
			}
		}
		fclose(f);
	}

	if (strcmp(env_name, "vm"))
		return;
	__cpuid(0x40000000, eax, ebx, ecx, edx);
	memcpy(hv_sig, &ebx, 4);
	memcpy(hv_sig + 4, &ecx, 4);
	memcpy(hv_sig + 8, &edx, 4);
	hv_sig[12] = '\0';
	(void)eax;
}

static void *map_buffer(size_t len, int *thp)
{
	uintptr_t raw, start;
	size_t maplen = len + HPAGE_SZ;
	char *p;
	size_t i;

	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "clearbw: mmap %zu MiB: %s\n", len >> 20,
			strerror(errno));
		exit(2);
	}
	raw = (uintptr_t)p;
	start = (raw + HPAGE_SZ - 1) & ~(HPAGE_SZ - 1);
	if (start > raw)
		munmap(p, start - raw);
	if (raw + maplen > start + len)
		munmap((void *)(start + len), raw + maplen - (start + len));
	p = (char *)start;

	/*
	 * The kernel clears through its huge-page direct map; huge pages
	 * here keep TLB misses from skewing the comparison.  Best effort:
	 * without THP we still measure, and say so.
	 */
	*thp = !madvise(p, len, MADV_HUGEPAGE);

	/* Fault everything in now so no measurement pays for page faults. */
	for (i = 0; i < len; i += PAGE_SZ)
		((volatile char *)p)[i] = 1;
	return p;
}

static double measure(const struct method *m, char *buf, size_t buf_sz,
		      size_t ext, size_t total)
{
	size_t n = total / ext, off = 0, i;
	double t0, dt;

	if (!n)
		n = 1;
	t0 = now();
	for (i = 0; i < n; i++) {
		m->fn(buf + off, ext);
		off += ext;
		if (off + ext > buf_sz)
			off = 0;
	}
	dt = now() - t0;
	return dt > 0 ? (double)n * ext / dt / 1e9 : 0;
}

static unsigned long parse_num(const char *s, char opt, unsigned long min,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "clearbw: -%c: expected %lu..%lu, got '%s'\n",
			opt, min, max, s);
		exit(1);
	}
	return v;
}

static void parse_extents(char *arg)
{
	char *tok, *save;

	nr_extents = 0;
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (nr_extents == MAX_EXTENTS) {
			fprintf(stderr, "clearbw: -s: at most %d extents\n",
				MAX_EXTENTS);
			exit(1);
		}
		extents_kib[nr_extents++] = parse_num(tok, 's', 1, 1UL << 24);
	}
	if (!nr_extents) {
		fprintf(stderr, "clearbw: -s: empty list\n");
		exit(1);
	}
}

static void parse_methods(char *arg)
{
	char *tok, *save;
	unsigned int i;

	for (i = 0; i < NR_METHODS; i++)
		methods[i].selected = 0;
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_METHODS; i++)
			if (!strcmp(tok, methods[i].name))
				break;
		if (i == NR_METHODS) {
			fprintf(stderr, "clearbw: -M: unknown method '%s'\n",
				tok);
			exit(1);
		}
		methods[i].selected = 1;
	}
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: clearbw [-s KiB[,KiB...]] [-b MiB] [-m MiB] [-r reps] [-M list] [-k]\n"
		"  -s LIST  extents in KiB (default 4,2048,1048576)\n"
		"  -b MiB   buffer walked to keep the destination cold (default 512)\n"
		"  -m MiB   bytes cleared per measurement (default 1024)\n"
		"  -r N     measurements per cell, best is reported (default 1)\n"
		"  -M LIST  methods (default all):");
	for (i = 0; i < NR_METHODS; i++)
		fprintf(f, " %s", methods[i].name);
	fprintf(f, "\n  -k       one key=value line per measurement\n");
}

static void fmt_extent(char *s, size_t n, unsigned long kib)
{
	if (kib >= (1UL << 20) && !(kib & ((1UL << 20) - 1)))
		snprintf(s, n, "%lu GiB", kib >> 20);
	else if (kib >= 1024 && !(kib & 1023))
		snprintf(s, n, "%lu MiB", kib >> 10);
	else
		snprintf(s, n, "%lu KiB", kib);
}

int main(int argc, char **argv)
{
	double gbps[NR_METHODS][MAX_EXTENTS];
	char model[256], label[32];
	size_t buf_sz, cap;
	unsigned int i, e, r;
	int opt, avx2, thp;
	double g;
	char *buf;

	while ((opt = getopt(argc, argv, "s:b:m:r:M:kh")) != -1) {
		switch (opt) {
		case 's':
			parse_extents(optarg);
			break;
		case 'b':
			buf_mib = parse_num(optarg, opt, 1, 1UL << 24);
			break;
		case 'm':
			cap_mib = parse_num(optarg, opt, 1, 1UL << 30);
			break;
		case 'r':
			reps = parse_num(optarg, opt, 1, 1000);
			break;
		case 'M':
			parse_methods(optarg);
			break;
		case 'k':
			machine = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}

	/*
	 * Static binaries may query CPU features before libgcc's
	 * constructor has run; make the order explicit.
	 */
	__builtin_cpu_init();
	avx2 = __builtin_cpu_supports("avx2");
	detect_env(model, sizeof(model));

	buf_sz = buf_mib << 20;
	cap = cap_mib << 20;
	buf = map_buffer(buf_sz, &thp);

	if (!machine) {
		printf("clearbw: environment: %s", env_name);
		if (hv_sig[0] || !strcmp(env_name, "vm"))
			printf(" (hypervisor %s, cpuid signature \"%s\")",
			       hv_kind(), hv_sig);
		printf("\nclearbw: cpu: %s\n", model);
		printf("clearbw: buffer %lu MiB (%s), %lu MiB cleared per measurement, best of %u\n\n",
		       buf_mib, thp ? "THP advised" : "no THP", cap_mib, reps);
	}
	if (buf_sz < COLD_MIN)
		fprintf(notes(),
			"note: buffer below %lu MiB may fit in the LLC; results may be cache-warm\n",
			COLD_MIN >> 20);
	if (!avx2 && methods[3].selected)
		fprintf(notes(), "note: avx2 not supported here, skipped\n");
	for (e = 0; e < nr_extents; e++) {
		if ((extents_kib[e] << 10) > buf_sz) {
			fmt_extent(label, sizeof(label), extents_kib[e]);
			fprintf(notes(),
				"note: %s extent skipped: larger than the %lu MiB buffer (raise -b)\n",
				label, buf_mib);
		}
	}
	if (!machine)
		printf("\n");

	for (i = 0; i < NR_METHODS; i++) {
		for (e = 0; e < nr_extents; e++) {
			size_t ext = extents_kib[e] << 10;

			gbps[i][e] = -1;
			if (!methods[i].selected || ext > buf_sz ||
			    (methods[i].needs_avx2 && !avx2))
				continue;
			for (r = 0; r < reps; r++) {
				g = measure(&methods[i], buf, buf_sz, ext, cap);
				if (g > gbps[i][e])
					gbps[i][e] = g;
			}
			if (machine)
				printf("method=%s extent_kib=%lu gbps=%.3f env=%s hv=%s\n",
				       methods[i].name, extents_kib[e],
				       gbps[i][e], env_name,
				       strcmp(env_name, "vm") ? "none" :
				       hv_kind());
		}
	}

	if (machine)
		return 0;

	printf("GB/s (10^9 bytes/s), %s:\n\n| method    |", env_name);
	for (e = 0; e < nr_extents; e++) {
		fmt_extent(label, sizeof(label), extents_kib[e]);
		printf(" %9s |", label);
	}
	printf("\n|-----------|");
	for (e = 0; e < nr_extents; e++)
		printf("----------:|");
	printf("\n");
	for (i = 0; i < NR_METHODS; i++) {
		if (!methods[i].selected)
			continue;
		printf("| %-9s |", methods[i].name);
		for (e = 0; e < nr_extents; e++) {
			if (gbps[i][e] < 0)
				printf(" %9s |", "-");
			else
				printf(" %9.2f |", gbps[i][e]);
		}
		printf("\n");
	}
	return 0;
}
