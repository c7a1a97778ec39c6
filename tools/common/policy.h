/* SPDX-License-Identifier: MIT */
/* Scheduling policies of the measurement threads, by name. */
#ifndef RTS_TOOLS_POLICY_H
#define RTS_TOOLS_POLICY_H

#include <stddef.h>
#include <stdint.h>

enum rts_policy {
	RTS_POLICY_OTHER,
	RTS_POLICY_FIFO,
	RTS_POLICY_DEADLINE,
};

/* "other", "fifo", "deadline" (also "normal", "dl"); returns 0 or EINVAL. */
int rts_policy_parse(const char *name, enum rts_policy *policy);
const char *rts_policy_name(enum rts_policy policy);

struct rts_sched_params {
	enum rts_policy policy;
	int priority;        /* SCHED_FIFO: 1..99 */
	uint64_t runtime_ns; /* SCHED_DEADLINE */
	uint64_t deadline_ns;
	uint64_t period_ns;
};

/* Apply to the calling thread (sched_setattr). Returns 0 or a positive errno. */
int rts_sched_apply(const struct rts_sched_params *p);
/* Back to SCHED_OTHER, nice 0. */
int rts_sched_reset(void);
/* Pin the calling thread to one CPU. Returns 0 or a positive errno. */
int rts_pin_to_cpu(int cpu);
/* Number of configured CPUs (the kernel's "possible" count). */
int rts_ncpus(void);
/* Is the CPU online? (cpu0 is always online) */
int rts_cpu_online(int cpu);

#endif
