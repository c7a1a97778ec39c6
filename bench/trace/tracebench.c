/* SPDX-License-Identifier: MIT */
/*
 * rtsched-tracebench: what tracing costs (issue 3 targets: at most 200 ns per
 * event; the lock microbenchmark at most 5% slower with tracing compiled in
 * but disabled).
 *
 *  1. Cost per event of rts_trace_event into a ring that does not fill, with
 *     the drain thread running: per single event (rdtscp before and after,
 *     minus the cost of an empty rdtscp pair) avg / p50 / p99 / max, and per
 *     batch of 1000 (CLOCK_MONOTONIC) avg / p99. Also rts_trace_emit (the
 *     thread's current stream), the drop path (full ring), and the two parts
 *     the hot path cannot avoid (clock_gettime, the CPU number).
 *  2. The lock microbenchmark: an uncontended RTS_PROTO_PIP lock + unlock
 *     loop, four variants measured in the same run, interleaved repetition by
 *     repetition, medians compared with the untraced loop:
 *        base      lock; unlock
 *        off       lock; rts_trace(NULL, ...); unlock; rts_trace(NULL, ...)
 *                  (tracing compiled in, disabled: the inline pointer test)
 *        off-call  the same with rts_trace_event(NULL, ...) (a call that returns)
 *        on        lock; rts_trace_event(s, LOCK_ACQUIRE); unlock; rts_trace_event(s, LOCK_RELEASE)
 *
 * Chunks go to --output (default /dev/null: the writing costs the drain
 * thread, on another CPU, not the measured one).
 *
 * Usage: rtsched-tracebench [--cpu N] [--reps N] [--iterations N] [--events N]
 *                           [--output PATH] [--json]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/mutex.h>
#include <rtsched/trace.h>
#include "clock_ns.h"

#if !defined(__x86_64__) && !defined(__i386__)
#error "rtsched-tracebench reads the x86 time-stamp counter (rdtscp)"
#endif

struct options {
	int cpu;
	int reps;
	long iterations;
	long events;
	const char *output;
	bool json;
};

static inline __attribute__((always_inline)) uint64_t tsc(void)
{
	uint32_t lo, hi, aux;
	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static double tsc_hz;

static void calibrate_tsc(void)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	uint64_t c0 = tsc();
	while (clock_ns(CLOCK_MONOTONIC) - t0 < 200000000)
		;
	uint64_t c1 = tsc();
	int64_t t1 = clock_ns(CLOCK_MONOTONIC);
	tsc_hz = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static double cycles_to_ns(double c)
{
	return c * 1e9 / tsc_hz;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static uint64_t pct_u64(const uint64_t *sorted, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return sorted[i];
}

static double pct_double(const double *sorted, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return sorted[i];
}

static void die(const char *what, int err)
{
	fprintf(stderr, "rtsched-tracebench: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct rts_trace *open_session(const struct options *o, uint32_t buffer_events,
				      struct rts_trace_stream **stream)
{
	char why[256];
	struct rts_trace_config cfg = {
		.path = o->output,
		.name = "tracebench",
		.buffer_events = buffer_events,
		.drain_period_ns = 10000000, /* 10 ms */
		.error_buf = why,
		.error_buf_size = sizeof(why),
	};
	struct rts_trace *t;
	int err = rts_trace_open(&t, &cfg);
	if (err) {
		fprintf(stderr, "rtsched-tracebench: %s\n", why);
		exit(1);
	}
	if ((err = rts_trace_stream_add(t, -1, "bench", 0, 0, stream)))
		die("rts_trace_stream_add", err);
	return t;
}

static void start_and_pin(struct rts_trace *t, struct rts_trace_stream *s, int cpu)
{
	int err = rts_trace_start(t, 0, 0); /* the drain thread keeps every CPU */
	if (err)
		die("rts_trace_start", err);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if ((err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
		die("pinning the measuring thread", err);
	rts_trace_stream_bind(s);
}

static void close_session(struct rts_trace *t, const char *what)
{
	uint64_t lost = rts_trace_lost_events(t);
	int err = rts_trace_close(t);
	if (err)
		die("rts_trace_close", err);
	if (lost)
		fprintf(stderr, "rtsched-tracebench: warning: %s lost %llu events\n", what,
			(unsigned long long)lost);
	cpu_set_t all;
	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
}

/* ---- 1. cost per event ------------------------------------------------------ */

struct event_cost {
	double avg_ns, p50_ns, p99_ns, max_ns;  /* single events, rdtscp */
	double batch_median_ns, batch_avg_ns, batch_p99_ns; /* per event, batches of 1000 */
	double emit_ns;                         /* rts_trace_emit, median batch */
	double drop_ns;                         /* full ring, median batch */
	double clock_ns, cpu_ns, tsc_pair_ns;   /* parts, median batch */
	uint64_t lost;
};

#define BATCH 1000

/* Per-event cost over batches of BATCH: returns the median batch; avg and p99
 * (of the batches) if asked. The median is what a VM's noise leaves alone. */
static double batch_cost(long n, void (*fn)(struct rts_trace_stream *), struct rts_trace_stream *s,
			 double *p99, double *avg)
{
	long batches = n / BATCH;
	double *per = malloc((size_t)batches * sizeof(double));
	if (!per)
		die("malloc", ENOMEM);
	double sum = 0;
	for (long b = 0; b < batches; b++) {
		int64_t t0 = clock_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < BATCH; i++)
			fn(s);
		per[b] = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / BATCH;
		sum += per[b];
	}
	qsort(per, (size_t)batches, sizeof(double), cmp_double);
	if (p99)
		*p99 = pct_double(per, (size_t)batches, 0.99);
	if (avg)
		*avg = sum / (double)batches;
	double median = pct_double(per, (size_t)batches, 0.5);
	free(per);
	return median;
}

static void ev_event(struct rts_trace_stream *s)
{
	rts_trace_event(s, RTS_EV_MARKER, 1, 2, 3);
}

static void ev_emit(struct rts_trace_stream *s)
{
	(void)s;
	rts_trace_emit(RTS_EV_MARKER, 1, 2, 3);
}

static void ev_clock(struct rts_trace_stream *s)
{
	(void)s;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ __volatile__("" ::"r"(ts.tv_nsec) : "memory");
}

static void ev_getcpu(struct rts_trace_stream *s)
{
	(void)s;
	int cpu = sched_getcpu();
	__asm__ __volatile__("" ::"r"(cpu) : "memory");
}

static void measure_event_cost(const struct options *o, struct event_cost *r)
{
	/* A ring that holds every event of a measurement: no drop, whatever the drain does. */
	uint32_t cap = 1;
	while (cap < (uint64_t)o->events && cap < RTS_TRACE_MAX_BUFFER_EVENTS)
		cap <<= 1;
	struct rts_trace_stream *s;
	struct rts_trace *t = open_session(o, cap, &s);
	start_and_pin(t, s, o->cpu);

	/* warm up, and the cost of an empty rdtscp pair */
	uint64_t *samples = malloc((size_t)o->events * sizeof(uint64_t));
	if (!samples)
		die("malloc", ENOMEM);
	for (long i = 0; i < o->events; i++) {
		uint64_t a = tsc();
		uint64_t b = tsc();
		samples[i] = b - a;
	}
	qsort(samples, (size_t)o->events, sizeof(uint64_t), cmp_u64);
	double pair = (double)pct_u64(samples, (size_t)o->events, 0.5);
	r->tsc_pair_ns = cycles_to_ns(pair);

	for (long i = 0; i < o->events / 2; i++) { /* ring half full: every slot touched */
		uint64_t a = tsc();
		rts_trace_event(s, RTS_EV_MARKER, (uint32_t)i, 0, 0);
		uint64_t b = tsc();
		samples[i] = b - a;
	}
	usleep(50000); /* drained */
	long n = o->events / 2;
	double sum = 0;
	for (long i = 0; i < n; i++) {
		uint64_t a = tsc();
		rts_trace_event(s, RTS_EV_MARKER, (uint32_t)i, 0, 0);
		uint64_t b = tsc();
		samples[i] = b - a;
	}
	for (long i = 0; i < n; i++) {
		double c = (double)samples[i] - pair;
		samples[i] = c > 0 ? (uint64_t)c : 0;
		sum += (double)samples[i];
	}
	qsort(samples, (size_t)n, sizeof(uint64_t), cmp_u64);
	r->avg_ns = cycles_to_ns(sum / (double)n);
	r->p50_ns = cycles_to_ns((double)pct_u64(samples, (size_t)n, 0.5));
	r->p99_ns = cycles_to_ns((double)pct_u64(samples, (size_t)n, 0.99));
	r->max_ns = cycles_to_ns((double)samples[n - 1]);
	free(samples);
	usleep(50000);
	r->batch_median_ns = batch_cost(o->events / 2, ev_event, s, &r->batch_p99_ns, &r->batch_avg_ns);
	usleep(50000);
	r->emit_ns = batch_cost(o->events / 4, ev_emit, NULL, NULL, NULL);
	r->clock_ns = batch_cost(o->events / 4, ev_clock, NULL, NULL, NULL);
	r->cpu_ns = batch_cost(o->events / 4, ev_getcpu, NULL, NULL, NULL);
	r->lost = rts_trace_lost_events(t);
	close_session(t, "the per-event measurement");

	/* the drop path: a 16-event ring that nobody drains during the loop */
	char why[256];
	struct rts_trace_config cfg = { .path = o->output, .buffer_events = 16,
					.drain_period_ns = 3600LL * 1000000000,
					.error_buf = why, .error_buf_size = sizeof(why) };
	int err = rts_trace_open(&t, &cfg);
	if (err)
		die(why, err);
	if ((err = rts_trace_stream_add(t, -1, "drop", 0, 0, &s)))
		die("rts_trace_stream_add", err);
	for (int i = 0; i < 16; i++)
		rts_trace_event(s, RTS_EV_MARKER, 0, 0, 0);
	r->drop_ns = batch_cost(o->events / 4, ev_event, s, NULL, NULL);
	rts_trace_close(t);
}

/* ---- 2. the lock microbenchmark ------------------------------------------------- */

enum variant { V_BASE, V_OFF, V_OFF_CALL, V_ON, V_COUNT };
static const char *const variant_names[V_COUNT] = { "base", "off", "off-call", "on" };

/* The stream the loops trace into, read through a volatile so that the
 * compiler cannot fold the NULL test away. */
static struct rts_trace_stream *volatile bench_stream;

static __attribute__((noinline)) void loop_base(rts_mutex_t *m, long n)
{
	for (long i = 0; i < n; i++) {
		rts_mutex_lock(m);
		rts_mutex_unlock(m);
	}
}

static __attribute__((noinline)) void loop_off(rts_mutex_t *m, long n)
{
	struct rts_trace_stream *s = bench_stream; /* NULL */
	for (long i = 0; i < n; i++) {
		rts_mutex_lock(m);
		rts_trace(s, RTS_EV_LOCK_ACQUIRE, 0, 1, 0);
		rts_mutex_unlock(m);
		rts_trace(s, RTS_EV_LOCK_RELEASE, 0, 1, 0);
	}
}

static __attribute__((noinline)) void loop_off_call(rts_mutex_t *m, long n)
{
	struct rts_trace_stream *s = bench_stream; /* NULL */
	for (long i = 0; i < n; i++) {
		rts_mutex_lock(m);
		rts_trace_event(s, RTS_EV_LOCK_ACQUIRE, 0, 1, 0);
		rts_mutex_unlock(m);
		rts_trace_event(s, RTS_EV_LOCK_RELEASE, 0, 1, 0);
	}
}

static __attribute__((noinline)) void loop_on(rts_mutex_t *m, long n, struct rts_trace_stream *s)
{
	for (long i = 0; i < n; i++) {
		rts_mutex_lock(m);
		rts_trace_event(s, RTS_EV_LOCK_ACQUIRE, 0, 1, 0);
		rts_mutex_unlock(m);
		rts_trace_event(s, RTS_EV_LOCK_RELEASE, 0, 1, 0);
	}
}

struct lock_result {
	double median_ns[V_COUNT]; /* per lock + unlock */
	double min_ns[V_COUNT];
	double ratio[V_COUNT];     /* median / median of base */
	uint64_t lost;
};

static void measure_lock(const struct options *o, struct lock_result *r)
{
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP);
	rts_mutex_t m;
	int err = rts_mutex_init(&m, &attr);
	if (err)
		die("rts_mutex_init", err);

	/* 2 events per iteration, drained every 10 ms: a ring of 4 repetitions'
	 * events never fills. */
	uint32_t cap = 1;
	while (cap < 8 * (uint64_t)o->iterations && cap < RTS_TRACE_MAX_BUFFER_EVENTS)
		cap <<= 1;
	struct rts_trace_stream *s;
	struct rts_trace *t = open_session(o, cap, &s);
	start_and_pin(t, s, o->cpu);
	bench_stream = NULL;

	double *per[V_COUNT];
	for (int v = 0; v < V_COUNT; v++)
		if (!(per[v] = calloc((size_t)o->reps, sizeof(double))))
			die("calloc", ENOMEM);
	loop_base(&m, o->iterations); /* warm up */
	loop_on(&m, o->iterations, s);
	for (int rep = 0; rep < o->reps; rep++) {
		for (int k = 0; k < V_COUNT; k++) {
			int v = (rep + k) % V_COUNT; /* rotate the order: no variant always first */
			int64_t t0 = clock_ns(CLOCK_MONOTONIC);
			switch (v) {
			case V_BASE: loop_base(&m, o->iterations); break;
			case V_OFF: loop_off(&m, o->iterations); break;
			case V_OFF_CALL: loop_off_call(&m, o->iterations); break;
			default: loop_on(&m, o->iterations, s); break;
			}
			per[v][rep] = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)o->iterations;
		}
	}
	r->lost = rts_trace_lost_events(t);
	close_session(t, "the lock microbenchmark");
	for (int v = 0; v < V_COUNT; v++) {
		qsort(per[v], (size_t)o->reps, sizeof(double), cmp_double);
		r->median_ns[v] = pct_double(per[v], (size_t)o->reps, 0.5);
		r->min_ns[v] = per[v][0];
		free(per[v]);
	}
	for (int v = 0; v < V_COUNT; v++)
		r->ratio[v] = r->median_ns[v] / r->median_ns[V_BASE];
	rts_mutex_destroy(&m);
}

/* ---- main --------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: rtsched-tracebench [--cpu N] [--reps N] [--iterations N] [--events N]\n"
		   "                          [--output PATH] [--json]\n");
}

static long parse_long(const char *s, const char *what, long min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min) {
		fprintf(stderr, "rtsched-tracebench: %s: expected an integer >= %ld, got \"%s\"\n",
			what, min, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct options o = {
		.cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0,
		.reps = 101,
		.iterations = 20000,
		.events = 1000000,
		.output = "/dev/null",
	};
	static const struct option longopts[] = {
		{ "cpu", required_argument, 0, 'c' },     { "reps", required_argument, 0, 'r' },
		{ "iterations", required_argument, 0, 'i' }, { "events", required_argument, 0, 'e' },
		{ "output", required_argument, 0, 'o' },  { "json", no_argument, 0, 'j' },
		{ "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "c:r:i:e:o:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o.cpu = (int)parse_long(optarg, "--cpu", 0); break;
		case 'r': o.reps = (int)parse_long(optarg, "--reps", 1); break;
		case 'i': o.iterations = parse_long(optarg, "--iterations", 1); break;
		case 'e': o.events = parse_long(optarg, "--events", 4 * BATCH); break;
		case 'o': o.output = optarg; break;
		case 'j': o.json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	calibrate_tsc();
	struct event_cost ev = { 0 };
	struct lock_result lk = { 0 };
	measure_event_cost(&o, &ev);
	measure_lock(&o, &lk);

	if (o.json) {
		printf("{\"cpu\": %d, \"tsc_hz\": %.0f,\n", o.cpu, tsc_hz);
		printf(" \"event\": {\"avg_ns\": %.1f, \"p50_ns\": %.1f, \"p99_ns\": %.1f, "
		       "\"max_ns\": %.1f, \"batch_median_ns\": %.1f, \"batch_avg_ns\": %.1f, "
		       "\"batch_p99_ns\": %.1f, \"emit_ns\": %.1f, \"drop_ns\": %.1f, "
		       "\"clock_gettime_ns\": %.1f, \"sched_getcpu_ns\": %.1f, "
		       "\"rdtscp_pair_ns\": %.1f, \"lost\": %llu},\n",
		       ev.avg_ns, ev.p50_ns, ev.p99_ns, ev.max_ns, ev.batch_median_ns, ev.batch_avg_ns,
		       ev.batch_p99_ns, ev.emit_ns, ev.drop_ns, ev.clock_ns, ev.cpu_ns, ev.tsc_pair_ns,
		       (unsigned long long)ev.lost);
		printf(" \"lock\": {\"reps\": %d, \"iterations\": %ld, \"lost\": %llu", o.reps,
		       o.iterations, (unsigned long long)lk.lost);
		for (int v = 0; v < V_COUNT; v++)
			printf(", \"%s\": {\"median_ns\": %.2f, \"min_ns\": %.2f, \"ratio\": %.4f}",
			       variant_names[v], lk.median_ns[v], lk.min_ns[v], lk.ratio[v]);
		printf("}}\n");
		return 0;
	}
	printf("rtsched-tracebench on CPU %d (TSC %.3f GHz), chunks to %s\n\n", o.cpu,
	       tsc_hz / 1e9, o.output);
	printf("Cost per event (rts_trace_event, ring not full, drain thread running):\n");
	printf("  single events (rdtscp, pair cost %.1f ns removed): avg %.1f  p50 %.1f  p99 %.1f  max %.1f ns\n",
	       ev.tsc_pair_ns, ev.avg_ns, ev.p50_ns, ev.p99_ns, ev.max_ns);
	printf("  batches of %d (CLOCK_MONOTONIC):                  median %.1f  avg %.1f  p99 %.1f ns\n",
	       BATCH, ev.batch_median_ns, ev.batch_avg_ns, ev.batch_p99_ns);
	printf("  rts_trace_emit (current stream), median batch:     %.1f ns\n", ev.emit_ns);
	printf("  full ring (dropped and counted), median batch:     %.1f ns\n", ev.drop_ns);
	printf("  parts: clock_gettime(CLOCK_MONOTONIC) %.1f ns, sched_getcpu %.1f ns (the library reads rseq cpu_id instead)\n",
	       ev.clock_ns, ev.cpu_ns);
	if (ev.lost)
		printf("  (lost %llu events)\n", (unsigned long long)ev.lost);
	printf("\nLock microbenchmark: uncontended PIP lock + unlock, %d reps x %ld iterations, interleaved:\n",
	       o.reps, o.iterations);
	printf("  %-9s %10s %10s %8s\n", "variant", "median ns", "min ns", "ratio");
	for (int v = 0; v < V_COUNT; v++)
		printf("  %-9s %10.2f %10.2f %8.3f\n", variant_names[v], lk.median_ns[v], lk.min_ns[v],
		       lk.ratio[v]);
	printf("  (off: rts_trace() on a NULL stream, the inline test; off-call: rts_trace_event(NULL);\n"
	       "   on: 2 events per iteration; lost %llu)\n",
	       (unsigned long long)lk.lost);
	printf("\nTargets: per event <= 200 ns: %s (avg %.1f, p99 %.1f); off vs base <= 1.05: %s (%.3f)\n",
	       ev.avg_ns <= 200 && ev.p99_ns <= 200 ? "met" : "NOT met", ev.avg_ns, ev.p99_ns,
	       lk.ratio[V_OFF] <= 1.05 ? "met" : "NOT met", lk.ratio[V_OFF]);
	return 0;
}
