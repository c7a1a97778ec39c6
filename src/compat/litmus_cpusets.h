/* SPDX-License-Identifier: MIT */
/*
 * Where litmus-setsched puts the exclusive cpuset of domain n for PSN-EDF
 * (CPU n) and C-EDF (cluster n), each its own root domain, so that the kernel
 * admits SCHED_DEADLINE threads with the domain's CPUs, and where task_mode
 * looks for it. Given the cpuset mount (rts_cpuset_mount): cgroup v1
 * MOUNT/rtsched-litmus/domainN, v2 MOUNT/rtsched-litmus.domainN.
 */
#ifndef RTSCHED_COMPAT_LITMUS_CPUSETS_H
#define RTSCHED_COMPAT_LITMUS_CPUSETS_H

#include <stdio.h>

#define LITMUS_CPUSET_PARENT "rtsched-litmus"

static inline void litmus_cpuset_dir(const char *mount, int version, int domain, char *dir,
				     size_t len)
{
	snprintf(dir, len, version == 1 ? "%s/" LITMUS_CPUSET_PARENT "/domain%d"
					: "%s/" LITMUS_CPUSET_PARENT ".domain%d",
		 mount, domain);
}

#endif
