/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rtsched/sched.h>
#include <rtsched/trace.h>

#include "body.h"
#include "busy.h"
#include "clock_ns.h"

/* Blocking actions wake up this often to notice the end of the run. */
#define STOP_POLL_NS (100 * 1000 * 1000)

static struct timespec monotonic_in(int64_t ns)
{
	int64_t at = clock_ns(CLOCK_MONOTONIC) + ns;
	struct timespec ts = ns_timespec(at);
	return ts;
}

static bool stopping(const struct run_world *world)
{
	return atomic_load_explicit(&world->stopping, memory_order_relaxed);
}

static void trace(rts_task_t *task, uint16_t type, uint32_t arg0, int64_t arg1)
{
	struct rts_trace_stream *stream = rts_task_trace_stream(task);
	if (stream)
		rts_trace_event(stream, type, rts_task_job_number(task), arg0, arg1);
}

static bool is_ceiling_protocol(enum rts_protocol protocol)
{
	return protocol == RTS_PROTO_PCP || protocol == RTS_PROTO_SRP || protocol == RTS_PROTO_IPCP ||
	       protocol == RTS_PROTO_MPCP || protocol == RTS_PROTO_FMLP;
}

/* A resource's mutex with its protocol's attributes (docs/runner-input.md). */
static int init_mutex(rts_mutex_t *mutex, const struct run_resource *resource)
{
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	int err = rts_mutexattr_setprotocol(&attr, resource->protocol);
	if (!err && is_ceiling_protocol(resource->protocol)) {
		err = rts_mutexattr_setvariant(&attr, resource->variant);
		/* 0: no ceiling (FMLP+ deferred); rts_mutex_init refuses it elsewhere. */
		if (!err && resource->ceiling > 0)
			err = rts_mutexattr_setceiling(&attr, resource->ceiling);
		if (!err && resource->partition_cpu >= 0)
			err = rts_mutexattr_setpartition(&attr, resource->partition_cpu);
	}
	if (!err)
		err = rts_mutex_init(mutex, &attr);
	rts_mutexattr_destroy(&attr);
	return err;
}

int run_world_init(struct run_world *world, const struct run_spec *spec)
{
	memset(world, 0, sizeof(*world));
	world->spec = spec;
	world->mutexes = calloc(spec->n_resources ? spec->n_resources : 1, sizeof(rts_mutex_t));
	world->condvars = calloc(spec->n_condvars ? spec->n_condvars : 1,
				 sizeof(struct run_condvar_state));
	world->servers = calloc(spec->n_servers ? spec->n_servers : 1,
				sizeof(struct run_server_state));
	if (!world->mutexes || !world->condvars || !world->servers)
		return ENOMEM;
	for (size_t i = 0; i < spec->n_resources; i++) {
		int err = init_mutex(&world->mutexes[i], &spec->resources[i]);
		if (err) {
			fprintf(stderr, "rtsched-run: resources[%zu] (%s): %s\n", i,
				spec->resources[i].name, strerror(err));
			return err;
		}
	}
	for (size_t i = 0; i < spec->n_condvars; i++)
		rts_cond_init(&world->condvars[i].cond, NULL);
	return 0;
}

void run_world_destroy(struct run_world *world)
{
	free(world->mutexes);
	free(world->condvars);
	free(world->servers);
	memset(world, 0, sizeof(*world));
}

bool run_world_waits_poll_for_stop(const struct run_world *world)
{
	return strcmp(world->spec->backend, "threads") != 0;
}

/*
 * Wake every waiter of condvar i so that it sees the stop. A FIFO mutex's
 * condvar may be signalled only by the mutex's holder (EPERM otherwise), so
 * for it the mutex is tried, never waited for: its holder may itself wait
 * for something the stop has not ended yet. The caller repeats until the
 * tasks are joined (stop_and_join), so a busy mutex is only a later round.
 */
static void wake_for_stop(struct run_world *world, size_t i)
{
	if (run_world_waits_poll_for_stop(world))
		return;
	uint32_t m = world->spec->condvars[i].mutex;
	if (world->spec->resources[m].protocol != RTS_PROTO_FIFO) {
		rts_cond_broadcast(&world->condvars[i].cond);
		return;
	}
	if (rts_mutex_trylock(&world->mutexes[m]) == 0) {
		rts_cond_broadcast(&world->condvars[i].cond);
		rts_mutex_unlock(&world->mutexes[m]);
	}
}

void run_world_stop(struct run_world *world)
{
	atomic_store(&world->stopping, true);
	for (size_t i = 0; i < world->spec->n_condvars; i++)
		wake_for_stop(world, i);
	run_servers_shutdown(world->servers, world->spec->n_servers);
}

/*
 * Ceiling protocols have no timed lock (ENOTSUP), and a FIFO mutex's waiter
 * that timed out would queue again at the tail (losing its place): their
 * requests wait without a deadline. They still end when the run stops: a
 * holder of a ceiling lock never waits on a condition variable (the model
 * refuses ceiling mutexes for condvars), and a holder of a FIFO mutex that
 * waits on one returns from it at the stop (its waits poll for the stop), so
 * each reaches its unlock, or gives its locks back on the way out.
 */
static int lock_once(rts_mutex_t *mutex, enum rts_protocol protocol)
{
	if (is_ceiling_protocol(protocol) || protocol == RTS_PROTO_FIFO)
		return rts_mutex_lock(mutex);
	struct timespec deadline = monotonic_in(STOP_POLL_NS);
	return rts_mutex_timedlock(mutex, &deadline);
}

static bool lock(struct run_task_context *context, rts_task_t *task, uint32_t resource)
{
	rts_mutex_t *mutex = &context->world->mutexes[resource];
	enum rts_protocol protocol = context->world->spec->resources[resource].protocol;
	trace(task, RTS_EV_LOCK_REQUEST, resource, 0);
	for (;;) {
		int err = lock_once(mutex, protocol);
		if (err == 0) {
			trace(task, RTS_EV_LOCK_ACQUIRE, resource, 0);
			context->held[resource] = true;
			return true;
		}
		if (err != ETIMEDOUT) {
			fprintf(stderr, "rtsched-run: task %s: lock %s: %s\n", context->task->name,
				context->world->spec->resources[resource].name, strerror(err));
			return false;
		}
		if (stopping(context->world))
			return false;
	}
}

static void unlock(struct run_task_context *context, rts_task_t *task, uint32_t resource)
{
	trace(task, RTS_EV_LOCK_RELEASE, resource, 0);
	context->held[resource] = false;
	rts_mutex_unlock(&context->world->mutexes[resource]);
}

/* With the condvar's mutex held: take one pending signal, waiting for it if needed. */
static bool wait(struct run_task_context *context, rts_task_t *task, uint32_t index)
{
	struct run_world *world = context->world;
	struct run_condvar_state *cv = &world->condvars[index];
	rts_mutex_t *mutex = &world->mutexes[world->spec->condvars[index].mutex];
	trace(task, RTS_EV_COND_WAIT, index, 0);
	cv->waiting++;
	while (cv->pending == 0 && !stopping(world)) {
		if (run_world_waits_poll_for_stop(world)) {
			struct timespec deadline = monotonic_in(STOP_POLL_NS);
			rts_cond_timedwait(&cv->cond, mutex, &deadline);
		} else {
			rts_cond_wait(&cv->cond, mutex);
		}
	}
	cv->waiting--;
	if (cv->pending == 0)
		return false;
	cv->pending--;
	trace(task, RTS_EV_COND_WAKE, index, 0);
	return true;
}

static void signal_condvar(struct run_world *world, rts_task_t *task, uint32_t index, bool all)
{
	struct run_condvar_state *cv = &world->condvars[index];
	trace(task, all ? RTS_EV_COND_BROADCAST : RTS_EV_COND_SIGNAL, index, 0);
	if (all) {
		cv->pending += cv->waiting;
		rts_cond_broadcast(&cv->cond);
	} else {
		cv->pending++;
		rts_cond_signal(&cv->cond);
	}
}

/* Through the task's backend: under ult only this task sleeps, not its worker. */
static bool sleep_for(const struct run_world *world, rts_task_t *task, int64_t ns)
{
	trace(task, RTS_EV_SLEEP, 0, ns);
	int64_t until_ns = clock_ns(CLOCK_MONOTONIC) + ns;
	while (rts_task_sleep_until(until_ns) == EINTR)
		if (stopping(world))
			return false;
	return true;
}

/* Queue a request for the server and wait for its reply; false when the run ends meanwhile. */
static bool call(struct run_task_context *context, rts_task_t *task, const struct run_action *action)
{
	struct run_world *world = context->world;
	struct run_call request = {
		.service_ns = action->ns,
		.client = (uint32_t)(context->task - world->spec->tasks),
		.job = rts_task_job_number(task),
	};
	trace(task, RTS_EV_RPC_CALL, action->index, action->ns);
	int err = run_server_call(&world->servers[action->index], &request);
	if (err) {
		if (err != ESHUTDOWN)
			fprintf(stderr, "rtsched-run: task %s: call %s: %s\n", context->task->name,
				world->spec->servers[action->index].name, strerror(err));
		return false;
	}
	trace(task, RTS_EV_RPC_REPLY, action->index, 0);
	return true;
}

/* The first buffer of prem action body[index] in the task's PREM memory. */
static size_t first_buffer(const struct run_task *spec, size_t index)
{
	size_t first = 0;
	for (size_t a = 0; a < index; a++)
		if (spec->body[a].op == RUN_OP_PREM)
			first += spec->body[a].n_buffers;
	return first;
}

/* A compute's CPU time in job `job` (from 1): its own per-job value, or ns for every job. */
static int64_t compute_ns(const struct run_action *action, uint32_t job)
{
	if (action->n_per_job == 0)
		return action->ns;
	return action->per_job_ns[(job - 1) % action->n_per_job];
}

/* A lost activation (EAGAIN) is the model's (the task's activation_queue), not an error. */
static bool activate(struct run_task_context *context, const struct run_action *action)
{
	int err = rts_task_activate(context->world->tasks[action->index]);
	if (err && err != EAGAIN) {
		fprintf(stderr, "rtsched-run: task %s: activate %s: %s\n", context->task->name,
			context->world->spec->tasks[action->index].name, strerror(err));
		return false;
	}
	return true;
}

/* The thread's CPUs from here on (rt-app's per-phase cpus): the kernel moves it at once, so the
 * events after this one are recorded on one of the new CPUs. */
static bool set_affinity(struct run_task_context *context, const struct run_action *action)
{
	char why[160];
	if (rts_affinity_set_self(&action->cpus, why, sizeof(why)) == 0)
		return true;
	fprintf(stderr, "rtsched-run: task %s: affinity: %s\n", context->task->name, why);
	return false;
}

/* The thread's policy from here on (rt-app's per-phase policy and priority): the kernel applies it at
 * once. */
static bool set_sched(struct run_task_context *context, const struct run_action *action)
{
	char why[256];
	if (rts_sched_apply_self(&action->sched, why, sizeof(why)) == 0)
		return true;
	fprintf(stderr, "rtsched-run: task %s: sched: %s\n", context->task->name, why);
	return false;
}

/* The thread's cpu cgroup from here on (rt-app's per-phase taskgroup). */
static bool join_taskgroup(struct run_task_context *context, const struct run_action *action)
{
	char why[256];
	if (rts_cpuset_join_self(action->taskgroup, why, sizeof(why)) == 0)
		return true;
	fprintf(stderr, "rtsched-run: task %s: taskgroup: %s\n", context->task->name, why);
	return false;
}

static bool run_action(struct run_task_context *context, rts_task_t *task, uint32_t job, size_t index)
{
	const struct run_action *action = &context->task->body[index];
	switch (action->op) {
	case RUN_OP_COMPUTE:
		if (context->task->peripheral_buffer_bytes)
			run_peripheral_compute(task, &context->prem, compute_ns(action, job),
					       &context->world->gate, &context->world->stopping);
		else
			run_busy_ns(compute_ns(action, job));
		return true;
	case RUN_OP_PREM:
		if (run_prem_interval(task, context->task, index, &context->prem,
				      first_buffer(context->task, index), &context->world->gate))
			return true;
		fprintf(stderr, "rtsched-run: task %s: prem: cannot change its priority: %s\n",
			context->task->name, strerror(errno));
		return false;
	case RUN_OP_LOCK:
		return lock(context, task, action->index);
	case RUN_OP_UNLOCK:
		unlock(context, task, action->index);
		return true;
	case RUN_OP_WAIT:
		return wait(context, task, action->index);
	case RUN_OP_SIGNAL:
	case RUN_OP_BROADCAST:
		signal_condvar(context->world, task, action->index, action->op == RUN_OP_BROADCAST);
		return true;
	case RUN_OP_SLEEP:
		return sleep_for(context->world, task, action->ns);
	case RUN_OP_ACTIVATE:
		return activate(context, action);
	case RUN_OP_AFFINITY:
		return set_affinity(context, action);
	case RUN_OP_SCHED:
		return set_sched(context, action);
	case RUN_OP_TASKGROUP:
		return join_taskgroup(context, action);
	case RUN_OP_CALL:
		return call(context, task, action);
	case RUN_OP_MEMWRITE:
		run_memwrite(context->writes.buffer, action->chunk_bytes, action->write_bytes,
			     (uint8_t)rts_task_job_number(task));
		return true;
	case RUN_OP_IOWRITE:
		run_iowrite_action(&context->writes, context->task, index);
		return true;
	}
	return false;
}

/*
 * An SRP preemption level (EDF tasks) is declared on the task's own thread,
 * which the runner first reaches in its first job: rts_job_next has already
 * passed the gate for that job with the thread's undeclared level, so the
 * job passes it again once the level is known. Later jobs are gated by
 * rts_job_next with the declared level.
 */
static bool declare_level(struct run_task_context *context)
{
	int err = rts_lock_set_self_level(context->task->lock_level);
	if (!err)
		err = rts_lock_gate();
	if (err) {
		fprintf(stderr, "rtsched-run: task %s: lock level %d: %s\n", context->task->name,
			context->task->lock_level, strerror(err));
		return false;
	}
	context->level_declared = true;
	return true;
}

void run_job_body(rts_task_t *task, const struct rts_job *job, void *arg)
{
	struct run_task_context *context = arg;
	const struct run_task *spec = context->task;
	if (spec->lock_level > 0 && !context->level_declared && !declare_level(context))
		return;
	for (size_t i = 0; i < spec->body_len; i++) {
		if (!run_action(context, task, job->number, i)) {
			/* The run is ending (or a lock failed): give back what the job holds. */
			for (size_t r = context->world->spec->n_resources; r-- > 0;)
				if (context->held[r])
					unlock(context, task, (uint32_t)r);
			return;
		}
	}
}
