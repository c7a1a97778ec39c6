/* SPDX-License-Identifier: MIT */
/* Private parts of the tracing subsystem (src/trace/). */
#ifndef RTS_INTERNAL_TRACE_H
#define RTS_INTERNAL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "internal/trace_format.h"
#include "internal/trace_ring.h"

struct rts_trace;

/*
 * One thread's stream. The ring comes first (its own three cache lines); the
 * rest is written before rts_trace_start (or, tid, once by the bound thread)
 * and only read afterwards.
 */
struct rts_trace_stream {
	struct rts_trace_ring ring;
	struct rts_trace *trace;
	int marker_fd; /* tracefs trace_marker, or -1: a copy of the session's */
	uint32_t id;
	int32_t task_id;
	_Atomic uint32_t tid; /* 0 until bound */
	int64_t period_ns;
	int64_t deadline_ns;
	char name[32];
};

/*
 * tracefs: the trace_marker file of the first tracefs found
 * (/sys/kernel/tracing, then /sys/kernel/debug/tracing), opened for writing.
 * Returns the fd or -errno, with a reason in why. Never mounts anything.
 */
int rts_tracefs_marker_open(char *why, size_t why_size);

/* One event as a text line on trace_marker: one write(2), no allocation.
 * Errors are ignored (the hot path never fails). */
void rts_trace_marker_write(const struct rts_trace_stream *stream,
			    const struct rts_trace_event_rec *ev);

/*
 * Events the library writes itself (lock blocking, boosts) on the calling
 * thread's current stream, tagged with the job number rts_job_next set.
 * Nothing when the thread has no stream.
 */
void rts_trace_emit_lib(uint16_t type, uint32_t arg0, int64_t arg1);
void rts_trace_set_current_job(uint32_t job);

/*
 * The calling thread's current stream and job, as one value: a user-level
 * thread carries it from one kernel thread to the next (the ult backend
 * saves it when the thread switches out and loads it where it resumes).
 */
struct rts_trace_thread_state {
	struct rts_trace_stream *stream;
	uint32_t job;
};
void rts_trace_thread_state_save(struct rts_trace_thread_state *state);
void rts_trace_thread_state_load(const struct rts_trace_thread_state *state);

/* The name of an event type ("RELEASE", ...) or NULL if not one of rtsched's. */
const char *rts_trace_type_name(uint16_t type);

#endif
