/* SPDX-License-Identifier: MIT */
/*
 * rtsched-picv-overhead: what a PI-CV call costs against the number of
 * helpers (seed 004 §6.3, Fig. 13), and against a plain PI condition variable
 * ping-pong measured in the same run (issue 5 targets: at most 1.5 us per
 * additional helper; a one-helper call at most 1.5x the ping-pong).
 *
 * One call: a high-priority caller (SCHED_FIFO 80) holding the PIP mutex
 * posts a request, signals `request` (a plain rts_cond: one helper thread
 * wakes), and waits on `reply`. The helpers (SCHED_FIFO 10, the same CPU)
 * wait on `request`; the one woken answers at once: it counts the reply and
 * signals `reply`. In the PI-CV rows every helper thread is a helper of
 * `reply` (rts_cond_helper_add), so while the caller waits all of them
 * inherit its priority, and all lose it when it is woken: that loan and its
 * withdrawal are the overhead. The ping-pong row is the same code with one
 * helper thread and no helper declared (the requeue-PI condvar path).
 *
 * Every configuration is measured in every repetition (interleaved, so a
 * slow spell of the VM falls on all of them), each time with fresh threads:
 * a warm-up, then --calls calls timed with CLOCK_MONOTONIC as one batch. A
 * figure is the median over repetitions of the batch's mean ns per call (the
 * targets are judged on these); the minimum over repetitions is shown beside
 * it, since on a shared VM interference only adds time. The slope is the
 * least-squares line through (helpers, ns/call) for 1..max (the target is
 * judged on it). Printed beside it: the slope over 2..max, the cost of
 * each helper within the donation graph, and the step from 1 to 2 helpers,
 * where a call moves from the kernel's token alone to the graph.
 * Between batches the CPU idles 5 ms (RT throttling is at 95%).
 *
 * Usage: rtsched-picv-overhead [--cpu N] [--reps N] [--calls N]
 *                              [--max-helpers N] [--json]
 * Exit status: 0 measured (a missed target is reported, not an error),
 * 1 a measurement failed, 2 bad command line.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#include "clock_ns.h"
#include "pinned_thread.h"
#include "syscall_floor.h"

#define MAX_HELPERS 64
#define CALLER_PRIO 80
#define HELPER_PRIO 10
#define WARMUP_CALLS 200
#define TARGET_SLOPE_NS 1500.0
#define TARGET_ONE_HELPER_RATIO 1.5
#define FLOOR_CALLS 5000 /* of each system call, per repetition */

struct options {
	int cpu;
	int reps;
	long calls;
	int max_helpers;
	bool json;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- one configuration: a caller and n helper threads ----------------------- */

struct rig {
	rts_mutex_t mutex; /* PIP */
	rts_cond_t request;
	rts_cond_t reply;
	uint64_t requests; /* under mutex */
	uint64_t replies;
	bool stop;
	int n_helpers;
	bool picv;
	int cpu;
	bool fifo;
	long calls;
	pthread_t helper[MAX_HELPERS];
	atomic_int helper_tid[MAX_HELPERS];
	atomic_int error; /* first error number seen by any thread */
	_Atomic(const char *) error_step; /* and where */
	double ns_per_call;
};

static int note_error(struct rig *r, const char *step, int err)
{
	int none = 0;
	if (err && atomic_compare_exchange_strong(&r->error, &none, err))
		atomic_store(&r->error_step, step);
	return err;
}

/* Helpers' start arguments: the rig and the address of their TID slot. */
struct helper_arg {
	struct rig *rig;
	atomic_int *tid_slot;
};

static void *helper_main(void *arg)
{
	struct helper_arg *a = arg;
	struct rig *r = a->rig;
	atomic_store(a->tid_slot, (int)syscall(SYS_gettid));
	int err = rts_mutex_lock(&r->mutex);
	while (!err) {
		while (r->requests == r->replies && !r->stop && !err)
			err = rts_cond_wait(&r->request, &r->mutex);
		if (err || r->stop)
			break;
		r->replies++;
		err = rts_cond_signal(&r->reply);
	}
	note_error(r, "a helper's wait or signal", err);
	if (!err)
		rts_mutex_unlock(&r->mutex);
	return NULL;
}

/* n calls; 0 or an error number. */
static int calls(struct rig *r, long n)
{
	int err = rts_mutex_lock(&r->mutex);
	for (long i = 0; i < n && !err; i++) {
		r->requests++;
		err = rts_cond_signal(&r->request);
		while (!err && r->replies < r->requests)
			err = rts_cond_wait(&r->reply, &r->mutex);
	}
	if (!err)
		err = rts_mutex_unlock(&r->mutex);
	return err;
}

static void *caller_main(void *arg)
{
	struct rig *r = arg;
	int err = calls(r, WARMUP_CALLS);
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	if (!err)
		err = calls(r, r->calls);
	int64_t end = clock_ns(CLOCK_MONOTONIC);
	note_error(r, "the caller's signal or wait", err);
	r->ns_per_call = (double)(end - start) / (double)r->calls;
	return NULL;
}

/* Measure one configuration; 0 or an error number (r->ns_per_call: the result). */
static int run_config(struct rig *r)
{
	rts_mutexattr_t ma;
	rts_mutexattr_init(&ma);
	rts_mutexattr_setprotocol(&ma, RTS_PROTO_PIP);
	rts_mutex_init(&r->mutex, &ma);
	rts_mutexattr_destroy(&ma);
	rts_cond_init(&r->request, NULL);
	rts_cond_init(&r->reply, NULL);

	struct helper_arg args[MAX_HELPERS];
	int started = 0, err = 0;
	for (; started < r->n_helpers && !err; started++) {
		args[started] = (struct helper_arg){ r, &r->helper_tid[started] };
		err = note_error(r, "starting a helper thread on the CPU",
				 pinned_thread_start(&r->helper[started], helper_main, &args[started],
						     r->fifo ? HELPER_PRIO : 0, r->cpu));
		if (err)
			break;
	}
	for (int i = 0; i < started; i++)
		while (atomic_load(&r->helper_tid[i]) == 0)
			sleep_ms(1);
	for (int i = 0; i < started && r->picv && !err; i++)
		err = note_error(r, "rts_cond_helper_add",
				 rts_cond_helper_add(&r->reply, atomic_load(&r->helper_tid[i])));
	if (!err) {
		pthread_t caller;
		err = note_error(r, "starting the caller thread on the CPU",
				 pinned_thread_start(&caller, caller_main, r, r->fifo ? CALLER_PRIO : 0, r->cpu));
		if (!err)
			pthread_join(caller, NULL);
	}

	rts_mutex_lock(&r->mutex);
	r->stop = true;
	rts_cond_broadcast(&r->request);
	rts_mutex_unlock(&r->mutex);
	for (int i = 0; i < started; i++)
		pthread_join(r->helper[i], NULL);
	rts_cond_destroy(&r->reply);
	rts_cond_destroy(&r->request);
	rts_mutex_destroy(&r->mutex);
	return atomic_load(&r->error);
}

/* ---- the run ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least-squares slope of y against x = 1..n. */
static double slope(const double *y, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		double x = i + 1;
		sx += x;
		sy += y[i];
		sxx += x * x;
		sxy += x * y[i];
	}
	double d = n * sxx - sx * sx;
	return d == 0 ? 0 : (n * sxy - sx * sy) / d;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--cpu N] [--reps N] [--calls N] [--max-helpers N] [--json]\n"
		"  --cpu N          the CPU of every benchmark thread (default: the last one)\n"
		"  --reps N         repetitions, configurations interleaved (default 11)\n"
		"  --calls N        timed calls per configuration and repetition (default 1000)\n"
		"  --max-helpers N  PI-CV rows for 1..N helpers (default 16, at most %d)\n"
		"  --json           machine-readable output instead of the table\n",
		prog, MAX_HELPERS);
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "reps", required_argument, NULL, 'r' },
		{ "calls", required_argument, NULL, 'n' },
		{ "max-helpers", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt, which = 0;
	long v;
	while ((opt = getopt_long(argc, argv, "", longs, &which)) != -1) {
		switch (opt) {
		case 'c':
			if (!parse_long(optarg, 0, CPU_SETSIZE - 1, &v))
				goto bad;
			o->cpu = (int)v;
			break;
		case 'r':
			if (!parse_long(optarg, 1, 1000, &v))
				goto bad;
			o->reps = (int)v;
			break;
		case 'n':
			if (!parse_long(optarg, 10, 10000000, &v))
				goto bad;
			o->calls = v;
			break;
		case 'm':
			if (!parse_long(optarg, 1, MAX_HELPERS, &v))
				goto bad;
			o->max_helpers = (int)v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return 2;
	}
	return 0;
bad:
	fprintf(stderr, "%s: bad value '%s' for --%s\n", argv[0], optarg, longs[which].name);
	usage(stderr, argv[0]);
	return 2;
}

static int last_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	int last = 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

/* Can this process make SCHED_FIFO threads? */
static bool fifo_allowed(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		return false;
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	return true;
}

int main(int argc, char **argv)
{
	struct options o = { .cpu = -1, .reps = 11, .calls = 1000, .max_helpers = 16 };
	int perr = parse_options(argc, argv, &o);
	if (perr)
		return perr;
	if (o.cpu < 0)
		o.cpu = last_cpu();
	bool fifo = fifo_allowed();
	mlockall(MCL_CURRENT | MCL_FUTURE);

	/* Row 0: the ping-pong; row h: PI-CV with h helpers. */
	int rows = o.max_helpers + 1;
	double *samples = calloc((size_t)rows * (size_t)o.reps, sizeof(double));
	int *row_err = calloc((size_t)rows, sizeof(int));
	const char **row_step = calloc((size_t)rows, sizeof(char *));
	double *getattr_ns = calloc((size_t)o.reps, sizeof(double));
	double *setattr_ns = calloc((size_t)o.reps, sizeof(double));
	if (!samples || !row_err || !row_step || !getattr_ns || !setattr_ns)
		return 1;
	int floor_err = 0;
	for (int rep = 0; rep < o.reps; rep++) {
		if (!o.json)
			fprintf(stderr, "\rrepetition %d/%d", rep + 1, o.reps);
		for (int row = 0; row < rows; row++) {
			if (row_err[row])
				continue;
			struct rig *r = calloc(1, sizeof(*r));
			if (!r)
				return 1;
			*r = (struct rig){ .n_helpers = row ? row : 1, .picv = row > 0, .cpu = o.cpu,
					   .fifo = fifo, .calls = o.calls };
			int err = run_config(r);
			if (err) {
				row_err[row] = err;
				row_step[row] = atomic_load(&r->error_step);
			}
			samples[row * o.reps + rep] = r->ns_per_call;
			free(r);
			sleep_ms(5);
		}
		struct syscall_floor f = { 0, 0 };
		if (!floor_err)
			floor_err = measure_syscall_floor(o.cpu, fifo, CALLER_PRIO, HELPER_PRIO,
							  FLOOR_CALLS, &f);
		getattr_ns[rep] = f.getattr_ns;
		setattr_ns[rep] = f.setattr_ns;
	}
	if (!o.json)
		fputc('\n', stderr);

	if (row_err[0] || row_err[1]) {
		int row = row_err[0] ? 0 : 1;
		fprintf(stderr, "%s: the %s row failed: %s: %s (CPU %d)\n", argv[0],
			row ? "one-helper" : "ping-pong", row_step[row], strerror(row_err[row]), o.cpu);
		return 1;
	}
	/* median() sorts a row's samples: its minimum is then the first. */
	double *ns = calloc((size_t)rows, sizeof(double));
	double *min_ns = calloc((size_t)rows, sizeof(double));
	for (int row = 0; row < rows; row++) {
		ns[row] = row_err[row] ? 0 : median(&samples[row * o.reps], o.reps);
		min_ns[row] = samples[row * o.reps];
	}
	int fit_n = 0; /* rows 1..fit_n measured without error */
	while (fit_n < o.max_helpers && !row_err[fit_n + 1])
		fit_n++;
	double slope_ns = fit_n >= 2 ? slope(&ns[1], fit_n) : 0;
	double slope_min_ns = fit_n >= 2 ? slope(&min_ns[1], fit_n) : 0;
	double graph_slope_ns = fit_n >= 3 ? slope(&ns[2], fit_n - 1) : 0; /* x shifted: same slope */
	double step_ns = fit_n >= 2 ? ns[2] - ns[1] : 0;
	struct syscall_floor floor = { median(getattr_ns, o.reps), median(setattr_ns, o.reps) };
	double floor_ns = syscall_floor_per_helper_ns(&floor);
	double one_ratio = ns[1] / ns[0];
	double one_ratio_min = min_ns[1] / min_ns[0];
	bool slope_ok = fit_n >= 2 && slope_ns <= TARGET_SLOPE_NS;
	bool ratio_ok = one_ratio <= TARGET_ONE_HELPER_RATIO;

	if (o.json) {
		printf("{\"cpu\": %d, \"policy\": \"%s\", \"caller_priority\": %d, "
		       "\"helper_priority\": %d, \"reps\": %d, \"calls\": %ld,\n",
		       o.cpu, fifo ? "fifo" : "other", CALLER_PRIO, HELPER_PRIO, o.reps, o.calls);
		printf(" \"pingpong_ns\": %.1f, \"pingpong_min_ns\": %.1f,\n \"picv\": [", ns[0],
		       min_ns[0]);
		for (int h = 1; h < rows; h++) {
			if (row_err[h])
				printf("%s\n  {\"helpers\": %d, \"error\": \"%s\"}", h > 1 ? "," : "", h,
				       strerrorname_np(row_err[h]));
			else
				printf("%s\n  {\"helpers\": %d, \"ns_per_call\": %.1f, \"ratio\": %.3f, "
				       "\"min_ns_per_call\": %.1f}",
				       h > 1 ? "," : "", h, ns[h], ns[h] / ns[0], min_ns[h]);
		}
		if (fit_n >= 2)
			printf("],\n \"slope_ns_per_helper\": %.1f, \"slope_min_ns_per_helper\": %.1f, ",
			       slope_ns, slope_min_ns);
		else
			printf("],\n \"slope_ns_per_helper\": null, \"slope_min_ns_per_helper\": null, ");
		if (fit_n >= 3)
			printf("\"graph_slope_ns_per_helper\": %.1f, \"step_1_to_2_ns\": %.1f, ",
			       graph_slope_ns, step_ns);
		printf("\"fitted_helpers\": %d,\n", fit_n);
		if (!floor_err && fifo)
			printf(" \"sched_getattr_ns\": %.1f, \"sched_setattr_ns\": %.1f, "
			       "\"syscall_floor_ns_per_helper\": %.1f,\n",
			       floor.getattr_ns, floor.setattr_ns, floor_ns);
		printf(" \"one_helper_ratio\": %.3f, \"one_helper_ratio_min\": %.3f,\n", one_ratio,
		       one_ratio_min);
		printf(" \"targets\": {\"slope_ns_max\": %.0f, \"slope_ok\": %s, "
		       "\"one_helper_ratio_max\": %.1f, \"one_helper_ratio_ok\": %s}}\n",
		       TARGET_SLOPE_NS, fit_n < 2 ? "null" : slope_ok ? "true" : "false",
		       TARGET_ONE_HELPER_RATIO,
		       ratio_ok ? "true" : "false");
	} else {
		printf("PI-CV call overhead (seed 004 Fig. 13): caller %s %d, helpers %s %d, CPU %d;\n"
		       "median over %d repetitions of the mean of %ld calls\n\n",
		       fifo ? "SCHED_FIFO" : "SCHED_OTHER (no RT privilege: loans have no effect)",
		       CALLER_PRIO, fifo ? "SCHED_FIFO" : "SCHED_OTHER", HELPER_PRIO, o.cpu, o.reps,
		       o.calls);
		printf("%-26s %8s %10s %8s %10s\n", "subject", "helpers", "ns/call", "ratio", "min ns");
		printf("%-26s %8s %10.0f %8.2f %10.0f\n", "PI condvar ping-pong", "-", ns[0], 1.0,
		       min_ns[0]);
		for (int h = 1; h < rows; h++) {
			if (row_err[h])
				printf("%-26s %8d %10s %8s %10s  (%s)\n", "PI-CV call", h, "-", "-", "-",
				       strerrorname_np(row_err[h]));
			else
				printf("%-26s %8d %10.0f %8.2f %10.0f\n", "PI-CV call", h, ns[h],
				       ns[h] / ns[0], min_ns[h]);
		}
		printf("\n");
		if (fit_n >= 2)
			printf("slope: %.0f ns per additional helper (least squares, 1..%d helpers): "
			       "target <= %.0f ns: %s\n",
			       slope_ns, fit_n, TARGET_SLOPE_NS, slope_ok ? "met" : "MISSED");
		else
			printf("slope: not measured (fewer than 2 helper counts supported)\n");
		printf("one helper: %.2fx the ping-pong: target <= %.1fx: %s\n", one_ratio,
		       TARGET_ONE_HELPER_RATIO, ratio_ok ? "met" : "MISSED");
		if (fit_n >= 3)
			printf("within the donation graph (2..%d helpers): %.0f ns per helper; "
			       "step from 1 to 2 helpers: %.0f ns\n",
			       fit_n, graph_slope_ns, step_ns);
		if (fit_n >= 2)
			printf("from the minima (for information): slope %.0f ns, one helper %.2fx\n",
			       slope_min_ns, one_ratio_min);
		if (floor_err)
			printf("system-call floor: not measured (%s)\n", strerror(floor_err));
		else if (fifo)
			printf("system-call floor per additional helper, this run: 2 sched_getattr "
			       "(%.0f ns) + 2 sched_setattr (%.0f ns) = %.0f ns\n",
			       floor.getattr_ns, floor.setattr_ns, floor_ns);
	}
	free(getattr_ns);
	free(setattr_ns);
	free(ns);
	free(min_ns);
	free(samples);
	free(row_err);
	free(row_step);
	return 0;
}
