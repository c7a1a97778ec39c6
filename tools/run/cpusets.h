/* SPDX-License-Identifier: MIT */
/*
 * Exclusive cpusets for P-EDF: one per partition, each its own root domain,
 * so SCHED_DEADLINE admission and scheduling happen per partition.
 *
 * cgroup v1: <cpuset mount>/rtsched-run/<partition>, cpu_exclusive=1, with
 * sched_load_balance=0 on the root and on rtsched-run (the root's previous
 * value is restored afterwards). cgroup v2: <mount>/rtsched-run.<partition>
 * with cpuset.cpus.partition=root.
 *
 * A state file (/run/rtsched/run-cpusets) records what was changed before it
 * is changed, so a run killed by a crash is cleaned up by the next one.
 */
#ifndef RTSCHED_RUN_CPUSETS_H
#define RTSCHED_RUN_CPUSETS_H

#include <stddef.h>

#include "spec.h"

#define CPUSET_DIR_MAX 256

struct run_cpusets {
	size_t count;
	char (*dirs)[CPUSET_DIR_MAX]; /* the folder of cpuset i, which task threads join */
	char parent[CPUSET_DIR_MAX];  /* v1: the rtsched-run folder; v2: empty */
	int root_load_balance;        /* v1: the root's sched_load_balance before, -1 if untouched */
};

/* Remove what an earlier run left (printing what it did). 0 or -1 with `error`. */
int run_cpusets_clean_leftovers(char *error, size_t error_len);
/* 0 or -1 with `error` saying what failed and what to do. */
int run_cpusets_create(const struct run_spec *spec, struct run_cpusets *cpusets, char *error,
		       size_t error_len);
/* Undo run_cpusets_create; safe to call twice. */
void run_cpusets_remove(struct run_cpusets *cpusets);

#endif
