/* SPDX-License-Identifier: MIT */
/* Task sets: creating tasks, the synchronous release, stopping and joining. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/task.h>
#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/export.h"
#include "internal/task.h"
#include "internal/wake_signal.h"

RTS_EXPORT int rts_taskset_create(rts_taskset_t **out, struct rts_trace *trace)
{
	if (!out)
		return EINVAL;
	int err = rts_wake_signal_install();
	if (!err)
		err = rts_budget_install_handler();
	if (err)
		return err;
	rts_taskset_t *set = calloc(1, sizeof(*set));
	if (!set)
		return ENOMEM;
	set->trace = trace;
	pthread_mutex_init(&set->setup_lock, NULL);
	pthread_cond_init(&set->setup_done, NULL);
	*out = set;
	return 0;
}

RTS_EXPORT int rts_taskset_set_backend(rts_taskset_t *set, const char *name)
{
	if (!set || !name)
		return EINVAL;
	const struct rts_backend *backend = rts_backend_by_name(name);
	if (!backend) {
		rts_taskset_set_error(set,
				      "no execution backend called \"%s\" (there are \"threads\" and "
				      "\"ult\", docs/ult.md)",
				      name);
		return ENOENT;
	}
	if (set->n_tasks) {
		rts_taskset_set_error(set, "the backend is chosen before the first task is made");
		return EBUSY;
	}
	if (set->backend && set->backend->set_destroy) /* chosen before: its state goes */
		set->backend->set_destroy(set);
	set->backend = NULL; /* the threads backend if what follows fails */
	if (backend->configure) {
		char why[RTS_ERROR_MAX] = "";
		int err = backend->configure(set, name, why, sizeof(why));
		if (err) {
			rts_taskset_set_error(set, "%s", why);
			return err;
		}
	}
	set->backend = backend == &rts_backend_threads ? NULL : backend;
	return 0;
}

RTS_EXPORT const char *rts_taskset_error(const rts_taskset_t *set)
{
	return set ? set->error : "no task set";
}

/* nice and slice: a fair scheduler's weight and slice, for other and batch on kernel threads only;
 * a reservation's own deadline and period, for SCHED_DEADLINE only. */
static int check_best_effort_params(rts_taskset_t *set, const struct rts_task_params *p,
				    const char *name)
{
	if ((p->dl_deadline_ns || p->dl_period_ns) && p->policy != RTS_POLICY_DEADLINE) {
		rts_taskset_set_error(set,
				      "task %s: dl_deadline_ns and dl_period_ns are SCHED_DEADLINE's; "
				      "policy %s has none: remove them",
				      name, rts_policy_name(p->policy));
		return EINVAL;
	}
	if (p->slice_ns < 0 ||
	    (p->slice_ns && !(p->policy == RTS_POLICY_OTHER || p->policy == RTS_POLICY_BATCH))) {
		rts_taskset_set_error(set,
				      "task %s: slice %lld ns: a slice is >= 0 and for policies other and "
				      "batch only (policy %s)",
				      name, (long long)p->slice_ns, rts_policy_name(p->policy));
		return EINVAL;
	}
	if (p->nice < -20 || p->nice > 19) {
		rts_taskset_set_error(set, "task %s: nice %d is not in -20..19", name, p->nice);
		return EINVAL;
	}
	if (p->nice && !(p->policy == RTS_POLICY_OTHER || p->policy == RTS_POLICY_BATCH)) {
		rts_taskset_set_error(set,
				      "task %s: nice is the weight of policies other and batch; "
				      "policy %s has %s: remove nice",
				      name, rts_policy_name(p->policy),
				      p->policy == RTS_POLICY_IDLE ? "the least weight whatever the nice"
								   : "a real-time priority instead");
		return EINVAL;
	}
	if (set->backend && (p->policy == RTS_POLICY_BATCH || p->policy == RTS_POLICY_IDLE || p->nice ||
			     p->slice_ns || p->dl_deadline_ns || p->dl_period_ns)) {
		rts_taskset_set_error(set,
				      "task %s: the ult backend runs every task on its SCHED_FIFO worker "
				      "threads, so a task has no kernel policy, nice, slice or "
				      "SCHED_DEADLINE reservation of its own: its background tasks are "
				      "policy other, nice 0 (below every priority); use the threads "
				      "backend for batch, idle, nice, a slice or dl_deadline_ns/dl_period_ns",
				      name);
		return EINVAL;
	}
	return 0;
}

/* What every kind is checked for: policy, nice, slice, cpuset, cgroup, stack, reservation. */
static int check_common_params(rts_taskset_t *set, const struct rts_task_params *p,
			       const char *name)
{
	switch (p->policy) {
	case RTS_POLICY_FIFO:
		if (p->priority < 1 || p->priority > 99) {
			rts_taskset_set_error(set, "task %s: SCHED_FIFO priority %d is not in 1..99",
					      name, p->priority);
			return EINVAL;
		}
		break;
	case RTS_POLICY_DEADLINE:
		if (p->dl_runtime_ns < 1024 || p->dl_runtime_ns > rts_task_dl_deadline_ns(p) ||
		    rts_task_dl_deadline_ns(p) > rts_task_dl_period_ns(p) ||
		    p->dl_deadline_ns < 0 || p->dl_period_ns < 0) {
			rts_taskset_set_error(set,
					      "task %s: SCHED_DEADLINE needs 1024 ns <= runtime (%lld) "
					      "<= deadline (%lld) <= period (%lld)%s",
					      name, (long long)p->dl_runtime_ns,
					      (long long)rts_task_dl_deadline_ns(p),
					      (long long)rts_task_dl_period_ns(p),
					      p->dl_deadline_ns || p->dl_period_ns
						      ? " (the reservation's own dl_deadline_ns, dl_period_ns "
							"where given)"
						      : "");
			return EINVAL;
		}
		break;
	case RTS_POLICY_OTHER:
	case RTS_POLICY_BATCH:
	case RTS_POLICY_IDLE:
		break;
	default:
		rts_taskset_set_error(set, "task %s: unknown policy %d", name, (int)p->policy);
		return EINVAL;
	}
	int err = check_best_effort_params(set, p, name);
	if (err)
		return err;
	if (p->cpuset && strlen(p->cpuset) >= RTS_TASK_PATH_MAX) {
		rts_taskset_set_error(set, "task %s: cpuset path too long", name);
		return EINVAL;
	}
	if (p->cgroup && (!p->cgroup[0] || strlen(p->cgroup) >= RTS_TASK_PATH_MAX)) {
		rts_taskset_set_error(set, "task %s: cgroup path empty or longer than %d characters", name,
				      RTS_TASK_PATH_MAX - 1);
		return EINVAL;
	}
	if (p->cgroup && set->backend) {
		rts_taskset_set_error(set,
				      "task %s: the ult backend runs every task on its worker threads, so a "
				      "task has no cgroup of its own; use the threads backend",
				      name);
		return EINVAL;
	}
	if (p->stack_bytes != 0 &&
	    (p->stack_bytes < RTS_TASK_STACK_MIN_BYTES || p->stack_bytes > RTS_TASK_STACK_MAX_BYTES)) {
		rts_taskset_set_error(set,
				      "task %s: stack of %zu bytes is not in %zu..%zu (0: the "
				      "backend's default)",
				      name, p->stack_bytes, RTS_TASK_STACK_MIN_BYTES,
				      RTS_TASK_STACK_MAX_BYTES);
		return EINVAL;
	}
	if (p->reservation && !set->backend) {
		rts_taskset_set_error(set,
				      "task %s: reservations are scheduled by the ult backend "
				      "(<rtsched/reservation.h>), not by kernel threads",
				      name);
		return EINVAL;
	}
	return 0;
}

/* A service (RTS_TASK_SERVICE) has no jobs: nothing of a job may be set. */
static int check_service_params(rts_taskset_t *set, const struct rts_task_params *p,
				const char *name)
{
	if (p->period_ns || p->deadline_ns || p->offset_ns || p->budget_ns ||
	    p->sporadic_max_extra_ns || p->max_jobs) {
		rts_taskset_set_error(set,
				      "task %s: a service has no jobs: period, deadline, offset, "
				      "budget, sporadic extra and max_jobs must be 0",
				      name);
		return EINVAL;
	}
	if (p->policy == RTS_POLICY_DEADLINE) {
		rts_taskset_set_error(set,
				      "task %s: a service has no period for SCHED_DEADLINE: give it "
				      "policy fifo (or other)",
				      name);
		return EINVAL;
	}
	if (p->reservation) {
		rts_taskset_set_error(set, "task %s: a service cannot run in a reservation", name);
		return EINVAL;
	}
	return check_common_params(set, p, name);
}

static int check_params(rts_taskset_t *set, const struct rts_task_params *p)
{
	const char *name = p->name ? p->name : "(unnamed)";
	if (!p->name || !p->name[0] || strlen(p->name) >= RTS_TASK_NAME_MAX) {
		rts_taskset_set_error(set, "task name must be 1..%d characters", RTS_TASK_NAME_MAX - 1);
		return EINVAL;
	}
	if (p->kind != RTS_TASK_PERIODIC && p->kind != RTS_TASK_SPORADIC &&
	    p->kind != RTS_TASK_SERVICE && p->kind != RTS_TASK_SELF_PACED &&
	    p->kind != RTS_TASK_EVENT) {
		rts_taskset_set_error(set, "task %s: kind must be periodic, sporadic, service, "
				      "self-paced or event", name);
		return EINVAL;
	}
	if (p->kind == RTS_TASK_SERVICE)
		return check_service_params(set, p, name);
	bool paced_by_others = p->kind == RTS_TASK_SELF_PACED || p->kind == RTS_TASK_EVENT;
	if ((paced_by_others ? p->period_ns < 0 : p->period_ns <= 0) || p->deadline_ns <= 0 ||
	    p->offset_ns < 0 || p->budget_ns < 0 || p->sporadic_max_extra_ns < 0) {
		rts_taskset_set_error(set,
				      "task %s: period (self-paced, event: >= 0, the least gap between "
				      "releases) and deadline must be > 0; offset, budget and "
				      "sporadic extra >= 0",
				      name);
		return EINVAL;
	}
	if (p->kind == RTS_TASK_EVENT ? p->activation_queue > RTS_TASK_ACTIVATION_QUEUE_MAX
				      : p->activation_queue != 0) {
		rts_taskset_set_error(set, "task %s: activation_queue (%u) is for event tasks, at most %u",
				      name, p->activation_queue, RTS_TASK_ACTIVATION_QUEUE_MAX);
		return EINVAL;
	}
	if (p->started_by_activation && (p->kind == RTS_TASK_EVENT || p->offset_ns)) {
		rts_taskset_set_error(set, "task %s: started_by_activation is for periodic, sporadic and "
				      "self-paced tasks, without an offset", name);
		return EINVAL;
	}
	if (p->activated_at_start && p->kind != RTS_TASK_EVENT) {
		rts_taskset_set_error(set, "task %s: activated_at_start is for event tasks", name);
		return EINVAL;
	}
	if (p->kind == RTS_TASK_EVENT && p->offset_ns && !p->activated_at_start) {
		rts_taskset_set_error(set, "task %s: an event task's jobs come with its activations: "
				      "it has no offset (unless activated_at_start)", name);
		return EINVAL;
	}
	return check_common_params(set, p, name);
}

static void free_task(rts_task_t *task)
{
	rts_activations_destroy(task);
	free(task);
}

static int append_task(rts_taskset_t *set, rts_task_t *task)
{
	if (set->n_tasks == set->capacity) {
		size_t capacity = set->capacity ? 2 * set->capacity : 8;
		rts_task_t **tasks = realloc(set->tasks, capacity * sizeof(*tasks));
		if (!tasks)
			return ENOMEM;
		set->tasks = tasks;
		set->capacity = capacity;
	}
	set->tasks[set->n_tasks++] = task;
	return 0;
}

static rts_task_t *new_task(const struct rts_task_params *params, rts_job_fn job, void *arg)
{
	rts_task_t *task = calloc(1, sizeof(*task));
	if (!task)
		return NULL;
	task->params = *params;
	snprintf(task->name, sizeof(task->name), "%s", params->name);
	task->params.name = task->name;
	if (params->cpus) {
		task->cpus = *params->cpus;
		task->params.cpus = &task->cpus;
	}
	if (params->cpuset) {
		snprintf(task->cpuset, sizeof(task->cpuset), "%s", params->cpuset);
		task->params.cpuset = task->cpuset;
	}
	if (params->cgroup) {
		snprintf(task->cgroup, sizeof(task->cgroup), "%s", params->cgroup);
		task->params.cgroup = task->cgroup;
	}
	task->job_fn = job;
	task->job_arg = arg;
	task->rng_state = params->seed ? params->seed : 0x9e3779b97f4a7c15ull;
	return task;
}

/* The task's kernel thread, with its own stack size when it asks for one
 * (rounded up to pages, and to the system's least thread stack, which is
 * 128 KiB on AArch64 where pthread_attr_setstacksize refuses less; glibc
 * keeps its guard page below it). */
static int create_thread(rts_task_t *task)
{
	size_t stack_bytes = task->params.stack_bytes;
	if (stack_bytes == 0)
		return pthread_create(&task->thread, NULL, rts_task_thread_main, task);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);
	if (err)
		return err;
	stack_bytes = (stack_bytes + page - 1) / page * page;
	long least = sysconf(_SC_THREAD_STACK_MIN);
	if (least > 0 && stack_bytes < (size_t)least)
		stack_bytes = (size_t)least;
	err = pthread_attr_setstacksize(&attr, stack_bytes);
	if (!err)
		err = pthread_create(&task->thread, &attr, rts_task_thread_main, task);
	pthread_attr_destroy(&attr);
	return err;
}

RTS_EXPORT int rts_task_create(rts_taskset_t *set, const struct rts_task_params *params,
			       rts_job_fn job, void *arg, rts_task_t **out)
{
	if (!set || !params || !job)
		return EINVAL;
	if (atomic_load(&set->released)) {
		rts_taskset_set_error(set, "tasks must be created before the release");
		return EALREADY;
	}
	int err = check_params(set, params);
	if (err)
		return err;
	rts_task_t *task = new_task(params, job, arg);
	if (!task)
		return ENOMEM;
	bool activated = params->kind == RTS_TASK_EVENT || params->started_by_activation;
	if (activated && rts_activations_init(task) != 0) {
		free(task);
		return ENOMEM;
	}
	task->set = set;
	if (set->trace) {
		err = rts_trace_stream_add(set->trace, params->trace_task_id, task->name,
					   params->period_ns, params->deadline_ns, &task->stream);
		if (err) {
			rts_taskset_set_error(set, "task %s: cannot add its trace stream: %s",
					      task->name, strerror(err));
			free_task(task);
			return err;
		}
	}
	if ((err = append_task(set, task)) != 0) {
		free_task(task);
		return err;
	}
	if (set->backend && set->backend->task_start) {
		char why[RTS_ERROR_MAX] = "";
		err = set->backend->task_start(task, rts_task_body_without_thread, why, sizeof(why));
		if (err) {
			rts_taskset_set_error(set, "%s", why);
			set->n_tasks--;
			free_task(task);
			return err;
		}
		task->thread_started = true; /* started the backend's way: task_join ends it */
		if (out)
			*out = task;
		return 0;
	}
	err = create_thread(task);
	if (err) {
		rts_taskset_set_error(set, "task %s: cannot create its thread: %s", task->name,
				      strerror(err));
		set->n_tasks--;
		free_task(task);
		return err;
	}
	task->thread_started = true;

	pthread_mutex_lock(&set->setup_lock);
	while (task->setup_state == RTS_SETUP_PENDING)
		pthread_cond_wait(&set->setup_done, &set->setup_lock);
	err = task->setup_state == RTS_SETUP_FAILED ? task->setup_error : 0;
	pthread_mutex_unlock(&set->setup_lock);
	if (err) {
		pthread_join(task->thread, NULL); /* it has reported and ends */
		set->n_tasks--; /* it is the last one: tasks are created one at a time */
		free_task(task);
		return err;
	}
	if (out)
		*out = task;
	return 0;
}

/* Who sleeps on `released` is a kernel thread whatever the set's backend: a
 * threads-backend task (job.c) or an ult worker (ult/worker.c); the threads
 * backend wakes them, whichever backend the caller runs on. */
static void wake_release_sleepers(rts_taskset_t *set)
{
	rts_backend_threads.wake(&set->released, INT_MAX, false);
}

RTS_EXPORT int rts_taskset_release(rts_taskset_t *set, int64_t t0_ns)
{
	if (!set || t0_ns <= 0)
		return EINVAL;
	if (atomic_load(&set->released))
		return EALREADY;
	atomic_store(&set->t0_ns, t0_ns);
	atomic_store_explicit(&set->released, 1, memory_order_release);
	wake_release_sleepers(set);
	return 0;
}

RTS_EXPORT int rts_taskset_stop(rts_taskset_t *set)
{
	if (!set)
		return EINVAL;
	atomic_store(&set->stopping, true);
	/* Unreleased tasks sleep on `released`: release them into an immediate stop. */
	atomic_store_explicit(&set->released, 1, memory_order_release);
	wake_release_sleepers(set);
	return 0;
}

/* Join one task, interrupting its release sleep until it notices the stop. */
static void join_task(rts_task_t *task)
{
	if (!task->thread_started || task->thread_joined)
		return;
	const struct rts_backend *backend = task->set->backend;
	if (backend && backend->task_join) {
		backend->task_join(task);
		task->thread_joined = true;
		return;
	}
	for (;;) {
		if (atomic_load(&task->set->stopping))
			pthread_kill(task->thread, RTS_WAKE_SIGNAL);
		struct timespec limit;
		clock_gettime(CLOCK_REALTIME, &limit);
		limit.tv_nsec += 20 * 1000 * 1000;
		if (limit.tv_nsec >= 1000000000) {
			limit.tv_sec++;
			limit.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(task->thread, NULL, &limit) == 0)
			break;
	}
	task->thread_joined = true;
}

RTS_EXPORT int rts_taskset_join(rts_taskset_t *set)
{
	if (!set)
		return EINVAL;
	for (size_t i = 0; i < set->n_tasks; i++)
		join_task(set->tasks[i]);
	return 0;
}

RTS_EXPORT void rts_taskset_destroy(rts_taskset_t *set)
{
	if (!set)
		return;
	rts_taskset_stop(set);
	rts_taskset_join(set);
	if (set->backend && set->backend->set_destroy)
		set->backend->set_destroy(set);
	for (size_t i = 0; i < set->n_tasks; i++) {
		if (set->tasks[i]->has_budget_timer)
			timer_delete(set->tasks[i]->budget_timer);
		free_task(set->tasks[i]);
	}
	free(set->tasks);
	pthread_mutex_destroy(&set->setup_lock);
	pthread_cond_destroy(&set->setup_done);
	free(set);
}

RTS_EXPORT int rts_task_stats(const rts_task_t *task, struct rts_task_stats *stats)
{
	if (!task || !stats)
		return EINVAL;
	*stats = task->stats;
	stats->activations_lost = task->activations.lost; /* the activators' count */
	return 0;
}

RTS_EXPORT const char *rts_task_name(const rts_task_t *task)
{
	return task ? task->name : NULL;
}

RTS_EXPORT struct rts_trace_stream *rts_task_trace_stream(const rts_task_t *task)
{
	return task ? task->stream : NULL;
}

RTS_EXPORT uint32_t rts_task_job_number(const rts_task_t *task)
{
	return task ? task->job.number : 0;
}
