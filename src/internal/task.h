/* SPDX-License-Identifier: MIT */
/*
 * Task and task-set internals.
 *
 * Ownership: a task's job state (job, next release, stats, rng) is touched
 * only by the task's own thread while it runs, and read by others only after
 * rts_taskset_join(). The set's `released` / `stopping` words and t0 are
 * written by the controlling thread and read by task threads (atomics).
 */
#ifndef RTS_INTERNAL_TASK_H
#define RTS_INTERNAL_TASK_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <rtsched/task.h>

#include "internal/clock.h"
#include "internal/futex.h"

#define RTS_TASK_NAME_MAX 32
#define RTS_TASK_PATH_MAX 256
#define RTS_ERROR_MAX 512

enum rts_setup_state {
	RTS_SETUP_PENDING = 0,
	RTS_SETUP_DONE = 1,
	RTS_SETUP_FAILED = 2,
};

/*
 * An event-triggered task's activations (task/activation.c). `lock` (an
 * internal PI word) guards every field but `pending`'s reads: activators and
 * the task take it briefly; `pending` is also the word the task blocks on
 * while it is 0. The ring holds the pending activations' times and their
 * RELEASE causes (trace.h: the activator's trace task id in them), oldest at `head`.
 */
struct rts_activations {
	rts_futex_word lock;
	rts_futex_word pending;
	bool waiting; /* the task waits in rts_job_next for an activation */
	bool started; /* started_by_activation: its one activation was kept (any later one is lost) */
	uint32_t head;
	uint32_t capacity; /* max(activation_queue, 1) */
	int64_t *times_ns;
	uint32_t *by; /* RELEASE's arg0 */
	uint32_t lost;
};

struct rts_task {
	rts_taskset_t *set;
	struct rts_task_params params; /* name, cpus, cpuset and cgroup point into the fields below */
	char name[RTS_TASK_NAME_MAX];
	char cpuset[RTS_TASK_PATH_MAX];
	char cgroup[RTS_TASK_PATH_MAX];
	cpu_set_t cpus;
	rts_job_fn job_fn;
	void *job_arg;
	pthread_t thread;
	bool thread_started;
	bool thread_joined;
	pid_t tid;
	_Atomic uint32_t self_id; /* its identity (rts_self_tid) once it runs: activators find themselves */
	struct rts_trace_stream *stream;

	/* Start-up hand-shake with rts_task_create (under set->setup_lock). */
	enum rts_setup_state setup_state;
	int setup_error;

	/* The task thread's own. */
	struct rts_job job;
	bool in_job;
	int64_t job_cputime_start_ns;
	int64_t next_release_ns;
	uint64_t rng_state;
	timer_t budget_timer;
	bool has_budget_timer;
	struct rts_task_stats stats;
	struct rts_activations activations; /* RTS_TASK_EVENT, or started_by_activation */
};

struct rts_taskset {
	struct rts_trace *trace;
	const struct rts_backend *backend; /* NULL: the threads backend */
	void *backend_state;               /* the backend's (configure / set_destroy) */
	rts_task_t **tasks;
	size_t n_tasks;
	size_t capacity;
	/* 0 until rts_taskset_release(); then 1. Task threads sleep on it (futex). */
	rts_futex_word released;
	_Atomic int64_t t0_ns;
	_Atomic bool stopping;
	pthread_mutex_t setup_lock;
	pthread_cond_t setup_done;
	char error[RTS_ERROR_MAX];
};

/* Set the set's error text (printf-style). */
__attribute__((format(printf, 2, 3))) static inline void
rts_taskset_set_error(rts_taskset_t *set, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(set->error, sizeof(set->error), format, args);
	va_end(args);
}

/* Thread body of a task made by rts_task_create. */
void *rts_task_thread_main(void *task);
/* The task's life after its set-up: wait for the release, run its jobs, trace
 * its exit. rts_task_thread_main's end. */
void rts_task_run_jobs(rts_task_t *task);
/* The body a backend's task_start runs (internal/backend.h): rts_task_run_jobs,
 * then what a thread's exit would do (its FIFO-queue records given back).
 * Passed to the backend, never called by it by name: backends sit below the
 * task layer (src/layers.txt). */
void rts_task_body_without_thread(rts_task_t *task);

/* Event-triggered tasks (task/activation.c): the ring (0 or ENOMEM), and freeing it. */
int rts_activations_init(rts_task_t *task);
void rts_activations_destroy(rts_task_t *task);
/* Inside the task: wait for the next activation; false when the set stops first.
 * *release_ns: its time; *cause: RELEASE's arg0 (trace.h). */
bool rts_activation_wait(rts_task_t *task, int64_t *release_ns, uint32_t *cause);

/* Budget overruns: the CPU-time timer and SCHED_FLAG_DL_OVERRUN both raise SIGXCPU. */
int rts_budget_install_handler(void);
int rts_budget_timer_create(rts_task_t *task);
void rts_budget_arm(rts_task_t *task);
/* True if the job that used job_cpu_ns overran its budget; clears the flag and disarms. */
bool rts_budget_job_end(rts_task_t *task, int64_t job_cpu_ns);

#endif
