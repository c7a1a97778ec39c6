/* SPDX-License-Identifier: MIT */
/*
 * Tracing: per-thread lock-free ring buffers drained into a binary file
 * (the `.rtst` format of docs/trace-format.md, read by `rtsched.trace`).
 *
 * A session (struct rts_trace) is one file, its streams and a drain thread.
 * A stream (struct rts_trace_stream) is one thread's single-producer /
 * single-consumer ring: the thread that binds it records, the drain thread
 * empties it into the file every drain period.
 *
 * Life cycle, from the thread that owns the session:
 *
 *   rts_trace_open(&t, &config);
 *   rts_trace_stream_add(t, task_id, name, period_ns, deadline_ns, &s);  (per thread)
 *   rts_trace_start(t, t0_ns, duration_ns);
 *       ... each traced thread: rts_trace_stream_bind(s); then rts_trace_event(s, ...)
 *       or rts_trace_emit(...) ...
 *       ... every traced thread stops recording (joined, or done) ...
 *   rts_trace_close(t);
 *
 * Events recorded before rts_trace_start wait in the ring (and are dropped
 * and counted once it is full); rts_trace_close writes them all.
 *
 * The hot path (rts_trace_event, rts_trace_event_at, rts_trace_emit) makes no
 * allocation, no system call (unless ftrace_markers is on) and takes no lock;
 * when the ring is full the event is dropped and counted. A NULL stream is
 * accepted and records nothing, so code can be traced or not at run time; the
 * inline rts_trace() tests the pointer in the caller, which makes disabled
 * tracing cost one predictable branch.
 *
 * Functions that can fail return 0 or a positive error number, like pthreads;
 * errno is never an output channel. A one-line reason for a failure is
 * written to config->error_buf when given, and the last error of a session is
 * also available from rts_trace_error().
 */
#ifndef RTSCHED_TRACE_H
#define RTSCHED_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event types: the `type` field of an event (docs/trace-format.md has the
 * meaning of job, arg0 and arg1 for each). 16..63 are reserved for rtsched,
 * 64 and above are free for users. */
enum rts_trace_event_type {
	RTS_EV_RELEASE = 1,        /* arg0: what released it (RTS_RELEASE_CAUSE); arg1: absolute
				    * deadline; time: nominal release */
	RTS_EV_START = 2,          /* the job's first instruction */
	RTS_EV_COMPLETE = 3,       /* arg1: CPU time the job consumed (ns) */
	RTS_EV_DEADLINE_MISS = 4,  /* arg1: tardiness (ns) */
	RTS_EV_BUDGET_OVERRUN = 5, /* arg1: budget (ns) */
	RTS_EV_LOCK_REQUEST = 6,   /* arg0: resource */
	RTS_EV_LOCK_ACQUIRE = 7,   /* arg0: resource */
	RTS_EV_LOCK_RELEASE = 8,   /* arg0: resource */
	RTS_EV_COND_WAIT = 9,      /* arg0: condvar; about to wait */
	RTS_EV_COND_WAKE = 10,     /* arg0: condvar; returned with the mutex */
	RTS_EV_COND_SIGNAL = 11,   /* arg0: condvar */
	RTS_EV_COND_BROADCAST = 12,/* arg0: condvar */
	RTS_EV_SLEEP = 13,         /* arg1: duration (ns) */
	RTS_EV_TASK_EXIT = 14,     /* arg1: jobs completed */
	RTS_EV_MARKER = 15,        /* arg0: user code; arg1: user value */
	RTS_EV_LOCK_BLOCKED = 16,  /* arg0: enum rts_block_cause; arg1: TID of the thread waited for */
	RTS_EV_BOOST = 17,         /* arg0: level; arg1: TID of the holder boosted to it (ceiling protocols) */
	RTS_EV_UNBOOST = 18,       /* arg0: level given up; arg1: TID of that holder */
	/* RPC (rtsched-run's servers). Client side: job = the client's job;
	 * server side: job = the job of the client being served. */
	RTS_EV_RPC_CALL = 19,        /* arg0: server; arg1: requested service (ns) */
	RTS_EV_RPC_SERVE_START = 20, /* arg0: client task; arg1: requested service (ns) */
	RTS_EV_RPC_SERVE_END = 21,   /* arg0: client task; arg1: CPU time served (ns) */
	RTS_EV_RPC_REPLY = 22,       /* arg0: server; the client has its reply */
	/* The ult backend, which sees every switch (docs/ult.md): */
	RTS_EV_PREEMPT = 23,         /* arg0: CPU it leaves; another job takes the CPU */
	RTS_EV_RESUME = 24,          /* arg0: CPU it resumes on, after a PREEMPT */
	RTS_EV_MIGRATE = 25,         /* arg0: CPU it last ran on; arg1: CPU it runs on now */
	/* Written by the simulator (docs/sim.md) at every change of a thread's effective
	 * priority (inheritance, PI-CV donation, ceiling): */
	RTS_EV_PRIORITY = 26,        /* arg0: effective priority from now on; arg1: TID it has it from, 0: its own */
	/* The simulator's DVFS policies (docs/dvfs.md): */
	RTS_EV_FREQ_CHANGE = 27,     /* cpu: the CPU; arg0: new frequency (kHz); arg1: its voltage (uV) */
	/* PREM (rtsched-run's prem actions and peripherals, docs/prem.md): */
	RTS_EV_PREM_MEMORY = 28,     /* arg0: index in the body; arg1: ns since the interval began (gate wait) */
	RTS_EV_PREM_EXEC = 29,       /* arg0: 1 if a peripheral was still in its run span (forced); arg1: ns since the interval began */
	RTS_EV_PREM_END = 30,        /* arg0: involuntary switches during the interval; arg1: padding (ns, < 0: overran) */
	RTS_EV_GATE_RUN = 31,        /* a peripheral starts a run span: no memory phase can start until its GATE_HOLD */
	RTS_EV_GATE_HOLD = 32,       /* arg0: 1 held by a memory phase, 0 its work is done; the span has ended */
	/* Reservations (ult backend, docs/reservations.md): on the reservation's own stream (task_id -1, its name). */
	RTS_EV_RESERVATION_REPLENISH = 33, /* job: period number (1: first); arg0: budget used in the period before (ns, saturated); arg1: budget from now (ns) */
	RTS_EV_RESERVATION_DEPLETE = 34,   /* job: period number; arg1: the budget that ran out (ns); time: when it reached zero */
	RTS_EV_RESERVATION_BUDGET = 35,    /* job: period number; arg0: the controller's request (ns, saturated); arg1: the new budget (ns) */
	/* Event-triggered tasks (<rtsched/task.h>), on the activating task's stream: */
	RTS_EV_ACTIVATE = 36,        /* arg0: the activated task's trace task id; arg1: 1 a job was released
				      * or the activation waits, 0 it was lost */
	RTS_EV_RESERVED_FIRST = 37,
	RTS_EV_USER_FIRST = 64,
};

struct rts_trace;        /* a trace session: one file, its streams, a drain thread */
/* RTS_EV_LOCK_BLOCKED: why a lock request or a job start waits. */
enum rts_block_cause {
	RTS_BLOCK_OWNER = 1,   /* the lock itself is held */
	RTS_BLOCK_CEILING = 2, /* the lock is free, the partition's system ceiling is not below the caller */
	RTS_BLOCK_GATE = 3,    /* job start held back by a ceiling or a boosted holder (SRP, IPCP, MPCP, FMLP+) */
};

/*
 * RTS_EV_RELEASE's arg0: what released the job, in its low byte; for an
 * activation, the activating task's trace task id + 1 above it (0: a thread
 * that is no task of the set): arg0 = cause | (id + 1) << 8.
 */
enum rts_release_cause {
	RTS_RELEASE_TIMER = 0,      /* periodic or sporadic: its release time came */
	RTS_RELEASE_COMPLETION = 1, /* self-paced: the previous job completed (or its least gap passed) */
	RTS_RELEASE_ACTIVATION = 2, /* event-triggered: rts_task_activate */
};
#define RTS_RELEASE_CAUSE_MASK 0xffu
#define RTS_RELEASE_BY_SHIFT 8

struct rts_trace_stream; /* one thread's SPSC ring */

#define RTS_TRACE_DEFAULT_BUFFER_EVENTS 65536u
#define RTS_TRACE_MAX_BUFFER_EVENTS     (1u << 26) /* 2 GiB of events per stream */
#define RTS_TRACE_DEFAULT_DRAIN_PERIOD_NS 50000000LL
#define RTS_TRACE_NAME_MAX        63 /* task-set name in the header (longer: truncated) */
#define RTS_TRACE_STREAM_NAME_MAX 31 /* stream name (longer: truncated) */

struct rts_trace_config {
	const char *path;        /* file to write (created or truncated, mode 0644) */
	const char *name;        /* task-set name for the header; NULL: "" */
	uint32_t buffer_events;  /* ring capacity per stream, a power of two; 0: default 65536 */
	int64_t drain_period_ns; /* how often the drain thread empties the rings; 0: default 50 ms */
	bool ftrace_markers;     /* also write each event as a line to tracefs trace_marker
	                            (a write(2) per event; off by default). tracefs must be
	                            mounted: the library does not mount it. */
	char *error_buf;         /* optional: rts_trace_open and rts_trace_close write a
	                            one-line reason for a nonzero return here; must stay
	                            valid until rts_trace_close returns */
	size_t error_buf_size;
};

/*
 * Open a session: create the file and write a placeholder header. No thread
 * is started yet. EINVAL: bad config (buffer_events not a power of two or
 * above RTS_TRACE_MAX_BUFFER_EVENTS, negative drain period, NULL path);
 * ENOENT: ftrace_markers requested and tracefs is not mounted; an errno of
 * open(2) or write(2) for the file; ENOMEM.
 */
int rts_trace_open(struct rts_trace **trace, const struct rts_trace_config *config);

/*
 * Before rts_trace_start: a stream for one thread (allocates and pre-faults
 * its ring). task_id: the task's index in the task set, -1 for a thread that
 * is not a task. name: NULL or a name for the stream table. period_ns,
 * deadline_ns: for the stream table, 0 if none. EBUSY after rts_trace_start;
 * EINVAL; ENOMEM. The stream belongs to the session and is freed by
 * rts_trace_close.
 */
int rts_trace_stream_add(struct rts_trace *trace, int32_t task_id, const char *name,
			 int64_t period_ns, int64_t deadline_ns, struct rts_trace_stream **stream);

/*
 * Called by the thread that will record into the stream (before or after
 * rts_trace_start): records its TID for the stream table and makes the stream
 * the thread's current one for rts_trace_emit. NULL unbinds the calling
 * thread. Only the bound thread may record into a stream.
 */
void rts_trace_stream_bind(struct rts_trace_stream *stream);

/* The calling thread's current stream (the last it bound), or NULL. */
struct rts_trace_stream *rts_trace_current(void);

/*
 * Write the header and stream table and start the drain thread (SCHED_OTHER;
 * it inherits the caller's CPU affinity). t0_ns (the synchronous release time)
 * and duration_ns go into the header; 0 if none or unknown. EBUSY if already
 * started; an errno of pthread_create or write(2).
 */
int rts_trace_start(struct rts_trace *trace, int64_t t0_ns, int64_t duration_ns);

/*
 * Hot path. Record an event in the stream, timestamped now
 * (CLOCK_MONOTONIC through the vDSO) or at time_ns, with the CPU the thread
 * runs on. Drops and counts the event when the ring is full. NULL stream:
 * nothing. Only the stream's bound thread may call these.
 */
void rts_trace_event(struct rts_trace_stream *stream, uint16_t type, uint32_t job,
		     uint32_t arg0, int64_t arg1);
void rts_trace_event_at(struct rts_trace_stream *stream, int64_t time_ns, uint16_t type,
			uint32_t job, uint32_t arg0, int64_t arg1);

/* rts_trace_event on the calling thread's current stream (nothing if none). */
void rts_trace_emit(uint16_t type, uint32_t job, uint32_t arg0, int64_t arg1);

/* The pointer test inline, the recording out of line: disabled tracing
 * (stream == NULL) costs the caller one branch and no call. */
static inline void rts_trace(struct rts_trace_stream *stream, uint16_t type, uint32_t job,
			     uint32_t arg0, int64_t arg1)
{
	if (__builtin_expect(stream != NULL, 0))
		rts_trace_event(stream, type, job, arg0, arg1);
}

/*
 * Stop the drain thread, write what is left in every ring as a final chunk
 * per stream (with its final lost count), rewrite the header and stream table
 * at offset 0 (TIDs are known only now), close the file and free the session
 * and its streams. Every recording thread must have stopped recording. Works
 * whether or not the session was started. Returns the first file error of the
 * session (ENOSPC, EIO, ...: the hot path never fails, the drain thread keeps
 * emptying the rings and the error surfaces here), or 0. The session is freed
 * even when an error is returned.
 */
int rts_trace_close(struct rts_trace *trace);

/* Events dropped so far because a ring was full, over all streams. */
uint64_t rts_trace_lost_events(const struct rts_trace *trace);

/* Events dropped so far by one stream. */
uint64_t rts_trace_stream_lost_events(const struct rts_trace_stream *stream);

/* A one-line description of the session's first error ("" if none). Valid
 * until rts_trace_close. */
const char *rts_trace_error(const struct rts_trace *trace);

#ifdef __cplusplus
}
#endif

#endif
