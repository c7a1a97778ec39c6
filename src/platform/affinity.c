/* SPDX-License-Identifier: MIT */
/* CPU affinity of the calling thread. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rtsched/sched.h>

#include "internal/export.h"

RTS_EXPORT int rts_affinity_set_self(const cpu_set_t *cpus, char *why, size_t why_len)
{
	if (sched_setaffinity(0, sizeof(*cpus), cpus) == 0)
		return 0;
	int err = errno;
	snprintf(why, why_len,
		 "CPU affinity refused: %s (a CPU outside this process's cpuset or offline?)",
		 strerror(err));
	return err;
}
