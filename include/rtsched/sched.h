/* SPDX-License-Identifier: MIT */
/*
 * Scheduling policy, CPU affinity and cpuset membership of the calling thread.
 *
 *     struct rts_sched_params p = { .policy = RTS_POLICY_FIFO, .priority = 80 };
 *     char why[256];
 *     int err = rts_cpuset_join_self("/sys/fs/cgroup/cpuset/shield", why, sizeof(why));
 *     if (!err)
 *             err = rts_sched_apply_self(&p, why, sizeof(why));
 *     if (err)
 *             fprintf(stderr, "%s\n", why);   // what the kernel refused, what to change
 *
 * Functions return 0 or a positive error number. Where they take `why`, a
 * failure is explained there in words (why may be NULL when why_len is 0).
 */
#ifndef RTSCHED_SCHED_H
#define RTSCHED_SCHED_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rts_policy {
	RTS_POLICY_FIFO = 0,     /* SCHED_FIFO at `priority` */
	RTS_POLICY_DEADLINE = 1, /* SCHED_DEADLINE (runtime, deadline, period) */
	RTS_POLICY_OTHER = 2,    /* SCHED_OTHER: background work, weighted by `nice` */
	RTS_POLICY_BATCH = 3,    /* SCHED_BATCH: as OTHER, never preempts on wakeup */
	RTS_POLICY_IDLE = 4,     /* SCHED_IDLE: below every other policy, least weight */
};

/* The best-effort (CFS) policies: other, batch, idle. */
static inline bool rts_policy_is_best_effort(enum rts_policy policy)
{
	return policy == RTS_POLICY_OTHER || policy == RTS_POLICY_BATCH || policy == RTS_POLICY_IDLE;
}

/* "fifo", "deadline" (also "dl"), "other" (also "normal"), "batch", "idle": 0 or EINVAL. */
int rts_policy_parse(const char *name, enum rts_policy *policy);
/* "fifo", "deadline", "other", "batch", "idle"; "?" for a value outside the enum. */
const char *rts_policy_name(enum rts_policy policy);

struct rts_sched_params {
	enum rts_policy policy;
	int priority;              /* RTS_POLICY_FIFO: 1..99 */
	int nice;                  /* other, batch: -20..19 (below the thread's own: CAP_SYS_NICE
				    * or RLIMIT_NICE); 0 for the other policies */
	uint64_t dl_runtime_ns;    /* RTS_POLICY_DEADLINE: runtime <= deadline <= period */
	uint64_t dl_deadline_ns;
	uint64_t dl_period_ns;
	bool dl_overrun_signal;    /* DEADLINE: SIGXCPU when the runtime runs out (SCHED_FLAG_DL_OVERRUN) */
	bool reset_on_fork;        /* children start as SCHED_OTHER (SCHED_FLAG_RESET_ON_FORK);
				    * without it a SCHED_DEADLINE thread cannot fork (EAGAIN) */
	uint64_t slice_ns;         /* other, batch: the fair scheduler's slice for the thread
				    * (Linux 6.12+ clamps it to 0.1..100 ms, earlier kernels
				    * ignore it); 0: the kernel's default */
};

/* The kernel's SCHED_DEADLINE period range, in us (its sysctls, else its defaults 100 and 4194304). */
void rts_deadline_period_limits_us(long *min_us, long *max_us);

/*
 * Apply params to the calling thread (sched_setattr). EPERM (no privilege,
 * or an RT cgroup without runtime, or a pinned SCHED_DEADLINE thread), EBUSY
 * (SCHED_DEADLINE admission refused), EINVAL (parameters out of range), ...
 */
int rts_sched_apply_self(const struct rts_sched_params *params, char *why, size_t why_len);
/* Back to SCHED_OTHER, nice 0. */
int rts_sched_reset_self(void);

/* Set the calling thread's CPU affinity (sched_setaffinity). */
int rts_affinity_set_self(const cpu_set_t *cpus, char *why, size_t why_len);

/*
 * Move the calling thread into the cgroup folder dir (a cpuset, or any
 * controller's): cgroup v1 writes its TID to dir/tasks, cgroup v2 to
 * dir/cgroup.threads.
 */
int rts_cpuset_join_self(const char *dir, char *why, size_t why_len);
/*
 * *has: do the CPUs of cpuset dir (cpuset.cpus.effective, cpuset.effective_cpus
 * or cpuset.cpus) include cpu? An error if none of those files can be read
 * (ENOENT: not a cpuset) or its list is malformed (EINVAL).
 */
int rts_cpuset_has_cpu(const char *dir, int cpu, bool *has);

/*
 * Where the cpuset controller is mounted (/proc/self/mounts): a cgroup v1
 * hierarchy with the cpuset controller (*version 1, preferred), else the
 * cgroup v2 unified hierarchy (*version 2). ENOENT if neither is mounted,
 * ENAMETOOLONG if the path does not fit in path_len.
 */
int rts_cpuset_mount(char *path, size_t path_len, int *version);
/*
 * One control file of a cgroup folder: read its first line (without the
 * newline) into value, or write value to it. 0 or an errno (ENOENT: no such
 * file; EIO: empty).
 */
int rts_cgroup_read(const char *dir, const char *file, char *value, size_t len);
int rts_cgroup_write(const char *dir, const char *file, const char *value);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_SCHED_H */
