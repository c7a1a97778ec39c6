/* SPDX-License-Identifier: MIT */
/*
 * A thread of another process made a LITMUS task, as LITMUS^RT lets a
 * parent do (liblitmus's tests core_api.c; its rt_launch): set_rt_task_param
 * with the thread's TID, then sched_setscheduler(TID, SCHED_LITMUS).
 *
 * LITMUS^RT's kernel applies that at once. Here a task's state lives in its
 * own process, so the parameters and the request wait in the user's shared
 * object (litmus_ts_object.h: admissions, keyed by TID and start time) and
 * the thread takes the request up itself, through task_mode, at its next
 * sched_getscheduler or sleep_next_period (the calls with which a LITMUS
 * task finds out, or relies on, being one). sched_getscheduler answers
 * SCHED_LITMUS for the caller once it is a task, and for another process's
 * thread once it has been requested: the parent sees what it asked for, as
 * under LITMUS^RT.
 *
 * sched_setscheduler and sched_getscheduler are interposed (-llitmus is
 * loaded before libc): every other policy, and every other thread, goes
 * to the kernel unchanged, as glibc's wrappers send it.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "litmus_internal.h"
#include "litmus_ts_object.h"

static int kernel_getscheduler(pid_t pid)
{
	return (int)syscall(SYS_sched_getscheduler, pid);
}

static int kernel_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	return (int)syscall(SYS_sched_setscheduler, pid, policy, param);
}

/* The live entry of thread tid (same TID and start time), or NULL. Under the flock. */
static struct litmus_admission *entry_of(struct litmus_ts *ts, pid_t tid)
{
	for (int i = 0; i < LITMUS_ADMISSIONS_MAX; i++) {
		struct litmus_admission *e = &ts->admissions[i];
		if (e->thread.pid == (int32_t)tid && litmus_user_alive(&e->thread))
			return e;
	}
	return NULL;
}

struct request {
	pid_t tid;
	struct rt_task params;
};

static int set_locked(struct litmus_ts *ts, void *arg)
{
	struct request *r = arg;
	struct litmus_admission *e = entry_of(ts, r->tid);
	if (e && e->state >= LITMUS_ADMISSION_REQUESTED)
		return litmus_fail(EBUSY, "set_rt_task_param: thread %d is a real-time task already",
				   (int)r->tid);
	for (int i = 0; i < LITMUS_ADMISSIONS_MAX && !e; i++) {
		struct litmus_admission *free_entry = &ts->admissions[i];
		if (free_entry->thread.pid <= 0 || !litmus_user_alive(&free_entry->thread))
			e = free_entry;
	}
	if (!e)
		return litmus_fail(ENOMEM, "set_rt_task_param: %d threads of other processes have "
					   "parameters already",
				   LITMUS_ADMISSIONS_MAX);
	e->thread = litmus_user_of(r->tid);
	e->params = r->params;
	e->state = LITMUS_ADMISSION_PARAMS;
	return 0;
}

static int get_locked(struct litmus_ts *ts, void *arg)
{
	struct request *r = arg;
	struct litmus_admission *e = entry_of(ts, r->tid);
	if (!e)
		return litmus_fail(EINVAL, "get_rt_task_param: thread %d has no parameters",
				   (int)r->tid);
	r->params = e->params;
	return 0;
}

static int request_locked(struct litmus_ts *ts, void *arg)
{
	struct request *r = arg;
	struct litmus_admission *e = entry_of(ts, r->tid);
	if (!e)
		return litmus_fail(EINVAL, "sched_setscheduler(%d, SCHED_LITMUS): no parameters; "
					   "set_rt_task_param first",
				   (int)r->tid);
	if (e->state == LITMUS_ADMISSION_PARAMS)
		e->state = LITMUS_ADMISSION_REQUESTED;
	return 0;
}

/* The caller's request, if any: REQUESTED -> ADMITTED with its parameters (1), else 0. */
static int claim_locked(struct litmus_ts *ts, void *arg)
{
	struct request *r = arg;
	struct litmus_admission *e = entry_of(ts, r->tid);
	if (!e || e->state != LITMUS_ADMISSION_REQUESTED)
		return 0;
	e->state = LITMUS_ADMISSION_ADMITTED;
	r->params = e->params;
	return 1;
}

/* The caller is no task (any more, or task_mode refused it): back to its parameters alone. */
static int unclaim_locked(struct litmus_ts *ts, void *arg)
{
	struct request *r = arg;
	struct litmus_admission *e = entry_of(ts, r->tid);
	if (e && e->state == LITMUS_ADMISSION_ADMITTED)
		e->state = LITMUS_ADMISSION_PARAMS;
	return 0;
}

/*
 * The state of live thread tid's entry, read without the flock (words that
 * change under it: an answer read during a change is one call late).
 */
static uint32_t state_of(struct litmus_ts *ts, pid_t tid)
{
	for (int i = 0; i < LITMUS_ADMISSIONS_MAX; i++) {
		struct litmus_admission *e = &ts->admissions[i];
		struct litmus_user thread = { .pid = __atomic_load_n(&e->thread.pid, __ATOMIC_ACQUIRE),
					      .start_ticks = __atomic_load_n(&e->thread.start_ticks,
									     __ATOMIC_ACQUIRE) };
		if (thread.pid == (int32_t)tid && litmus_user_alive(&thread))
			return __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
	}
	return LITMUS_ADMISSION_FREE;
}

/*
 * The caller (not a task) takes up a request another process left for it:
 * 0 (none, or it is a task now), or -1 via litmus_fail (task_mode refused).
 */
static int take_up(void)
{
	struct litmus_ts *ts = litmus_ts_find();
	struct request r = { .tid = gettid() };
	if (!ts)
		return 0;
	uint32_t state = state_of(ts, r.tid);
	if (state == LITMUS_ADMISSION_ADMITTED) /* it left real-time mode since */
		litmus_ts_locked(unclaim_locked, &r);
	if (state != LITMUS_ADMISSION_REQUESTED || litmus_ts_locked(claim_locked, &r) != 1)
		return 0;
	if (litmus_params_store(r.tid, &r.params) == 0 && task_mode(LITMUS_RT_TASK) == 0)
		return 0;
	int err = errno;
	char why[320];
	snprintf(why, sizeof(why), "%s", litmus_last_error());
	litmus_ts_locked(unclaim_locked, &r);
	return litmus_fail(err, "the real-time mode another process asked for: %s", why);
}

__attribute__((constructor)) static void take_up_hook(void)
{
	litmus_take_up_admission = take_up;
}

static int foreign_params_set(pid_t tid, const struct rt_task *params)
{
	struct request r = { .tid = tid, .params = *params };
	if (litmus_ts_locked(set_locked, &r) != 0)
		return -1;
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int set_rt_task_param(pid_t pid, struct rt_task *user_param)
{
	pid_t tid;
	struct rt_task p;
	if (litmus_params_read(user_param, &p, "set_rt_task_param") != 0)
		return -1;
	int where = litmus_tid_resolve(pid, "set_rt_task_param", &tid);
	if (where < 0 || litmus_params_check(&p) != 0)
		return -1;
	return where == 0 ? litmus_params_set_own(tid, &p) : foreign_params_set(tid, &p);
}

LITMUS_EXPORT int get_rt_task_param(pid_t pid, struct rt_task *param)
{
	pid_t tid;
	if (!param)
		return litmus_fail(EINVAL, "get_rt_task_param: NULL parameters");
	int where = litmus_tid_resolve(pid, "get_rt_task_param", &tid);
	if (where < 0)
		return -1;
	struct request r = { .tid = tid };
	if (where == 0 && !litmus_params_load(tid, &r.params))
		return litmus_fail(EINVAL, "get_rt_task_param: thread %d has no parameters",
				   (int)tid);
	if (where == 1 && litmus_ts_locked(get_locked, &r) != 0)
		return -1;
	if (litmus_params_write(param, &r.params, "get_rt_task_param") != 0)
		return -1;
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	if (policy != SCHED_LITMUS)
		return kernel_setscheduler(pid, policy, param);
	pid_t tid;
	enum litmus_plugin plugin;
	int where = litmus_tid_resolve(pid, "sched_setscheduler(SCHED_LITMUS)", &tid);
	if (where < 0 || litmus_plugin_current(&plugin) != 0)
		return -1;
	if (where == 0 && tid == gettid())
		return task_mode(LITMUS_RT_TASK); /* what liblitmus's task_mode asks the kernel */
	if (where == 0)
		return litmus_fail(EINVAL, "sched_setscheduler(%d, SCHED_LITMUS): a thread of this "
					   "process becomes a task by its own task_mode",
				   (int)tid);
	if (plugin == LITMUS_PLUGIN_LINUX)
		return litmus_fail(EINVAL, "sched_setscheduler(%d, SCHED_LITMUS): the active plugin "
					   "is Linux (none); run litmus-setsched",
				   (int)tid);
	struct request r = { .tid = tid };
	if (litmus_ts_locked(request_locked, &r) != 0)
		return -1;
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int sched_getscheduler(pid_t pid)
{
	pid_t tid = pid == 0 ? gettid() : pid;
	if (tid == gettid()) {
		if (!litmus_self()->rt && take_up() != 0)
			return -1;
		if (litmus_self()->rt)
			return SCHED_LITMUS;
	} else if (pid > 0) {
		struct litmus_ts *ts = litmus_ts_find();
		if (ts && state_of(ts, tid) >= LITMUS_ADMISSION_REQUESTED)
			return SCHED_LITMUS;
	}
	return kernel_getscheduler(pid);
}
