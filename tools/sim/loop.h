/* SPDX-License-Identifier: MIT */
/*
 * The compute-only loop: python/rtsched/sim/compute_only.py's
 * run_compute_only in C, step for step, so that for the same spec it records
 * the same events, in the same order, with the same values (the Python
 * module's text gives the four steps of an instant; loop.c follows them in
 * the same order and names).
 */
#ifndef RTS_SIM_LOOP_H
#define RTS_SIM_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/trace_format.h"
#include "spec.h"

/* One task's recorded events, in the order the Python thread appends them. */
struct sim_trace {
	struct rts_trace_event_rec *events;
	size_t n, cap;
};

struct sim_result {
	uint64_t jobs_completed;
	size_t n_traces;         /* spec->n_tasks when recording, else 0 */
	struct sim_trace *traces;
};

/* Simulate spec; with record, keep every task's events. Returns 0, or -1 (out of memory, the
 * only failure: result freed). */
int sim_run(const struct sim_spec *spec, bool record, struct sim_result *result);
void sim_result_free(struct sim_result *result);

#endif
