/* SPDX-License-Identifier: MIT */
/* A task the library refuses: EINVAL, and the set's error names the task and says why. */
#ifndef RTSCHED_TESTS_TASK_REFUSAL_H
#define RTSCHED_TESTS_TASK_REFUSAL_H

#include <string.h>

#include <rtsched/task.h>

#include "harness.h"

static void never_run(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	(void)job;
	(void)arg;
	CHECK_MSG(false, "a refused task ran a job");
}

/* p is refused with EINVAL, the error naming p's task and holding `words`. */
static inline void check_refused(rts_taskset_t *set, const struct rts_task_params *p, const char *words)
{
	CHECK_ERR(EINVAL, rts_task_create(set, p, never_run, NULL, NULL));
	const char *why = rts_taskset_error(set);
	CHECK_MSG(strstr(why, p->name) && strstr(why, words), "error text: %s", why);
}

#endif
