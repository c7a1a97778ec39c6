/* SPDX-License-Identifier: MIT */
/*
 * sched_setattr(2) / sched_getattr(2): glibc 2.36 has no wrapper, and the
 * kernel's <linux/sched/types.h> clashes with glibc's <sched.h>, so the
 * (stable, versioned-by-size) kernel ABI struct is declared here.
 */
#ifndef RTS_INTERNAL_SCHED_ATTR_H
#define RTS_INTERNAL_SCHED_ATTR_H

#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01 /* children start as SCHED_OTHER */
#endif
#ifndef SCHED_FLAG_DL_OVERRUN
#define SCHED_FLAG_DL_OVERRUN 0x04 /* SIGXCPU when the runtime is exhausted */
#endif

struct rts_sched_attr {
	uint32_t size;           /* sizeof(struct rts_sched_attr): SCHED_ATTR_SIZE_VER0 */
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;      /* SCHED_OTHER, SCHED_BATCH */
	uint32_t sched_priority; /* SCHED_FIFO, SCHED_RR */
	uint64_t sched_runtime;  /* SCHED_DEADLINE, ns */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* 0 or -errno. */
static inline int rts_sched_setattr(pid_t tid, struct rts_sched_attr *attr)
{
	return syscall(SYS_sched_setattr, tid, attr, 0) == 0 ? 0 : -errno;
}

static inline int rts_sched_getattr(pid_t tid, struct rts_sched_attr *attr)
{
	return syscall(SYS_sched_getattr, tid, attr, sizeof(*attr), 0) == 0 ? 0 : -errno;
}

#endif
