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
 * absolute deadline of its current job; FP: 100 - priority; either may be
 * lowered by inheritance (key = min(base_key, boost_key), ult/wait_table.c).
 * The invariant the scheduler keeps (apart from the moments a decision is
 * in flight): in each cluster no ready ULT has a smaller key than a running
 * one (an equal key does not preempt, as under SCHED_FIFO; the ready queue
 * and the choice of an idle worker still break ties by id).
 *
 * Locking order. The runtime's wait_lock (the wait table, ult/sync.c)
 * comes first and is taken only by ULTs holding off switches and by proxy
 * threads (ult/proxy.c, kernel threads never switched out); then
 * cluster->lock, a leaf: nothing else is taken while it is held, it is
 * never held across a context switch, and never taken in a signal handler. The scheduler takes it once per decision; another thread
 * takes it to interrupt a ULT (rts_ult_interrupt). The release timers are
 * armed under it, so that two workers never arm them out of order.
 *
 * Release timers. A cluster's events (its sleepers' wake times, one each,
 * and the earliest of its blocked ULTs' timeouts and reservation
 * decisions) are handed out at each decision (worker.c,
 * arm_release_timer): the k idle workers not already told to look take the
 * first k, each sleeping in its futex wait until its own, so that a
 * release is handled on a CPU where it can run, by a kernel timer on that
 * CPU (a timer fires on the CPU that armed it; the futex wait's timeout is
 * armed by the sleeper itself, as a thread of the threads backend arms its
 * clock_nanosleep), with no second hop (a futex wake or tgkill from another
 * worker) on the release's path; two releases at one time wake two idle
 * workers. An idle worker asleep until one of the events keeps it; one
 * asleep past the event it is given is woken then (off the release's path)
 * to look again and take it. With no idle worker, the first event goes on
 * the timer (SIGEV_THREAD_ID, RTS_ULT_SIGNAL) of the worker running the
 * lowest-priority ULT, where a released job would preempt; at most that
 * one timer is armed (cluster->timer_worker), a timer whose event moved is
 * disarmed if it has not fired yet. An idle worker never waits for a
 * signal, so a sanitizer that holds a signal back during a raw futex wait
 * cannot hang a release.
 *
 * Signals. RTS_ULT_SIGNAL (SA_NODEFER, unblocked in workers) is how a
 * worker is told to look again: its release timer sends it, and a worker
 * that finds a ready ULT which must preempt another worker's ULT sends it
 * with tgkill. The handler touches
 * only the worker's atomics and its thread's in_scheduler flag (thread-local,
 * ult/worker.c): with the flag set (in the scheduler, or in a ULT holding
 * off switches) it marks
 * resched_pending and bumps wake_word; in a ULT it switches that ULT out to
 * the scheduler (the interrupted registers stay in the signal frame on the
 * ULT's stack, and the handler returns when the ULT is resumed, maybe on
 * another worker). So nothing runs with signals blocked, and no decision is
 * lost: the scheduler clears resched_pending before it reads the queues,
 * and an idle worker sleeps on wake_word with the value it read before.
 *
 * Who writes what. Under cluster->lock: a ULT's state, queue link, key,
 * base_key, boost_key, attributes, wake_ns, sleep_result,
 * interrupt_pending, timeout_ns, block_end; a worker's current,
 * current_key, kicked. Under the runtime's wait_lock: a ULT's place in the
 * wait table (wait_word .. wait_result); boost_key and wake_pending under
 * both. A ULT takes either lock only holding off switches
 * (rts_ult_hold_switches), so it is never switched out holding one. The
 * ULT itself, just before switching to its worker's scheduler: request,
 * wake_ns_requested, saved errno, trace state and task-local state (read
 * by that scheduler after the switch, on the same thread).
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
#include "internal/tid.h"
#include "internal/sched_attr.h"
#include "internal/task_local.h"
#include "internal/trace.h"
#include "internal/ult_context.h"
#include "internal/worker_cpu_clock.h"

/* The signal that makes a worker reschedule (internal/wake_signal.h has SIGRTMAX - 1). */
#define RTS_ULT_SIGNAL (SIGRTMAX - 2)
/* SCHED_FIFO priority of every worker. */
#define RTS_ULT_WORKER_PRIORITY 50
/* A ULT's stack unless its task asks for another size (rts_task_params.stack_bytes):
 * room for its job body and one signal frame. */
#define RTS_ULT_STACK_BYTES (256u * 1024u)
/* ULT identities: this bit set (kernel TIDs stay below 2^22), then index + 1. */
#define RTS_ULT_ID_BIT RTS_TID_ULT_BIT
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
	RTS_ULT_BLOCKED = 4,  /* waits on a word (ult/wait_table.c); in the timeout queue if timed */
};

/* Why a ULT switched to its worker's scheduler. */
enum rts_ult_request {
	RTS_ULT_PREEMPTED = 0, /* still ready */
	RTS_ULT_SLEEP = 1,     /* until wake_ns_requested */
	RTS_ULT_EXIT = 2,
	RTS_ULT_BLOCK = 3,     /* queued on a word; until woken, timeout_ns, or interrupted */
};

/* How a blocked ULT was made ready other than by a waker (under cluster->lock). */
enum rts_ult_block_end {
	RTS_ULT_BLOCK_WOKEN = 0,
	RTS_ULT_BLOCK_TIMED_OUT = 1,
	RTS_ULT_BLOCK_INTERRUPTED = 2,
};

/* What a ULT waits for on a word (ult/wait_table.c). */
enum rts_ult_wait_kind {
	RTS_ULT_WAIT_PLAIN = 0, /* block: a wake */
	RTS_ULT_WAIT_PI = 1,    /* pi_block: the word handed over; its owner inherits */
	RTS_ULT_WAIT_COND = 2,  /* cond_block: a requeue onto requeue_to (then PI) */
};

/* Buckets of a runtime's wait table (by word address). */
#define RTS_ULT_WAIT_BUCKETS 64

struct rts_ult_cluster;
struct rts_ult_runtime;
struct rts_reservation_control_state; /* internal/reservation_control.h */
struct rts_ult_probes;                /* internal/ult_probe.h */
struct rts_ult_proxy;                 /* internal/ult_proxy.h */

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
 * than the lateness of the timer that ends it. A reservation enforced by
 * the kernel (by_kernel) is outside these rules: the user-level scheduler
 * keeps no budget and no period for it (remaining_ns and period_end_ns stay
 * 0; it is always eligible, never replenished, never depleted: the kernel
 * throttles its worker instead), and it is the only top level of its cluster.
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
	bool by_kernel; /* its worker's SCHED_DEADLINE enforces it (ult/kernel_reservation.c) */
	char *cpuset;   /* by_kernel: the cpuset its worker joins; NULL: none */

	/* Under cluster->lock (the stream's one producer: its cluster's decisions). */
	int64_t remaining_ns;
	int64_t period_end_ns; /* the next replenishment (its EDF deadline); 0: not begun. CBS: its deadline */
	bool backlogged;       /* CBS, sporadic: a task inside was ready at the last decision */
	struct rts_reservation_stats stats;
	struct rts_reservation_control_state *control; /* NULL: a fixed budget (ult/reservation_control.c) */
	struct rts_sporadic_state *sporadic; /* kind sporadic: its refills (ult/sporadic_reservation.c) */
};

struct rts_ult {
	struct rts_ult_context context;
	struct rts_ult_cluster *cluster;
	rts_task_t *task;
	void (*body)(rts_task_t *task); /* what it runs; it ends when body returns */
	uint32_t id;
	struct rts_reservation *reservation; /* the leaf it runs in; NULL: none */
	struct rts_ult_proxy *proxy;         /* the kernel thread its blocking calls run in (ult/proxy.c) */

	/* Under cluster->lock. */
	enum rts_ult_state state;
	struct rts_ult *next; /* ready, release or timeout queue */
	int64_t key;          /* the effective key: min(base_key, boost_key) */
	int64_t base_key;     /* its job's own (release_key, set_attr) */
	int64_t wake_ns;
	int sleep_result;     /* what the sleep returns: 0, or -EINTR */
	bool interrupt_pending;
	int64_t timeout_ns;   /* RTS_ULT_BLOCKED: when it times out; 0: never */
	enum rts_ult_block_end block_end;
	bool wake_pending;    /* woken while not yet filed as BLOCKED (also under wait_lock) */
	/* Its own attributes (get_attr / set_attr): SCHED_FIFO priority (FP), relative deadline (EDF). */
	int attr_priority;
	int64_t attr_deadline_ns;
	/* A background ULT, below every real-time one in its cluster
	 * (RTS_ULT_BACKGROUND_KEY): under an FP form a task of policy other, or
	 * any ULT set_attr made SCHED_OTHER; under a cluster's lock, as the
	 * attributes above. */
	bool background;

	/* Under the runtime's wait_lock (ult/wait_table.c). */
	rts_futex_word *wait_word; /* the word it is queued on; NULL: none */
	enum rts_ult_wait_kind wait_kind;
	rts_futex_word *requeue_to; /* RTS_ULT_WAIT_COND: the PI word it is requeued onto */
	struct rts_ult *wait_next;  /* its bucket */
	uint64_t wait_seq;          /* FIFO among equal keys */
	int wait_result;            /* set by whoever dequeued it: 0 */
	int64_t boost_key;          /* the best key of PI waiters on words it owns; INT64_MAX: none */

	/* The library's per-task thread-local state, swapped at each switch (internal/task_local.h). */
	struct rts_task_local local;
	struct rts_task_cond_record cond_record;
	struct rts_task_fifo_cache fifo_cache;

	/* The ULT's own, read by its scheduler after the switch. */
	enum rts_ult_request request;
	int64_t wake_ns_requested;
	int saved_errno;
	struct rts_trace_thread_state trace;

	/* Its workers' (one at a time, ordered by cluster->lock). */
	int last_cpu;          /* -1 before it first ran */
	bool preempted;        /* PREEMPT traced, RESUME not yet */
	/* Its CPU time (docs/ult.md): the worker's CPU time while it was switched
	 * in (rts_ult_run_clock_ns), so time the kernel gave to others is not in
	 * it. switched_in_ns is on the clock of the worker it runs on; switch_ins
	 * counts its switch-ins (rts_ult_self_run_ns's sequence count). */
	int64_t switched_in_ns;
	int64_t run_ns;
	uint64_t switch_ins;

	rts_futex_word done;   /* 0, then 1 when it ended; joiners sleep on it */
};

struct rts_ult_worker {
	struct rts_ult_cluster *cluster;
	int cpu;
	pthread_t thread;
	bool thread_started;
	_Atomic pid_t tid;
	struct rts_ult_context sched_context; /* the worker's own stack: its scheduler */
	/* Its thread's CPU time, opened and read by that thread only (from its
	 * start; ult/worker_cpu_clock.c): the run clock of the ULTs it runs. */
	struct rts_worker_cpu_clock cpu_clock;

	/* Under cluster->lock. */
	struct rts_ult *current;
	int64_t current_key;
	bool kicked; /* told to look again (signal or futex); not yet looked */

	/* Its release timer (SIGEV_THREAD_ID to this worker); has_timer from its start.
	 * Under cluster->lock: timer_armed_ns, the time last armed (0: disarmed or
	 * moved away); idle_until_ns, the event it was given idle, the bound
	 * of its futex wait (0: none). */
	timer_t timer;
	bool has_timer;
	int64_t timer_armed_ns;
	int64_t idle_until_ns;

	/* Timestamps for rtsched-ult-tables (internal/ult_probe.h), fixed at its
	 * start; NULL: off. A request to it (set by the requester) and its
	 * signal handler's or futex return's time after one (set by its
	 * handler or itself), recorded at its next decision. */
	struct rts_ult_probes *probes;
	_Atomic int64_t probe_request_ns;
	_Atomic int64_t probe_arrival_ns;

	/* This worker and its signal handler; others only bump wake_word. (Its
	 * in_scheduler flag is thread-local: worker.c says why.) */
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
	struct rts_ult *timeouts; /* blocked with a deadline, by timeout_ns */
	/* The busy worker whose timer is armed for the cluster's next event
	 * (above, "Release timers"); NULL: none (an idle worker has it). */
	struct rts_ult_worker *timer_worker;
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
	/* Under the lock: its ULTs made and not ended. Once it is back to 0
	 * (every task of the cluster ended) its reservations stop: no charge,
	 * replenishment or event after the decision that filed the last exit,
	 * so their counters are final when rts_taskset_join returns. */
	size_t live_ults;
	/* Its reservation enforced by the kernel (ult/kernel_reservation.c), or
	 * NULL: set when it is made, before the workers start (it is made
	 * first, and refused after), and never changed after. */
	const struct rts_reservation *kernel_reservation;
	/* Under the lock: the worker's CPU time at the last decision, and
	 * whether that decision chose a ULT (then the next charge is the CPU
	 * time it got: ult/reservation.c, charged_ns). */
	int64_t active_since_cpu_ns;
	bool active_runs;
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
	/* How the workers read their CPU time (ult/worker_cpu_clock.c), and why
	 * not without a system call if one could not: set by each worker at its
	 * start (they start one after another, before the release). */
	enum rts_worker_cpu_clock_method cpu_clock_method;
	char cpu_clock_why[256];
	/* The wait table (ult/wait_table.c): ULTs blocked on words, by word
	 * address. wait_lock is taken before any cluster->lock, only by ULTs
	 * holding off switches (rts_ult_hold_switches) and by proxy threads. */
	pthread_mutex_t wait_lock;
	struct rts_ult *wait_buckets[RTS_ULT_WAIT_BUCKETS];
	uint64_t wait_seq;
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
/* The cluster that holds task's CPUs; NULL with why if none (as check says). */
struct rts_ult_cluster *rts_ult_runtime_cluster_for(const struct rts_ult_runtime *rt,
						    const rts_task_t *task, char *why, size_t why_len);
/* A ULT for task, in the cluster that holds its CPUs, ready to run body(task). */
int rts_ult_runtime_add(struct rts_ult_runtime *rt, rts_task_t *task,
			void (*body)(rts_task_t *task), struct rts_ult **out, char *why,
			size_t why_len);
struct rts_ult *rts_ult_runtime_find_task(const struct rts_ult_runtime *rt, const rts_task_t *task);
struct rts_ult *rts_ult_runtime_find_id(const struct rts_ult_runtime *rt, uint32_t id);
/* Stop and join the workers, free everything. Every ULT must have ended. */
void rts_ult_runtime_destroy(struct rts_ult_runtime *rt);

/* ---- queues (ult/queue.c), all under cluster->lock ---- */

/*
 * The ready queue orders equal keys as SCHED_FIFO orders a priority's list:
 * a ULT made ready (released, woken, re-keyed) goes after its equals; one
 * switched out while still ready (an interrupt, a section's end) goes
 * before them, as a preempted thread stays at the head of its list. So an
 * interrupt that brings no higher-priority work (an equal or lower release,
 * a kick of no consequence) resumes the ULT it interrupted: an equal key
 * never takes a CPU (kick_workers' rule), whatever the ULTs' ids.
 */
void rts_ult_ready_insert(struct rts_ult_cluster *c, struct rts_ult *u);
void rts_ult_ready_insert_preempted(struct rts_ult_cluster *c, struct rts_ult *u);
struct rts_ult *rts_ult_ready_pop(struct rts_ult_cluster *c);
void rts_ult_release_insert(struct rts_ult_cluster *c, struct rts_ult *u);
bool rts_ult_release_remove(struct rts_ult_cluster *c, struct rts_ult *u);
void rts_ult_ready_remove(struct rts_ult_cluster *c, struct rts_ult *u);
/* Move every ULT whose wake_ns <= now_ns to the ready queue, its key set for the job it releases. */
void rts_ult_release_due(struct rts_ult_cluster *c, int64_t now_ns);
/* A blocked ULT's deadline: into / out of the timeout queue (by timeout_ns). */
void rts_ult_timeout_insert(struct rts_ult_cluster *c, struct rts_ult *u);
void rts_ult_timeout_remove(struct rts_ult_cluster *c, struct rts_ult *u);
/* Make every blocked ULT whose timeout_ns <= now_ns ready, block_end TIMED_OUT. */
void rts_ult_timeouts_due(struct rts_ult_cluster *c, int64_t now_ns);
/*
 * The key of a background ULT's jobs: after every real-time key, FP (100 -
 * priority, at most 99) and EDF (an absolute deadline) alike, and before
 * INT64_MAX, which means "no boost"; equal among background ULTs, so they
 * run in FIFO order (rts_ult_ready_insert). A waiter's key still boosts a
 * background holder.
 */
#define RTS_ULT_BACKGROUND_KEY (INT64_MAX - 1)

/* The key a job of u released at release_ns has, in the order of whoever schedules it. */
int64_t rts_ult_release_key(const struct rts_ult_cluster *c, const struct rts_ult *u, int64_t release_ns);
/* Set u's key to min(base_key, boost_key) and keep the queues and its
 * worker's current_key in order. Callers then rts_ult_kick_workers. */
void rts_ult_rekey(struct rts_ult_cluster *c, struct rts_ult *u);
/* Whether a's priority is higher than b's (smaller key, then smaller id). */
static inline bool rts_ult_before(int64_t key_a, uint32_t id_a, int64_t key_b, uint32_t id_b)
{
	return key_a < key_b || (key_a == key_b && id_a < id_b);
}

/* ---- the wait table (ult/wait_table.c), all under rt->wait_lock ---- */

/* Queue u on word (it blocks next); kind RTS_ULT_WAIT_COND names the PI word it may be requeued onto. */
void rts_ult_wait_enqueue(struct rts_ult_runtime *rt, struct rts_ult *u, rts_futex_word *word,
			  enum rts_ult_wait_kind kind, rts_futex_word *requeue_to);
void rts_ult_wait_dequeue(struct rts_ult_runtime *rt, struct rts_ult *u);
/* The waiter of `kind` on word that goes first (smallest key, then FIFO); NULL if none. */
struct rts_ult *rts_ult_wait_top(struct rts_ult_runtime *rt, const rts_futex_word *word,
				 enum rts_ult_wait_kind kind);
bool rts_ult_wait_any(struct rts_ult_runtime *rt, const rts_futex_word *word,
		      enum rts_ult_wait_kind kind);
/* Move a waiter onto the PI word `word` (a requeue); it is a PI waiter there. */
void rts_ult_wait_move(struct rts_ult_runtime *rt, struct rts_ult *u, rts_futex_word *word);
/* Take u off its word and make it ready: its block returns 0. */
void rts_ult_wait_wake(struct rts_ult_runtime *rt, struct rts_ult *u);
/* The ULT whose identity the word holds; NULL if none of this runtime's. */
struct rts_ult *rts_ult_word_owner(const struct rts_ult_runtime *rt, const rts_futex_word *word);
/* Whether following PI owners from `from` reaches `target` (a deadlock if target would block). */
bool rts_ult_pi_chain_reaches(const struct rts_ult_runtime *rt, struct rts_ult *from,
			      const struct rts_ult *target);
/* Restore o's boost from the waiters on the words it owns, and on along the chain. */
void rts_ult_pi_update(struct rts_ult_runtime *rt, struct rts_ult *o);
/* Set u's boost key (under its cluster lock, which this takes) and reschedule; whether its key changed. */
bool rts_ult_set_boost(struct rts_ult *u, int64_t boost_key);

/* ---- the backend's lock operations (ult/sync.c; internal/backend.h has the contract) ---- */

int rts_ult_block(rts_futex_word *word, uint32_t expected, const struct timespec *deadline,
		  clockid_t clock, bool pshared);
int rts_ult_wake(rts_futex_word *word, int count, bool pshared);
int rts_ult_pi_block(rts_futex_word *word, const struct timespec *deadline_mono, bool pshared);
int rts_ult_pi_wake(rts_futex_word *word, bool pshared);
int rts_ult_cond_block(rts_futex_word *cond, uint32_t expected, const struct timespec *deadline,
		       clockid_t clock, rts_futex_word *mutex, bool pshared);
int rts_ult_cond_requeue(rts_futex_word *cond, uint32_t expected, int nr_requeue,
			 rts_futex_word *mutex, bool pshared);
int rts_ult_set_attr(uint32_t id, const struct rts_sched_attr *attr);

/* ---- reservations (ult/reservation.c), under cluster->lock unless said ---- */

/* Whether task may run in its reservation here (leaf, cluster, policy); 0 or EINVAL with why. */
int rts_ult_reservation_check(const struct rts_ult_runtime *rt, int cluster, const rts_task_t *task,
			      char *why, size_t why_len);
/* Charge the active reservations up to now (now_ns on CLOCK_MONOTONIC, cpu_now_ns
 * on the worker's CPU clock, read together), replenish what is due, and pick the
 * ULT to run (taken off the ready queue), or NULL to idle (docs/reservations.md). */
struct rts_ult *rts_ult_reservations_pick(struct rts_ult_cluster *c, int64_t now_ns, int64_t cpu_now_ns);
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
/* From any thread: a sleeping or blocked ULT wakes with -EINTR; a running one's next sleep or block does. */
void rts_ult_interrupt(struct rts_ult *u);
/* From a ULT: switch out as blocked (it is queued on a word already); return when it runs again. */
void rts_ult_block_self(int64_t timeout_ns);
/* From a ULT: a section no signal switches it out of (a preemption waits for
 * its end), for taking wait_lock and cluster locks; returns the worker. */
struct rts_ult_worker *rts_ult_hold_switches(void);
void rts_ult_allow_switches(void);
/* Whether switches are held off on the calling kernel thread (its worker's
 * scheduler, or a ULT inside rts_ult_hold_switches). */
bool rts_ult_switches_held(void);
/* Under c->lock: tell workers of c to run the ready ULTs that now belong on
 * a CPU (an idle one, else the one running the lowest below); the calling
 * worker, if it is one, is told without a system call. */
void rts_ult_kick_workers(struct rts_ult_cluster *c);
/* Under c->lock: a blocked (or not yet filed) ULT is woken: ready, or marked. */
void rts_ult_make_ready(struct rts_ult_cluster *c, struct rts_ult *u);
/* The ULT the caller runs in, and its worker (NULL outside workers). */
struct rts_ult *rts_ult_self(void);
struct rts_ult_worker *rts_ult_worker_self(void);
/* CPU time of the calling ULT: its worker's CPU time while it was switched in. */
int64_t rts_ult_self_run_ns(void);
/* The calling worker thread's CPU time (its scheduler or a ULT on it): the
 * clock ULT run times are measured on; non-decreasing, and it advances
 * between two switch-ins (the scheduler runs in between). */
int64_t rts_ult_run_clock_ns(void);
/* The calling ULT's errno, read and written afresh: its kernel thread may
 * have changed since the last access (ult/worker.c). */
int rts_ult_errno_get(void);
void rts_ult_errno_set(int value);

static inline int rts_ult_runtime_cluster_of_cpu(const struct rts_ult_runtime *rt, int cpu)
{
	int per_cluster = rt->clusters[0].n_workers;
	for (int i = 0; i < rt->n_cpus; i++)
		if (rt->cpus[i] == cpu)
			return i / per_cluster;
	return -1;
}

#endif
