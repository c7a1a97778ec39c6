/* SPDX-License-Identifier: MIT */
/*
 * Where litmus-setsched puts the exclusive cpuset of CPU n for PSN-EDF (each
 * its own root domain, so that the kernel admits SCHED_DEADLINE threads
 * pinned to n) and where task_mode looks for it. Given the cpuset mount
 * (rts_cpuset_mount): cgroup v1 MOUNT/rtsched-litmus/cpuN, v2
 * MOUNT/rtsched-litmus.cpuN.
 */
#ifndef RTSCHED_COMPAT_LITMUS_CPUSETS_H
#define RTSCHED_COMPAT_LITMUS_CPUSETS_H

#include <stdio.h>

#define LITMUS_CPUSET_PARENT "rtsched-litmus"

static inline void litmus_cpuset_dir(const char *mount, int version, int cpu, char *dir,
				     size_t len)
{
	snprintf(dir, len, version == 1 ? "%s/" LITMUS_CPUSET_PARENT "/cpu%d"
					: "%s/" LITMUS_CPUSET_PARENT ".cpu%d",
		 mount, cpu);
}

#endif
