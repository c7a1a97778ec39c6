/* SPDX-License-Identifier: MIT */
/*
 * The periodic task workload. Every task is a SCHED_FIFO thread pinned to its
 * CPU; the tasks share one lock (the subject's). Each job:
 *
 *   sleep until the release (clock_nanosleep, absolute)
 *   job start: the protocol's hook, if it has one        <- measured
 *   work (exec - cs)
 *   lock                                                 <- measured
 *   work (cs)                  (the critical section)
 *   unlock                                               <- measured
 *
 * Work writes one byte per cache line through a per-task 256 KiB buffer, so
 * that, like the seed's cache-polluting background load, the tasks evict
 * each other's (and the lock code's) cache lines.
 *
 * One sample is the cost of one operation to the calling thread, with the
 * time it waited for another task removed:
 *  - if the thread was not switched out during the call: the TSC time from
 *    the request (or, for a lock, from the holder's unlock request if that
 *    came later) to the return, rdtscp+lfence each side as in the loops. The
 *    later start removes a waiter's spinning: on two CPUs the kernel's PI
 *    futexes (rt_mutex) spin on an owner that is running instead of
 *    sleeping, and that spin is waiting for the holder, not the lock's cost;
 *  - if it was switched out (it blocked, or was preempted): the time the
 *    thread itself was on the CPU from the request to the return: perf's
 *    per-thread time_running (oncpu.h), read before and after, minus the
 *    cost of the reads. That removes the blocking time, i.e. everything from
 *    the thread's switch-out to its switch-in after being woken (the other
 *    tasks' execution, including the holder's critical section, and the
 *    switches' other halves), as seed 001 removes it. A waiter that spun
 *    and then slept keeps its spin in the figure.
 * A lock sample is contended if the lock was held by another task when it
 * was requested (the workload's own holder word, read just before), or
 * another task released it during the call (the release time the holder
 * publishes), or the caller was switched out during the call (it blocked,
 * e.g. on a PCP ceiling, or was preempted); an unlock sample if another task
 * was between its lock request and its return (the workload's waiter count)
 * or the caller was switched out (the woken waiter preempted it); a
 * job-start sample if the caller was switched out (held back by a ceiling).
 *
 * The holder word also checks mutual exclusion: a task that acquires the
 * lock while the word names another task ends the run with an error.
 */
#include "workload.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oncpu.h"
#include "threads.h"
#include "tsc.h"
#include "clock_ns.h"

#define WARMUP_MS        20  /* released before measure_from_ns: not measured */
#define START_MARGIN_MS  30  /* time to start every thread before the first release */
#define WORK_BUFFER      (256 * 1024)
#define LINE             64

/* ---- the task set ---- */

static uint64_t next_random(uint64_t *state)
{
	/* xorshift64* */
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t uniform(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return lo + next_random(state) % (hi - lo + 1);
}

void lb_wl_taskset_make(enum lb_wl_class cls, const int cpus[2], int base_priority,
			uint64_t seed, struct lb_wl_taskset *ts)
{
	memset(ts, 0, sizeof(*ts));
	uint64_t state = (seed + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)cls;
	if (state == 0)
		state = 1;
	ts->cls = cls;
	ts->ntasks = cls == LB_WL_UNIPROCESSOR ? LB_UNI_TASKS : LB_MULTI_TASKS;
	for (int i = 0; i < ts->ntasks; i++) {
		struct lb_wl_task *t = &ts->task[i];
		t->cs_ns = uniform(&state, LB_WL_CS_MIN_US, LB_WL_CS_MAX_US) * 1000;
		t->exec_ns = t->cs_ns + uniform(&state, 0, LB_WL_EXTRA_MAX_US * 1000);
		t->period_ns = uniform(&state, LB_WL_PERIOD_MIN_US, LB_WL_PERIOD_MAX_US) * 1000 *
			       LB_WL_PERIOD_SCALE;
		t->phase_ns = uniform(&state, 0, t->period_ns - 1);
		t->cpu = cls == LB_WL_UNIPROCESSOR ? cpus[0] : cpus[i % 2];
	}
	/* Rate monotonic: the shorter the period, the higher the priority. */
	for (int i = 0; i < ts->ntasks; i++) {
		int shorter = 0;
		for (int j = 0; j < ts->ntasks; j++)
			if (ts->task[j].period_ns < ts->task[i].period_ns ||
			    (ts->task[j].period_ns == ts->task[i].period_ns && j < i))
				shorter++;
		ts->task[i].priority = base_priority + ts->ntasks - 1 - shorter;
	}
	ts->params.local_ceiling = base_priority + ts->ntasks - 1;
	ts->params.global_ceiling = base_priority + ts->ntasks;
	ts->params.partition = cpus[0];
}

size_t lb_wl_max_jobs(unsigned duration_ms)
{
	uint64_t min_period_us = LB_WL_PERIOD_MIN_US * LB_WL_PERIOD_SCALE;
	return LB_WL_MAX_TASKS * ((size_t)((uint64_t)duration_ms * 1000 / min_period_us) + 2);
}

/* ---- accumulated samples ---- */

int lb_wl_acc_alloc(struct lb_wl_acc *acc, size_t cap)
{
	memset(acc, 0, sizeof(*acc));
	acc->cap = cap;
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++)
			if (!(acc->cycles[op][con] = lb_samples_alloc(cap)))
				return ENOMEM;
	return (acc->job_cycles = lb_samples_alloc(cap)) ? 0 : ENOMEM;
}

void lb_wl_acc_free(struct lb_wl_acc *acc)
{
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++)
			free(acc->cycles[op][con]);
	free(acc->job_cycles);
	memset(acc, 0, sizeof(*acc));
}

void lb_wl_acc_summarise(struct lb_wl_acc *acc, struct lb_wl_result *out)
{
	memset(out, 0, sizeof(*out));
	out->measured = true;
	out->jobs = acc->jobs;
	out->overruns = acc->overruns;
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++) {
			out->dist[op][con] = lb_dist_of(acc->cycles[op][con], acc->n[op][con]);
			out->counted_ops[op][con] = acc->counted_ops[op][con];
			out->syscalls[op][con] = acc->syscalls[op][con];
		}
	out->syscalls_counted = acc->syscalls_counted;
	out->per_job = lb_dist_of(acc->job_cycles, acc->n_jobs);
}

/* ---- one run ---- */

struct wl_run {
	const struct lb_wl_env *env;
	const struct lb_mutex_ops *ops;
	union lb_lock lock;
	_Alignas(64) _Atomic int holder; /* 1 + the index of the task that holds the lock, or 0 */
	_Alignas(64) _Atomic int waiters; /* tasks between a lock request and its return */
	_Alignas(64) _Atomic uint64_t release_tsc; /* TSC of the last unlock request */
	uint64_t start_ns, measure_from_ns, end_ns; /* CLOCK_MONOTONIC */
	bool count_syscalls;
};

struct wl_thread {
	struct wl_run *run;
	int index;
	struct lb_wl_task task;
	size_t cap; /* per (op, contended) */
	uint64_t *cycles[LB_NR_WL_OPS][2];
	size_t n[LB_NR_WL_OPS][2];
	uint64_t *job_cycles; /* per job: the sum of its operations' samples */
	uint64_t counted_ops[LB_NR_WL_OPS][2];
	int64_t syscalls[LB_NR_WL_OPS][2];
	uint64_t jobs, overruns;
	uint8_t *buffer;
	size_t pos;
	struct lb_oncpu oncpu;
	struct lb_syscount sc;
	int64_t sc_read_cost; /* system calls counted between two reads: the read's own */
	int err;
	char msg[200];
};

static void sleep_until(uint64_t ns)
{
	struct timespec ts = ns_timespec((int64_t)ns);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void work_for(struct wl_thread *t, uint64_t ns)
{
	uint64_t until = lb_tsc() + (uint64_t)((double)ns * t->run->env->tsc_hz / 1e9);
	size_t pos = t->pos;
	do {
		for (int k = 0; k < 16; k++) {
			t->buffer[pos]++;
			pos = (pos + LINE) % WORK_BUFFER;
		}
	} while (lb_tsc() < until);
	t->pos = pos;
}

static int call(struct wl_run *r, enum lb_wl_op op)
{
	switch (op) {
	case LB_WL_LOCK:
		return r->ops->lock(&r->lock);
	case LB_WL_UNLOCK:
		return r->ops->unlock(&r->lock);
	default:
		return r->ops->job_start();
	}
}

/*
 * One operation, measured (see the top of the file); recorded if `record`.
 * found_busy: the workload's own bookkeeping saw another task in the way.
 */
static int measured(struct wl_thread *t, enum lb_wl_op op, bool found_busy, bool record,
		    uint64_t *job_cycles)
{
	struct wl_run *r = t->run;
	struct lb_oncpu_stamp a, b;
	int ret;
	if (r->count_syscalls) {
		lb_oncpu_read(&t->oncpu, &a);
		uint64_t s0 = lb_syscount_read(&t->sc);
		ret = call(r, op);
		uint64_t s1 = lb_syscount_read(&t->sc);
		lb_oncpu_read(&t->oncpu, &b);
		int con = found_busy || b.switches != a.switches;
		if (record) {
			t->counted_ops[op][con]++;
			t->syscalls[op][con] += (int64_t)(s1 - s0) - t->sc_read_cost;
		}
		return ret;
	}
	lb_oncpu_read(&t->oncpu, &a);
	lb_drain_stores();
	uint64_t t0 = lb_tsc();
	if (op == LB_WL_UNLOCK) /* ordered before the release by the unlock's atomic operation */
		atomic_store_explicit(&r->release_tsc, t0, memory_order_relaxed);
	ret = call(r, op);
	uint64_t t1 = lb_tsc();
	lb_oncpu_read(&t->oncpu, &b);
	bool switched = b.switches != a.switches;
	uint64_t from = t0;
	if (op == LB_WL_LOCK) {
		/* The release that let us in is the last one: we hold the lock now. */
		uint64_t released = atomic_load_explicit(&r->release_tsc, memory_order_relaxed);
		if (released > t0 && released < t1) {
			found_busy = true;
			from = released;
		}
	}
	uint64_t cycles = t1 - from;
	if (switched) {
		uint64_t ran_ns = b.running_ns - a.running_ns;
		ran_ns = ran_ns > t->oncpu.read_cost_ns ? ran_ns - t->oncpu.read_cost_ns : 0;
		cycles = (uint64_t)((double)ran_ns * r->env->tsc_hz / 1e9);
	}
	int con = found_busy || switched;
	if (record && t->n[op][con] < t->cap)
		t->cycles[op][con][t->n[op][con]++] = cycles;
	*job_cycles += cycles;
	return ret;
}

static void thread_error(struct wl_thread *t, int err, const char *what)
{
	if (t->err)
		return;
	t->err = err;
	snprintf(t->msg, sizeof(t->msg), "%s", what);
}

/* The counters of the calling thread; false (and t->err) if one cannot open. */
static bool open_counters(struct wl_thread *t)
{
	char why[200];
	if (lb_oncpu_open(&t->oncpu, why, sizeof(why)) != 0) {
		thread_error(t, ENOTSUP, why);
		return false;
	}
	if (!t->run->count_syscalls)
		return true;
	if (lb_syscount_open(&t->sc, t->run->env->probe, why, sizeof(why)) != 0) {
		thread_error(t, ENOTSUP, why);
		return false;
	}
	lb_syscount_start(&t->sc);
	int64_t least = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t s0 = lb_syscount_read(&t->sc);
		uint64_t s1 = lb_syscount_read(&t->sc);
		if ((int64_t)(s1 - s0) < least)
			least = (int64_t)(s1 - s0);
	}
	t->sc_read_cost = least;
	return true;
}

static void *task_main(void *arg)
{
	struct wl_thread *t = arg;
	struct wl_run *r = t->run;
	t->sc.fd = -1;
	t->oncpu.fd = -1;
	if (open_counters(t)) {
		uint64_t next = r->start_ns + t->task.phase_ns;
		while (next + t->task.exec_ns < r->end_ns) {
			sleep_until(next);
			bool record = next >= r->measure_from_ns;
			uint64_t job_cycles = 0;
			int ret = 0;
			if (r->ops->job_start &&
			    (ret = measured(t, LB_WL_JOB_START, false, record, &job_cycles))) {
				thread_error(t, ret, "job start failed");
				break;
			}
			work_for(t, t->task.exec_ns - t->task.cs_ns);
			atomic_fetch_add_explicit(&r->waiters, 1, memory_order_relaxed);
			bool held = atomic_load_explicit(&r->holder, memory_order_relaxed) != 0;
			ret = measured(t, LB_WL_LOCK, held, record, &job_cycles);
			atomic_fetch_sub_explicit(&r->waiters, 1, memory_order_relaxed);
			if (ret) {
				thread_error(t, ret, "lock failed");
				break;
			}
			if (atomic_exchange_explicit(&r->holder, t->index + 1, memory_order_relaxed) != 0) {
				thread_error(t, EDEADLK, "mutual exclusion violated: acquired a lock "
					     "another task held");
				break;
			}
			work_for(t, t->task.cs_ns);
			atomic_store_explicit(&r->holder, 0, memory_order_relaxed);
			bool waiting = atomic_load_explicit(&r->waiters, memory_order_relaxed) > 0;
			if ((ret = measured(t, LB_WL_UNLOCK, waiting, record, &job_cycles))) {
				thread_error(t, ret, "unlock failed");
				break;
			}
			if (record && t->jobs < t->cap && !r->count_syscalls)
				t->job_cycles[t->jobs] = job_cycles;
			if (record)
				t->jobs++;
			next += t->task.period_ns;
			uint64_t now = (uint64_t)clock_ns(CLOCK_MONOTONIC);
			while (next < now) { /* a late job: its missed releases are skipped */
				next += t->task.period_ns;
				if (record)
					t->overruns++;
			}
		}
	}
	lb_syscount_close(&t->sc);
	lb_oncpu_close(&t->oncpu);
	return NULL;
}

static void thread_free(struct wl_thread *t)
{
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++)
			free(t->cycles[op][con]);
	free(t->job_cycles);
	free(t->buffer);
}

static int thread_alloc(struct wl_thread *t, unsigned duration_ms)
{
	t->cap = (size_t)((uint64_t)duration_ms * 1000000u / t->task.period_ns) + 2;
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++)
			if (!(t->cycles[op][con] = lb_samples_alloc(t->cap)))
				return ENOMEM;
	t->job_cycles = lb_samples_alloc(t->cap);
	t->buffer = calloc(1, WORK_BUFFER);
	return t->buffer && t->job_cycles ? 0 : ENOMEM;
}

static void merge(const struct wl_thread *t, struct lb_wl_acc *acc)
{
	for (int op = 0; op < LB_NR_WL_OPS; op++)
		for (int con = 0; con < 2; con++) {
			for (size_t i = 0; i < t->n[op][con] && acc->n[op][con] < acc->cap; i++)
				acc->cycles[op][con][acc->n[op][con]++] = t->cycles[op][con][i];
			acc->counted_ops[op][con] += t->counted_ops[op][con];
			acc->syscalls[op][con] += t->syscalls[op][con];
		}
	if (t->run->count_syscalls)
		return;
	for (size_t i = 0; i < t->jobs && i < t->cap && acc->n_jobs < acc->cap; i++)
		acc->job_cycles[acc->n_jobs++] = t->job_cycles[i];
	acc->jobs += t->jobs;
	acc->overruns += t->overruns;
}

int lb_wl_run(const struct lb_wl_env *env, enum lb_subject s, const struct lb_wl_taskset *ts,
	      unsigned duration_ms, bool count_syscalls, struct lb_wl_acc *acc, char *skipped,
	      size_t skipped_size, char *err, size_t err_size)
{
	struct wl_run *r = aligned_alloc(64, (sizeof(*r) + 63) / 64 * 64);
	struct wl_thread *t = calloc((size_t)ts->ntasks, sizeof(*t));
	struct lb_thread *threads[LB_WL_MAX_TASKS] = { 0 };
	int ret = LB_EXIT_OK, tret;
	if (!r || !t) {
		free(r);
		free(t);
		return lb_fail(err, err_size, "out of memory");
	}
	memset(r, 0, sizeof(*r));
	r->env = env;
	r->ops = lb_mutex_ops(s);
	r->count_syscalls = count_syscalls;
	for (int i = 0; i < ts->ntasks; i++) {
		t[i].run = r;
		t[i].index = i;
		t[i].task = ts->task[i];
		if (thread_alloc(&t[i], duration_ms) != 0) {
			ret = lb_fail(err, err_size, "out of memory for the workload's samples");
			goto out;
		}
	}
	if ((tret = r->ops->init(&r->lock, &ts->params)) != 0) {
		snprintf(skipped, skipped_size, "init failed: %s", strerror(tret));
		goto out;
	}
	r->start_ns = (uint64_t)clock_ns(CLOCK_MONOTONIC) + START_MARGIN_MS * 1000000u;
	r->measure_from_ns = r->start_ns + WARMUP_MS * 1000000u;
	r->end_ns = r->measure_from_ns + (uint64_t)duration_ms * 1000000u;
	int started = 0;
	for (; started < ts->ntasks; started++) {
		tret = lb_thread_start(&threads[started], task_main, &t[started], env->policy,
				       t[started].task.priority, t[started].task.cpu);
		if (tret) {
			ret = lb_fail(err, err_size, "cannot start a task on CPU %d: %s",
				   t[started].task.cpu, strerror(tret));
			break;
		}
	}
	/* A thread that starts after the end returns at once. */
	for (int i = 0; i < started; i++)
		if (lb_thread_join_within(threads[i]) != 0)
			return lb_fail(err, err_size, "workload %s: the tasks did not finish within %d s",
				    lb_subject_label(s), LB_PHASE_TIMEOUT_S); /* they still use r */
	if (ret != LB_EXIT_OK)
		goto out_destroy;
	for (int i = 0; i < ts->ntasks; i++) {
		if (t[i].err) {
			ret = lb_fail(err, err_size, "workload %s: task %d: %s (%s)", lb_subject_label(s),
				   i, t[i].msg, strerror(t[i].err));
			goto out_destroy;
		}
	}
	for (int i = 0; i < ts->ntasks; i++)
		merge(&t[i], acc);
	if (count_syscalls)
		acc->syscalls_counted = true;
out_destroy:
	r->ops->destroy(&r->lock);
out:
	for (int i = 0; i < ts->ntasks; i++)
		thread_free(&t[i]);
	free(t);
	free(r);
	return ret;
}
