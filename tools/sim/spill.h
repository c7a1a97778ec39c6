/* SPDX-License-Identifier: MIT */
/*
 * One task's recorded events, in the order the Python thread appends them,
 * in bounded memory: the latest ones in a buffer of at most
 * SIM_TRACE_BUFFER_EVENTS, the earlier ones, once the buffer has filled, in
 * an unnamed file of their own (O_TMPFILE in the directory given, which the
 * trace file will be written to: a disk, where /tmp may be memory). So a
 * simulated hour of 50 tasks (8 M jobs, 25 M events, 800 MB of records)
 * holds 50 buffers, not every event, until the trace file is written.
 */
#ifndef RTS_SIM_SPILL_H
#define RTS_SIM_SPILL_H

#include <stdio.h>
#include <stddef.h>

#include "internal/trace_format.h"

#define SIM_TRACE_BUFFER_EVENTS 16384 /* 512 KiB of records per task */

struct sim_trace {
	struct rts_trace_event_rec *events; /* the latest `buffered` events */
	size_t n;                           /* events recorded in all */
	size_t buffered, cap;
	int spill_fd;                       /* the first n - buffered events; -1: none yet */
};

/* An empty trace: spill_fd -1. */
void sim_trace_init(struct sim_trace *trace);

/*
 * Append an event. With spill_dir NULL every event stays in memory.
 * Returns 0, or an errno value (ENOMEM; the spill file's error).
 */
int sim_trace_append(struct sim_trace *trace, const char *spill_dir, const struct rts_trace_event_rec *event);

/* The i-th event recorded (i < trace->n), or NULL if it cannot be read back. For tests. */
const struct rts_trace_event_rec *sim_trace_at(const struct sim_trace *trace, size_t i,
					       struct rts_trace_event_rec *scratch);

/* Write all trace->n events to f, in order. Returns 0, or an errno value. */
int sim_trace_copy_out(const struct sim_trace *trace, FILE *f);

void sim_trace_free(struct sim_trace *trace);

#endif
