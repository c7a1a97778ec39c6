/* SPDX-License-Identifier: MIT */
/*
 * rtsched-ult-switch: what a switch costs under the ult backend against a
 * kernel thread switch measured in the same run (bench/README.md, "ult
 * backend: context switch").
 *
 *  - kernel: two SCHED_FIFO threads pinned to one CPU hand a turn back and
 *    forth through futexes (wake the other, wait on one's own word); one
 *    switch is half a round trip. This is the switch the threads backend
 *    makes between two tasks on a CPU.
 *  - ult switch: two user-level contexts on one thread switch to each other
 *    (rts_ult_context_switch: save and restore only); one switch, one call.
 *  - ult schedule: a ULT task on a P-EDF worker asks for a sleep that is
 *    already due: the worker's scheduler files it, releases it, chooses it
 *    and switches back. One decision and two switches; the figure is per
 *    call (per decision).
 *  - clock reads: the worker's CPU clock (ult/worker_cpu_clock.c, the method
 *    this machine allows), clock_gettime(CLOCK_THREAD_CPUTIME_ID) (a system
 *    call) and clock_gettime(CLOCK_MONOTONIC) (vDSO), per read, on a thread
 *    that keeps its CPU.
 *  - release latency: one periodic task (`--period-us`, `--jobs`) on the
 *    CPU under the threads backend (SCHED_FIFO 80, its own kernel thread,
 *    clock_nanosleep) and under ult:pedf (the idle worker's futex wait,
 *    bounded by the release, times out; the scheduler releases the job and
 *    switches to it: internal/ult.h, "Release timers"), in `--reps`
 *    alternating rounds: the median of the rounds' mean job start - nominal
 *    release, the maximum over all rounds, and their ratios.
 *
 * Each is measured `--reps` times; the median per switch is reported, with
 * ratios to the kernel switch. Exit status 0 measured, 1 a measurement
 * failed, 2 bad command line. Needs SCHED_FIFO (else exit 1, explained).
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rtsched/task.h>

#include "internal/backend.h"
#include "internal/futex.h"
#include "internal/ult_context.h"
#include "internal/worker_cpu_clock.h"
#include "bench_set.h"
#include "clock_ns.h"
#include "pinned_thread.h"
#include "opts.h"

#define MAX_REPS 64

struct options {
	long switches;
	int reps;
	long period_us;
	long jobs;
	int cpu;
	bool json;
};

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

/* ---- kernel: futex ping-pong between two pinned SCHED_FIFO threads ---- */

struct pingpong {
	rts_futex_word turn; /* 0: ping's turn, 1: pong's */
	long rounds;
};

static void wait_turn(struct pingpong *p, uint32_t mine)
{
	uint32_t now;
	while ((now = atomic_load_explicit(&p->turn, memory_order_acquire)) != mine)
		rts_futex_wait_until(&p->turn, now, NULL, CLOCK_MONOTONIC, false);
}

static void give_turn(struct pingpong *p, uint32_t to)
{
	atomic_store_explicit(&p->turn, to, memory_order_release);
	rts_futex_wake(&p->turn, 1, false);
}

static void *pong_main(void *arg)
{
	struct pingpong *p = arg;
	for (long i = 0; i < p->rounds; i++) {
		wait_turn(p, 1);
		give_turn(p, 0);
	}
	return NULL;
}

struct kernel_run {
	struct pingpong pp;
	double ns_per_switch;
	int err;
};

static void *ping_main(void *arg)
{
	struct kernel_run *k = arg;
	struct pingpong *p = &k->pp;
	pthread_t pong;
	int cpu = sched_getcpu();
	k->err = pinned_thread_start(&pong, pong_main, p, 80, cpu);
	if (k->err)
		return NULL;
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < p->rounds; i++) {
		give_turn(p, 1);
		wait_turn(p, 0);
	}
	int64_t t1 = clock_ns(CLOCK_MONOTONIC);
	pthread_join(pong, NULL);
	k->ns_per_switch = (double)(t1 - t0) / (double)(2 * p->rounds);
	return NULL;
}

static int measure_kernel(const struct options *o, double *ns)
{
	struct kernel_run k = {.pp = {.rounds = o->switches / 2}};
	pthread_t ping;
	int err = pinned_thread_start(&ping, ping_main, &k, 80, o->cpu);
	if (err)
		return err;
	pthread_join(ping, NULL);
	*ns = k.ns_per_switch;
	return k.err;
}

/* ---- ult switch: two contexts on one thread ---- */

static struct rts_ult_context main_ctx, ctx_a, ctx_b;
static long switches_left;

static void run_a(void *arg)
{
	(void)arg;
	for (;;) {
		if (--switches_left <= 0)
			rts_ult_context_switch(&ctx_a, &main_ctx);
		rts_ult_context_switch(&ctx_a, &ctx_b);
	}
}

static void run_b(void *arg)
{
	(void)arg;
	for (;;) {
		--switches_left;
		rts_ult_context_switch(&ctx_b, &ctx_a);
	}
}

struct ult_switch_run {
	long switches;
	double ns_per_switch;
	int err;
};

static void *ult_switch_main(void *arg)
{
	struct ult_switch_run *r = arg;
	r->err = -rts_ult_context_of_thread(&main_ctx);
	if (!r->err)
		r->err = -rts_ult_context_create(&ctx_a, 64 * 1024, run_a, NULL);
	if (!r->err)
		r->err = -rts_ult_context_create(&ctx_b, 64 * 1024, run_b, NULL);
	if (r->err)
		return NULL;
	switches_left = r->switches;
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	rts_ult_context_switch(&main_ctx, &ctx_a);
	int64_t t1 = clock_ns(CLOCK_MONOTONIC);
	r->ns_per_switch = (double)(t1 - t0) / (double)r->switches;
	rts_ult_context_destroy(&ctx_a);
	rts_ult_context_destroy(&ctx_b);
	return NULL;
}

static int measure_ult_switch(const struct options *o, double *ns)
{
	struct ult_switch_run r = {.switches = o->switches};
	pthread_t t;
	int err = pinned_thread_start(&t, ult_switch_main, &r, 80, o->cpu);
	if (err)
		return err;
	pthread_join(t, NULL);
	*ns = r.ns_per_switch;
	return r.err;
}

/* ---- clock reads: the worker's CPU clock against the system calls ---- */

/* Per read: [0] the worker CPU clock (ult/worker_cpu_clock.c, its method), [1]
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID), [2] clock_gettime(CLOCK_MONOTONIC). */
#define CLOCKS 3

struct clock_run {
	long reads;
	double ns_per_read[CLOCKS];
	enum rts_worker_cpu_clock_method method;
	int64_t sink;
};

static double time_reads(struct clock_run *r, int which, struct rts_worker_cpu_clock *clock)
{
	int64_t sum = 0, t0 = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < r->reads; i++)
		sum += which == 0 ? rts_worker_cpu_clock_ns(clock)
				  : clock_ns(which == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
	int64_t t1 = clock_ns(CLOCK_MONOTONIC);
	r->sink += sum;
	return (double)(t1 - t0) / (double)r->reads;
}

static void *clock_main(void *arg)
{
	struct clock_run *r = arg;
	struct rts_worker_cpu_clock clock;
	char why[256];
	rts_worker_cpu_clock_open(&clock, why, sizeof(why)); /* a method in any case */
	r->method = clock.method;
	for (int which = 0; which < CLOCKS; which++)
		r->ns_per_read[which] = time_reads(r, which, &clock);
	rts_worker_cpu_clock_close(&clock);
	return NULL;
}

static int measure_clocks(const struct options *o, struct clock_run *r)
{
	r->reads = o->switches;
	pthread_t t;
	int err = pinned_thread_start(&t, clock_main, r, 80, o->cpu);
	if (err)
		return err;
	pthread_join(t, NULL);
	return 0;
}

/* ---- ult schedule: a due sleep through a worker's scheduler ---- */

struct schedule_run {
	long calls;
	double ns_per_call;
	int err;
};

static void schedule_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct schedule_run *r = arg;
	const struct rts_backend *backend = rts_backend();
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < r->calls; i++) {
		int err = backend->sleep_until(0); /* already due */
		if (err && !r->err)
			r->err = -err;
	}
	r->ns_per_call = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)r->calls;
}

static int measure_ult_schedule(const struct options *o, double *ns, char *why, size_t why_len)
{
	struct schedule_run r = {.calls = o->switches / 2};
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(o->cpu, &cpus);
	const struct bench_task bench = {"bench", 0, 1000000000, 0, 1, schedule_job, &r};
	int err = bench_set_run("ult:pedf", &cpus, &bench, 1, 0, why, why_len);
	*ns = r.ns_per_call;
	return err ? err : r.err;
}

/* ---- release latency: threads backend against ult:pedf ---- */

struct latency_run {
	long jobs_seen;
	double sum_ns;
	int64_t max_ns;
};

static void latency_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct latency_run *r = arg;
	int64_t latency = job->start_ns - job->release_ns;
	if (job->number > 1) { /* the first release is the synchronous one: warm-up */
		r->jobs_seen++;
		r->sum_ns += (double)latency;
		if (latency > r->max_ns)
			r->max_ns = latency;
	}
}

static int measure_release(const struct options *o, const char *backend, struct latency_run *r,
			   char *why, size_t why_len)
{
	memset(r, 0, sizeof(*r));
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(o->cpu, &cpus);
	const struct bench_task latency = {"latency", 80, o->period_us * 1000, 0, (uint32_t)o->jobs + 1,
					   latency_job, r};
	return bench_set_run(backend, &cpus, &latency, 1, 2000000, why, why_len);
}

/* ---- the command ---- */

static int usage(const char *arg)
{
	if (arg)
		fprintf(stderr, "rtsched-ult-switch: bad argument \"%s\"\n", arg);
	fprintf(stderr, "usage: rtsched-ult-switch [--switches N] [--reps N] [--cpu N]\n"
			"                          [--period-us N] [--jobs N] [--json]\n"
			"  --switches N  switches per measurement (default 200000, at least 2)\n"
			"  --reps N      measurements of each kind, the median kept (default 7, 1..%d)\n"
			"  --cpu N       the CPU (default: the last one this process may use)\n"
			"  --period-us N release latency: the task's period (default 2000, >= 200)\n"
			"  --jobs N      release latency: jobs per run and backend (default 200)\n",
		MAX_REPS);
	return 2;
}

static int parse(int argc, char **argv, struct options *o)
{
	cpu_set_t set;
	sched_getaffinity(0, sizeof(set), &set);
	*o = (struct options){.switches = 200000, .reps = 7, .cpu = -1, .period_us = 2000,
			      .jobs = 200};
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			o->cpu = cpu;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		if (strcmp(argv[i], "--json") == 0)
			o->json = true;
		else if (strcmp(argv[i], "--switches") == 0 && i + 1 < argc &&
			 opts_parse_u64(argv[i + 1], 2, 1000000000, &v) == 0)
			o->switches = v, i++;
		else if (strcmp(argv[i], "--period-us") == 0 && i + 1 < argc &&
			 opts_parse_u64(argv[i + 1], 200, 1000000, &v) == 0)
			o->period_us = v, i++;
		else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc &&
			 opts_parse_u64(argv[i + 1], 1, 1000000, &v) == 0)
			o->jobs = v, i++;
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc &&
			 opts_parse_u64(argv[i + 1], 1, MAX_REPS, &v) == 0)
			o->reps = (int)v, i++;
		else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc &&
			 opts_parse_u64(argv[i + 1], 0, CPU_SETSIZE - 1, &v) == 0 && CPU_ISSET(v, &set))
			o->cpu = (int)v, i++;
		else
			return usage(argv[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	int bad = parse(argc, argv, &o);
	if (bad)
		return bad;
	mlockall(MCL_CURRENT | MCL_FUTURE);
	double kernel[MAX_REPS], sw[MAX_REPS], sched[MAX_REPS], reads[CLOCKS][MAX_REPS];
	enum rts_worker_cpu_clock_method method = RTS_WORKER_CPU_CLOCK_THREAD_CPUTIME;
	char why[512] = "";
	for (int r = 0; r < o.reps; r++) {
		int err = measure_kernel(&o, &kernel[r]);
		if (!err)
			err = measure_ult_switch(&o, &sw[r]);
		if (!err)
			err = measure_ult_schedule(&o, &sched[r], why, sizeof(why));
		struct clock_run clocks = {0};
		if (!err)
			err = measure_clocks(&o, &clocks);
		for (int c = 0; c < CLOCKS; c++)
			reads[c][r] = clocks.ns_per_read[c];
		method = clocks.method;
		if (err) {
			fprintf(stderr, "rtsched-ult-switch: a measurement failed: %s%s%s\n",
				strerror(err), *why ? ": " : "",
				*why ? why
				     : (err == EPERM ? "SCHED_FIFO refused: run as root or with "
						       "CAP_SYS_NICE / an RLIMIT_RTPRIO of 80"
						     : ""));
			return 1;
		}
	}
	double k = median(kernel, o.reps), s = median(sw, o.reps), d = median(sched, o.reps);
	double cpu_clock = median(reads[0], o.reps), thread_cputime = median(reads[1], o.reps);
	double monotonic = median(reads[2], o.reps);
	struct latency_run threads = {0}, ult = {0};
	double threads_means[MAX_REPS], ult_means[MAX_REPS];
	for (int r = 0; r < o.reps; r++) {
		struct latency_run t, u;
		int err = measure_release(&o, "threads", &t, why, sizeof(why));
		if (!err)
			err = measure_release(&o, "ult:pedf", &u, why, sizeof(why));
		if (err || !t.jobs_seen || !u.jobs_seen) {
			fprintf(stderr, "rtsched-ult-switch: the release latency run failed: %s: %s\n",
				strerror(err ? err : EIO), *why ? why : "no job measured");
			return 1;
		}
		threads_means[r] = t.sum_ns / (double)t.jobs_seen;
		ult_means[r] = u.sum_ns / (double)u.jobs_seen;
		threads.max_ns = t.max_ns > threads.max_ns ? t.max_ns : threads.max_ns;
		ult.max_ns = u.max_ns > ult.max_ns ? u.max_ns : ult.max_ns;
	}
	double threads_mean = median(threads_means, o.reps);
	double ult_mean = median(ult_means, o.reps);
	if (o.json) {
		printf("{\"cpu\": %d, \"switches\": %ld, \"reps\": %d, \"kernel_switch_ns\": %.1f, "
		       "\"ult_switch_ns\": %.2f, \"ult_schedule_ns\": %.1f, "
		       "\"ult_switch_ratio\": %.4f, \"ult_schedule_ratio\": %.4f, "
		       "\"cpu_clock_method\": \"%s\", \"cpu_clock_read_ns\": %.2f, "
		       "\"thread_cputime_read_ns\": %.2f, \"monotonic_read_ns\": %.2f, "
		       "\"period_us\": %ld, \"jobs\": %ld, "
		       "\"threads_release_mean_ns\": %.0f, \"threads_release_max_ns\": %lld, "
		       "\"ult_release_mean_ns\": %.0f, \"ult_release_max_ns\": %lld, "
		       "\"ult_release_mean_ratio\": %.3f, \"ult_release_max_ratio\": %.3f}\n",
		       o.cpu, o.switches, o.reps, k, s, d, s / k, d / k,
		       rts_worker_cpu_clock_method_name(method), cpu_clock, thread_cputime, monotonic,
		       o.period_us, o.jobs,
		       threads_mean, (long long)threads.max_ns, ult_mean, (long long)ult.max_ns,
		       ult_mean / threads_mean, (double)ult.max_ns / (double)threads.max_ns);
		return 0;
	}
	printf("ult backend switch costs, CPU %d, %ld switches x %d runs (median)\n", o.cpu,
	       o.switches, o.reps);
	printf("  %-44s %9.1f ns  1.000x\n", "kernel: SCHED_FIFO thread to thread (futex)", k);
	printf("  %-44s %9.2f ns  %.3fx  (target <= 0.1x)\n", "ult: context switch (save/restore)",
	       s, s / k);
	printf("  %-44s %9.1f ns  %.3fx  (target <= 0.5x)\n",
	       "ult: scheduling decision + 2 switches", d, d / k);
	printf("clock reads (the decision above reads the worker's CPU clock twice)\n");
	char name[64];
	snprintf(name, sizeof(name), "worker CPU clock (%s)", rts_worker_cpu_clock_method_name(method));
	printf("  %-44s %9.2f ns  %.4fx\n", name, cpu_clock, cpu_clock / k);
	printf("  %-44s %9.2f ns  %.4fx\n", "clock_gettime(CLOCK_THREAD_CPUTIME_ID)", thread_cputime,
	       thread_cputime / k);
	printf("  %-44s %9.2f ns  %.4fx\n", "clock_gettime(CLOCK_MONOTONIC)", monotonic, monotonic / k);
	printf("release latency (job start - nominal release), period %ld us, %ld jobs x %d "
	       "alternating runs (median of means; max of all)\n",
	       o.period_us, o.jobs, o.reps);
	printf("  %-44s %9.0f ns mean %9lld ns max  1.000x\n", "threads backend (SCHED_FIFO 80)",
	       threads_mean, (long long)threads.max_ns);
	printf("  %-44s %9.0f ns mean %9lld ns max  %.3fx mean, %.3fx max  (target <= 1.2x)\n",
	       "ult:pedf (futex timeout, switch)", ult_mean, (long long)ult.max_ns,
	       ult_mean / threads_mean, (double)ult.max_ns / (double)threads.max_ns);
	return 0;
}
