/* SPDX-License-Identifier: MIT */
/*
 * A top-level reservation enforced by the kernel (docs/reservations.md,
 * "Enforced by the kernel"): its CPU's worker runs under SCHED_DEADLINE with
 * runtime = budget, deadline = period = the reservation's period, so the
 * kernel's CBS throttles the whole subtree, whatever else runs on the
 * machine; the user-level scheduler schedules the subtree inside what the
 * kernel gives and keeps no budget of its own for this level (reservation.c
 * skips it when charging, replenishing and arming its timer).
 *
 * Why it must be alone at the top of its CPU: one worker runs all of a
 * CPU's ULTs, and the kernel throttles that thread, so anything else on the
 * CPU would be throttled with it and eat its budget.
 *
 * Why a cpuset: the kernel refuses SCHED_DEADLINE to a thread whose affinity
 * does not span its root domain (sched_setattr: EPERM), and refuses to
 * narrow the affinity of a SCHED_DEADLINE thread below it (sched_setaffinity:
 * EBUSY); so the worker can be pinned to its CPU only if that CPU is a root
 * domain of its own, an exclusive cpuset with load balancing off around it.
 * The worker joins it before pinning itself and taking the policy.
 *
 * No flags: SCHED_FLAG_RECLAIM (GRUB) would let the worker run past its
 * budget on bandwidth others leave unused, which is what this level exists
 * to prevent; SCHED_FLAG_DL_OVERRUN would send SIGXCPU at each throttling,
 * and there is nothing to do about it: throttling is the enforcement.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rtsched/sched.h>

#include "internal/kernel_reservation.h"
#include "internal/task.h"

static const char *name_of(const struct rts_reservation_params *p)
{
	return p->name && p->name[0] ? p->name : "(unnamed)";
}

static int refuse(rts_taskset_t *set, const struct rts_reservation_params *p, const char *why)
{
	rts_taskset_set_error(set, "reservation %s: %s", name_of(p), why);
	return EINVAL;
}

int rts_ult_kernel_reservation_admit(rts_taskset_t *set, const struct rts_reservation_params *p,
				     const struct rts_reservation *parent, const struct rts_ult_cluster *c)
{
	const struct rts_reservation *kernel = rts_ult_kernel_reservation_of(c);
	if (p->enforcement == RTS_RESERVATION_BY_USER) {
		if (!parent && kernel) {
			rts_taskset_set_error(set, "reservation %s: CPU %d's top level is reservation %s, "
					      "enforced by the kernel: nothing else may sit beside it (put "
					      "this one inside it)", name_of(p), c->workers[0].cpu,
					      kernel->name);
			return EINVAL;
		}
		return 0;
	}
	if (p->enforcement != RTS_RESERVATION_BY_KERNEL) {
		rts_taskset_set_error(set, "reservation %s: unknown enforcement %d", name_of(p),
				      (int)p->enforcement);
		return EINVAL;
	}
	if (parent)
		return refuse(set, p, "only a top-level reservation is enforced by the kernel (the "
			      "kernel throttles its CPU's worker, which runs the whole tree)");
	if (p->kind != RTS_RESERVATION_PERIODIC)
		return refuse(set, p, "a CBS is not enforced by the kernel (SCHED_DEADLINE is a CBS "
			      "already: make it periodic)");
	if (p->control.period_ns)
		return refuse(set, p, "a budget controller adapts budgets the user-level scheduler "
			      "enforces, not a kernel-enforced one");
	if (c->n_reservations) { /* so it is made first, and alone at the top */
		rts_taskset_set_error(set, "reservation %s: enforced by the kernel, it must be the only "
				      "top level of CPU %d, which has reservation %s already (one worker "
				      "runs the CPU, and the kernel throttles all of it)",
				      name_of(p), c->workers[0].cpu, c->reservations[0]->name);
		return EINVAL;
	}
	if (c->runtime->workers_started) {
		rts_taskset_set_error(set, "reservation %s: enforced by the kernel, it must be made "
				      "before the set's first task (the worker of CPU %d has taken its "
				      "policy)", name_of(p), c->workers[0].cpu);
		return EBUSY;
	}
	return 0;
}

const struct rts_reservation *rts_ult_kernel_reservation_of(const struct rts_ult_cluster *c)
{
	return c->kernel_reservation;
}

/* Whether this thread has CAP_SYS_NICE (23) in its effective set (/proc/self/status). */
static bool has_cap_sys_nice(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[128];
	unsigned long long caps = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> 23) & 1;
}

static long read_long(const char *path)
{
	long value = -1;
	FILE *f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &value) != 1)
			value = -1;
		fclose(f);
	}
	return value;
}

static void explain_policy(const struct rts_reservation *r, int cpu, int err, char *why,
			   size_t why_len)
{
	double share = (double)r->budget_ns / (double)r->period_ns;
	if (err == EPERM && !has_cap_sys_nice()) {
		snprintf(why, why_len, "SCHED_DEADLINE refused (EPERM): it needs root or "
			 "CAP_SYS_NICE");
	} else if (err == EPERM) {
		snprintf(why, why_len, "SCHED_DEADLINE refused (EPERM) although CAP_SYS_NICE is "
			 "there: the kernel gives it only to a thread whose affinity spans its root "
			 "domain, and CPU %d is not a root domain of its own (%s): it needs an "
			 "exclusive cpuset holding only CPU %d, with load balancing off around it "
			 "(rtsched run makes one; with the library, give the reservation's cpuset)",
			 cpu, r->cpuset ? "its cpuset is not exclusive, or balanced with others"
					: "no cpuset was given", cpu);
	} else if (err == EBUSY) {
		snprintf(why, why_len, "SCHED_DEADLINE admission refused (EBUSY): budget/period "
			 "%.4f does not fit CPU %d's root domain: its limit is sched_rt_runtime_us/"
			 "sched_rt_period_us = %ld/%ld of the CPU, less the kernel's fair server "
			 "(since Linux 6.12, by default 50 ms of every 1 s for SCHED_OTHER tasks) and "
			 "less the SCHED_DEADLINE tasks already there; lower the budget",
			 share, cpu, read_long("/proc/sys/kernel/sched_rt_runtime_us"),
			 read_long("/proc/sys/kernel/sched_rt_period_us"));
	} else {
		snprintf(why, why_len, "SCHED_DEADLINE (runtime %lld ns, period %lld ns) refused: %s",
			 (long long)r->budget_ns, (long long)r->period_ns, strerror(err));
	}
}

int rts_ult_kernel_worker_apply(const struct rts_reservation *r, int cpu, char *why, size_t why_len)
{
	char reason[600];
	if (r->cpuset) {
		int err = rts_cpuset_join_self(r->cpuset, reason, sizeof(reason));
		if (err) {
			snprintf(why, why_len, "reservation %s, enforced by the kernel: %s%s", r->name,
				 reason, err == EACCES || err == EPERM || err == EROFS
						 ? " (moving a thread into a cpuset needs write access to "
						   "the cpuset hierarchy: root, or a delegated cgroup; "
						   "CAP_SYS_NICE alone allows SCHED_DEADLINE but not this)"
						 : "");
			return err;
		}
	}
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	int err = rts_affinity_set_self(&cpus, reason, sizeof(reason));
	if (err) {
		snprintf(why, why_len, "reservation %s, enforced by the kernel: %s", r->name, reason);
		return err;
	}
	const struct rts_sched_params dl = {.policy = RTS_POLICY_DEADLINE,
					    .dl_runtime_ns = (uint64_t)r->budget_ns,
					    .dl_deadline_ns = (uint64_t)r->period_ns,
					    .dl_period_ns = (uint64_t)r->period_ns};
	err = rts_sched_apply_self(&dl, reason, sizeof(reason));
	if (err) {
		explain_policy(r, cpu, err, reason, sizeof(reason));
		snprintf(why, why_len, "reservation %s, enforced by the kernel: %s", r->name, reason);
	}
	return err;
}
