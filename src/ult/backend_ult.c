/* SPDX-License-Identifier: MIT */
/*
 * The ult backend (docs/ult.md): a task set's tasks run as user-level
 * threads scheduled by the library (C-EDF, G-EDF, P-EDF and FP) on pinned
 * SCHED_FIFO workers. Chosen with rts_taskset_set_backend(set, "ult") or
 * one of its forms ("ult:pedf", "ult:cedf:2", "ult:gfp", ...).
 *
 * This file: the task runtime's entry points (releases, jobs, completion,
 * deadline misses, its trace, plus PREEMPT / RESUME / MIGRATE), identity,
 * interrupt, attributes (the current CPU is the kernel's: its workers are
 * pinned). The lock and condition-variable
 * operations (block, wake, pi_block, pi_wake, cond_block, cond_requeue)
 * and set_attr are the user-level scheduler's own (ult/sync.c over the wait
 * table of ult/wait_table.c): inheritance and priority changes make no
 * system call. Process-shared words are refused (-ENOTSUP); cpusets are
 * refused at task creation. CPU-time budgets are settled at each job's
 * completion from cputime_ns (task/budget.c), exact here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal/backend.h"
#include "internal/task.h"
#include "internal/trace.h"
#include "internal/timespec.h"
#include "internal/ult.h"
#include "internal/ult_proxy.h"

static int ult_configure(rts_taskset_t *set, const char *name, char *why, size_t why_len)
{
	struct rts_ult_spec spec;
	int err = rts_ult_spec_parse(name, &spec, why, why_len);
	if (err)
		return err;
	struct rts_ult_runtime *rt;
	err = rts_ult_runtime_create(&rt, &spec, &rts_backend_ult, &set->released, &set->t0_ns,
				     why, why_len);
	if (!err)
		set->backend_state = rt;
	return err;
}

/* What a ULT task cannot have yet; 0 or EINVAL with why. */
static int ult_task_admit(const struct rts_task_params *p, char *why, size_t why_len)
{
	if (p->cpuset) {
		snprintf(why, why_len,
			 "task %s: under the ult backend a task cannot join a cpuset of its own (its "
			 "workers run where the process runs)",
			 p->name);
		return EINVAL;
	}
	return 0;
}

static int ult_task_start(rts_task_t *task, void (*body)(rts_task_t *task), char *why,
			  size_t why_len)
{
	struct rts_ult_runtime *rt = task->set->backend_state;
	int err = ult_task_admit(&task->params, why, why_len);
	if (!err)
		err = rts_ult_runtime_check(rt, task, why, why_len);
	if (!err)
		err = rts_ult_runtime_start(rt, why, why_len);
	/* Its proxy first: a ULT once added cannot be taken back. */
	struct rts_ult_proxy *proxy = NULL;
	if (!err)
		err = rts_ult_proxy_create(&proxy, rts_ult_runtime_cluster_for(rt, task, why, why_len),
					   task->name, why, why_len);
	struct rts_ult *u = NULL;
	if (!err)
		err = rts_ult_runtime_add(rt, task, body, &u, why, why_len);
	if (err) {
		rts_ult_proxy_destroy(proxy);
		return err;
	}
	u->proxy = proxy; /* before the release, so before it can call */
	if (task->stream)
		atomic_store_explicit(&task->stream->tid, u->id, memory_order_relaxed);
	return 0;
}

/* An activation's time is the event task's release: its key from it, as a release sleep's end gives one. */
static void ult_job_release_at(rts_task_t *task, int64_t release_ns)
{
	struct rts_ult *u = rts_ult_runtime_find_task(task->set->backend_state, task);
	if (!u)
		return;
	struct rts_ult_cluster *c = u->cluster;
	pthread_mutex_lock(&c->lock);
	u->base_key = rts_ult_release_key(c, u, release_ns);
	rts_ult_rekey(c, u);
	rts_ult_kick_workers(c);
	pthread_mutex_unlock(&c->lock);
}

static void ult_task_join(rts_task_t *task)
{
	struct rts_ult *u = rts_ult_runtime_find_task(task->set->backend_state, task);
	if (!u)
		return;
	while (atomic_load_explicit(&u->done, memory_order_acquire) == 0) {
		if (atomic_load(&task->set->stopping))
			rts_ult_interrupt(u);
		struct timespec limit;
		clock_gettime(CLOCK_MONOTONIC, &limit);
		limit = rts_ns_to_timespec(rts_timespec_to_ns(&limit) + 20 * 1000 * 1000);
		rts_futex_wait_until(&u->done, 0, &limit, CLOCK_MONOTONIC, false);
	}
}

static void ult_set_destroy(rts_taskset_t *set)
{
	struct rts_ult_runtime *rt = set->backend_state;
	for (size_t i = 0; rt && i < rt->n_ults; i++) /* every ULT has ended or never ran */
		rts_ult_proxy_destroy(rt->ults[i]->proxy);
	rts_ult_runtime_destroy(rt);
	set->backend_state = NULL;
}

RTS_EXPORT const char *rts_taskset_cpu_clock(const rts_taskset_t *set, const char **why)
{
	const struct rts_ult_runtime *rt = set->backend == &rts_backend_ult ? set->backend_state : NULL;
	if (!rt || !rt->workers_started)
		return NULL;
	if (why)
		*why = rt->cpu_clock_why;
	return rts_worker_cpu_clock_method_name(rt->cpu_clock_method);
}

static int ult_sleep_until(int64_t time_ns)
{
	return rts_ult_sleep_until(time_ns);
}

static uint32_t ult_self_id(void)
{
	struct rts_ult *u = rts_ult_self();
	return u ? u->id : 0;
}

static bool ult_task_exists(uint32_t id)
{
	struct rts_ult *self = rts_ult_self();
	if (!self)
		return false;
	struct rts_ult *u = rts_ult_runtime_find_id(self->cluster->runtime, id);
	return u && atomic_load_explicit(&u->done, memory_order_acquire) == 0;
}

static int ult_interrupt(uint32_t id)
{
	struct rts_ult *self = rts_ult_self();
	struct rts_ult *u = self ? rts_ult_runtime_find_id(self->cluster->runtime, id) : NULL;
	if (!u)
		return -ESRCH;
	rts_ult_interrupt(u);
	return 0;
}

/* EDF tasks read as SCHED_DEADLINE (deadline and period theirs), FP tasks as
 * SCHED_FIFO, background tasks as SCHED_OTHER: their own attributes (set_attr's), without what they inherit
 * through PI words, as the kernel's sched_getattr reads them. */
static int ult_get_attr(uint32_t id, struct rts_sched_attr *attr)
{
	struct rts_ult *u = rts_ult_self();
	if (u && id != 0)
		u = rts_ult_runtime_find_id(u->cluster->runtime, id);
	if (!u)
		return -ESRCH;
	const struct rts_task_params *p = &u->task->params;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	struct rts_ult_cluster *c = u->cluster;
	/* a ULT (a worker thread outside its scheduler) takes a cluster lock only
	 * holding off switches (internal/ult.h), unless it holds them off already */
	bool held = rts_ult_worker_self() && !rts_ult_switches_held();
	if (held)
		rts_ult_hold_switches();
	pthread_mutex_lock(&c->lock);
	if (u->background) {
		attr->sched_policy = SCHED_OTHER;
	} else if (c->runtime->spec.policy == RTS_ULT_FP) {
		attr->sched_policy = SCHED_FIFO;
		attr->sched_priority = (uint32_t)u->attr_priority;
	} else {
		attr->sched_policy = SCHED_DEADLINE;
		attr->sched_deadline = (uint64_t)u->attr_deadline_ns;
		attr->sched_period = (uint64_t)p->period_ns;
	}
	pthread_mutex_unlock(&c->lock);
	if (held)
		rts_ult_allow_switches();
	return 0;
}

static int64_t ult_cputime_ns(void)
{
	return rts_ult_self_run_ns();
}

const struct rts_backend rts_backend_ult = {
	.name = "ult",
	.block = rts_ult_block,
	.wake = rts_ult_wake,
	.pi_block = rts_ult_pi_block,
	.pi_wake = rts_ult_pi_wake,
	.cond_block = rts_ult_cond_block,
	.cond_requeue = rts_ult_cond_requeue,
	.task_admit = ult_task_admit,
	.sleep_until = ult_sleep_until,
	.configure = ult_configure,
	.task_start = ult_task_start,
	.task_join = ult_task_join,
	.job_release_at = ult_job_release_at,
	.set_destroy = ult_set_destroy,
	.cputime_ns = ult_cputime_ns,
	.self_id = ult_self_id,
	.task_exists = ult_task_exists,
	.interrupt = ult_interrupt,
	.get_attr = ult_get_attr,
	.set_attr = rts_ult_set_attr,
	.current_cpu = NULL, /* the kernel's: every worker is pinned to its CPU */
};
