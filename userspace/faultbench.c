// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench - anonymous page fault rate benchmark.
 *
 * Modelled on the test program Christoph Lameter used for the 2005
 * prezeroing patches: N threads each touch their own anonymous mapping,
 * and we report faults per CPU second and per wall second, plus the
 * /proc/vmstat counters that tell whether the pages came prezeroed.
 * With -F the mapping is a private one of a file instead, and each
 * touch is a copy-on-write fault: the page it gets is overwritten by the
 * copy, so a prezeroed one is spent for nothing but the clear it saves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE_SZ		4096UL
#define CLINE_SZ	64UL
#define HPAGE_SZ	(2UL << 20)
#define MAX_REPORTED	8	/* nonzero pages described on stderr */

/*
 * Written into every touched cache line; must be non-zero so -v can
 * tell our stores apart from stale data the kernel failed to clear.
 */
#define TOUCH_VAL	0x5a

enum thp_mode { MODE_DEFAULT, MODE_4K, MODE_THP };

static const char *const mode_name[] = {
	[MODE_DEFAULT]	= "default",
	[MODE_4K]	= "4k",
	[MODE_THP]	= "thp",
};

enum vm_ctr {
	VM_PGFAULT,
	VM_PREZEROED,
	VM_CLEARED,
	VM_THP_ALLOC,
	VM_THP_FALLBACK,
	NR_VM_CTRS,
};

static const char *const vm_name[NR_VM_CTRS] = {
	[VM_PGFAULT]		= "pgfault",
	[VM_PREZEROED]		= "pgalloc_prezeroed",
	[VM_CLEARED]		= "pgalloc_cleared",
	[VM_THP_ALLOC]		= "thp_fault_alloc",
	[VM_THP_FALLBACK]	= "thp_fault_fallback",
};

struct vmsnap {
	long long v[NR_VM_CTRS];	/* -1: counter not in /proc/vmstat */
};

static unsigned long mib = 256;
static unsigned int nthreads = 1;
static unsigned int clines = 1;
/* Bytes from one touched page to the next: every page, or one per THP */
static size_t stride = PAGE_SZ;
static unsigned int reps = 1;
static enum thp_mode mode = MODE_DEFAULT;
static int verify;
static int machine;
static const char *cow_path;	/* -F: map this file MAP_PRIVATE */
static int cow_fd = -1;

static size_t region_sz;	/* bytes touched by each thread */
static pthread_barrier_t ready_bar, go_bar, done_bar;

struct worker {
	pthread_t tid;
	unsigned int idx;
	double cpu_s;			/* touch phase only, all reps */
	unsigned long nonzero_pages;	/* all reps */
	unsigned long reported;
	unsigned char template[PAGE_SZ];
};

static void die(const char *what)
{
	fprintf(stderr, "faultbench: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double ts_sec(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts_sec(&ts);
}

static double tv_sec(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static void vm_read(struct vmsnap *s)
{
	char name[64];
	long long val;
	FILE *f;
	int i;

	for (i = 0; i < NR_VM_CTRS; i++)
		s->v[i] = -1;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fscanf(f, "%63s %lld", name, &val) == 2) {
		for (i = 0; i < NR_VM_CTRS; i++)
			if (!strcmp(name, vm_name[i]))
				s->v[i] = val;
	}
	fclose(f);
}

/*
 * Map with 2 MiB of slack and trim, so that with -H every huge-page-sized
 * chunk of the region can actually be backed by a THP; an unaligned region
 * would silently fall back to 4 KiB faults at both ends.
 */
static unsigned char *map_region(unsigned int idx)
{
	size_t len = region_sz;
	uintptr_t raw, start;
	void *p;

	if (mode == MODE_THP)
		len += HPAGE_SZ;

	if (cow_fd >= 0)	/* each thread its own slice of the file */
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 cow_fd, (off_t)idx * region_sz);
	else
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");

	if (mode == MODE_THP) {
		raw = (uintptr_t)p;
		start = (raw + HPAGE_SZ - 1) & ~(HPAGE_SZ - 1);
		if (start > raw && munmap(p, start - raw))
			die("munmap head");
		if (raw + len > start + region_sz &&
		    munmap((void *)(start + region_sz),
			   raw + len - (start + region_sz)))
			die("munmap tail");
		p = (void *)start;
	}

	/*
	 * Fatal rather than best-effort: ENOSYS without
	 * CONFIG_ADVISE_SYSCALLS would otherwise go unnoticed and we would
	 * report numbers for a mode that was never in effect.
	 */
	if (mode == MODE_THP && madvise(p, region_sz, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	if (mode == MODE_4K && madvise(p, region_sz, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");

	return p;
}

static void touch(unsigned char *base)
{
	volatile unsigned char *p;
	unsigned int c;

	for (p = base; p < base + region_sz; p += stride)
		for (c = 0; c < clines; c++)
			p[c * CLINE_SZ] = TOUCH_VAL;
}

static void check(struct worker *w, unsigned char *base)
{
	unsigned char *p;
	size_t i;

	for (p = base; p < base + region_sz; p += PAGE_SZ) {
		if (!memcmp(p, w->template, PAGE_SZ))
			continue;
		/*
		 * A mismatch at one of our own offsets is not a clearing
		 * bug, so only look at the bytes we never wrote.
		 */
		for (i = 0; i < PAGE_SZ; i++) {
			if (!w->template[i] && p[i])
				break;
		}
		if (i == PAGE_SZ)
			continue;
		w->nonzero_pages++;
		if (w->reported++ < MAX_REPORTED)
			fprintf(stderr,
				"faultbench: thread %u: page at offset %#zx has byte %#x at +%#zx\n",
				w->idx, (size_t)(p - base), p[i], i);
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned char *base;
	double t0;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		base = map_region(w->idx);

		pthread_barrier_wait(&ready_bar);
		pthread_barrier_wait(&go_bar);
		t0 = now(CLOCK_THREAD_CPUTIME_ID);
		touch(base);
		w->cpu_s += now(CLOCK_THREAD_CPUTIME_ID) - t0;
		pthread_barrier_wait(&done_bar);

		if (verify)
			check(w, base);
		if (munmap(base, region_sz))
			die("munmap");
	}
	return NULL;
}

static unsigned long parse_num(const char *s, char opt, unsigned long min,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "faultbench: -%c: expected %lu..%lu, got '%s'\n",
			opt, min, max, s);
		exit(1);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: faultbench [-m MiB] [-t threads] [-c clines] [-H|-N] [-r reps] [-v] [-k]\n"
		"  -m MiB   memory per rep, split among threads (default 256)\n"
		"  -t N     threads (default 1)\n"
		"  -c N     64-byte cache lines written per 4 KiB page, 1..64 (default 1)\n"
		"  -s KiB   touch one page every KiB, 4..2048 (default 4: every page;\n"
		"           2048 with -H: one touch per huge page, the fault alone)\n"
		"  -H       madvise(MADV_HUGEPAGE), 2 MiB aligned region\n"
		"  -N       madvise(MADV_NOHUGEPAGE)\n"
		"  -F FILE  map FILE privately instead of anonymous memory: every\n"
		"           touch is a copy-on-write fault (FILE: at least -m MiB,\n"
		"           all zero for -v; not with -H)\n"
		"  -r N     repetitions, each mmap/touch/munmap (default 1)\n"
		"  -v       verify untouched bytes read zero (exit 3 if not)\n"
		"  -k       machine-readable key=value line only\n");
}

static void print_ll(const char *key, long long v)
{
	printf(" %s=%lld", key, v);
}

int main(int argc, char **argv)
{
	struct vmsnap before, after;
	long long delta[NR_VM_CTRS], cleared;
	struct rusage ru0, ru1;
	struct worker *w;
	double wall = 0, t0, user, sys, cpu = 0, prez_pct;
	double fpcpu, fpwall;
	unsigned long long pages;
	unsigned long nonzero = 0;
	unsigned int i, r;
	int opt, ret;

	while ((opt = getopt(argc, argv, "m:t:c:s:HNF:r:vkh")) != -1) {
		switch (opt) {
		case 'm':
			mib = parse_num(optarg, opt, 1, 1UL << 30);
			break;
		case 't':
			nthreads = parse_num(optarg, opt, 1, 4096);
			break;
		case 'c':
			clines = parse_num(optarg, opt, 1, PAGE_SZ / CLINE_SZ);
			break;
		case 's':
			stride = parse_num(optarg, opt, 4, 2048) * 1024UL;
			if (stride % PAGE_SZ) {
				fprintf(stderr, "faultbench: -s: not a multiple of 4 KiB\n");
				exit(1);
			}
			break;
		case 'H':
		case 'N':
			if (mode != MODE_DEFAULT) {
				fprintf(stderr, "faultbench: -H and -N are exclusive\n");
				return 1;
			}
			mode = opt == 'H' ? MODE_THP : MODE_4K;
			break;
		case 'F':
			cow_path = optarg;
			break;
		case 'r':
			reps = parse_num(optarg, opt, 1, 1UL << 20);
			break;
		case 'v':
			verify = 1;
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

	region_sz = ((mib << 20) / nthreads) & ~(PAGE_SZ - 1);
	if (!region_sz) {
		fprintf(stderr, "faultbench: %lu MiB is less than a page per thread\n",
			mib);
		return 1;
	}
	if (cow_path) {
		struct stat st;

		if (mode == MODE_THP) {
			fprintf(stderr, "faultbench: -F does not take -H\n");
			return 1;
		}
		cow_fd = open(cow_path, O_RDONLY);
		if (cow_fd < 0 || fstat(cow_fd, &st))
			die(cow_path);
		if ((unsigned long long)st.st_size <
		    (unsigned long long)region_sz * nthreads) {
			fprintf(stderr, "faultbench: %s is smaller than %lu MiB\n",
				cow_path, mib);
			return 1;
		}
	}

	w = calloc(nthreads, sizeof(*w));
	if (!w)
		die("calloc");

	/*
	 * The main thread joins every barrier so it can bracket the touch
	 * phase with clock and counter reads without touching memory.
	 */
	if (pthread_barrier_init(&ready_bar, NULL, nthreads + 1) ||
	    pthread_barrier_init(&go_bar, NULL, nthreads + 1) ||
	    pthread_barrier_init(&done_bar, NULL, nthreads + 1)) {
		fprintf(stderr, "faultbench: pthread_barrier_init failed\n");
		return 2;
	}

	for (i = 0; i < nthreads; i++) {
		w[i].idx = i;
		for (r = 0; r < clines; r++)
			w[i].template[r * CLINE_SZ] = TOUCH_VAL;
		errno = pthread_create(&w[i].tid, NULL, worker_fn, &w[i]);
		if (errno)
			die("pthread_create");
	}

	for (i = 0; i < NR_VM_CTRS; i++)
		delta[i] = 0;
	user = sys = 0;

	for (r = 0; r < reps; r++) {
		/*
		 * Sample only once all mappings exist, so mmap/madvise cost
		 * and setup faults stay out of the counters.
		 */
		pthread_barrier_wait(&ready_bar);
		vm_read(&before);
		getrusage(RUSAGE_SELF, &ru0);
		/*
		 * Workers go straight from ready to go, so we normally arrive
		 * last: the barrier releases as we enter it and t0 is the
		 * common start time.
		 */
		t0 = now(CLOCK_MONOTONIC);
		pthread_barrier_wait(&go_bar);
		pthread_barrier_wait(&done_bar);
		wall += now(CLOCK_MONOTONIC) - t0;
		getrusage(RUSAGE_SELF, &ru1);
		vm_read(&after);

		user += tv_sec(&ru1.ru_utime) - tv_sec(&ru0.ru_utime);
		sys += tv_sec(&ru1.ru_stime) - tv_sec(&ru0.ru_stime);
		for (i = 0; i < NR_VM_CTRS; i++) {
			if (before.v[i] < 0 || after.v[i] < 0 || delta[i] < 0)
				delta[i] = -1;
			else
				delta[i] += after.v[i] - before.v[i];
		}
	}

	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		cpu += w[i].cpu_s;
		nonzero += w[i].nonzero_pages;
	}

	pages = (unsigned long long)(region_sz / PAGE_SZ) * nthreads * reps;
	fpwall = wall > 0 ? pages / wall : 0;
	fpcpu = user + sys > 0 ? pages / (user + sys) : 0;
	prez_pct = delta[VM_PREZEROED] >= 0 ?
		   100.0 * delta[VM_PREZEROED] / pages : -1;
	cleared = delta[VM_CLEARED] >= 0 ?
		  delta[VM_CLEARED] * (long long)PAGE_SZ : -1;

	if (!machine) {
		printf("faultbench: %lu MiB x %u reps, %u threads, %u clines/page, mode %s, %s, %s\n",
		       mib, reps, nthreads, clines, mode_name[mode],
		       cow_fd >= 0 ? "copy-on-write" : "anonymous",
		       verify ? "verify" : "no verify");
		printf("%4s %3s %7s %5s %10s %11s %10s %10s %11s\n", "MiB",
		       "Rep", "Threads", "CLine", "User", "System", "Wall",
		       "flt/cpu/s", "fault/wsec");
		printf("%4lu %3u %7u %5u %9.3fs %10.3fs %9.3fs %10.1f %11.1f\n",
		       mib, reps, nthreads, clines, user, sys, wall, fpcpu,
		       fpwall);
		printf("vmstat:");
		for (i = 0; i < NR_VM_CTRS; i++)
			printf(" %s=%lld", vm_name[i], delta[i]);
		printf(" prezeroed_pct=%.1f cleared_bytes=%lld\n", prez_pct,
		       cleared);
		printf("faultbench: ");
	}

	printf("mib=%lu reps=%u threads=%u clines=%u stride_kib=%zu mode=%s source=%s",
	       mib, reps, nthreads, clines, stride / 1024, mode_name[mode],
	       cow_fd >= 0 ? "file" : "anon");
	printf(" wall_s=%.4f user_s=%.4f sys_s=%.4f thread_cpu_s=%.4f",
	       wall, user, sys, cpu);
	printf(" pages=%llu faults_per_wsec=%.1f faults_per_cpu_s=%.1f",
	       pages, fpwall, fpcpu);
	print_ll("pgfault", delta[VM_PGFAULT]);
	print_ll("pgalloc_prezeroed", delta[VM_PREZEROED]);
	print_ll("pgalloc_cleared", delta[VM_CLEARED]);
	printf(" prezeroed_pct=%.2f", prez_pct);
	print_ll("cleared_bytes", cleared);
	print_ll("thp_fault_alloc", delta[VM_THP_ALLOC]);
	print_ll("thp_fault_fallback", delta[VM_THP_FALLBACK]);
	print_ll("nonzero_pages", verify ? (long long)nonzero : -1);
	printf("\n");

	ret = verify && nonzero ? 3 : 0;
	if (ret)
		fprintf(stderr, "faultbench: %lu pages had non-zero bytes\n",
			nonzero);
	free(w);
	return ret;
}
