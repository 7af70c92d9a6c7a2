// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: allocate and touch anonymous memory, 1 MiB at a time, until the
 * kernel stops it (the OOM killer) or LIMIT MiB are touched.  The MiB
 * reached so far is rewritten to FILE after every 16 MiB, so a test can
 * read how far a killed hog got.
 *
 * usage: memhog FILE [LIMIT_MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void report(const char *file, unsigned long mib)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return;
	fprintf(f, "%lu\n", mib);
	fclose(f);
}

int main(int argc, char **argv)
{
	const size_t chunk = 1UL << 20;
	unsigned long limit = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	long pagesz = sysconf(_SC_PAGESIZE);
	unsigned long mib = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: memhog FILE [LIMIT_MIB]\n");
		return 2;
	}
	report(argv[1], 0);
	while (!limit || mib < limit) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;

		if (p == MAP_FAILED) {
			perror("memhog: mmap");
			report(argv[1], mib);
			return 1;
		}
		/* Write every page, so that each one is really allocated */
		for (off = 0; off < chunk; off += pagesz)
			p[off] = 1;
		if (++mib % 16 == 0)
			report(argv[1], mib);
	}
	report(argv[1], mib);
	return 0;
}
