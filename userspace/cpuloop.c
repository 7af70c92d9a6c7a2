// SPDX-License-Identifier: GPL-2.0
/*
 * cpuloop: the throughput of a CPU-bound loop, to see what kscrubd costs
 * the work it is supposed to stay out of the way of.  N processes spin for
 * S seconds on a cache-resident integer loop and report iterations per
 * second, in total and per process.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until @secs have passed; return iterations per second */
static double spin(double secs)
{
	volatile uint64_t x = 1;
	double t0 = now(), t;
	uint64_t n = 0;
	int i;

	do {
		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n += 100000;
		t = now();
	} while (t - t0 < secs);
	return n / (t - t0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cpuloop [-p procs] [-s seconds] [-k]\n"
		"  -p N  processes (default: online CPUs)\n"
		"  -s S  seconds to spin (default 3)\n"
		"  -k    key=value line only\n");
}

int main(int argc, char **argv)
{
	long procs = sysconf(_SC_NPROCESSORS_ONLN);
	double secs = 3, total = 0, *rates;
	int machine = 0, opt;
	long i;

	while ((opt = getopt(argc, argv, "p:s:kh")) != -1) {
		switch (opt) {
		case 'p':
			procs = strtol(optarg, NULL, 0);
			break;
		case 's':
			secs = strtod(optarg, NULL);
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
	if (procs < 1 || secs <= 0) {
		usage(stderr);
		return 1;
	}
	rates = mmap(NULL, procs * sizeof(*rates), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rates == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (!pid) {
			rates[i] = spin(secs);
			_exit(0);
		}
	}
	for (i = 0; i < procs; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "cpuloop: a worker failed: %s\n", strerror(errno));
			return 2;
		}
	}
	for (i = 0; i < procs; i++)
		total += rates[i];
	if (machine)
		printf("procs=%ld secs=%.1f iters_per_s=%.0f\n", procs, secs, total);
	else
		printf("cpuloop: %ld processes, %.1f s: %.0f iterations/s (%.0f per process)\n",
		       procs, secs, total, total / procs);
	return 0;
}
