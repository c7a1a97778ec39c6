/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's scheduler state (docs/ult.md): tasks run as user-level
 * threads (ULTs) on worker kernel threads, one per CPU, pinned and
 * SCHED_FIFO; the library decides which ULT each worker runs.
 *
 * Layout. A runtime (one per task set) has clusters of `cluster_cpus` CPUs;
 * a cluster has its workers, one ready queue and one release queue, and one
 * lock. A ULT belongs to one cluster for its life (C-EDF / C-FP; a cluster
 * of every CPU is G-EDF / G-FP, clusters of one CPU are P-EDF / P-FP).
 *
 * Priority: a ULT's `key`, smaller first, ties by smaller id. EDF: the
 * absolute deadline of its current job; FP: 100 - priority. The invariant
 * the scheduler keeps (apart from the moments a decision is in flight): in
 * each cluster the running ULTs are the n_workers smallest keys among the
 * running and ready ones.
 *
 * Locking order. cluster->lock is a leaf: nothing else is taken while it
 * is held, it is never held across a context switch, and never taken in a
 * signal handler. The scheduler takes it once per decision; another thread
 * takes it to interrupt a ULT (rts_ult_interrupt). The release timer is
 * armed under it, so that two workers never arm it out of order.
 *
 * Signals. RTS_ULT_SIGNAL (SA_NODEFER, unblocked in workers) is how a
 * worker is told to look again: the cluster's release timer sends it to the
 * cluster's first worker, and a worker that finds a ready ULT which must
 * preempt another worker's ULT sends it with tgkill. The handler touches
 * only the worker's atomics: in the scheduler (in_scheduler set) it marks
 * resched_pending and bumps wake_word; in a ULT it switches that ULT out to
 * the scheduler (the interrupted registers stay in the signal frame on the
 * ULT's stack, and the handler returns when the ULT is resumed, maybe on
 * another worker). So nothing runs with signals blocked, and no decision is
 * lost: the scheduler clears resched_pending before it reads the queues,
 * and an idle worker sleeps on wake_word with the value it read before.
 *
 * Who writes what. Under cluster->lock: a ULT's state, queue link, key,
 * wake_ns, sleep_result, interrupt_pending; a worker's current,
 * current_key, kicked. The ULT itself, just before switching to its
 * worker's scheduler: request, wake_ns_requested, saved errno and trace
 * state (read by that scheduler after the switch, on the same thread).
 */
#ifndef RTS_INTERNAL_ULT_H
#define RTS_INTERNAL_ULT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rtsched/reservation.h>
#include <rtsched/task.h>

#include "internal/futex.h"
#include "internal/trace.h"
#include "internal/ult_context.h"

/* The signal that makes a worker reschedule (internal/wake_signal.h has SIGRTMAX - 1). */
#define RTS_ULT_SIGNAL (SIGRTMAX - 2)
/* SCHED_FIFO priority of every worker. */
#define RTS_ULT_WORKER_PRIORITY 50
/* A ULT's stack: room for its job body and one signal frame. */
#define RTS_ULT_STACK_BYTES (256u * 1024u)
/* ULT identities: this bit set (kernel TIDs stay below 2^22), then index + 1. */
#define RTS_ULT_ID_BIT (1u << 29)
#define RTS_ULT_MAX_CPUS 256

enum rts_ult_policy {
	RTS_ULT_EDF = 0,
	RTS_ULT_FP = 1,
};

/* What a backend name says: "ult[:POLICY[:CPUS]]" (docs/ult.md). */
struct rts_ult_spec {
	enum rts_ult_policy policy;
	int cluster_cpus; /* CPUs per cluster; 0: one cluster of every CPU */
};

enum rts_ult_state {
	RTS_ULT_READY = 0,    /* in its cluster's ready queue */
	RTS_ULT_RUNNING = 1,  /* some worker's current */
	RTS_ULT_SLEEPING = 2, /* in its cluster's release queue */
	RTS_ULT_DONE = 3,     /* its task ended; never runs again */
};

/* Why a ULT switched to its worker's scheduler. */
enum rts_ult_request {
	RTS_ULT_PREEMPTED = 0, /* still ready */
	RTS_ULT_SLEEP = 1,     /* until wake_ns_requested */
	RTS_ULT_EXIT = 2,
};

struct rts_ult_cluster;
struct rts_ult_runtime;
struct rts_reservation_control_state; /* internal/reservation_control.h */

/*
 * A reservation (<rtsched/reservation.h>, docs/reservations.md): a node of
 * its cluster's tree. Made before the release by the controlling thread;
 * its fields up to `n_tasks` are read-only after the release.
 *
 * Invariants, under cluster->lock: 0 <= remaining_ns <= budget_ns; a
 * reservation with remaining_ns 0 has nothing inside it run until
 * period_end_ns; cluster->active and all its ancestors are charged for the
 * time since cluster->active_since_ns (running a child or idling), so the
 * budget a reservation consumes in a period never exceeds budget_ns by more
 * than the lateness of the timer that ends it.
 */
struct rts_reservation {
	char name[32];
	struct rts_ult_cluster *cluster;
	struct rts_reservation *parent; /* NULL: the top level of its cluster */
	int64_t period_ns;
	int64_t budget_ns;
	enum rts_reservation_order order;
	enum rts_reservation_kind kind;
	int priority;
	uint32_t index;   /* in its cluster's array: ties go to the one made first */
	int n_children;
	int n_tasks;
	struct rts_trace_stream *stream; /* its REPLENISH / DEPLETE events; NULL: not traced */

	/* Under cluster->lock (the stream's one producer: its cluster's decisions). */
	int64_t remaining_ns;
	int64_t period_end_ns; /* the next replenishment (its EDF deadline); 0: not begun. CBS: its deadline */
	bool backlogged;       /* CBS: a task inside was ready at the last decision */
	struct rts_reservation_stats stats;
	struct rts_reservation_control_state *control; /* NULL: a fixed budget (ult/reservation_control.c) */
};

struct rts_ult {
	struct rts_ult_context context;
	struct rts_ult_cluster *cluster;
	rts_task_t *task;
	void (*body)(rts_task_t *task); /* what it runs; it ends when body returns */
	uint32_t id;
	struct rts_reservation *reservation; /* the leaf it runs in; NULL: none */

	/* Under cluster->lock. */
	enum rts_ult_state state;
	struct rts_ult *next; /* ready or release queue */
	int64_t key;
	int64_t wake_ns;
	int sleep_result;     /* what the sleep returns: 0, or -EINTR */
	bool interrupt_pending;

	/* The ULT's own, read by its scheduler after the switch. */
	enum rts_ult_request request;
	int64_t wake_ns_requested;
	int saved_errno;
	struct rts_trace_thread_state trace;

	/* Its workers' (one at a time, ordered by cluster->lock). */
	int last_cpu;          /* -1 before it first ran */
	bool preempted;        /* PREEMPT traced, RESUME not yet */
	int64_t switched_in_ns;
	int64_t run_ns;        /* time switched in, its CPU time (docs/ult.md) */

	rts_futex_word done;   /* 0, then 1 when it ended; joiners sleep on it */
};

struct rts_ult_worker {
	struct rts_ult_cluster *cluster;
	int cpu;
	pthread_t thread;
	bool thread_started;
	_Atomic pid_t tid;
	struct rts_ult_context sched_context; /* the worker's own stack: its scheduler */

	/* Under cluster->lock. */
	struct rts_ult *current;
	int64_t current_key;
	bool kicked; /* told to look again (signal or futex); not yet looked */

	/* This worker and its signal handler; others only bump wake_word. */
	atomic_int in_scheduler;
	atomic_int resched_pending;
	rts_futex_word wake_word;
	/* Start-up: 0 pending, 1 running, -errno failed (futex). */
	rts_futex_word started;
	int start_error;
};

struct rts_ult_cluster {
	struct rts_ult_runtime *runtime;
	int index;
	pthread_mutex_t lock;
	struct rts_ult *ready;    /* by key, then id */
	struct rts_ult *releases; /* by wake_ns */
	timer_t release_timer;
	bool has_timer;
	int64_t timer_armed_ns;   /* 0: disarmed */
	struct rts_ult_worker *workers;
	int n_workers;
	/* Its reservations, in the order made (one-CPU clusters only). */
	struct rts_reservation **reservations;
	size_t n_reservations;
	size_t reservations_capacity;
	/* Under the lock: the reservation charged since active_since_ns (NULL: none). */
	struct rts_reservation *active;
	int64_t active_since_ns;
	struct rts_reservation_overhead overhead; /* under the lock */
};

struct rts_ult_runtime {
	struct rts_ult_spec spec;
	const struct rts_backend *backend;
	rts_futex_word *released; /* the task set's: workers schedule once it is 1 */
	_Atomic int64_t *t0_ns;   /* the task set's release time: reservations' periods start there */
	int n_cpus;
	int cpus[RTS_ULT_MAX_CPUS]; /* the CPUs, in cluster order */
	struct rts_ult_cluster *clusters;
	int n_clusters;
	bool workers_started;
	atomic_bool shutting_down;
	/* Made before the release by the controlling thread, read-only after. */
	struct rts_ult **ults;
	size_t n_ults;
	size_t ults_capacity;
};

/* ---- spec and runtime (ult/runtime.c) ---- */

/* Parse a backend name "ult", "ult:gedf", "ult:pedf", "ult:cedf:C", "ult:gfp",
 * "ult:pfp", "ult:cfp:C". 0 or EINVAL with a reason. */
int rts_ult_spec_parse(const char *name, struct rts_ult_spec *spec, char *why, size_t why_len);
int rts_ult_runtime_create(struct rts_ult_runtime **out, const struct rts_ult_spec *spec,
			   const struct rts_backend *backend, rts_futex_word *released,
			   _Atomic int64_t *t0_ns, char *why, size_t why_len);
/* The index of the cluster that holds cpu, -1 if none. */
static inline int rts_ult_runtime_cluster_of_cpu(const struct rts_ult_runtime *rt, int cpu);
/* Start the workers (once); EPERM etc. with a reason. */
int rts_ult_runtime_start(struct rts_ult_runtime *rt, char *why, size_t why_len);
/* Whether task can be a ULT here (its policy, its cluster); 0 or EINVAL with why. */
int rts_ult_runtime_check(const struct rts_ult_runtime *rt, const rts_task_t *task, char *why,
			  size_t why_len);
/* A ULT for task, in the cluster that holds its CPUs, ready to run body(task). */
int rts_ult_runtime_add(struct rts_ult_runtime *rt, rts_task_t *task,
			void (*body)(rts_task_t *task), struct rts_ult **out, char *why,
			size_t why_len);
struct rts_ult *rts_ult_runtime_find_task(const struct rts_ult_runtime *rt, const rts_task_t *task);
struct rts_ult *rts_ult_runtime_find_id(const struct rts_ult_runtime *rt, uint32_t id);
/* Stop and join the workers, free everything. Every ULT must have ended. */
void rts_ult_runtime_destroy(struct rts_ult_runtime *rt);

/* ---- queues (ult/queue.c), all under cluster->lock ---- */

void rts_ult_ready_insert(struct rts_ult_cluster *c, struct rts_ult *u);
struct rts_ult *rts_ult_ready_pop(struct rts_ult_cluster *c);
void rts_ult_release_insert(struct rts_ult_cluster *c, struct rts_ult *u);
bool rts_ult_release_remove(struct rts_ult_cluster *c, struct rts_ult *u);
void rts_ult_ready_remove(struct rts_ult_cluster *c, struct rts_ult *u);
/* Move every ULT whose wake_ns <= now_ns to the ready queue, its key set for the job it releases. */
void rts_ult_release_due(struct rts_ult_cluster *c, int64_t now_ns);
/* Whether a's priority is higher than b's (smaller key, then smaller id). */
static inline bool rts_ult_before(int64_t key_a, uint32_t id_a, int64_t key_b, uint32_t id_b)
{
	return key_a < key_b || (key_a == key_b && id_a < id_b);
}

/* ---- reservations (ult/reservation.c), under cluster->lock unless said ---- */

/* Whether task may run in its reservation here (leaf, cluster, policy); 0 or EINVAL with why. */
int rts_ult_reservation_check(const struct rts_ult_runtime *rt, int cluster, const rts_task_t *task,
			      char *why, size_t why_len);
/* Charge the active reservations up to now, replenish what is due, and pick the
 * ULT to run (taken off the ready queue), or NULL to idle (docs/reservations.md). */
struct rts_ult *rts_ult_reservations_pick(struct rts_ult_cluster *c, int64_t now_ns);
/* When the scheduler must look again for the reservations' sake (a
 * replenishment or the active path's depletion); INT64_MAX: never. */
int64_t rts_ult_reservations_next_ns(const struct rts_ult_cluster *c);
/* Free the cluster's reservations (the runtime's end). Not under the lock. */
void rts_ult_reservations_free(struct rts_ult_cluster *c);

/* ---- workers (ult/worker.c) ---- */

/* Start one worker thread (pinned, SCHED_FIFO) and wait until it runs. */
int rts_ult_worker_start(struct rts_ult_worker *w, char *why, size_t why_len);
/* Make every worker of the runtime leave its scheduler, and join them. */
void rts_ult_workers_stop(struct rts_ult_runtime *rt);
/* Where every ULT starts (the entry of its context); arg is the ULT. */
void rts_ult_start(void *arg);
/* From a ULT: sleep until time_ns (CLOCK_MONOTONIC): 0, or -EINTR when interrupted. */
int rts_ult_sleep_until(int64_t time_ns);
/* From a ULT: end it (never returns). */
__attribute__((noreturn)) void rts_ult_exit(void);
/* From any thread: a sleeping ULT wakes with -EINTR; a running one's next sleep does. */
void rts_ult_interrupt(struct rts_ult *u);
/* The ULT the caller runs in, and its worker (NULL outside workers). */
struct rts_ult *rts_ult_self(void);
struct rts_ult_worker *rts_ult_worker_self(void);
/* CPU time of the calling ULT (the time it was switched in). */
int64_t rts_ult_self_run_ns(void);

static inline int rts_ult_runtime_cluster_of_cpu(const struct rts_ult_runtime *rt, int cpu)
{
	int per_cluster = rt->clusters[0].n_workers;
	for (int i = 0; i < rt->n_cpus; i++)
		if (rt->cpus[i] == cpu)
			return i / per_cluster;
	return -1;
}

#endif
