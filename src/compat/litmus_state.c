/* SPDX-License-Identifier: MIT */
/* The calling thread's LITMUS state, its last error, and the per-TID parameter table. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "litmus_internal.h"

#define LITMUS_ERROR_MAX 320
#define LITMUS_PARAMS_MAX 256 /* threads of one process with parameters at once */

static _Thread_local struct litmus_thread self_state;
int (*litmus_take_up_admission)(void);
static _Thread_local char last_error[LITMUS_ERROR_MAX];

struct litmus_thread *litmus_self(void)
{
	return &self_state;
}

/*
 * LITMUS^RT: the child of a real-time task is not one (the kernel already
 * gave it SCHED_OTHER: reset-on-fork). Its copy of the forking thread's state
 * is cleared, the trace session included (it stays the parent's).
 */
static void self_fork_child(void)
{
	struct control_page *ctrl = self_state.ctrl; /* the child's own copy of the page */
	memset(&self_state, 0, sizeof(self_state));
	self_state.ctrl = ctrl;
	litmus_ctrl_page_update(&self_state);
}

void litmus_ctrl_page_update(struct litmus_thread *self)
{
	if (!self->ctrl)
		return;
	lt_t deadline = self->params.relative_deadline ? self->params.relative_deadline
						       : self->params.period;
	self->ctrl->release = self->rt ? (lt_t)self->release_ns : 0;
	self->ctrl->deadline = self->rt ? (lt_t)self->release_ns + deadline : 0;
	self->ctrl->job_index = self->rt ? self->job_no : 0;
}

__attribute__((constructor)) static void self_fork_handler(void)
{
	pthread_atfork(NULL, NULL, self_fork_child);
}

int litmus_fail(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

void litmus_ok(void)
{
	last_error[0] = '\0';
}

LITMUS_EXPORT const char *litmus_last_error(void)
{
	return last_error;
}

/* Slot i is free when tid[i] == 0. Guarded by table_lock (never on a job's path). */
static struct {
	pthread_mutex_t lock;
	pid_t tid[LITMUS_PARAMS_MAX];
	struct rt_task params[LITMUS_PARAMS_MAX];
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

int litmus_params_store(pid_t tid, const struct rt_task *params)
{
	int free_slot = -1, slot = -1;
	pthread_mutex_lock(&table.lock);
	for (int i = 0; i < LITMUS_PARAMS_MAX && slot < 0; i++) {
		if (table.tid[i] == tid)
			slot = i;
		else if (table.tid[i] == 0 && free_slot < 0)
			free_slot = i;
	}
	if (slot < 0)
		slot = free_slot;
	if (slot >= 0) {
		table.tid[slot] = tid;
		table.params[slot] = *params;
	}
	pthread_mutex_unlock(&table.lock);
	if (slot < 0)
		return litmus_fail(ENOMEM, "set_rt_task_param: parameters of %d threads are "
					   "already stored in this process",
				   LITMUS_PARAMS_MAX);
	return 0;
}

bool litmus_params_load(pid_t tid, struct rt_task *params)
{
	bool found = false;
	pthread_mutex_lock(&table.lock);
	for (int i = 0; i < LITMUS_PARAMS_MAX && !found; i++) {
		if (table.tid[i] == tid) {
			*params = table.params[i];
			found = true;
		}
	}
	pthread_mutex_unlock(&table.lock);
	return found;
}

void litmus_params_forget(pid_t tid)
{
	pthread_mutex_lock(&table.lock);
	for (int i = 0; i < LITMUS_PARAMS_MAX; i++)
		if (table.tid[i] == tid)
			table.tid[i] = 0;
	pthread_mutex_unlock(&table.lock);
}
