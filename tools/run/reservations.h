/* SPDX-License-Identifier: MIT */
/*
 * The run's reservations (docs/runner-input.md `reservations`,
 * docs/reservations.md): made in the set after its backend is chosen and
 * before its tasks, parents first, each task then attached to its leaf.
 */
#ifndef RTSCHED_RUN_RESERVATIONS_H
#define RTSCHED_RUN_RESERVATIONS_H

#include <stddef.h>

#include <rtsched/task.h>

#include "cpusets.h"
#include "spec.h"

/* Make every reservation of `spec` in `set` (sets their `handle`; a kernel-
 * enforced one's worker joins its cpuset of `cpusets`) and point each task's
 * params.reservation at its own. 0, or an errno with `error` set to
 * "reservations[i] NAME: what the library said". */
int run_reservations_create(rts_taskset_t *set, struct run_spec *spec,
			    const struct run_cpusets *cpusets, char *error, size_t error_len);

#endif
