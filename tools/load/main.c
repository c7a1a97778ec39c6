/* SPDX-License-Identifier: MIT */
/*
 * rtsched-load: one background load, until SIGTERM/SIGINT or --seconds.
 *   cache --mib N     random read-modify-writes over N MiB (seed 000 §3.2: a working
 *                     set above the last-level cache thrashes it)
 *   cpu               an integer loop (seed 002's CPU-bound process)
 *   write --file F    writes 64 KiB blocks over an F of --file-mib MiB, in a circle:
 *                     --direct (O_DIRECT, past the page cache: disk interrupts),
 *                     --sync (O_DSYNC: each write waits for the disk, seed 002 SIO),
 *                     neither (buffered, seed 002 AIO). The file is removed at exit.
 * Exit codes: 0, 1 failure, 2 usage error.
 */
#include "opts.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_CACHE, MODE_CPU, MODE_WRITE };

struct load_options {
	enum mode mode;
	uint64_t mib;       /* cache: working set */
	const char *file;   /* write */
	uint64_t file_mib;
	uint64_t block_kib;
	bool direct, sync;
	double seconds;     /* 0: until a signal */
};

static atomic_bool stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop_requested, true);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *out)
{
	fputs("usage: rtsched-load cache --mib N [--seconds S]\n"
	      "       rtsched-load cpu [--seconds S]\n"
	      "       rtsched-load write --file PATH [--file-mib N] [--block-kib N] [--direct] [--sync] [--seconds S]\n",
	      out);
}

static int parse(int argc, char **argv, struct load_options *o, char *err, size_t size)
{
	memset(o, 0, sizeof(*o));
	o->file_mib = 256;
	o->block_kib = 64;
	if (argc < 2) {
		snprintf(err, size, "a mode is needed: cache, cpu or write");
		return 2;
	}
	if (!strcmp(argv[1], "cache"))
		o->mode = MODE_CACHE;
	else if (!strcmp(argv[1], "cpu"))
		o->mode = MODE_CPU;
	else if (!strcmp(argv[1], "write"))
		o->mode = MODE_WRITE;
	else {
		snprintf(err, size, "unknown mode '%s' (cache, cpu or write)", argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--mib") && o->mode == MODE_CACHE) {
			if (opts_parse_u64(v, 1, 1 << 20, &o->mib)) {
				snprintf(err, size, "--mib: '%s' is not in 1..1048576", v ? v : "");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--file") && o->mode == MODE_WRITE && v) {
			o->file = v;
			i++;
		} else if (!strcmp(a, "--file-mib") && o->mode == MODE_WRITE) {
			if (opts_parse_u64(v, 1, 1 << 20, &o->file_mib)) {
				snprintf(err, size, "--file-mib: '%s' is not in 1..1048576", v ? v : "");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--block-kib") && o->mode == MODE_WRITE) {
			if (opts_parse_u64(v, 4, 65536, &o->block_kib) || o->block_kib % 4) {
				snprintf(err, size, "--block-kib: '%s' is not a multiple of 4 in 4..65536", v ? v : "");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--direct") && o->mode == MODE_WRITE) {
			o->direct = true;
		} else if (!strcmp(a, "--sync") && o->mode == MODE_WRITE) {
			o->sync = true;
		} else if (!strcmp(a, "--seconds")) {
			if (opts_parse_double(v, 0, DBL_MAX, &o->seconds)) {
				snprintf(err, size, "--seconds: '%s' is not a number >= 0", v ? v : "");
				return 2;
			}
			i++;
		} else {
			snprintf(err, size, "unknown option '%s' for mode %s", a, argv[1]);
			return 2;
		}
	}
	if (o->mode == MODE_CACHE && !o->mib) {
		snprintf(err, size, "cache: --mib is needed");
		return 2;
	}
	if (o->mode == MODE_WRITE && !o->file) {
		snprintf(err, size, "write: --file is needed");
		return 2;
	}
	return 0;
}

static bool should_stop(const struct load_options *o, double end)
{
	return atomic_load_explicit(&stop_requested, memory_order_relaxed) || (o->seconds > 0 && now_s() >= end);
}

static volatile uint64_t sink;

static int run_cache(const struct load_options *o, double end)
{
	size_t words = (size_t)(o->mib << 20) / sizeof(uint64_t);
	uint64_t *a = malloc(words * sizeof(*a));
	if (!a)
		return ENOMEM;
	for (size_t i = 0; i < words; i++)
		a[i] = i;
	uint64_t x = 88172645463325252ull;
	while (!should_stop(o, end)) {
		for (int k = 0; k < 100000; k++) { /* xorshift64 addresses: no prefetcher helps */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a[x % words] += x;
		}
	}
	sink = a[x % words];
	free(a);
	return 0;
}

static int run_cpu(const struct load_options *o, double end)
{
	uint64_t x = 1;
	while (!should_stop(o, end)) {
		for (int k = 0; k < 1000000; k++) {
			x = x * 6364136223846793005ull + 1;
			__asm__ volatile("" : "+r"(x));
		}
	}
	sink = x;
	return 0;
}

static int run_write(const struct load_options *o, double end)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (o->direct ? O_DIRECT : 0) | (o->sync ? O_DSYNC : 0);
	int fd = open(o->file, flags, 0600);
	if (fd < 0)
		return errno;
	size_t block = (size_t)o->block_kib << 10;
	void *buf;
	if (posix_memalign(&buf, 4096, block)) {
		close(fd);
		unlink(o->file);
		return ENOMEM;
	}
	memset(buf, 0x5a, block);
	uint64_t blocks = (o->file_mib << 20) / block;
	if (!blocks)
		blocks = 1;
	uint64_t i = 0;
	int e = 0;
	while (!should_stop(o, end)) {
		ssize_t n = pwrite(fd, buf, block, (off_t)((i % blocks) * block));
		if (n < 0 && errno != EINTR) {
			e = errno;
			break;
		}
		i++;
	}
	free(buf);
	close(fd);
	unlink(o->file);
	return e;
}

int main(int argc, char **argv)
{
	struct load_options o;
	char err[256];
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	int rc = parse(argc, argv, &o, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rtsched-load: %s\n", err);
		usage(stderr);
		return rc;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	double end = now_s() + o.seconds;
	int e = o.mode == MODE_CACHE ? run_cache(&o, end) : o.mode == MODE_CPU ? run_cpu(&o, end) : run_write(&o, end);
	if (e) {
		fprintf(stderr, "rtsched-load %s: %s\n", argv[1], strerror(e));
		return 1;
	}
	return 0;
}
