/* SPDX-License-Identifier: MIT */
/*
 * Cpuset membership of a measurement thread: `rtsched shield` makes a
 * cpuset for the shielded CPUs; a thread measuring one of them must join it
 * before it can be pinned there.
 */
#ifndef RTS_TOOLS_CGROUP_H
#define RTS_TOOLS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* The CPUs of cpuset directory dir contain cpu? (reads cpuset.cpus.effective or cpuset.cpus) */
bool rts_cpuset_has_cpu(const char *dir, int cpu);

/*
 * Move the calling thread into cpuset dir: cgroup v1 writes its TID to
 * dir/tasks, cgroup v2 to dir/cgroup.threads. Returns 0 or a positive errno.
 */
int rts_cpuset_join_thread(const char *dir);

#endif
