/* SPDX-License-Identifier: MIT */
/*
 * rtsched-ult-tables: the ult backend's latencies and overheads in the layout
 * of seed 003's Tables 1 (averages) and 2 (maxima), per cluster size, with the
 * seed's published figures beside (bench/README.md, "ult backend: seed 003
 * Tables 1 and 2").
 *
 * For each cluster size d (`--cluster-sizes`, default every divisor of the
 * allowed CPU count, the first MAX_SIZES of them), the last cluster of `ult:cedf:d` (its d
 * CPUs) runs d periodic tasks (periods P, 1.5P, 2P, ...; each job spins
 * `--work-us`), so that no job waits for another job of its cluster:
 *
 *  - EventLat, RelOvh, ReqOvh, SigLat, SchedOvh: the workers' own timestamps
 *    (internal/ult_probe.h has what each one spans), recorded over the ult
 *    runs (one more per repetition, after the others): average the median
 *    of the runs' means, maximum of all samples. SigLat only where a
 *    worker tells another (none at d=1: "-", as in the seed).
 *  - JobStart: the job's own clock read at its first instruction minus its
 *    nominal release (timer, wake-up, release, decision, switch: the release
 *    latency of issue 14), from ult runs with the timestamps off; threads:
 *    the same set, same CPUs, one SCHED_FIFO thread per task
 *    (clock_nanosleep), measured the same way in alternating runs; ult/thr
 *    their ratio (target <= 1.2x on the average, the median of the runs'
 *    means).
 *  - context switch: rts_ult_context_switch between two contexts on a thread
 *    pinned to the cluster's first CPU (rtsched-ult-switch's method): the
 *    average from a batch, the maximum from single round trips (half of one,
 *    a clock read included).
 *
 * Exit status 0 measured, 1 a measurement failed, 2 bad command line.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rtsched/task.h>

#include "internal/ult_context.h"
#include "internal/ult_probe.h"
#include "bench_set.h"
#include "clock_ns.h"
#include "pinned_thread.h"
#include "opts.h"

#define MAX_SIZES 8
#define MAX_TASKS 64
#define SWITCH_SAMPLES 20000

struct options {
	int sizes[MAX_SIZES];
	int n_sizes;
	long period_us;
	long work_us;
	long jobs;
	int reps;
	long switches;
};

/* Seed 003 (Mollison & Anderson), Tables 1 and 2, us; c clusters of d CPUs. */
struct seed_row {
	const char *label;
	double avg[6], max[6]; /* -1: not reported */
};

static const struct seed_row seed_rows[] = {
	{"c=8,d=1", {10.81, 3.07, 0.08, -1, 0.37, 0.51}, {84.60, 32.30, 7.06, -1, 21.72, 18.31}},
	{"c=4,d=2", {11.25, 4.01, 4.07, 13.38, 1.25, 0.89}, {86.29, 31.38, 65.94, 91.23, 18.27, 20.84}},
	{"c=2,d=4", {11.59, 4.71, 10.43, 40.57, 1.57, 1.18}, {78.24, 27.53, 84.20, 120.80, 19.00, 18.78}},
	{"c=1,d=8", {13.18, 6.02, 52.62, 62.84, 1.63, 1.29}, {60.64, 36.53, 218.61, 187.13, 32.58, 18.90}},
};

/* ---- event latency: a periodic set under one backend ---- */

struct latency {
	long samples;
	double sum_ns;
	int64_t max_ns;
};

static void add_latency(struct latency *to, const struct latency *from)
{
	to->samples += from->samples;
	to->sum_ns += from->sum_ns;
	to->max_ns = from->max_ns > to->max_ns ? from->max_ns : to->max_ns;
}

struct task_arg {
	struct latency lat; /* per task: no lock shared between ULTs */
	int64_t work_ns;
};

static void latency_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	int64_t start_ns = clock_ns(CLOCK_MONOTONIC); /* the job's first instruction */
	(void)task;
	struct task_arg *a = arg;
	int64_t latency_ns = start_ns - job->release_ns;
	if (job->number > 1) { /* the first release is the synchronous one: warm-up */
		a->lat.samples++;
		a->lat.sum_ns += (double)latency_ns;
		if (latency_ns > a->lat.max_ns)
			a->lat.max_ns = latency_ns;
	}
	while (clock_ns(CLOCK_MONOTONIC) - start_ns < a->work_ns)
		;
}

static int run_set(const struct options *o, const char *backend, const cpu_set_t *cpus, int d,
		   struct latency *lat, char *why, size_t why_len)
{
	struct task_arg args[MAX_TASKS];
	struct bench_task tasks[MAX_TASKS] = {0};
	for (int i = 0; i < d; i++) {
		args[i] = (struct task_arg){.work_ns = o->work_us * 1000};
		tasks[i] = (struct bench_task){"tables", 80 - i, o->period_us * 1000 * (2 + i) / 2, 0,
					       (uint32_t)o->jobs + 1, latency_job, &args[i]};
	}
	int err = bench_set_run(backend, cpus, tasks, d, 2000000, why, why_len);
	for (int i = 0; i < d && !err; i++)
		add_latency(lat, &args[i].lat);
	return err;
}

/* ---- context switch: two contexts on one pinned thread ---- */

static struct rts_ult_context main_ctx, ctx_a;

static void bounce(void *arg)
{
	(void)arg;
	for (;;)
		rts_ult_context_switch(&ctx_a, &main_ctx);
}

struct switch_run {
	long switches;
	double avg_ns, max_ns;
	int err;
};

static void *switch_main(void *arg)
{
	struct switch_run *r = arg;
	r->err = -rts_ult_context_of_thread(&main_ctx);
	if (!r->err)
		r->err = -rts_ult_context_create(&ctx_a, 64 * 1024, bounce, NULL);
	if (r->err)
		return NULL;
	long round_trips = r->switches / 2;
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < round_trips; i++)
		rts_ult_context_switch(&main_ctx, &ctx_a);
	r->avg_ns = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)(2 * round_trips);
	int64_t max_ns = 0;
	for (int i = 0; i < SWITCH_SAMPLES; i++) {
		int64_t a = clock_ns(CLOCK_MONOTONIC);
		rts_ult_context_switch(&main_ctx, &ctx_a);
		int64_t b = clock_ns(CLOCK_MONOTONIC);
		max_ns = b - a > max_ns ? b - a : max_ns;
	}
	r->max_ns = (double)max_ns / 2;
	rts_ult_context_destroy(&ctx_a);
	return NULL;
}

static int measure_switch(const struct options *o, int cpu, struct switch_run *r)
{
	*r = (struct switch_run){.switches = o->switches};
	pthread_t t;
	int err = pinned_thread_start(&t, switch_main, r, 80, cpu);
	if (err)
		return err;
	pthread_join(t, NULL);
	return r->err;
}

/* ---- one cluster size ---- */

struct size_result {
	int d;
	struct latency ult, threads;
	double ult_mean_ns, threads_mean_ns; /* median of the runs' means */
	struct rts_ult_probe_stat probe[RTS_ULT_PROBE_KINDS]; /* the cluster's CPUs, all ult runs */
	double probe_mean_ns[RTS_ULT_PROBE_KINDS];             /* median of the runs' means; -1: none */
	struct switch_run sw;
};

/* The workers' timestamps (internal/ult_probe.h), attached for one ult run per repetition. */
static struct rts_ult_probes probes;

/* Add one run's timestamps of the cluster's CPUs to s; its means per kind (-1: no sample). */
static void add_probes(struct size_result *s, const cpu_set_t *cpus, double run_mean_ns[RTS_ULT_PROBE_KINDS])
{
	for (int k = 0; k < RTS_ULT_PROBE_KINDS; k++) {
		struct rts_ult_probe_stat run = {0};
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, cpus))
				continue;
			const struct rts_ult_probe_stat *p = &probes.cpu[cpu][k];
			run.count += p->count;
			run.sum_ns += p->sum_ns;
			run.max_ns = p->max_ns > run.max_ns ? p->max_ns : run.max_ns;
		}
		s->probe[k].count += run.count;
		s->probe[k].sum_ns += run.sum_ns;
		s->probe[k].max_ns = run.max_ns > s->probe[k].max_ns ? run.max_ns : s->probe[k].max_ns;
		run_mean_ns[k] = run.count ? (double)run.sum_ns / (double)run.count : -1;
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return v[n / 2];
}

static int measure_size(const struct options *o, const int *allowed, int n_allowed, int d,
			struct size_result *s, char *why, size_t why_len)
{
	memset(s, 0, sizeof(*s));
	s->d = d;
	cpu_set_t cpus; /* the last cluster: CPUs [n-d, n) of the allowed list */
	CPU_ZERO(&cpus);
	for (int i = n_allowed - d; i < n_allowed; i++)
		CPU_SET(allowed[i], &cpus);
	double ult_means[64], threads_means[64], probe_means[64][RTS_ULT_PROBE_KINDS];
	char backend[32];
	snprintf(backend, sizeof(backend), "ult:cedf:%d", d);
	for (int r = 0; r < o->reps; r++) {
		/* JobStart with the timestamps off, then their run (its JobStart unused). */
		struct latency t = {0}, u = {0}, probed = {0};
		int err = run_set(o, "threads", &cpus, d, &t, why, why_len);
		if (!err)
			err = run_set(o, backend, &cpus, d, &u, why, why_len);
		memset(&probes, 0, sizeof(probes)); /* no worker runs now */
		rts_ult_probes_attach(&probes);
		if (!err)
			err = run_set(o, backend, &cpus, d, &probed, why, why_len);
		rts_ult_probes_attach(NULL);
		add_probes(s, &cpus, probe_means[r]); /* its workers are joined */
		if (!err && (!t.samples || !u.samples))
			err = EIO, snprintf(why, why_len, "no job measured");
		if (err)
			return err;
		threads_means[r] = t.sum_ns / (double)t.samples;
		ult_means[r] = u.sum_ns / (double)u.samples;
		s->threads.max_ns = t.max_ns > s->threads.max_ns ? t.max_ns : s->threads.max_ns;
		s->ult.max_ns = u.max_ns > s->ult.max_ns ? u.max_ns : s->ult.max_ns;
		s->threads.samples += t.samples;
		s->ult.samples += u.samples;
	}
	s->threads_mean_ns = median(threads_means, o->reps);
	s->ult_mean_ns = median(ult_means, o->reps);
	for (int k = 0; k < RTS_ULT_PROBE_KINDS; k++) {
		double means[64];
		int n = 0;
		for (int r = 0; r < o->reps; r++)
			if (probe_means[r][k] >= 0)
				means[n++] = probe_means[r][k];
		s->probe_mean_ns[k] = n ? median(means, n) : -1;
	}
	return measure_switch(o, allowed[n_allowed - d], &s->sw);
}

/* ---- the tables ---- */

static const char *const columns[6] = {"EventLat", "RelOvh", "ReqOvh", "SigLat", "SchedOvh",
				       "CtxSw"};

/* The seed's figures have 2 decimals; ours 3 (a ULT switch is about 0.01 us). */
static void cell(double us, int decimals)
{
	if (us < 0)
		printf(" %9s", "-");
	else
		printf(" %9.*f", decimals, us);
}

/* Column c (0..4) of the workers' timestamps, in us; -1 ("-") with no sample. */
static double probe_us(const struct size_result *s, int c, bool maxima)
{
	static const enum rts_ult_probe_kind kinds[5] = {
		RTS_ULT_PROBE_EVENT_LATENCY, RTS_ULT_PROBE_RELEASE, RTS_ULT_PROBE_REQUEST,
		RTS_ULT_PROBE_SIGNAL_LATENCY, RTS_ULT_PROBE_SCHEDULING};
	const struct rts_ult_probe_stat *p = &s->probe[kinds[c]];
	if (!p->count)
		return -1;
	return (maxima ? (double)p->max_ns : s->probe_mean_ns[kinds[c]]) / 1000;
}

static void print_table(const struct options *o, const struct size_result *res, bool maxima)
{
	printf("\nTable %d layout: %s latencies and overheads, us (seed 003 Table %d beside)\n",
	       maxima ? 2 : 1, maxima ? "worst-case" : "average-case", maxima ? 2 : 1);
	printf("%-22s", "");
	for (int c = 0; c < 6; c++)
		printf(" %9s", columns[c]);
	printf(" %9s %9s %8s\n", "JobStart", "threads", "ult/thr");
	for (int i = 0; i < o->n_sizes; i++) {
		const struct size_result *s = &res[i];
		double ult_ns = maxima ? (double)s->ult.max_ns : s->ult_mean_ns;
		double thr_ns = maxima ? (double)s->threads.max_ns : s->threads_mean_ns;
		char label[32];
		snprintf(label, sizeof(label), "rtsched ult d=%d", s->d);
		printf("%-22s", label);
		for (int c = 0; c < 5; c++)
			cell(probe_us(s, c, maxima), 3);
		cell((maxima ? s->sw.max_ns : s->sw.avg_ns) / 1000, 3);
		printf(" %9.3f %9.3f %7.2fx\n", ult_ns / 1000, thr_ns / 1000, ult_ns / thr_ns);
	}
	for (size_t i = 0; i < sizeof(seed_rows) / sizeof(seed_rows[0]); i++) {
		printf("seed 003 %-13s", seed_rows[i].label);
		for (int c = 0; c < 6; c++)
			cell(maxima ? seed_rows[i].max[c] : seed_rows[i].avg[c], 2);
		printf("\n");
	}
}

/* How many samples each of the workers' columns has. */
static void print_samples(const struct options *o, const struct size_result *res)
{
	printf("\nsamples:");
	for (int c = 0; c < 5; c++)
		printf(" %s", columns[c]);
	printf(" (timestamped runs) JobStart (the other ult runs)\n");
	for (int i = 0; i < o->n_sizes; i++) {
		const struct size_result *s = &res[i];
		printf("  d=%d  %ld %ld %ld %ld %ld %ld\n", s->d,
		       (long)s->probe[RTS_ULT_PROBE_EVENT_LATENCY].count,
		       (long)s->probe[RTS_ULT_PROBE_RELEASE].count,
		       (long)s->probe[RTS_ULT_PROBE_REQUEST].count,
		       (long)s->probe[RTS_ULT_PROBE_SIGNAL_LATENCY].count,
		       (long)s->probe[RTS_ULT_PROBE_SCHEDULING].count, s->ult.samples);
	}
}

/* ---- the command ---- */

static int usage(const char *arg)
{
	if (arg)
		fprintf(stderr, "rtsched-ult-tables: bad argument \"%s\"\n", arg);
	fprintf(stderr,
		"usage: rtsched-ult-tables [--cluster-sizes D,D,...] [--period-us N] [--work-us N]\n"
		"                          [--jobs N] [--reps N] [--switches N]\n"
		"  --cluster-sizes  CPUs per cluster, each dividing the allowed CPU count\n"
		"                   (default: every divisor, the first %d)\n"
		"  --period-us N    the first task's period (default 1000, >= 200); task i: P*(2+i)/2\n"
		"  --work-us N      each job's spin (default 50, < period/2)\n"
		"  --jobs N         jobs per task and run (default 300)\n"
		"  --reps N         alternating threads/ult runs (default 5, 1..64)\n"
		"  --switches N     context switches in the average's batch (default 200000)\n",
		MAX_SIZES);
	return 2;
}

static bool parse_sizes(const char *text, int n_allowed, struct options *o)
{
	o->n_sizes = 0;
	for (const char *p = text;; p++) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v < 1 || v > MAX_TASKS ||
		    n_allowed % v || o->n_sizes == MAX_SIZES)
			return false;
		o->sizes[o->n_sizes++] = (int)v;
		if (!*end)
			return true;
		p = end;
	}
}

static int parse(int argc, char **argv, int n_allowed, struct options *o)
{
	*o = (struct options){.period_us = 1000, .work_us = 50, .jobs = 300, .reps = 5,
			      .switches = 200000};
	for (int d = 1; d <= n_allowed && o->n_sizes < MAX_SIZES; d++)
		if (n_allowed % d == 0 && d <= MAX_TASKS)
			o->sizes[o->n_sizes++] = d;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (!next)
			return usage(argv[i]);
		if (strcmp(argv[i], "--cluster-sizes") == 0 && parse_sizes(next, n_allowed, o))
			i++;
		else if (strcmp(argv[i], "--period-us") == 0 && opts_parse_u64(next, 200, 1000000, &v) == 0)
			o->period_us = v, i++;
		else if (strcmp(argv[i], "--work-us") == 0 && opts_parse_u64(next, 0, 1000000, &v) == 0)
			o->work_us = v, i++;
		else if (strcmp(argv[i], "--jobs") == 0 && opts_parse_u64(next, 1, 1000000, &v) == 0)
			o->jobs = v, i++;
		else if (strcmp(argv[i], "--reps") == 0 && opts_parse_u64(next, 1, 64, &v) == 0)
			o->reps = (int)v, i++;
		else if (strcmp(argv[i], "--switches") == 0 && opts_parse_u64(next, 2, 1000000000, &v) == 0)
			o->switches = v, i++;
		else
			return usage(argv[i]);
	}
	if (o->work_us * 2 >= o->period_us)
		return usage("--work-us");
	return 0;
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	int allowed[CPU_SETSIZE], n_allowed = 0;
	sched_getaffinity(0, sizeof(set), &set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed[n_allowed++] = cpu;
	struct options o;
	int bad = parse(argc, argv, n_allowed, &o);
	if (bad)
		return bad;
	mlockall(MCL_CURRENT | MCL_FUTURE);
	static struct size_result res[MAX_SIZES];
	for (int i = 0; i < o.n_sizes; i++) {
		char why[512] = "";
		int err = measure_size(&o, allowed, n_allowed, o.sizes[i], &res[i], why, sizeof(why));
		if (err) {
			fprintf(stderr, "rtsched-ult-tables: cluster size %d failed: %s%s%s\n",
				o.sizes[i], strerror(err), *why ? ": " : "",
				*why ? why : (err == EPERM ? "SCHED_FIFO refused" : ""));
			return 1;
		}
	}
	printf("rtsched-ult-tables: d CPUs per cluster (the last d allowed CPUs), d tasks, "
	       "period %ld us x (2+i)/2, work %ld us, %ld jobs x %d repetitions of: threads, ult, "
	       "ult with timestamps\n"
	       "EventLat..SchedOvh: the workers' timestamps (src/internal/ult_probe.h; avg: median "
	       "of the ult runs' means; max: of all); -: no sample\n"
	       "JobStart: job's first clock read - nominal release, timestamps off (avg: median of "
	       "runs' means; max: of all); threads: the same for the threads backend, same set and CPUs\n"
	       "CtxSw: rts_ult_context_switch (avg: batch of %ld; max: half of one round trip "
	       "of %d, a clock read included)\n",
	       o.period_us, o.work_us, o.jobs, o.reps, o.switches, SWITCH_SAMPLES);
	print_table(&o, res, false);
	print_table(&o, res, true);
	print_samples(&o, res);
	return 0;
}
