/* SPDX-License-Identifier: MIT */
/*
 * Event-triggered tasks (RTS_TASK_EVENT): activations from other tasks, kept
 * or lost as the task's activation_queue says, and the task's wait for them.
 *
 * Invariants (under activations.lock): 0 <= pending <= capacity; the pending
 * activations are ring slots head .. head + pending - 1 (mod capacity);
 * with activation_queue 0 an activation is kept only while the task waits
 * and none is pending, so at most one is, and one that arrives while a job
 * runs is lost, as rt-app's signal to a thread not waiting on its condition
 * variable is. `pending` is stored with release order after its slot is
 * written, and the task blocks on it through its backend (a wake after the
 * store is never lost: the backend's compare and sleep are one step).
 * A task started_by_activation keeps its first activation, whenever it
 * comes (its thread may not wait yet), and loses every later one.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <rtsched/task.h>
#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/clock.h"
#include "internal/export.h"
#include "internal/pi_word.h"
#include "internal/task.h"
#include "internal/tid.h"
#include "internal/trace.h"

int rts_activations_init(rts_task_t *task)
{
	struct rts_activations *a = &task->activations;
	a->capacity = task->params.activation_queue ? task->params.activation_queue : 1;
	a->times_ns = calloc(a->capacity, sizeof(*a->times_ns));
	a->by = calloc(a->capacity, sizeof(*a->by));
	if (!a->times_ns || !a->by) {
		rts_activations_destroy(task);
		return ENOMEM;
	}
	return 0;
}

void rts_activations_destroy(rts_task_t *task)
{
	free(task->activations.times_ns);
	free(task->activations.by);
	task->activations.times_ns = NULL;
	task->activations.by = NULL;
}

/* The calling thread's task in `set`, NULL: a thread that is none of its tasks. */
static rts_task_t *activator_of(const rts_taskset_t *set)
{
	uint32_t self = rts_self_tid();
	for (size_t i = 0; i < set->n_tasks; i++)
		if (atomic_load_explicit(&set->tasks[i]->self_id, memory_order_relaxed) == self)
			return set->tasks[i];
	return NULL;
}

/* RELEASE's arg0 for a job that `activator` released (trace.h). */
static uint32_t activation_cause(const rts_task_t *activator)
{
	uint32_t by = activator && activator->params.trace_task_id >= 0
			      ? (uint32_t)activator->params.trace_task_id + 1 : 0;
	return RTS_RELEASE_ACTIVATION | by << RTS_RELEASE_BY_SHIFT;
}

RTS_EXPORT int rts_task_activate(rts_task_t *task)
{
	if (!task || (task->params.kind != RTS_TASK_EVENT && !task->params.started_by_activation))
		return EINVAL;
	const struct rts_backend *backend = rts_backend();
	if (task->set->backend && backend != task->set->backend)
		return EPERM;
	int64_t now = rts_monotonic_now_ns();
	rts_task_t *activator = activator_of(task->set);
	struct rts_activations *a = &task->activations;
	rts_pi_lock(&a->lock, false);
	uint32_t pending = atomic_load_explicit(&a->pending, memory_order_relaxed);
	bool keep = task->params.started_by_activation ? !a->started /* its start, waiting yet or not */
		  : task->params.activation_queue   ? pending < a->capacity
						    : a->waiting && pending == 0;
	a->started = a->started || (keep && task->params.started_by_activation);
	bool wakes = keep && pending == 0 && a->waiting;
	if (wakes && backend->job_release_at) /* ordered by this release before it is woken */
		backend->job_release_at(task, now);
	if (keep) {
		uint32_t slot = (a->head + pending) % a->capacity;
		a->times_ns[slot] = now;
		a->by[slot] = activation_cause(activator);
		atomic_store_explicit(&a->pending, pending + 1, memory_order_release);
	} else {
		a->lost++;
	}
	rts_pi_unlock(&a->lock, false);
	if (activator && activator->stream) /* its own stream: the calling thread is its writer */
		rts_trace_event_at(activator->stream, now, RTS_EV_ACTIVATE, activator->job.number,
				   (uint32_t)task->params.trace_task_id, keep);
	if (!keep)
		return EAGAIN;
	backend->wake(&a->pending, 1, false);
	return 0;
}

static bool stopping(const rts_task_t *task)
{
	return atomic_load_explicit(&task->set->stopping, memory_order_relaxed);
}

static void set_waiting(struct rts_activations *a, bool waiting)
{
	rts_pi_lock(&a->lock, false);
	a->waiting = waiting;
	rts_pi_unlock(&a->lock, false);
}

bool rts_activation_wait(rts_task_t *task, int64_t *release_ns, uint32_t *cause)
{
	struct rts_activations *a = &task->activations;
	set_waiting(a, true);
	while (atomic_load_explicit(&a->pending, memory_order_acquire) == 0) {
		if (stopping(task)) {
			set_waiting(a, false);
			return false;
		}
		/* 0, -EAGAIN (an activation came first), -EINTR (the stop's wake signal) */
		rts_backend()->block(&a->pending, 0, NULL, CLOCK_MONOTONIC, false);
	}
	rts_pi_lock(&a->lock, false);
	*release_ns = a->times_ns[a->head];
	*cause = a->by[a->head];
	a->head = (a->head + 1) % a->capacity;
	atomic_store_explicit(&a->pending, atomic_load_explicit(&a->pending, memory_order_relaxed) - 1,
			      memory_order_relaxed);
	a->waiting = false;
	rts_pi_unlock(&a->lock, false);
	if (rts_backend()->job_release_at) /* a queued activation's time orders this job too */
		rts_backend()->job_release_at(task, *release_ns);
	return !stopping(task);
}
