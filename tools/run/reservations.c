/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include <rtsched/reservation.h>

#include "reservations.h"

int run_reservations_create(rts_taskset_t *set, struct run_spec *spec,
			    const struct run_cpusets *cpusets, char *error, size_t error_len)
{
	for (size_t i = 0; i < spec->n_reservations; i++) {
		struct run_reservation *res = &spec->reservations[i];
		struct rts_reservation_params params = {
			.name = res->name,
			.period_ns = res->period_ns,
			.budget_ns = res->budget_ns,
			.order = res->order,
			.kind = res->kind,
			.priority = res->priority,
			.cpu = res->cpu,
			.control = res->control,
			.enforcement = res->enforcement,
			.cpuset = res->cpuset >= 0 ? cpusets->dirs[res->cpuset] : NULL,
		};
		/* the reader checked that a parent comes before its child */
		rts_reservation_t *parent =
			res->parent >= 0 ? spec->reservations[res->parent].handle : NULL;
		int err = rts_reservation_create(set, &params, parent, &res->handle);
		if (err) {
			const char *why = rts_taskset_error(set);
			snprintf(error, error_len, "reservations[%zu] %s: %s", i, res->name,
				 why[0] ? why : strerror(err));
			return err;
		}
	}
	for (size_t i = 0; i < spec->n_tasks; i++) {
		struct run_task *task = &spec->tasks[i];
		task->params.reservation =
			task->reservation >= 0 ? spec->reservations[task->reservation].handle : NULL;
	}
	return 0;
}
