/* SPDX-License-Identifier: MIT */
/*
 * A task's thread: start-up (cpuset, affinity and policy through the backend,
 * then the budget timer), the wait for the synchronous release, and the job
 * loop around rts_job_next(), whose release sleeps go through the backend too
 * (a service, RTS_TASK_SERVICE, runs its body once instead).
 *
 * Releases stay on their grid: job k of a periodic task is released at
 * t0 + offset + (k-1) * period even when job k-1 completes late, in which
 * case job k starts at once (its release sleep returns immediately). A
 * self-paced task's next release is its last completion (or its least gap
 * after the last release, if later); an event-triggered task's is an
 * activation's time (task/activation.c).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/task.h>
#include <rtsched/trace.h>

#include "internal/export.h"
#include "internal/backend.h"
#include "internal/ceiling_mutex.h"
#include "internal/fifo_scope.h"
#include "internal/no_switch.h"
#include "internal/trace.h"
#include "internal/task.h"
#include "internal/tid.h"
#include "internal/wake_signal.h"

static void trace(rts_task_t *task, int64_t time_ns, uint16_t type, uint32_t arg0, int64_t arg1)
{
	if (task->stream)
		rts_trace_event_at(task->stream, time_ns, type, task->job.number, arg0, arg1);
}

/* xorshift64*: sporadic release gaps, reproducible from the seed. */
static uint64_t next_random(rts_task_t *task)
{
	uint64_t x = task->rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	task->rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static int64_t next_release(rts_task_t *task)
{
	const struct rts_task_params *p = &task->params;
	if (task->job.number == 0)
		return atomic_load(&task->set->t0_ns) + p->offset_ns;
	if (p->kind == RTS_TASK_SELF_PACED) {
		int64_t completed = rts_monotonic_now_ns(); /* complete_job has just run */
		int64_t least = task->job.release_ns + p->period_ns;
		return completed > least ? completed : least;
	}
	int64_t gap = p->period_ns;
	if (p->kind == RTS_TASK_SPORADIC && p->sporadic_max_extra_ns > 0)
		gap += (int64_t)(next_random(task) % (uint64_t)(p->sporadic_max_extra_ns + 1));
	return task->job.release_ns + gap;
}

/* The calling task's CPU time: its backend's count, or its kernel thread's. */
RTS_EXPORT int64_t rts_task_cputime_ns(void)
{
	const struct rts_backend *backend = rts_backend();
	return backend->cputime_ns ? backend->cputime_ns() : rts_thread_cputime_ns();
}

RTS_EXPORT int rts_task_sleep_until(int64_t time_ns)
{
	return -rts_backend()->sleep_until(time_ns);
}

static void complete_job(rts_task_t *task)
{
	/* The completion time, COMPLETE and the end of in_job at once (internal/no_switch.h). */
	rts_no_switch_enter();
	int64_t now = rts_monotonic_now_ns();
	int64_t cpu_ns = rts_task_cputime_ns() - task->job_cputime_start_ns;
	trace(task, now, RTS_EV_COMPLETE, 0, cpu_ns);
	task->in_job = false;
	rts_no_switch_exit();
	struct rts_task_stats *stats = &task->stats;
	int64_t response = now - task->job.release_ns;
	stats->jobs_completed++;
	if (response > stats->max_response_ns)
		stats->max_response_ns = response;
	if (now > task->job.deadline_ns) {
		int64_t tardiness = now - task->job.deadline_ns;
		trace(task, now, RTS_EV_DEADLINE_MISS, 0, tardiness);
		stats->deadline_misses++;
		if (tardiness > stats->max_tardiness_ns)
			stats->max_tardiness_ns = tardiness;
	}
	if (rts_budget_job_end(task, cpu_ns)) {
		trace(task, now, RTS_EV_BUDGET_OVERRUN, 0, task->params.budget_ns);
		stats->budget_overruns++;
	}
	if (rts_backend()->job_completed)
		rts_backend()->job_completed();
}

static bool stopping(const rts_task_t *task)
{
	return atomic_load_explicit(&task->set->stopping, memory_order_relaxed);
}

/* Sleep until release_ns; false if the set stopped meanwhile. */
static bool sleep_until(const rts_task_t *task, int64_t release_ns)
{
	for (;;) {
		if (stopping(task))
			return false;
		int err = rts_backend()->sleep_until(release_ns);
		if (err == 0)
			return !stopping(task);
		if (err != -EINTR)
			return false;
	}
}

RTS_EXPORT int rts_job_next(rts_task_t *task, struct rts_job *job)
{
	if (!task || task->params.kind == RTS_TASK_SERVICE)
		return EINVAL; /* a service has no jobs */
	if (task->in_job)
		complete_job(task);
	uint32_t max_jobs = task->params.max_jobs;
	if (stopping(task) || (max_jobs && task->job.number >= max_jobs))
		return ECANCELED;
	int64_t release;
	uint32_t cause = RTS_RELEASE_TIMER;
	bool first = task->job.number == 0;
	bool activated = task->params.kind == RTS_TASK_EVENT ? !(task->params.activated_at_start && first)
							     : task->params.started_by_activation && first;
	if (activated) {
		if (!rts_activation_wait(task, &release, &cause))
			return ECANCELED;
	} else {
		release = next_release(task);
		if (task->params.kind == RTS_TASK_SELF_PACED && task->job.number > 0)
			cause = RTS_RELEASE_COMPLETION;
		if (!sleep_until(task, release))
			return ECANCELED;
	}
	rts_trace_set_current_job(task->job.number + 1);
	if (rts_backend()->job_released)
		rts_backend()->job_released();
	rts_ceiling_job_start(); /* SRP, IPCP, MPCP, FMLP+: may wait for a holder on this CPU */
	/* The start time, START and in_job at once (internal/no_switch.h): a
	 * user-level scheduler traces a PREEMPT only inside a job, after START. */
	rts_no_switch_enter();
	int64_t start = rts_monotonic_now_ns();
	task->job_cputime_start_ns = rts_task_cputime_ns();
	task->job.number++;
	task->job.release_ns = release;
	task->job.deadline_ns = release + task->params.deadline_ns;
	task->job.start_ns = start;
	trace(task, release, RTS_EV_RELEASE, cause, task->job.deadline_ns);
	trace(task, start, RTS_EV_START, 0, 0);
	task->in_job = true;
	rts_no_switch_exit();
	if (start - release > task->stats.max_release_latency_ns)
		task->stats.max_release_latency_ns = start - release;
	rts_budget_arm(task);
	if (job)
		*job = task->job;
	return 0;
}

static int set_up_thread(rts_task_t *task, char *why, size_t why_len)
{
	int err = rts_backend()->task_admit(&task->params, why, why_len);
	/* A backend that measures a task's CPU time at every switch (cputime_ns)
	 * settles a budget exactly at completion: no kernel timer (budget.c). */
	if (!err && task->params.budget_ns > 0 && !rts_backend()->cputime_ns &&
	    (err = rts_budget_timer_create(task)) != 0)
		snprintf(why, why_len, "task %s: cannot create its CPU-time budget timer: %s",
			 task->name, strerror(err));
	return err;
}

static void report_setup(rts_task_t *task, int err, const char *why)
{
	rts_taskset_t *set = task->set;
	pthread_mutex_lock(&set->setup_lock);
	if (err)
		rts_taskset_set_error(set, "%s", why);
	task->setup_error = err;
	task->setup_state = err ? RTS_SETUP_FAILED : RTS_SETUP_DONE;
	pthread_cond_broadcast(&set->setup_done);
	pthread_mutex_unlock(&set->setup_lock);
}

/* Through the task's backend, as every wait of a task: the threads backend
 * sleeps on the futex rts_taskset_release wakes; a ULT runs only once its
 * worker has seen the release (ult/worker.c), so it never sleeps here. */
static void wait_for_release(rts_taskset_t *set)
{
	while (atomic_load_explicit(&set->released, memory_order_acquire) == 0)
		rts_backend()->block(&set->released, 0, NULL, CLOCK_MONOTONIC, false);
}

static void unblock_task_signals(void)
{
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, RTS_WAKE_SIGNAL);
	sigaddset(&signals, SIGXCPU);
	pthread_sigmask(SIG_UNBLOCK, &signals, NULL);
}

void *rts_task_thread_main(void *arg)
{
	rts_task_t *task = arg;
	char why[RTS_ERROR_MAX] = "";
	task->tid = gettid();
	rts_backend_of_thread = task->set->backend; /* before anything asks it */
	unblock_task_signals();
	int err = set_up_thread(task, why, sizeof(why));
	if (!err && task->stream)
		rts_trace_stream_bind(task->stream);
	report_setup(task, err, why);
	if (err)
		return NULL;

	rts_task_run_jobs(task);
	return NULL;
}

/* A service (RTS_TASK_SERVICE): its body once, from the release call on; nothing recorded. */
static void run_service(rts_task_t *task)
{
	if (stopping(task))
		return; /* stopped before its release: no body */
	task->job.release_ns = rts_monotonic_now_ns();
	task->job.deadline_ns = INT64_MAX;
	task->job.start_ns = task->job.release_ns;
	struct rts_job job = task->job;
	task->job_fn(task, &job, task->job_arg);
}

void rts_task_run_jobs(rts_task_t *task)
{
	atomic_store_explicit(&task->self_id, rts_self_tid(), memory_order_relaxed);
	wait_for_release(task->set);
	if (task->params.kind == RTS_TASK_SERVICE) {
		run_service(task);
		return;
	}
	struct rts_job job;
	while (rts_job_next(task, &job) == 0)
		task->job_fn(task, &job, task->job_arg);
	trace(task, rts_monotonic_now_ns(), RTS_EV_TASK_EXIT, 0, task->stats.jobs_completed);
}

void rts_task_body_without_thread(rts_task_t *task)
{
	rts_task_run_jobs(task);
	rts_fifo_records_give_back(); /* no thread exit will */
}
