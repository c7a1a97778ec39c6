/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "bench_set.h"
#include "clock_ns.h"

int bench_set_run(const char *form, const cpu_set_t *cpus, const struct bench_task *tasks, int n,
		  int64_t lead_ns, char *why, size_t why_len)
{
	rts_taskset_t *set;
	int err = rts_taskset_create(&set, NULL);
	if (err) {
		snprintf(why, why_len, "rts_taskset_create: %s", strerror(err));
		return err;
	}
	err = rts_taskset_set_backend(set, form);
	for (int i = 0; i < n && !err; i++) {
		const struct bench_task *t = &tasks[i];
		struct rts_task_params p = {
			.name = t->name, .kind = RTS_TASK_PERIODIC, .period_ns = t->period_ns,
			.deadline_ns = t->period_ns, .offset_ns = t->offset_ns, .max_jobs = t->jobs,
			.policy = t->priority ? RTS_POLICY_FIFO : RTS_POLICY_OTHER,
			.priority = t->priority, .cpus = cpus,
		};
		err = rts_task_create(set, &p, t->job, t->arg, NULL);
	}
	if (err)
		snprintf(why, why_len, "%s", rts_taskset_error(set));
	if (!err)
		err = rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + lead_ns);
	if (!err)
		err = rts_taskset_join(set);
	rts_taskset_destroy(set);
	return err;
}
