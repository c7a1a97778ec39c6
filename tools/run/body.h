/* SPDX-License-Identifier: MIT */
/*
 * Synthetic job bodies: the actions of docs/runner-input.md run on real
 * rts_mutex / rts_cond objects, each traced.
 */
#ifndef RTSCHED_RUN_BODY_H
#define RTSCHED_RUN_BODY_H

#include <stdatomic.h>
#include <stdbool.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>
#include <rtsched/task.h>

#include "prem.h"
#include "servers.h"
#include "spec.h"
#include "writes.h"

/* A condvar of the run; `pending` and `waiting` are guarded by its mutex. */
struct run_condvar_state {
	rts_cond_t cond;
	uint32_t pending; /* signals not yet taken by a waiter */
	uint32_t waiting; /* jobs inside a wait action */
};

struct run_world {
	const struct run_spec *spec;
	rts_mutex_t *mutexes;               /* one per spec resource */
	struct run_condvar_state *condvars; /* one per spec condvar */
	struct run_server_state *servers;   /* one per spec server (set up by main.c) */
	rts_task_t **tasks;                 /* one per spec task, for activate actions (main.c) */
	atomic_bool stopping;               /* the run is ending: abandon blocking actions */
	struct prem_gate gate;              /* PREM: peripherals wait while an interval is in its memory phase */
};

struct run_task_context {
	struct run_world *world;
	const struct run_task *task;
	bool *held; /* per resource: held by this task's current job */
	bool level_declared; /* the task's lock_level was declared on its thread */
	struct run_prem_memory prem; /* the buffers of its prem actions, or its peripheral buffer */
	struct run_writes writes;    /* the write buffer and devices of its memwrite / iowrite actions */
};

/* 0 or a positive errno (with a message on stderr). */
int run_world_init(struct run_world *world, const struct run_spec *spec);
void run_world_destroy(struct run_world *world);
/* Wake every job blocked in a wait or call action so the run can end. */
void run_world_stop(struct run_world *world);
/* Whether blocked jobs (and servers) poll world->stopping instead of being
 * woken by run_world_stop: under the ult backend, whose waiters are ULTs that
 * a kernel thread's futex calls cannot reach (docs/ult.md). */
bool run_world_waits_poll_for_stop(const struct run_world *world);

/* The rts_job_fn of every task; arg is a struct run_task_context. */
void run_job_body(rts_task_t *task, const struct rts_job *job, void *arg);

#endif
