/* SPDX-License-Identifier: MIT */
/*
 * The ult benchmarks' task sets (bench/ult): tasks of a few jobs each, made
 * on given CPUs under a named backend, released, run to their last job and
 * destroyed, in one call.
 */
#ifndef RTSCHED_BENCH_ULT_BENCH_SET_H
#define RTSCHED_BENCH_ULT_BENCH_SET_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/task.h>

struct bench_task {
	const char *name;
	int priority;      /* SCHED_FIFO 1..99; 0: policy other */
	int64_t period_ns; /* the deadline too */
	int64_t offset_ns;
	uint32_t jobs;     /* > 0 */
	rts_job_fn job;
	void *arg;
};

/*
 * Run tasks[0..n) on `cpus` under backend `form` ("threads", "ult:pfp", ...),
 * released lead_ns from now, until each has done its jobs. 0, or an error
 * with why (what the library said).
 */
int bench_set_run(const char *form, const cpu_set_t *cpus, const struct bench_task *tasks, int n,
		  int64_t lead_ns, char *why, size_t why_len);

#endif
