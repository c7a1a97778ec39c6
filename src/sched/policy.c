/* SPDX-License-Identifier: MIT */
/*
 * Scheduling policy of the calling thread (sched_setattr), with an
 * explanation in words when the kernel refuses.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <rtsched/sched.h>

#include "internal/export.h"
#include "internal/sched_attr.h"
#include "internal/sched_self.h"

__thread uint32_t rts_sched_self_changes __attribute__((tls_model("initial-exec")));

RTS_EXPORT int rts_policy_parse(const char *name, enum rts_policy *policy)
{
	if (!strcmp(name, "other") || !strcmp(name, "normal"))
		*policy = RTS_POLICY_OTHER;
	else if (!strcmp(name, "fifo"))
		*policy = RTS_POLICY_FIFO;
	else if (!strcmp(name, "deadline") || !strcmp(name, "dl"))
		*policy = RTS_POLICY_DEADLINE;
	else if (!strcmp(name, "batch"))
		*policy = RTS_POLICY_BATCH;
	else if (!strcmp(name, "idle"))
		*policy = RTS_POLICY_IDLE;
	else
		return EINVAL;
	return 0;
}

RTS_EXPORT const char *rts_policy_name(enum rts_policy policy)
{
	switch (policy) {
	case RTS_POLICY_OTHER:
		return "other";
	case RTS_POLICY_FIFO:
		return "fifo";
	case RTS_POLICY_DEADLINE:
		return "deadline";
	case RTS_POLICY_BATCH:
		return "batch";
	case RTS_POLICY_IDLE:
		return "idle";
	}
	return "?";
}

/* RT group scheduling (cgroup v1 cpu controller) gives EPERM when the group has no RT runtime. */
static long rt_group_runtime_us(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	char line[512], group[400] = "";
	while (fgets(line, sizeof(line), f)) {
		char *controllers = strchr(line, ':');
		char *path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		if (strstr(controllers + 1, "cpu") && !strstr(controllers + 1, "cpuset")) {
			path[strcspn(path, "\n")] = '\0';
			snprintf(group, sizeof(group), "%s", path);
			break;
		}
	}
	fclose(f);
	char file[512];
	snprintf(file, sizeof(file), "/sys/fs/cgroup/cpu%s/cpu.rt_runtime_us", group);
	f = fopen(file, "re");
	if (!f)
		return -1;
	long runtime = -1;
	if (fscanf(f, "%ld", &runtime) != 1)
		runtime = -1;
	fclose(f);
	return runtime;
}

static void explain_eperm(const struct rts_sched_params *p, const char *policy, char *why,
			  size_t why_len)
{
	struct rlimit rtprio = { 0, 0 };
	getrlimit(RLIMIT_RTPRIO, &rtprio);
	long group_runtime = rt_group_runtime_us();
	if (group_runtime == 0) {
		snprintf(why, why_len,
			 "%s refused (EPERM): this process's cpu cgroup has no real-time "
			 "runtime (cpu.rt_runtime_us = 0, RT group scheduling); give the group "
			 "runtime or run from the root cpu cgroup",
			 policy);
	} else if (rts_policy_is_best_effort(p->policy)) {
		struct rlimit rlnice = { 0, 0 };
		getrlimit(RLIMIT_NICE, &rlnice);
		snprintf(why, why_len,
			 "%s with nice %d refused (EPERM): a nice below the thread's own needs "
			 "root, CAP_SYS_NICE, or RLIMIT_NICE >= %d (ulimit -e; it is %lld here)",
			 policy, p->nice, 20 - p->nice, (long long)rlnice.rlim_cur);
	} else if (p->policy == RTS_POLICY_DEADLINE) {
		snprintf(why, why_len,
			 "%s refused (EPERM): needs root or CAP_SYS_NICE, and affinity "
			 "spanning its whole root domain (do not pin SCHED_DEADLINE tasks: use "
			 "P-EDF's exclusive cpusets instead)",
			 policy);
	} else {
		snprintf(why, why_len,
			 "%s refused (EPERM): needs root, CAP_SYS_NICE, or RLIMIT_RTPRIO >= "
			 "%d (ulimit -r; it is %lld here)",
			 policy, p->priority, (long long)rtprio.rlim_cur);
	}
}

static void explain_ebusy(const struct rts_sched_params *p, char *why, size_t why_len)
{
	long rt_runtime = -1, rt_period = -1;
	FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "re");
	if (f) {
		if (fscanf(f, "%ld", &rt_runtime) != 1)
			rt_runtime = -1;
		fclose(f);
	}
	f = fopen("/proc/sys/kernel/sched_rt_period_us", "re");
	if (f) {
		if (fscanf(f, "%ld", &rt_period) != 1)
			rt_period = -1;
		fclose(f);
	}
	snprintf(why, why_len,
		 "SCHED_DEADLINE admission refused (EBUSY): runtime/period %.4f would "
		 "push the reserved bandwidth of its root domain over the limit of %ld/%ld us "
		 "per CPU (sched_rt_runtime_us/sched_rt_period_us); lower runtimes, drop tasks, "
		 "or give this task's partition more CPUs",
		 (double)p->dl_runtime_ns / (double)p->dl_period_ns, rt_runtime, rt_period);
}

/* Read /proc/sys/kernel/NAME (a long); fallback if it cannot be read. */
static long proc_sys_long(const char *name, long fallback)
{
	char path[96];
	long v = fallback;
	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

RTS_EXPORT void rts_deadline_period_limits_us(long *min_us, long *max_us)
{
	/* The kernel's built-in defaults where the sysctls do not exist. */
	*min_us = proc_sys_long("sched_deadline_period_min_us", 100);
	*max_us = proc_sys_long("sched_deadline_period_max_us", 4194304);
}

RTS_EXPORT int rts_sched_apply_self(const struct rts_sched_params *p, char *why, size_t why_len)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	const char *policy = "SCHED_OTHER";
	switch (p->policy) {
	case RTS_POLICY_FIFO:
		attr.sched_policy = SCHED_FIFO;
		attr.sched_priority = (unsigned)p->priority;
		policy = "SCHED_FIFO";
		break;
	case RTS_POLICY_DEADLINE:
		attr.sched_policy = SCHED_DEADLINE;
		attr.sched_flags = p->dl_overrun_signal ? SCHED_FLAG_DL_OVERRUN : 0;
		attr.sched_runtime = p->dl_runtime_ns;
		attr.sched_deadline = p->dl_deadline_ns;
		attr.sched_period = p->dl_period_ns;
		policy = "SCHED_DEADLINE";
		break;
	case RTS_POLICY_OTHER:
		attr.sched_policy = SCHED_OTHER;
		attr.sched_nice = p->nice;
		attr.sched_runtime = p->slice_ns;
		break;
	case RTS_POLICY_BATCH:
		attr.sched_policy = SCHED_BATCH;
		attr.sched_nice = p->nice;
		attr.sched_runtime = p->slice_ns;
		policy = "SCHED_BATCH";
		break;
	case RTS_POLICY_IDLE:
		attr.sched_policy = SCHED_IDLE;
		policy = "SCHED_IDLE";
		break;
	}
	if (p->reset_on_fork)
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
	int err = -rts_sched_setattr(0, &attr);
	switch (err) {
	case 0:
		rts_sched_self_changes++; /* caches of the thread's priority read it anew */
		return 0;
	case EPERM:
		explain_eperm(p, policy, why, why_len);
		break;
	case EBUSY:
		explain_ebusy(p, why, why_len);
		break;
	case EINVAL:
		if (p->policy == RTS_POLICY_DEADLINE) {
			long min_us = 0, max_us = 0;
			rts_deadline_period_limits_us(&min_us, &max_us);
			snprintf(why, why_len,
				 "SCHED_DEADLINE parameters refused (EINVAL): runtime %" PRIu64
				 ", deadline %" PRIu64 ", period %" PRIu64 " ns; the kernel needs "
				 "1024 ns <= runtime <= deadline <= period and a period of %ld..%ld us "
				 "(kernel.sched_deadline_period_min_us/_max_us)",
				 p->dl_runtime_ns, p->dl_deadline_ns, p->dl_period_ns, min_us, max_us);
		} else if (rts_policy_is_best_effort(p->policy)) {
			snprintf(why, why_len, "%s parameters refused (EINVAL): nice %d is not in -20..19",
				 policy, p->nice);
		} else {
			snprintf(why, why_len,
				 "%s parameters refused (EINVAL): FIFO priority must be 1..99", policy);
		}
		break;
	default:
		snprintf(why, why_len, "%s refused: %s", policy, strerror(err));
	}
	return err;
}

RTS_EXPORT int rts_sched_reset_self(void)
{
	const struct rts_sched_params other = { .policy = RTS_POLICY_OTHER };
	return rts_sched_apply_self(&other, NULL, 0);
}
