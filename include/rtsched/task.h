/* SPDX-License-Identifier: MIT */
/*
 * Periodic and sporadic real-time tasks on kernel threads.
 *
 * A task set groups tasks released synchronously at a common t0 (as LITMUS^RT's
 * release_ts). Each task is a thread that runs jobs: rts_job_next() completes
 * the current job (recording completion, deadline miss and tardiness, budget
 * overrun), then sleeps with an absolute clock_nanosleep until the next
 * release and returns when the new job may start. Everything is recorded in
 * the task set's trace when it has one (<rtsched/trace.h>).
 *
 *     rts_taskset_t *set;
 *     rts_taskset_create(&set, trace);             // trace may be NULL
 *     rts_task_create(set, &params, job_fn, arg, &task);   // thread made, policy applied
 *     rts_taskset_release(set, t0_ns);             // every task's first job at t0 + offset
 *     ... run ...
 *     rts_taskset_stop(set); rts_taskset_join(set); rts_taskset_destroy(set);
 *
 * All times are CLOCK_MONOTONIC nanoseconds. Functions return 0 or a positive
 * error number; rts_taskset_error() explains the last failure in words
 * (which task, what the kernel refused, what to change).
 *
 * Signals: rts_taskset_create installs process-wide handlers for SIGXCPU
 * (budget overruns: a CPU-time timer per task, and SCHED_FLAG_DL_OVERRUN)
 * and for SIGRTMAX-1 (it interrupts a task's release sleep when the set
 * stops). Task threads keep both unblocked; leave them to rtsched.
 */
#ifndef RTSCHED_TASK_H
#define RTSCHED_TASK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/sched.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rts_trace;
/* A CPU reservation of the ult backend (<rtsched/reservation.h>). */
typedef struct rts_reservation rts_reservation_t;

enum rts_task_kind {
	RTS_TASK_PERIODIC = 0, /* job k released at t0 + offset + k * period */
	RTS_TASK_SPORADIC = 1, /* gaps of period + uniform [0, sporadic_max_extra_ns] */
	/*
	 * No jobs: a server of the set (an RPC server, <rtsched/rpc.h>) at its
	 * policy and priority on its CPUs, under the set's backend (a kernel
	 * thread, or a user-level thread its clients' ULTs can lend their
	 * priority to). Its body is called once, when rts_taskset_release() is
	 * called (before the first jobs at t0), with a job numbered 0 and no
	 * deadline (INT64_MAX), and runs until it returns: the application
	 * ends it (rts_rpc_server_shutdown, a flag it polls) before
	 * rts_taskset_join, which waits for it. Nothing is recorded for it:
	 * no jobs, no RELEASE / COMPLETE, no stats. period, deadline, offset,
	 * budget, sporadic extra and max_jobs are 0; policy fifo or other; no
	 * reservation. Under the ult backend, fixed-priority forms only (the
	 * EDF forms order every ULT by a deadline it does not have).
	 */
	RTS_TASK_SERVICE = 2,
	/*
	 * Self-paced: job k+1 is released when job k completes, but not before
	 * release_k + period_ns (period_ns: the least gap between releases, 0:
	 * none): a loop that runs as fast as it can (rt-app's loop without a
	 * timer). Job 1 at t0 + offset.
	 */
	RTS_TASK_SELF_PACED = 3,
	/*
	 * Event-triggered: each job is released by an activation
	 * (rts_task_activate), at the activation's time. period_ns: the least
	 * time between activations the task's analysis may assume (0: unknown;
	 * activations are never delayed to keep it). activation_queue says what
	 * becomes of an activation that finds the task not waiting for one:
	 * 0 (rt-app's, a condition variable's signal): it is lost; N >= 1 (a
	 * semaphore's): up to N wait, released in order, and beyond N it is lost.
	 * Lost activations are counted (rts_task_stats.activations_lost).
	 * With activated_at_start the task activates itself once: job 1 is
	 * released at t0 + offset_ns (a thread that runs before it first
	 * waits, as rt-app's loop whose wait is not its first event); the task
	 * waits for activations only after that job, so any before it is lost
	 * (activation_queue 0) or kept (N). Without it, offset_ns is 0.
	 */
	RTS_TASK_EVENT = 4,
};

/* The most activations an event-triggered task may keep waiting (activation_queue). */
#define RTS_TASK_ACTIVATION_QUEUE_MAX 4096u

struct rts_task_params {
	const char *name;
	enum rts_task_kind kind;
	int64_t period_ns;             /* > 0; sporadic: minimum inter-arrival time;
					* self-paced, event: least gap between releases, >= 0 */
	int64_t deadline_ns;           /* relative, > 0 */
	int64_t offset_ns;             /* >= 0 */
	int64_t budget_ns;             /* CPU time per job before an overrun is recorded; 0: not monitored */
	int64_t sporadic_max_extra_ns; /* sporadic only, >= 0 */
	uint64_t seed;                 /* sporadic release gaps */
	uint32_t max_jobs;             /* 0: until stopped */
	enum rts_policy policy;        /* <rtsched/sched.h> */
	int priority;                  /* RTS_POLICY_FIFO: 1..99 */
	int nice;                      /* other, batch: -20..19 (0 for the others); threads
					* backend only: a ULT has no kernel thread of its own */
	int64_t dl_runtime_ns;         /* RTS_POLICY_DEADLINE: runtime <= deadline <= period */
	const cpu_set_t *cpus;         /* affinity; NULL: leave as inherited */
	const char *cpuset;            /* a cpuset (cgroup folder) the thread joins first; NULL: none */
	int32_t trace_task_id;         /* task id written in the trace's stream table */
	rts_reservation_t *reservation; /* ult backend: the leaf it runs in; NULL: none */
	size_t stack_bytes;            /* its stack, rounded up to pages, a guard page below it
					* (both backends: the ULT's or the kernel thread's,
					* which is at least the system's least thread stack,
					* 128 KiB on AArch64);
					* 0: the backend's default (ult 256 KiB; threads glibc's) */
	uint32_t activation_queue;     /* event: activations kept while not waiting (above) */
	bool activated_at_start;       /* event: job 1 released at t0 + offset_ns by the task itself (above) */
	bool started_by_activation;    /* periodic, sporadic, self-paced: job 1 released by an activation
					* (rts_task_activate, as an event task's; offset_ns 0), the later
					* ones by the task's own releases from there (rt-app's fork) */
	/* RTS_POLICY_DEADLINE: the kernel's deadline and period of the thread's
	 * reservation when they are not the task's (rt-app's dl-deadline,
	 * dl-period): the thread then gets dl_runtime_ns every dl_period_ns
	 * whatever its jobs do. 0: deadline_ns, period_ns. Threads backend only. */
	int64_t dl_deadline_ns;
	int64_t dl_period_ns;
	/* other, batch: the slice asked of the kernel's fair scheduler
	 * (sched_attr.sched_runtime, Linux 6.12+, which clamps it to 0.1..100 ms;
	 * earlier kernels ignore it); 0: the kernel's default. Threads backend only. */
	int64_t slice_ns;
	/* A cgroup folder the thread joins after its cpuset, e.g. one of the cpu
	 * controller's (rt-app's taskgroups: CPU time shared among groups); NULL:
	 * none. Threads backend only. */
	const char *cgroup;
};

/* The stack sizes a task may ask for (rts_task_params.stack_bytes; else EINVAL). */
#define RTS_TASK_STACK_MIN_BYTES ((size_t)16 * 1024)
#define RTS_TASK_STACK_MAX_BYTES ((size_t)256 * 1024 * 1024)

/* The job a task is running, as rts_job_next() released it. */
struct rts_job {
	uint32_t number;      /* 1 for the first job */
	int64_t release_ns;   /* nominal release time */
	int64_t deadline_ns;  /* absolute deadline */
	int64_t start_ns;     /* when the thread returned from its release sleep */
};

/* Counters kept per task, readable after rts_taskset_join(). */
struct rts_task_stats {
	uint32_t jobs_completed;
	uint32_t deadline_misses;
	uint32_t budget_overruns;
	int64_t max_response_ns;
	int64_t max_tardiness_ns;
	int64_t max_release_latency_ns;
	uint32_t activations_lost; /* event-triggered: activations that released no job */
};

typedef struct rts_taskset rts_taskset_t;
typedef struct rts_task rts_task_t;

/* A job body: called once per job, between two rts_job_next() calls. */
typedef void (*rts_job_fn)(rts_task_t *task, const struct rts_job *job, void *arg);

int rts_taskset_create(rts_taskset_t **set, struct rts_trace *trace);
/*
 * The execution backend that runs the set's tasks, by name: "threads" (the
 * default: each task a kernel thread under SCHED_FIFO or SCHED_DEADLINE), or
 * "ult" and its forms "ult:gedf", "ult:pedf", "ult:cedf:C", "ult:gfp",
 * "ult:pfp", "ult:cfp:C" (tasks as user-level threads scheduled by the
 * library on pinned SCHED_FIFO workers, docs/ult.md). Before the first
 * rts_task_create: EBUSY after it; ENOENT for a name no backend has; EINVAL
 * for NULL or an ult form that is wrong or does not fit the CPUs (explained
 * by rts_taskset_error; the set then has the threads backend).
 */
int rts_taskset_set_backend(rts_taskset_t *set, const char *name);
/*
 * Make a task: validate params (EINVAL, explained), create its thread, which
 * locks memory, joins its cpuset, sets its affinity and policy, and waits for
 * the release. Returns the thread's answer: EPERM (no privilege), EBUSY
 * (SCHED_DEADLINE admission refused), EINVAL, ...; rts_taskset_error()
 * tells which task and what to change.
 */
int rts_task_create(rts_taskset_t *set, const struct rts_task_params *params, rts_job_fn job,
		    void *arg, rts_task_t **task);
/* Release every task: its first job at t0_ns + offset. EALREADY if released before. */
int rts_taskset_release(rts_taskset_t *set, int64_t t0_ns);
/* Ask every task to stop: a sleeping task wakes at once, a running job finishes first. */
int rts_taskset_stop(rts_taskset_t *set);
/* Wait for every task thread to end. */
int rts_taskset_join(rts_taskset_t *set);
/* Join if needed and free everything. */
void rts_taskset_destroy(rts_taskset_t *set);
/* Words on the last failure of a call on this set ("" if none). */
const char *rts_taskset_error(const rts_taskset_t *set);
/*
 * How the set's ult workers read the CPU time their tasks are charged
 * (docs/ult.md, "CPU time"): "perf-mmap" (the perf page, extrapolated with
 * the TSC), "perf-seq" (the perf page's switch-ins and CLOCK_MONOTONIC) or
 * "thread-cputime" (a system call per read); *why (if why is not NULL) says
 * why not "perf-mmap" ("" if it is). NULL for another backend, or before the
 * first task started the workers.
 */
const char *rts_taskset_cpu_clock(const rts_taskset_t *set, const char **why);

/*
 * Inside the task's thread: complete the current job, if any, and sleep to the
 * next release. 0: a job begins (*job filled, may be NULL); ECANCELED: the
 * task is over (stopped, max_jobs reached, or the set is being destroyed);
 * EINVAL: task is NULL or a service (it has no jobs).
 */
int rts_job_next(rts_task_t *task, struct rts_job *job);

int rts_task_stats(const rts_task_t *task, struct rts_task_stats *stats);
const char *rts_task_name(const rts_task_t *task);
/* The trace stream of the task (NULL without a trace), for events in job bodies. */
struct rts_trace_stream *rts_task_trace_stream(const rts_task_t *task);
/* The current job's number (0 before the first). */
uint32_t rts_task_job_number(const rts_task_t *task);
/*
 * The calling task's CPU time in ns: its kernel thread's CLOCK_THREAD_CPUTIME_ID
 * under the threads backend (and in any thread that is not a task); under
 * the ult backend the time the task has been switched in, which a preemption
 * by another task of the same worker does not advance.
 */
int64_t rts_task_cputime_ns(void);
/*
 * Inside a job: sleep until time_ns (absolute CLOCK_MONOTONIC) through the
 * calling task's backend: a kernel sleep under the threads backend; under the
 * ult backend only the calling task sleeps, and its worker runs the other
 * tasks of its cluster meanwhile. 0: the time has come; EINTR: woken early
 * (a signal, or the set is stopping: rts_job_next then says ECANCELED).
 */
int rts_task_sleep_until(int64_t time_ns);

/*
 * Activate an event-triggered task (RTS_TASK_EVENT), or start a task
 * started_by_activation (its first job; later activations of it are lost): release its next job
 * now, or keep the activation (activation_queue), or lose it. From a task of
 * the set (a job body, a service), or from any thread under the threads
 * backend. 0: a job was released or the activation waits; EAGAIN: lost (the
 * task was not waiting and its queue was full, or it has none); EINVAL: not
 * an event-triggered task; EPERM: under the ult backend, from outside its
 * tasks (a ULT waits where only its scheduler can wake it).
 * The job's RELEASE records who activated it (<rtsched/trace.h>).
 */
int rts_task_activate(rts_task_t *task);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_TASK_H */
