/* SPDX-License-Identifier: MIT */
/*
 * rtsched-prem-bench: the synthetic tasks of seed 002 §5.6.4 (random_access,
 * linear_access; Figs. 5.5 and 5.6) with and without PREM, under a memory
 * hog on another CPU, in one run (bench/README.md, "PREM").
 *
 * A sample is one scheduling interval of a task whose working set (--kib,
 * default 256 KiB as in the thesis) has just left the caches (each of its
 * lines flushed, as after I/O wrote it or other tasks ran): `--passes` passes
 * over its lines, in address order (linear) or in a fixed pseudo-random order
 * (random), updating one word per line with `--compute` multiply-adds
 * between references. It runs in four ways, interleaved round by round so a
 * slow spell of the VM falls on all of them:
 *
 *  - unmodified, hog: the work straight away, its lines fetched on demand
 *    while the hog streams through `--hog-mib` on the other CPU;
 *  - PREM, hog: the gate is closed (the hog leaves its run span: the
 *    peripheral scheduler of docs/prem.md), the memory phase loads every line
 *    in address order, the gate opens, then the execution phase does the
 *    same work from the cache while the hog runs again;
 *  - the same two without the hog (the hog thread sleeps).
 *
 * The measuring thread is SCHED_FIFO (--priority) on --cpu, with a pause of
 * 500 µs between samples; the hog is SCHED_OTHER on --hog-cpu and runs only
 * during the hog rounds. Reported per access pattern and way: mean, min,
 * max (the worst case) and spread (max - min) of the execution time (for
 * PREM: of the execution phase, and of the whole interval), and the ratios
 * PREM / unmodified under the hog; "forced" counts the memory phases that
 * began with the hog still inside its run span (descheduled there: not
 * waited for beyond 50 µs). LLC misses per phase are counted where
 * the machine has a PMU (perf_event_open); where it has none the output
 * says so and only times are measured.
 *
 * Exit status 0 measured (a missed target is reported, not an error), 1 a
 * measurement failed, 2 bad command line.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock_ns.h"
#include "pinned_thread.h"
#include "prem_ops.h"

#define WAYS 4
#define PATTERNS 2
#define ROUNDS 10
#define PAUSE_NS 500000
/* A hog descheduled inside its run span is not waited for longer (counted as a forced gate). */
#define GATE_WAIT_MAX_NS 50000

enum way { UNMODIFIED_HOG, PREM_HOG, UNMODIFIED_QUIET, PREM_QUIET };
static const char *const way_names[WAYS] = { "unmodified, hog", "PREM, hog", "unmodified, no hog",
					     "PREM, no hog" };
static const char *const pattern_names[PATTERNS] = { "random_access", "linear_access" };

struct options {
	long kib, samples, passes, compute, hog_mib;
	int cpu, hog_cpu, priority;
	bool json;
};

struct hog {
	struct prem_gate *gate;
	uint8_t *buffer;
	size_t bytes;
	atomic_bool on;   /* stream now (the hog rounds) */
	atomic_bool quit;
	atomic_ullong written; /* bytes streamed so far */
};

/* One way's samples (ns) and, with a PMU, LLC misses summed over its samples. */
struct series {
	int64_t *exec, *memory; /* memory: PREM ways only */
	long n;
	long forced; /* PREM ways: memory phases begun with the hog still inside its span */
	uint64_t exec_misses, memory_misses;
};

static void usage(FILE *to)
{
	fprintf(to, "usage: rtsched-prem-bench [--kib N] [--samples N] [--passes N] [--compute N] [--hog-mib N]\n"
		    "                          [--cpu N] [--hog-cpu N] [--priority N] [--json]\n");
}

static bool parse(int argc, char **argv, struct options *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	*o = (struct options){ .kib = 256, .samples = 300, .passes = 2, .compute = 4, .hog_mib = 64,
			       .cpu = (int)ncpu - 1, .hog_cpu = ncpu > 1 ? (int)ncpu - 2 : 0, .priority = 80 };
	for (int i = 1; i < argc; i++) {
		long *target = NULL, lo = 1, hi = 1 << 20;
		int *itarget = NULL;
		if (strcmp(argv[i], "--json") == 0) {
			o->json = true;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (strcmp(argv[i], "--kib") == 0)
			target = &o->kib, hi = 65536;
		else if (strcmp(argv[i], "--samples") == 0)
			target = &o->samples, hi = 100000;
		else if (strcmp(argv[i], "--passes") == 0)
			target = &o->passes, hi = 1000;
		else if (strcmp(argv[i], "--compute") == 0)
			target = &o->compute, lo = 0, hi = 10000;
		else if (strcmp(argv[i], "--hog-mib") == 0)
			target = &o->hog_mib, hi = 4096;
		else if (strcmp(argv[i], "--cpu") == 0)
			itarget = &o->cpu, lo = 0, hi = CPU_SETSIZE - 1;
		else if (strcmp(argv[i], "--hog-cpu") == 0)
			itarget = &o->hog_cpu, lo = 0, hi = CPU_SETSIZE - 1;
		else if (strcmp(argv[i], "--priority") == 0)
			itarget = &o->priority, hi = 99;
		if ((!target && !itarget) || i + 1 == argc) {
			fprintf(stderr, "rtsched-prem-bench: %s: %s\n", argv[i],
				(!target && !itarget) ? "unknown option" : "needs a value");
			usage(stderr);
			return false;
		}
		char *end;
		errno = 0;
		long value = strtol(argv[++i], &end, 10);
		if (errno || *end || value < lo || value > hi) {
			fprintf(stderr, "rtsched-prem-bench: %s: expected an integer in [%ld, %ld], got \"%s\"\n",
				argv[i - 1], lo, hi, argv[i]);
			return false;
		}
		if (target)
			*target = value;
		else
			*itarget = (int)value;
	}
	if (o->cpu == o->hog_cpu) {
		fprintf(stderr, "rtsched-prem-bench: --cpu and --hog-cpu must differ (both %d)\n", o->cpu);
		return false;
	}
	return true;
}

/* The hog: a peripheral streaming writes through its buffer, 4 KiB at a time, gated by memory phases. */
static void *hog_main(void *arg)
{
	struct hog *hog = arg;
	size_t at = 0, chunk = PREM_LINES_PER_CHECK * PREM_LINE_BYTES;
	while (!atomic_load(&hog->quit)) {
		if (!atomic_load(&hog->on)) {
			struct timespec nap = { 0, 200000 };
			nanosleep(&nap, NULL);
			continue;
		}
		if (!prem_gate_enter(hog->gate)) {
			prem_gate_wait(hog->gate);
			continue;
		}
		while (!prem_gate_wanted(hog->gate) && atomic_load_explicit(&hog->on, memory_order_relaxed)) {
			memset(hog->buffer + at, (int)at, chunk);
			at = (at + chunk) % hog->bytes;
			atomic_fetch_add_explicit(&hog->written, chunk, memory_order_relaxed);
		}
		prem_gate_leave(hog->gate);
	}
	return NULL;
}

/* LLC misses of the calling thread (user and kernel), or -1 when there is no PMU (errno set). */
static int open_llc_counter(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
					.config = PERF_COUNT_HW_CACHE_MISSES, .exclude_hv = 1 };
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static uint64_t read_counter(int fd)
{
	uint64_t value = 0;
	if (fd >= 0 && read(fd, &value, sizeof(value)) != sizeof(value))
		value = 0;
	return value;
}

/* Each line of the buffer out of every cache level (written back first). */
static void flush_lines(const uint64_t *buffer, size_t bytes)
{
	for (size_t off = 0; off < bytes; off += PREM_LINE_BYTES) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_clflush((const char *)buffer + off);
#elif defined(__aarch64__)
		__asm__ volatile("dc civac, %0" : : "r"((const char *)buffer + off) : "memory");
#else
#error "rtsched-prem-bench: no cache-line flush for this architecture"
#endif
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_mfence();
#else
	__asm__ volatile("dsb ish" : : : "memory");
#endif
}

/* The interval's work: `passes` over the lines in the pattern's order, `compute` multiply-adds per line. */
static uint64_t work(uint64_t *buffer, uint64_t lines, bool random_order, long passes, long compute)
{
	uint64_t acc = 1;
	for (long p = 0; p < passes; p++) {
		for (uint64_t k = 0; k < lines; k++) {
			uint64_t *word = &buffer[prem_line_of(k, lines, random_order) * PREM_LINE_WORDS];
			uint64_t v = *word;
			for (long c = 0; c < compute; c++)
				v = v * 6364136223846793005ull + 1442695040888963407ull;
			*word = v;
			acc += v;
		}
	}
	return acc;
}

struct bench {
	struct options o;
	struct hog hog;
	struct prem_gate gate;
	uint64_t *data;
	int pmu;       /* LLC-miss counter fd, -1: none */
	int pmu_errno; /* why there is none */
	struct series series[PATTERNS][WAYS];
	int64_t hog_on_ns; /* time spent in the hog rounds */
	volatile uint64_t sink;
};

static void sample(struct bench *b, int pattern, enum way way)
{
	struct series *s = &b->series[pattern][way];
	uint64_t lines = (uint64_t)b->o.kib * 1024 / PREM_LINE_BYTES;
	bool prem = way == PREM_HOG || way == PREM_QUIET;
	flush_lines(b->data, (size_t)b->o.kib * 1024);
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	uint64_t m0 = read_counter(b->pmu);
	if (prem) {
		s->forced += !prem_gate_close(&b->gate, start, GATE_WAIT_MAX_NS);
		b->sink += prem_touch_lines(b->data, (uint64_t)b->o.kib * 1024);
		prem_gate_open(&b->gate);
	}
	int64_t exec_start = clock_ns(CLOCK_MONOTONIC);
	uint64_t m1 = read_counter(b->pmu);
	b->sink += work(b->data, lines, pattern == 0, b->o.passes, b->o.compute);
	uint64_t m2 = read_counter(b->pmu);
	int64_t end = clock_ns(CLOCK_MONOTONIC);
	s->exec[s->n] = end - exec_start;
	s->memory[s->n] = exec_start - start;
	s->n++;
	s->memory_misses += m1 - m0;
	s->exec_misses += m2 - m1;
	struct timespec pause = { 0, PAUSE_NS };
	nanosleep(&pause, NULL);
}

static void *measure_main(void *arg)
{
	struct bench *b = arg;
	long per_round = (b->o.samples + ROUNDS - 1) / ROUNDS;
	b->pmu = open_llc_counter();
	b->pmu_errno = b->pmu < 0 ? errno : 0;
	for (int round = 0; round < ROUNDS; round++) {
		for (int hogged = 1; hogged >= 0; hogged--) {
			int64_t begin = clock_ns(CLOCK_MONOTONIC);
			atomic_store(&b->hog.on, hogged == 1);
			struct timespec settle = { 0, 2000000 };
			nanosleep(&settle, NULL);
			long target = b->series[0][hogged ? UNMODIFIED_HOG : UNMODIFIED_QUIET].n + per_round;
			while (b->series[0][hogged ? UNMODIFIED_HOG : UNMODIFIED_QUIET].n < target &&
			       b->series[0][hogged ? UNMODIFIED_HOG : UNMODIFIED_QUIET].n < b->o.samples)
				for (int pattern = 0; pattern < PATTERNS; pattern++) {
					sample(b, pattern, hogged ? UNMODIFIED_HOG : UNMODIFIED_QUIET);
					sample(b, pattern, hogged ? PREM_HOG : PREM_QUIET);
				}
			if (hogged)
				b->hog_on_ns += clock_ns(CLOCK_MONOTONIC) - begin;
		}
	}
	atomic_store(&b->hog.on, false);
	return NULL;
}

static int by_value(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, c = *(const int64_t *)y;
	return (a > c) - (a < c);
}

struct stats {
	double mean_us, min_us, p99_us, max_us, spread_us;
};

static struct stats stats_of(int64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	double sum = 0;
	for (long i = 0; i < n; i++)
		sum += (double)v[i];
	return (struct stats){ sum / (double)n / 1e3, (double)v[0] / 1e3, (double)v[(n * 99) / 100] / 1e3,
			       (double)v[n - 1] / 1e3, (double)(v[n - 1] - v[0]) / 1e3 };
}

/* The whole PREM interval (memory + execution phase) of each sample. */
static int64_t *interval_of(const struct series *s)
{
	int64_t *total = malloc((size_t)s->n * sizeof(*total));
	for (long i = 0; total && i < s->n; i++)
		total[i] = s->memory[i] + s->exec[i];
	return total;
}

static double hog_mib_per_s(const struct bench *b)
{
	return b->hog_on_ns ? (double)atomic_load(&b->hog.written) / (double)(1 << 20) / ((double)b->hog_on_ns / 1e9)
			    : 0.0;
}

static void report(struct bench *b, const char *no_pmu)
{
	const struct options *o = &b->o;
	if (!o->json) {
		printf("rtsched-prem-bench: working set %ld KiB, %ld passes, %ld multiply-adds per line, hog %ld MiB "
		       "on CPU %d, measuring on CPU %d (SCHED_FIFO %d), %ld samples per way\n",
		       o->kib, o->passes, o->compute, o->hog_mib, o->hog_cpu, o->cpu, o->priority, b->series[0][0].n);
		if (no_pmu)
			printf("no PMU on this machine (perf_event_open: %s): LLC misses not counted, times only\n",
			       no_pmu);
		printf("the hog streamed %.0f MiB/s during the hog rounds (gated out of the PREM memory phases)\n",
		       hog_mib_per_s(b));
	} else {
		printf("{\"kib\": %ld, \"passes\": %ld, \"compute\": %ld, \"hog_mib\": %ld, \"samples\": %ld, "
		       "\"pmu\": %s, \"hog_mib_per_s\": %.0f, \"patterns\": {",
		       o->kib, o->passes, o->compute, o->hog_mib, b->series[0][0].n, no_pmu ? "false" : "true",
		       hog_mib_per_s(b));
	}
	for (int p = 0; p < PATTERNS; p++) {
		struct stats st[WAYS], interval[WAYS];
		for (int w = 0; w < WAYS; w++) {
			struct series *s = &b->series[p][w];
			int64_t *total = interval_of(s);
			interval[w] = total ? stats_of(total, s->n) : (struct stats){ 0 };
			free(total);
			st[w] = stats_of(s->exec, s->n);
		}
		double worst = st[PREM_HOG].max_us / st[UNMODIFIED_HOG].max_us;
		double spread = st[PREM_HOG].spread_us / st[UNMODIFIED_HOG].spread_us;
		double whole = interval[PREM_HOG].max_us / st[UNMODIFIED_HOG].max_us;
		double hog_cost = st[UNMODIFIED_HOG].max_us / st[UNMODIFIED_QUIET].max_us;
		/* The same at the 99th percentile: what one outlier of the VM (an interrupt, the host) moves less. */
		double worst99 = st[PREM_HOG].p99_us / st[UNMODIFIED_HOG].p99_us;
		double spread99 = (st[PREM_HOG].p99_us - st[PREM_HOG].min_us) /
				  (st[UNMODIFIED_HOG].p99_us - st[UNMODIFIED_HOG].min_us);
		if (o->json) {
			printf("%s\"%s\": {\"ways\": {", p ? ", " : "", pattern_names[p]);
			for (int w = 0; w < WAYS; w++) {
				const struct series *s = &b->series[p][w];
				printf("%s\"%s\": {\"mean_us\": %.3f, \"min_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f, "
				       "\"spread_us\": %.3f, \"interval_max_us\": %.3f, \"forced_gates\": %ld, "
				       "\"exec_llc_misses\": %.1f, \"memory_llc_misses\": %.1f}",
				       w ? ", " : "", way_names[w], st[w].mean_us, st[w].min_us, st[w].p99_us, st[w].max_us,
				       st[w].spread_us, interval[w].max_us, s->forced,
				       no_pmu ? -1.0 : (double)s->exec_misses / (double)s->n,
				       no_pmu ? -1.0 : (double)s->memory_misses / (double)s->n);
			}
			printf("}, \"worst_ratio\": %.3f, \"spread_ratio\": %.3f, \"interval_worst_ratio\": %.3f, "
			       "\"hog_worst_ratio\": %.3f, \"p99_ratio\": %.3f, \"p99_spread_ratio\": %.3f}",
			       worst, spread, whole, hog_cost, worst99, spread99);
			continue;
		}
		printf("\n%s (times in us; PREM: the execution phase, then the whole interval's worst)\n",
		       pattern_names[p]);
		printf("  %-20s %9s %9s %9s %9s %9s %12s %6s%s\n", "way", "mean", "min", "p99", "max", "spread",
		       "interval max", "forced", no_pmu ? "" : "  LLC misses exec / memory");
		for (int w = 0; w < WAYS; w++) {
			const struct series *s = &b->series[p][w];
			printf("  %-20s %9.1f %9.1f %9.1f %9.1f %9.1f %12.1f %6ld", way_names[w], st[w].mean_us,
			       st[w].min_us, st[w].p99_us, st[w].max_us, st[w].spread_us, interval[w].max_us, s->forced);
			if (!no_pmu)
				printf("  %.0f / %.0f", (double)s->exec_misses / (double)s->n,
				       (double)s->memory_misses / (double)s->n);
			printf("\n");
		}
		printf("  under the hog: execution phase worst %.2fx the unmodified task's (%+.0f %%; target <= 0.70x: "
		       "%s), spread %.2fx (target <= 0.50x: %s); whole PREM interval worst %.2fx; the hog makes the "
		       "unmodified worst %.2fx its no-hog worst\n",
		       worst, (worst - 1) * 100, worst <= 0.70 ? "met" : "missed", spread,
		       spread <= 0.50 ? "met" : "missed", whole, hog_cost);
		printf("  at the 99th percentile: execution phase %.2fx, spread (p99 - min) %.2fx\n", worst99, spread99);
	}
	if (o->json)
		printf("}}\n");
}

int main(int argc, char **argv)
{
	static struct bench b;
	if (!parse(argc, argv, &b.o))
		return 2;
	size_t data_bytes = (size_t)b.o.kib * 1024;
	b.hog.bytes = (size_t)b.o.hog_mib << 20;
	b.data = aligned_alloc(PREM_LINE_BYTES, data_bytes);
	b.hog.buffer = aligned_alloc(PREM_LINE_BYTES, b.hog.bytes);
	for (int p = 0; p < PATTERNS; p++)
		for (int w = 0; w < WAYS; w++) {
			b.series[p][w].exec = calloc((size_t)b.o.samples + ROUNDS, sizeof(int64_t));
			b.series[p][w].memory = calloc((size_t)b.o.samples + ROUNDS, sizeof(int64_t));
			if (!b.series[p][w].exec || !b.series[p][w].memory)
				b.data = NULL;
		}
	if (!b.data || !b.hog.buffer) {
		fprintf(stderr, "rtsched-prem-bench: out of memory\n");
		return 1;
	}
	memset(b.data, 1, data_bytes);
	memset(b.hog.buffer, 1, b.hog.bytes);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		fprintf(stderr, "rtsched-prem-bench: warning: mlockall: %s\n", strerror(errno));
	b.hog.gate = &b.gate;
	pthread_t hog, measure;
	int err = pinned_thread_start(&hog, hog_main, &b.hog, 0, b.o.hog_cpu);
	if (err) {
		fprintf(stderr, "rtsched-prem-bench: hog thread on CPU %d: %s\n", b.o.hog_cpu, strerror(err));
		return 1;
	}
	err = pinned_thread_start(&measure, measure_main, &b, b.o.priority, b.o.cpu);
	if (err) {
		fprintf(stderr, "rtsched-prem-bench: SCHED_FIFO %d on CPU %d: %s (needs CAP_SYS_NICE or RLIMIT_RTPRIO)\n",
			b.o.priority, b.o.cpu, strerror(err));
		atomic_store(&b.hog.quit, true);
		pthread_join(hog, NULL);
		return 1;
	}
	pthread_join(measure, NULL);
	atomic_store(&b.hog.quit, true);
	pthread_join(hog, NULL);
	const char *no_pmu = b.pmu < 0 ? strerror(b.pmu_errno) : NULL;
	report(&b, no_pmu);
	return 0;
}
