/* SPDX-License-Identifier: MIT */
/*
 * PREM at run time (docs/prem.md): a prem action runs one predictable
 * interval (memory phase over its buffers, then a non-preemptive execution
 * phase padded to the interval's length), and a peripheral task's compute
 * runs only while no interval is in its memory phase (the gate).
 */
#ifndef RTSCHED_RUN_PREM_H
#define RTSCHED_RUN_PREM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rtsched/task.h>

#include "prem_ops.h"
#include "spec.h"

/* A task's PREM memory: one buffer per buffer of each prem action, or the peripheral's buffer. */
struct run_prem_memory {
	uint64_t **buffers; /* in the order of the body's prem actions, then their buffers */
	size_t n_buffers;
	uint64_t peripheral_lines; /* a peripheral's buffer, in cache lines; 0 for a PREM task */
};

/* 0 or ENOMEM. Buffers are written once so their pages exist (mlockall keeps them). */
int run_prem_memory_init(struct run_prem_memory *memory, const struct run_task *task);
void run_prem_memory_destroy(struct run_prem_memory *memory);

/* The prem action body[index] of `spec`, its buffers from `first_buffer` on; false if the priority change failed. */
bool run_prem_interval(rts_task_t *task, const struct run_task *spec, size_t index,
		       const struct run_prem_memory *memory, size_t first_buffer,
		       struct prem_gate *gate);

/* A peripheral's compute action: `ns` of CPU time writing its buffer, held out of memory phases. */
void run_peripheral_compute(rts_task_t *task, const struct run_prem_memory *memory, int64_t ns,
			    struct prem_gate *gate, const _Atomic bool *stopping);

#endif
