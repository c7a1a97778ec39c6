/* SPDX-License-Identifier: MIT */
/*
 * rtsched-ult-proxy: what a blocking call costs when a ULT hands it to its
 * proxy thread (<rtsched/blocking.h>, docs/ult.md "Blocking system calls";
 * bench/README.md, "ult backend: blocking calls"), beside what the same call
 * costs made in place, and beside the hand-off any proxy scheme pays, all
 * measured in the same run on one CPU:
 *
 *  - direct: a 1-byte write(2) to /dev/null in a SCHED_FIFO kernel thread
 *    (what rts_blocking_write is under the threads backend);
 *  - kernel hand-off: the same write made by a second SCHED_FIFO kernel
 *    thread (one level higher, the proxy's place) that the first posts to
 *    and waits for through two futex words: the floor of any proxy;
 *  - ULT proxy: rts_blocking_write of 1 byte to /dev/null from a ULT
 *    (ult:pfp), through its proxy thread and back through the wait table.
 *
 * Each figure is the median over --reps repetitions of a batch's mean (ns
 * per call), the minimum beside it; the three configurations run in every
 * repetition, interleaved. Exit status 0 measured, 1 a measurement failed
 * (explained), 2 bad command line.
 *
 * Usage: rtsched-ult-proxy [--cpu N] [--reps N] [--calls N] [--json]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/blocking.h>
#include <rtsched/task.h>

#include "bench_set.h"
#include "clock_ns.h"
#include "pinned_thread.h"

#define MAX_REPS 64
#define WARMUP 200
#define CALLER_PRIO 50 /* the workers' level */
#define HELPER_PRIO 51 /* the proxies' level */

struct options {
	int cpu;
	int reps;
	long calls;
	bool json;
};

struct figure {
	double v[MAX_REPS];
	int n;
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(const struct figure *f)
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

/* A batch of `calls` 1-byte writes to fd (after a warm-up): ns per call, or -1 if one failed. */
static double time_writes(int fd, long calls, ssize_t (*write_fn)(int, const void *, size_t))
{
	const char byte = 1;
	int64_t t0 = 0;
	for (long i = 0; i < WARMUP + calls; i++) {
		if (i == WARMUP)
			t0 = clock_ns(CLOCK_MONOTONIC);
		if (write_fn(fd, &byte, 1) != 1)
			return -1;
	}
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)calls;
}

/* ---- direct: in a kernel thread ----------------------------------------------- */

struct direct_run {
	int fd;
	long calls;
	double ns;
};

static void *direct_thread(void *arg)
{
	struct direct_run *r = arg;
	r->ns = time_writes(r->fd, r->calls, write);
	return NULL;
}

/* ---- kernel hand-off: a helper kernel thread makes the call --------------------- */

struct handoff {
	int fd;
	_Atomic uint32_t posted, done; /* futex words */
	atomic_bool stop;
	ssize_t result;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t seen)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *handoff_helper(void *arg)
{
	struct handoff *h = arg;
	uint32_t handled = 0;
	for (;;) {
		uint32_t seen = atomic_load(&h->posted);
		if (seen == handled) {
			futex_wait(&h->posted, seen);
			continue;
		}
		handled = seen;
		if (atomic_load(&h->stop))
			return NULL;
		const char byte = 1;
		h->result = write(h->fd, &byte, 1);
		atomic_fetch_add(&h->done, 1);
		futex_wake(&h->done);
	}
}

static struct handoff *the_handoff;

static ssize_t handoff_write(int fd, const void *buf, size_t count)
{
	(void)fd, (void)buf, (void)count;
	struct handoff *h = the_handoff;
	uint32_t before = atomic_load(&h->done);
	atomic_fetch_add(&h->posted, 1);
	futex_wake(&h->posted);
	while (atomic_load(&h->done) == before)
		futex_wait(&h->done, before);
	return h->result;
}

struct handoff_run {
	struct handoff *h;
	long calls;
	double ns;
};

static void *handoff_caller(void *arg)
{
	struct handoff_run *r = arg;
	the_handoff = r->h;
	r->ns = time_writes(r->h->fd, r->calls, handoff_write);
	return NULL;
}

/* ---- ULT proxy --------------------------------------------------------------- */

struct ult_run {
	int fd;
	long calls;
	double ns;
};

static void ult_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct ult_run *r = arg;
	r->ns = time_writes(r->fd, r->calls, rts_blocking_write);
}

static int run_ult(const struct options *o, struct ult_run *r, char *why, size_t why_len)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(o->cpu, &cpus);
	const struct bench_task caller = {"caller", 10, 10LL * 1000000000, 0, 1, ult_job, r};
	return bench_set_run("ult:pfp", &cpus, &caller, 1, 5000000, why, why_len);
}

/* ---- the measurement ------------------------------------------------------------ */

struct results {
	struct figure direct, handoff, ult;
};

static int one_rep(const struct options *o, int fd, struct results *res, int rep, char *why,
		   size_t why_len)
{
	struct direct_run d = {.fd = fd, .calls = o->calls};
	pthread_t t;
	int err = pinned_thread_start(&t, direct_thread, &d, CALLER_PRIO, o->cpu);
	if (err) {
		snprintf(why, why_len, "a SCHED_FIFO thread on CPU %d: %s", o->cpu, strerror(err));
		return err;
	}
	pthread_join(t, NULL);

	struct handoff h = {.fd = fd};
	struct handoff_run hr = {.h = &h, .calls = o->calls};
	pthread_t helper, caller;
	if ((err = pinned_thread_start(&helper, handoff_helper, &h, HELPER_PRIO, o->cpu)) != 0) {
		snprintf(why, why_len, "the hand-off helper on CPU %d: %s", o->cpu, strerror(err));
		return err;
	}
	if ((err = pinned_thread_start(&caller, handoff_caller, &hr, CALLER_PRIO, o->cpu)) == 0)
		pthread_join(caller, NULL);
	atomic_store(&h.stop, true);
	atomic_fetch_add(&h.posted, 1);
	futex_wake(&h.posted);
	pthread_join(helper, NULL);
	if (err) {
		snprintf(why, why_len, "the hand-off caller on CPU %d: %s", o->cpu, strerror(err));
		return err;
	}

	struct ult_run u = {.fd = fd, .calls = o->calls};
	if ((err = run_ult(o, &u, why, why_len)) != 0)
		return err;
	if (d.ns < 0 || hr.ns < 0 || u.ns < 0) {
		snprintf(why, why_len, "a write to /dev/null failed");
		return EIO;
	}
	res->direct.v[rep] = d.ns;
	res->handoff.v[rep] = hr.ns;
	res->ult.v[rep] = u.ns;
	res->direct.n = res->handoff.n = res->ult.n = rep + 1;
	return 0;
}

static void print_table(const struct options *o, const struct results *r)
{
	double direct = median_of(&r->direct), handoff = median_of(&r->handoff);
	double ult = median_of(&r->ult);
	printf("rtsched-ult-proxy: CPU %d, %d repetitions, %ld calls (median / min, ns per call)\n\n",
	       o->cpu, o->reps, o->calls);
	printf("%-34s %18s %10s %12s\n", "1-byte write to /dev/null", "ns", "/direct", "/hand-off");
	printf("%-34s %9.0f / %6.0f %9.2fx %11.2fx\n", "direct (kernel thread)", direct,
	       min_of(&r->direct), 1.0, direct / handoff);
	printf("%-34s %9.0f / %6.0f %9.2fx %11.2fx\n", "kernel hand-off (two threads)", handoff,
	       min_of(&r->handoff), handoff / direct, 1.0);
	printf("%-34s %9.0f / %6.0f %9.2fx %11.2fx\n", "ULT proxy (rts_blocking_write)", ult,
	       min_of(&r->ult), ult / direct, ult / handoff);
}

static void print_json(const struct options *o, const struct results *r)
{
	printf("{\"format\": \"rtsched-ult-proxy/1\", \"cpu\": %d, \"reps\": %d, \"calls\": %ld, "
	       "\"direct_ns\": %.1f, \"handoff_ns\": %.1f, \"ult_proxy_ns\": %.1f, "
	       "\"direct_min_ns\": %.1f, \"handoff_min_ns\": %.1f, \"ult_proxy_min_ns\": %.1f}\n",
	       o->cpu, o->reps, o->calls, median_of(&r->direct), median_of(&r->handoff),
	       median_of(&r->ult), min_of(&r->direct), min_of(&r->handoff), min_of(&r->ult));
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"cpu", required_argument, NULL, 'c'},   {"reps", required_argument, NULL, 'r'},
		{"calls", required_argument, NULL, 'n'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	cpu_set_t allowed;
	sched_getaffinity(0, sizeof(allowed), &allowed);
	int last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			last = c;
	*o = (struct options){.cpu = last, .reps = 7, .calls = 20000};
	int opt;
	while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		char *end = NULL;
		long v = optarg ? strtol(optarg, &end, 10) : 0;
		bool bad = optarg && (*end || v < 0);
		switch (opt) {
		case 'c': o->cpu = (int)v; bad |= v >= CPU_SETSIZE || !CPU_ISSET(o->cpu, &allowed); break;
		case 'r': o->reps = (int)v; bad |= v < 1 || v > MAX_REPS; break;
		case 'n': o->calls = v; bad |= v < 1; break;
		case 'j': o->json = true; break;
		case 'h':
			printf("usage: rtsched-ult-proxy [--cpu N] [--reps 1..%d] [--calls N] [--json]\n",
			       MAX_REPS);
			exit(0);
		default: return 2;
		}
		if (bad) {
			fprintf(stderr, "rtsched-ult-proxy: bad value \"%s\" for --%s\n", optarg,
				longs[opt == 'c' ? 0 : opt == 'r' ? 1 : 2].name);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtsched-ult-proxy: unexpected argument \"%s\"\n", argv[optind]);
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
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rtsched-ult-proxy: cannot open /dev/null: %s\n", strerror(errno));
		return 1;
	}
	static struct results r;
	char why[512] = "";
	for (int rep = 0; rep < o.reps; rep++) {
		int err = one_rep(&o, fd, &r, rep, why, sizeof(why));
		if (err) {
			fprintf(stderr, "rtsched-ult-proxy: %s\n", why[0] ? why : strerror(err));
			close(fd);
			return 1;
		}
	}
	close(fd);
	if (o.json)
		print_json(&o, &r);
	else
		print_table(&o, &r);
	return 0;
}
