/* SPDX-License-Identifier: MIT */
/*
 * task_mode and jobs. The calling thread becomes a real-time task under the
 * active plugin's policy (litmus.h's table); its jobs are released at
 * absolute CLOCK_MONOTONIC times:
 *   job 1 at task_mode + phase (or at the synchronous release + phase);
 *   job k+1 at release(k) + period (TASK_PERIODIC: even if that is already
 *   past, so a late task catches up), or at max(release(k) + period, now)
 *   (TASK_SPORADIC: a late completion delays the next release).
 * Each job starts only after rts_lock_gate (SRP and the deferred ceiling
 * protocols block a job's start while a ceiling at its level is held).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/mutex.h>
#include <rtsched/sched.h>

#include "litmus_clusters.h"
#include "litmus_cpusets.h"
#include "litmus_internal.h"

/* P-FP: LITMUS priority (1 highest) to SCHED_FIFO; 0 if it has no place. */
static int fifo_priority(unsigned int litmus_priority)
{
	if (litmus_priority == LITMUS_LOWEST_PRIORITY)
		return 1;
	if (litmus_priority >= 1 && litmus_priority <= 97)
		return 99 - (int)litmus_priority;
	return 0;
}

/* EDF: an SRP preemption level from the relative deadline (shorter: higher). */
static int edf_level(const struct rt_task *p)
{
	lt_t deadline_us = (p->relative_deadline ? p->relative_deadline : p->period) / 1000;
	return deadline_us >= RTS_LOCK_MAX_LEVEL - 1 ? 1 : RTS_LOCK_MAX_LEVEL - (int)deadline_us;
}

static int kernel_refused(int err, const char *why)
{
	return litmus_fail(err, "task_mode(LITMUS_RT_TASK): %s", why);
}

static int apply_pfp(const struct rt_task *p, int *level)
{
	char why[256];
	int prio = fifo_priority(p->priority);
	if (prio == 0)
		return litmus_fail(EINVAL, "P-FP: priority %u has no SCHED_FIFO level (use 1..97, "
					   "or LITMUS_LOWEST_PRIORITY)",
				   p->priority);
	if (p->budget_policy != NO_ENFORCEMENT)
		return litmus_fail(EINVAL, "P-FP: SCHED_FIFO cannot enforce budgets; use "
					   "NO_ENFORCEMENT (or an EDF plugin, whose CBS enforces them)");
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(p->cpu, &cpus);
	/* LITMUS^RT: the children of a real-time task are not real-time. */
	struct rts_sched_params sp = { .policy = RTS_POLICY_FIFO, .priority = prio,
				       .reset_on_fork = true };
	int err = rts_affinity_set_self(&cpus, why, sizeof(why));
	if (!err)
		err = rts_sched_apply_self(&sp, why, sizeof(why));
	if (err)
		return kernel_refused(err, why);
	rts_lock_set_self_level(0);
	*level = prio;
	return 0;
}

/* PSN-EDF, C-EDF: join DOMAIN's exclusive cpuset if litmus-setsched made it. */
static int join_domain_cpuset(int domain)
{
	char mount[200], dir[256], why[256];
	int version;
	if (rts_cpuset_mount(mount, sizeof(mount), &version) != 0)
		return 0;
	litmus_cpuset_dir(mount, version, domain, dir, sizeof(dir));
	if (access(dir, F_OK) != 0)
		return 0;
	int err = rts_cpuset_join_self(dir, why, sizeof(why));
	return err ? kernel_refused(err, why) : 0;
}

/*
 * LITMUS^RT accepts any period; the kernel's CBS none shorter than
 * sched_deadline_period_min_us (100 us by default) nor longer than
 * sched_deadline_period_max_us (4.19 s), nor a runtime under 1024 ns.
 *
 * A longer period: the CBS gets the deadline D's window, divided by the
 * smallest integer k that brings it under the maximum: runtime C/k (rounded
 * up), deadline = period = D/k. It grants C per D, so a job released at a
 * LITMUS release gets its exec_cost by its deadline whenever the kernel
 * admits the task (bandwidth C/D, the density: C/P when D = P, more when
 * D < P, never less), and the kernel's EDF orders the task by the deadline
 * of its current window, earlier than LITMUS's (so it may run before a task
 * whose LITMUS deadline is earlier; a task's chunks keep the order of the
 * deadlines, scaled). Jobs are still released every LITMUS period.
 *
 * A shorter period is multiplied, with the runtime and deadline, by the
 * smallest integer k that reaches the minimum: the bandwidth
 * (runtime/period) and the deadline/period ratio stay as asked, the budget
 * is granted per k periods. Jobs are still released every LITMUS period
 * (sleep_next_period); no stock kernel keeps deadlines under 100 us anyway.
 * A runtime then still under 1024 ns is raised to 1024 ns (more bandwidth,
 * never less).
 */
static void cbs_fit_kernel_limits(struct rts_sched_params *sp)
{
	long min_us, max_us;
	rts_deadline_period_limits_us(&min_us, &max_us);
	uint64_t min_ns = (uint64_t)min_us * 1000, max_ns = (uint64_t)max_us * 1000;
	if (sp->dl_period_ns > max_ns && max_ns >= min_ns) {
		uint64_t window = sp->dl_deadline_ns < sp->dl_period_ns ? sp->dl_deadline_ns
									  : sp->dl_period_ns;
		uint64_t k = (window + max_ns - 1) / max_ns;
		uint64_t runtime = (sp->dl_runtime_ns + k - 1) / k;
		sp->dl_deadline_ns = sp->dl_period_ns = window / k;
		sp->dl_runtime_ns = runtime < window / k ? runtime : window / k;
	}
	if (sp->dl_period_ns < min_ns) {
		uint64_t k = (min_ns + sp->dl_period_ns - 1) / sp->dl_period_ns;
		sp->dl_runtime_ns *= k;
		sp->dl_deadline_ns *= k;
		sp->dl_period_ns *= k;
	}
	if (sp->dl_runtime_ns < 1024 && sp->dl_deadline_ns >= 1024)
		sp->dl_runtime_ns = 1024;
}

/*
 * SCHED_DEADLINE on CPUS: PSN-EDF one CPU, C-EDF the task's cluster (the one
 * holding rt_task.cpu, as LITMUS^RT's C-EDF picks it), GSN-EDF every CPU. The
 * first two join their domain's cpuset first: the kernel admits a
 * SCHED_DEADLINE thread only with the affinity of a whole root domain.
 */
static int apply_edf(const struct rt_task *p, enum litmus_plugin plugin, int *level)
{
	char why[256];
	struct litmus_domain_map map;
	enum litmus_plugin current;
	if (litmus_domains_current(&current, &map) != 0)
		return -1;
	int domain = map.of_cpu[p->cpu];
	cpu_set_t cpus;
	litmus_domain_cpus(&map, domain, &cpus);
	if (plugin != LITMUS_PLUGIN_GSN_EDF && join_domain_cpuset(domain) != 0)
		return -1;
	lt_t deadline = p->relative_deadline ? p->relative_deadline : p->period;
	struct rts_sched_params sp = { .policy = RTS_POLICY_DEADLINE,
				       .dl_runtime_ns = p->exec_cost,
				       .dl_deadline_ns = deadline,
				       .dl_period_ns = p->period,
				       .reset_on_fork = true };
	cbs_fit_kernel_limits(&sp);
	int err = rts_affinity_set_self(&cpus, why, sizeof(why));
	if (!err)
		err = rts_sched_apply_self(&sp, why, sizeof(why));
	if (err == EPERM && plugin == LITMUS_PLUGIN_PSN_EDF)
		return litmus_fail(EPERM, "PSN-EDF: the kernel admits SCHED_DEADLINE pinned to CPU "
					  "%u only when that CPU is a root domain of its own; run "
					  "`litmus-setsched PSN-EDF` (as root) to make one exclusive "
					  "cpuset per CPU (%s)",
				   p->cpu, why);
	if (err == EPERM && plugin == LITMUS_PLUGIN_CEDF)
		return litmus_fail(EPERM, "C-EDF: the kernel admits SCHED_DEADLINE on cluster %d "
					  "(CPU %u's) only when the cluster is a root domain of its own; "
					  "run `litmus-setsched C-EDF CLUSTERS` (as root) to make one "
					  "exclusive cpuset per cluster (%s)",
				   domain, p->cpu, why);
	if (err)
		return kernel_refused(err, why);
	*level = edf_level(p);
	rts_lock_set_self_level(*level);
	return 0;
}

void litmus_task_adopt(const struct rt_task *params, enum litmus_plugin plugin,
		       unsigned int job_no, int64_t release_ns, int saved_policy, int saved_priority)
{
	struct litmus_thread *self = litmus_self();
	if (litmus_params_store(gettid(), params) != 0)
		return;
	self->params = *params;
	self->plugin = plugin;
	self->job_no = job_no;
	self->release_ns = release_ns;
	self->trace_ended_job = job_no; /* its RELEASE is in the old image's trace, if any */
	self->saved_policy = saved_policy;
	self->saved_param.sched_priority = saved_priority;
	CPU_ZERO(&self->saved_cpus);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &self->saved_cpus); /* the cpuset's CPUs: the kernel keeps those allowed */
	if (plugin == LITMUS_PLUGIN_PFP) {
		self->level = fifo_priority(params->priority);
		rts_lock_set_self_level(0);
	} else {
		self->level = edf_level(params);
		rts_lock_set_self_level(self->level);
	}
	self->job_cpu_start_ns = litmus_thread_cpu_ns();
	self->rt = true;
	litmus_ctrl_page_update(self);
}

void litmus_job_begin(struct litmus_thread *self, int64_t release_ns)
{
	litmus_trace_job_end(self);
	self->job_no++;
	self->release_ns = release_ns;
	litmus_ctrl_page_update(self);
	litmus_trace_job_release(self);
	litmus_sleep_until_ns(release_ns);
	rts_lock_gate();
	self->job_cpu_start_ns = litmus_thread_cpu_ns();
	litmus_trace_job_start(self);
}

/* Back to the policy, cpuset and affinity saved by become_rt. */
static void become_background_now(struct litmus_thread *self)
{
	if (self->saved_policy == SCHED_OTHER)
		rts_sched_reset_self();
	else
		pthread_setschedparam(pthread_self(), self->saved_policy, &self->saved_param);
	if (self->plugin == LITMUS_PLUGIN_PSN_EDF || self->plugin == LITMUS_PLUGIN_CEDF) {
		char mount[200], why[64];
		int version;
		if (rts_cpuset_mount(mount, sizeof(mount), &version) == 0)
			rts_cpuset_join_self(mount, why, sizeof(why));
	}
	sched_setaffinity(0, sizeof(self->saved_cpus), &self->saved_cpus);
}

static int become_rt(struct litmus_thread *self)
{
	struct rt_task p;
	enum litmus_plugin plugin;
	if (self->rt)
		return litmus_fail(EINVAL, "task_mode(LITMUS_RT_TASK): already a real-time task");
	if (!litmus_params_load(gettid(), &p))
		return litmus_fail(EINVAL, "task_mode(LITMUS_RT_TASK): no parameters; call "
					   "set_rt_task_param or sporadic_* first");
	if (litmus_plugin_current(&plugin) != 0)
		return -1;
	if (p.release_policy == TASK_EARLY)
		return litmus_fail(EINVAL, "TASK_EARLY: no stock-kernel scheduler releases jobs "
					   "early; use TASK_PERIODIC or TASK_SPORADIC");
	if (plugin == LITMUS_PLUGIN_LINUX)
		return litmus_fail(EINVAL, "task_mode(LITMUS_RT_TASK): the active plugin is Linux "
					   "(none); set RTSCHED_LITMUS_PLUGIN or run litmus-setsched");
	pthread_getschedparam(pthread_self(), &self->saved_policy, &self->saved_param);
	sched_getaffinity(0, sizeof(self->saved_cpus), &self->saved_cpus);
	self->params = p;
	self->plugin = plugin;
	self->job_no = 0;
	self->trace_ended_job = 0;
	/* Before the policy: its drain thread is created as SCHED_OTHER, on our CPUs. */
	if (litmus_trace_open(self) != 0)
		return -1;
	int ret;
	switch (plugin) {
	case LITMUS_PLUGIN_PFP:
		ret = apply_pfp(&p, &self->level);
		break;
	default: /* the EDF plugins: PSN-EDF, GSN-EDF, C-EDF */
		ret = apply_edf(&p, plugin, &self->level);
		break;
	}
	if (ret != 0) {
		int err = errno;
		litmus_trace_close(self);
		become_background_now(self);
		errno = err;
		return -1;
	}
	self->rt = true;
	litmus_job_begin(self, litmus_now_ns() + (int64_t)p.phase);
	return 0;
}

static int become_background(struct litmus_thread *self)
{
	if (!self->rt)
		return 0;
	self->rt = false;
	become_background_now(self);
	litmus_trace_close(self); /* after: it waits for the SCHED_OTHER drain thread */
	return 0;
}

LITMUS_EXPORT int task_mode(int target_mode)
{
	struct litmus_thread *self = litmus_self();
	int ret;
	if (target_mode == LITMUS_RT_TASK)
		ret = become_rt(self);
	else if (target_mode == BACKGROUND_TASK)
		ret = become_background(self);
	else
		return litmus_fail(EINVAL, "task_mode: mode %d (LITMUS_RT_TASK or BACKGROUND_TASK)",
				   target_mode);
	if (ret == 0)
		litmus_ok();
	return ret;
}

static int64_t next_release_ns(const struct litmus_thread *self)
{
	int64_t next = self->release_ns + (int64_t)self->params.period;
	if (self->params.release_policy == TASK_SPORADIC) {
		int64_t now = litmus_now_ns();
		if (now > next)
			next = now;
	}
	return next;
}

LITMUS_EXPORT int sleep_next_period(void)
{
	struct litmus_thread *self = litmus_self();
	if (!self->rt && litmus_take_up_admission && litmus_take_up_admission() != 0)
		return -1;
	if (!self->rt)
		return litmus_fail(EINVAL, "sleep_next_period: not a real-time task");
	litmus_job_begin(self, next_release_ns(self));
	return 0;
}

LITMUS_EXPORT int wait_for_job_release(unsigned int job_no)
{
	struct litmus_thread *self = litmus_self();
	if (!self->rt)
		return litmus_fail(EINVAL, "wait_for_job_release: not a real-time task");
	while (self->job_no < job_no)
		litmus_job_begin(self, next_release_ns(self));
	return 0;
}

LITMUS_EXPORT int get_job_no(unsigned int *job_no)
{
	struct litmus_thread *self = litmus_self();
	if (!self->rt)
		return litmus_fail(EPERM, "get_job_no: not a real-time task");
	if (!job_no)
		return litmus_fail(EFAULT, "get_job_no: NULL");
	*job_no = self->job_no;
	return 0;
}

LITMUS_EXPORT int get_current_budget(lt_t *expended, lt_t *remaining)
{
	struct litmus_thread *self = litmus_self();
	if (!self->rt)
		return litmus_fail(EPERM, "get_current_budget: not a real-time task");
	int64_t used = litmus_thread_cpu_ns() - self->job_cpu_start_ns;
	if (expended)
		*expended = (lt_t)used;
	if (remaining)
		*remaining = (lt_t)used >= self->params.exec_cost ? 0
								  : self->params.exec_cost - (lt_t)used;
	return 0;
}
