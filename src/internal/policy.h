/* SPDX-License-Identifier: MIT */
/*
 * Applying a task's scheduling policy to the calling thread (threads backend),
 * with an explanation in words when the kernel refuses.
 */
#ifndef RTS_INTERNAL_POLICY_H
#define RTS_INTERNAL_POLICY_H

#include <stddef.h>

#include <rtsched/task.h>

/* 0 or a positive errno; on failure `why` says what was refused and what to change. */
int rts_policy_join_cpuset(const char *cpuset_dir, const char *task_name, char *why, size_t why_len);
int rts_policy_set_affinity(const cpu_set_t *cpus, const char *task_name, char *why, size_t why_len);
int rts_policy_apply(const struct rts_task_params *params, char *why, size_t why_len);

#endif
