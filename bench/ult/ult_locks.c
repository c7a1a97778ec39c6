/* SPDX-License-Identifier: MIT */
/*
 * rtsched-ult-locks: what locks cost under the ult backend, where the
 * library is the scheduler and a priority change is no system call
 * (bench/README.md, "ult backend: locks"; issue 14 targets):
 *
 *  - lock + unlock, uncontended, of a deferred ceiling mutex (IPCP, SRP,
 *    PCP) and a PIP mutex, in a ULT (ult:pfp), against glibc's
 *    PTHREAD_PRIO_NONE mutex measured in the same ULT; and the same pairs in
 *    a SCHED_FIFO kernel thread (the threads backend) beside them. Target:
 *    a deferred ceiling lock+unlock at most 1.5x glibc PRIO_NONE.
 *  - a PI-CV call against the number of helpers, as rtsched-picv-overhead
 *    does with threads, here with ULTs on one CPU: a caller (priority 80)
 *    holding a PIP mutex posts a request, signals `request` (one helper
 *    wakes) and waits on `reply`, of which all N helpers (priority 10) are
 *    PI-CV helpers: while it waits they inherit its priority (one through
 *    its token, the others through set_attr) and lose it when it is woken.
 *    The ping-pong row is one helper ULT and no helper declared. Target:
 *    at most 0.4 us per additional helper (the least-squares slope over
 *    1..N).
 *
 * Each figure is the median over --reps repetitions of a batch's mean (ns
 * per pair or per call), the minimum beside it; every configuration runs in
 * every repetition, interleaved, each in a fresh task set. Exit status 0
 * measured (a missed target is reported, not an error), 1 a measurement
 * failed (explained), 2 bad command line.
 *
 * Usage: rtsched-ult-locks [--cpu N] [--reps N] [--pairs N] [--calls N]
 *                          [--max-helpers N] [--json]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>
#include <rtsched/task.h>

#include "internal/backend.h"
#include "bench_set.h"
#include "clock_ns.h"
#include "pinned_thread.h"

#define MAX_REPS 64
#define MAX_HELPERS 16
#define CALLER_PRIO 80
#define HELPER_PRIO 10
#define WARMUP 200
#define TARGET_CEILING_RATIO 1.5
#define TARGET_SLOPE_NS 400.0

struct options {
	int cpu;
	int reps;
	long pairs;
	long calls;
	int max_helpers;
	bool json;
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct figure {
	double v[MAX_REPS];
	int n;
};

static double median_of(struct figure *f)
{
	double copy[MAX_REPS];
	memcpy(copy, f->v, sizeof(double) * (size_t)f->n);
	qsort(copy, (size_t)f->n, sizeof(double), by_value);
	return copy[f->n / 2];
}

static double min_of(const struct figure *f)
{
	double m = f->v[0];
	for (int i = 1; i < f->n; i++)
		m = f->v[i] < m ? f->v[i] : m;
	return m;
}

/* ---- lock + unlock pairs ---------------------------------------------------- */

enum subject { GLIBC_NONE, RTS_IPCP, RTS_SRP, RTS_PCP, RTS_PIP, N_SUBJECTS };
static const char *const subject_names[N_SUBJECTS] = {"glibc-none", "rts-ipcp-deferred",
						      "rts-srp-deferred", "rts-pcp", "rts-pip"};

struct pairs_run {
	const struct options *o;
	double ns[N_SUBJECTS];
	int err;
};

static int make_rts(rts_mutex_t *m, int protocol, int cpu)
{
	rts_mutexattr_t attr;
	int err = rts_mutexattr_init(&attr);
	if (!err)
		err = rts_mutexattr_setprotocol(&attr, protocol);
	if (!err && protocol != RTS_PROTO_PIP)
		err = rts_mutexattr_setceiling(&attr, 90);
	if (!err && protocol != RTS_PROTO_PIP)
		err = rts_mutexattr_setpartition(&attr, cpu);
	if (!err)
		err = rts_mutex_init(m, &attr);
	rts_mutexattr_destroy(&attr);
	return err;
}

static double time_pairs(enum subject s, pthread_mutex_t *g, rts_mutex_t *m, long pairs, int *err)
{
	for (long i = 0; i < WARMUP; i++) {
		if (s == GLIBC_NONE) {
			pthread_mutex_lock(g);
			pthread_mutex_unlock(g);
		} else if ((*err = rts_mutex_lock(m)) != 0 || (*err = rts_mutex_unlock(m)) != 0) {
			return 0;
		}
	}
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	if (s == GLIBC_NONE) {
		for (long i = 0; i < pairs; i++) {
			pthread_mutex_lock(g);
			pthread_mutex_unlock(g);
		}
	} else {
		for (long i = 0; i < pairs; i++) {
			rts_mutex_lock(m);
			rts_mutex_unlock(m);
		}
	}
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)pairs;
}

/* Every subject once, in the calling task (a ULT, or a kernel thread). */
static void measure_pairs(struct pairs_run *r)
{
	static const int protocols[N_SUBJECTS] = {0, RTS_PROTO_IPCP, RTS_PROTO_SRP, RTS_PROTO_PCP,
						  RTS_PROTO_PIP};
	pthread_mutex_t g = PTHREAD_MUTEX_INITIALIZER;
	int cpu = rts_current_cpu();
	for (int s = 0; s < N_SUBJECTS && !r->err; s++) {
		rts_mutex_t m;
		if (s != GLIBC_NONE && (r->err = make_rts(&m, protocols[s], cpu)) != 0)
			return;
		r->ns[s] = time_pairs((enum subject)s, &g, &m, r->o->pairs, &r->err);
		if (s != GLIBC_NONE)
			rts_mutex_destroy(&m);
	}
}

static void pairs_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	measure_pairs(arg);
}

static void *pairs_thread(void *arg)
{
	measure_pairs(arg);
	return NULL;
}

/* ---- one ult task set: the given tasks, one job each, on the CPU ------------ */

#define ONE_JOB_PERIOD_NS (10LL * 1000000000)

static int run_ult(const struct options *o, const struct bench_task *tasks, int n, char *why,
		   size_t why_len)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(o->cpu, &cpus);
	return bench_set_run("ult:pfp", &cpus, tasks, n, 5000000, why, why_len);
}

/* ---- PI-CV calls ------------------------------------------------------------ */

struct calls_run {
	long calls;
	int helpers;      /* helper ULTs */
	bool declared;    /* helpers of `reply` (PI-CV); false: the ping-pong */
	rts_mutex_t m;
	rts_cond_t request, reply;
	int requested, replies, stop; /* under m */
	atomic_int ready;             /* helpers that have declared themselves and wait */
	double ns_per_call;
	atomic_int err;
};

static void helper_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct calls_run *c = arg;
	int err = c->declared ? rts_cond_helper_add(&c->reply, (pid_t)rts_backend()->self_id()) : 0;
	rts_mutex_lock(&c->m);
	atomic_fetch_add(&c->ready, 1);
	while (!c->stop && !err) {
		while (!c->requested && !c->stop)
			rts_cond_wait(&c->request, &c->m);
		if (c->stop)
			break;
		c->requested = 0;
		c->replies++;
		rts_cond_signal(&c->reply);
	}
	rts_mutex_unlock(&c->m);
	if (err)
		atomic_store(&c->err, err);
}

static void caller_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct calls_run *c = arg;
	if (atomic_load(&c->ready) != c->helpers) { /* they start 2 ms before it */
		atomic_store(&c->err, EAGAIN);
		return;
	}
	rts_mutex_lock(&c->m);
	int64_t t0 = 0;
	for (long i = 0; i < WARMUP + c->calls; i++) {
		if (i == WARMUP)
			t0 = clock_ns(CLOCK_MONOTONIC);
		int seen = c->replies;
		c->requested = 1;
		rts_cond_signal(&c->request);
		while (c->replies == seen)
			rts_cond_wait(&c->reply, &c->m);
	}
	c->ns_per_call = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)c->calls;
	c->stop = 1;
	rts_cond_broadcast(&c->request);
	rts_mutex_unlock(&c->m);
}

static int measure_calls(const struct options *o, int helpers, bool declared, double *ns,
			 char *why, size_t why_len)
{
	static struct calls_run c;
	memset(&c, 0, sizeof(c));
	c.calls = o->calls;
	c.helpers = helpers;
	c.declared = declared;
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP);
	rts_mutex_init(&c.m, &attr);
	rts_mutexattr_destroy(&attr);
	rts_cond_init(&c.request, NULL);
	rts_cond_init(&c.reply, NULL);
	struct bench_task tasks[MAX_HELPERS + 1];
	for (int i = 0; i < helpers; i++)
		tasks[i] = (struct bench_task){"helper", HELPER_PRIO, ONE_JOB_PERIOD_NS, 0, 1, helper_job, &c};
	tasks[helpers] = (struct bench_task){"caller", CALLER_PRIO, ONE_JOB_PERIOD_NS, 2000000, 1,
					     caller_job, &c};
	int err = run_ult(o, tasks, helpers + 1, why, why_len);
	if (!err && (err = atomic_load(&c.err)) != 0)
		snprintf(why, why_len, "a PI-CV call with %d helpers: %s", helpers, strerror(err));
	rts_cond_destroy(&c.request);
	rts_cond_destroy(&c.reply);
	rts_mutex_destroy(&c.m);
	*ns = c.ns_per_call;
	return err;
}

/* ---- the whole measurement and its views ------------------------------------ */

struct results {
	struct figure ult_pairs[N_SUBJECTS], thread_pairs[N_SUBJECTS];
	struct figure pingpong, helpers[MAX_HELPERS + 1];
};

static int measure(const struct options *o, struct results *r, char *why, size_t why_len)
{
	for (int rep = 0; rep < o->reps; rep++) {
		struct pairs_run ult = {.o = o}, thread = {.o = o};
		struct bench_task one = {"pairs", 10, ONE_JOB_PERIOD_NS, 0, 1, pairs_job, &ult};
		int err = run_ult(o, &one, 1, why, why_len);
		if (!err && ult.err)
			snprintf(why, why_len, "lock pairs in a ULT: %s", strerror(err = ult.err));
		pthread_t t;
		if (!err && (err = pinned_thread_start(&t, pairs_thread, &thread, 10, o->cpu)) != 0)
			snprintf(why, why_len, "a SCHED_FIFO thread on CPU %d: %s", o->cpu, strerror(err));
		if (!err) {
			pthread_join(t, NULL);
			if (thread.err)
				snprintf(why, why_len, "lock pairs in a thread: %s", strerror(err = thread.err));
		}
		for (int s = 0; s < N_SUBJECTS && !err; s++) {
			r->ult_pairs[s].v[rep] = ult.ns[s];
			r->thread_pairs[s].v[rep] = thread.ns[s];
			r->ult_pairs[s].n = r->thread_pairs[s].n = rep + 1;
		}
		if (!err)
			err = measure_calls(o, 1, false, &r->pingpong.v[rep], why, why_len);
		r->pingpong.n = rep + 1;
		for (int h = 1; h <= o->max_helpers && !err; h *= 2) {
			err = measure_calls(o, h, true, &r->helpers[h].v[rep], why, why_len);
			r->helpers[h].n = rep + 1;
		}
		if (err)
			return err;
	}
	return 0;
}

/* Least-squares slope of median ns/call over helper counts from..max (powers of two). */
static double slope(struct results *r, int from, int max)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 0;
	for (int h = from; h <= max; h *= 2) {
		double y = median_of(&r->helpers[h]);
		sx += h, sy += y, sxx += (double)h * h, sxy += h * y;
		n++;
	}
	return n > 1 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0;
}

static void print_table(const struct options *o, struct results *r)
{
	printf("rtsched-ult-locks: CPU %d, %d repetitions, %ld pairs, %ld calls (median / min)\n\n",
	       o->cpu, o->reps, o->pairs, o->calls);
	printf("%-20s %18s %18s %10s %10s\n", "lock+unlock (ns)", "ULT (ult:pfp)", "thread (FIFO)",
	       "ULT/glibc", "thr/glibc");
	double g_ult = median_of(&r->ult_pairs[GLIBC_NONE]);
	double g_thr = median_of(&r->thread_pairs[GLIBC_NONE]);
	for (int s = 0; s < N_SUBJECTS; s++) {
		double u = median_of(&r->ult_pairs[s]), t = median_of(&r->thread_pairs[s]);
		printf("%-20s %9.1f / %6.1f %9.1f / %6.1f %9.2fx %9.2fx\n", subject_names[s], u,
		       min_of(&r->ult_pairs[s]), t, min_of(&r->thread_pairs[s]), u / g_ult, t / g_thr);
	}
	double worst = 0;
	for (int s = RTS_IPCP; s <= RTS_PCP; s++)
		worst = median_of(&r->ult_pairs[s]) / g_ult > worst ? median_of(&r->ult_pairs[s]) / g_ult : worst;
	printf("target: a deferred ceiling pair at most %.1fx glibc PRIO_NONE under ult: %s (worst %.2fx)\n\n",
	       TARGET_CEILING_RATIO, worst <= TARGET_CEILING_RATIO ? "met" : "missed", worst);
	printf("%-20s %18s\n", "PI-CV call (us)", "ULT (ult:pfp)");
	printf("%-20s %9.2f / %6.2f\n", "ping-pong", median_of(&r->pingpong) / 1e3,
	       min_of(&r->pingpong) / 1e3);
	for (int h = 1; h <= o->max_helpers; h *= 2) {
		char label[32];
		snprintf(label, sizeof(label), "%d helper%s", h, h > 1 ? "s" : "");
		printf("%-20s %9.2f / %6.2f\n", label, median_of(&r->helpers[h]) / 1e3,
		       min_of(&r->helpers[h]) / 1e3);
	}
	double s1 = slope(r, 1, o->max_helpers), s2 = slope(r, 2, o->max_helpers);
	printf("per additional helper: %.3f us (slope 1..%d), %.3f us (2..%d)\n", s1 / 1e3,
	       o->max_helpers, s2 / 1e3, o->max_helpers);
	printf("target: at most %.1f us per additional helper: %s\n", TARGET_SLOPE_NS / 1e3,
	       s1 <= TARGET_SLOPE_NS ? "met" : "missed");
}

static void print_json(const struct options *o, struct results *r)
{
	printf("{\"format\": \"rtsched-ult-locks/1\", \"cpu\": %d, \"reps\": %d, \"pairs\": {", o->cpu,
	       o->reps);
	for (int s = 0; s < N_SUBJECTS; s++)
		printf("%s\"%s\": {\"ult_ns\": %.1f, \"ult_min_ns\": %.1f, \"thread_ns\": %.1f, "
		       "\"thread_min_ns\": %.1f}", s ? ", " : "", subject_names[s],
		       median_of(&r->ult_pairs[s]), min_of(&r->ult_pairs[s]),
		       median_of(&r->thread_pairs[s]), min_of(&r->thread_pairs[s]));
	printf("}, \"picv\": {\"pingpong_ns\": %.1f", median_of(&r->pingpong));
	for (int h = 1; h <= o->max_helpers; h *= 2)
		printf(", \"helpers_%d_ns\": %.1f", h, median_of(&r->helpers[h]));
	printf(", \"slope_ns\": %.1f}}\n", slope(r, 1, o->max_helpers));
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"cpu", required_argument, NULL, 'c'},   {"reps", required_argument, NULL, 'r'},
		{"pairs", required_argument, NULL, 'p'}, {"calls", required_argument, NULL, 'n'},
		{"max-helpers", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	cpu_set_t allowed;
	sched_getaffinity(0, sizeof(allowed), &allowed);
	o->cpu = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			o->cpu = c; /* the last one */
	*o = (struct options){.cpu = o->cpu, .reps = 7, .pairs = 200000, .calls = 2000, .max_helpers = 8};
	int opt;
	while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		char *end = NULL;
		long v = optarg ? strtol(optarg, &end, 10) : 0;
		bool bad = optarg && (*end || v < 0);
		switch (opt) {
		case 'c': o->cpu = (int)v; bad |= !CPU_ISSET(o->cpu, &allowed); break;
		case 'r': o->reps = (int)v; bad |= v < 1 || v > MAX_REPS; break;
		case 'p': o->pairs = v; bad |= v < 1; break;
		case 'n': o->calls = v; bad |= v < 1; break;
		case 'm': o->max_helpers = (int)v; bad |= v < 1 || v > MAX_HELPERS; break;
		case 'j': o->json = true; break;
		case 'h':
			printf("usage: rtsched-ult-locks [--cpu N] [--reps 1..%d] [--pairs N] [--calls N] "
			       "[--max-helpers 1..%d] [--json]\n", MAX_REPS, MAX_HELPERS);
			exit(0);
		default: return 2;
		}
		if (bad) {
			fprintf(stderr, "rtsched-ult-locks: bad value \"%s\" for --%s\n", optarg,
				longs[opt == 'c' ? 0 : opt == 'r' ? 1 : opt == 'p' ? 2 : opt == 'n' ? 3 : 4].name);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtsched-ult-locks: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	int bad = parse(argc, argv, &o);
	if (bad)
		return bad;
	static struct results r;
	char why[512] = "";
	int err = measure(&o, &r, why, sizeof(why));
	if (err) {
		fprintf(stderr, "rtsched-ult-locks: %s\n", why[0] ? why : strerror(err));
		return 1;
	}
	if (o.json)
		print_json(&o, &r);
	else
		print_table(&o, &r);
	return 0;
}
