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

#include "spec.h"
#include "spill.h"

struct sim_result {
	uint64_t jobs_completed;
	size_t n_traces;         /* spec->n_tasks when recording, else 0 */
	struct sim_trace *traces;
};

/*
 * Simulate spec; with record, keep every task's events (spill.h: beyond a
 * buffer per task, in unnamed files in spill_dir; NULL: all in memory).
 * Returns 0, or an errno value (ENOMEM; a spill file's error: result freed).
 */
int sim_run(const struct sim_spec *spec, bool record, const char *spill_dir, struct sim_result *result);
void sim_result_free(struct sim_result *result);

#endif
