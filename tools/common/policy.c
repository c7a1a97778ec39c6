/* SPDX-License-Identifier: MIT */
#include "policy.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* The kernel's struct sched_attr (first version, 48 bytes). */
struct kernel_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static int sys_sched_setattr(const struct kernel_sched_attr *attr)
{
	long rc = syscall(SYS_sched_setattr, 0 /* calling thread */, attr, 0 /* flags */);
	return rc == 0 ? 0 : errno;
}

int rts_policy_parse(const char *name, enum rts_policy *policy)
{
	if (!strcmp(name, "other") || !strcmp(name, "normal"))
		*policy = RTS_POLICY_OTHER;
	else if (!strcmp(name, "fifo"))
		*policy = RTS_POLICY_FIFO;
	else if (!strcmp(name, "deadline") || !strcmp(name, "dl"))
		*policy = RTS_POLICY_DEADLINE;
	else
		return EINVAL;
	return 0;
}

const char *rts_policy_name(enum rts_policy policy)
{
	switch (policy) {
	case RTS_POLICY_OTHER:
		return "other";
	case RTS_POLICY_FIFO:
		return "fifo";
	case RTS_POLICY_DEADLINE:
		return "deadline";
	}
	return "?";
}

int rts_sched_apply(const struct rts_sched_params *p)
{
	struct kernel_sched_attr attr = {.size = sizeof(attr)};
	switch (p->policy) {
	case RTS_POLICY_OTHER:
		attr.sched_policy = SCHED_OTHER;
		break;
	case RTS_POLICY_FIFO:
		attr.sched_policy = SCHED_FIFO;
		attr.sched_priority = (uint32_t)p->priority;
		break;
	case RTS_POLICY_DEADLINE:
		attr.sched_policy = SCHED_DEADLINE;
		attr.sched_runtime = p->runtime_ns;
		attr.sched_deadline = p->deadline_ns;
		attr.sched_period = p->period_ns;
		break;
	}
	return sys_sched_setattr(&attr);
}

int rts_sched_reset(void)
{
	struct kernel_sched_attr attr = {.size = sizeof(attr), .sched_policy = SCHED_OTHER};
	return sys_sched_setattr(&attr);
}

int rts_pin_to_cpu(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int rts_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (int)n : 1;
}

int rts_cpu_online(int cpu)
{
	if (cpu < 0 || cpu >= rts_ncpus())
		return 0;
	char path[96];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1; /* no "online" file: the CPU cannot go offline */
	int c = fgetc(f);
	fclose(f);
	return c == '1';
}
