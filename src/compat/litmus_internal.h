/* SPDX-License-Identifier: MIT */
/*
 * What the files of -llitmus share (<litmus.h> is the public side):
 *   litmus_state.c     the calling thread's real-time state, errors, params table
 *   litmus_clock.c     clocks
 *   litmus_plugin.c    the active plugin, from the environment or its file, and its domains
 *   litmus_clusters.c  domains per plugin, C-EDF's clusters (shared with litmus-setsched)
 *   litmus_params.c    rt_task validation and the sporadic_* helpers
 *   litmus_trace.c     rtsched traces of the tasks (RTSCHED_LITMUS_TRACE)
 *   litmus_task.c      task_mode, jobs, sleep_next_period
 *   litmus_release.c   synchronous release (a shared-memory futex word)
 *   litmus_migration.c domains and CPUs
 *   litmus_lock.c      locks named by (file, id) on rtsched ceiling mutexes
 *   litmus_ts_object.c the release word's shared object, and the admissions in it
 *   litmus_admission.c set_rt_task_param / sched_setscheduler(SCHED_LITMUS) for threads
 *                      of other processes, sched_getscheduler
 *   litmus_exec.c      a task's state carried across exec (rt_launch)
 *   litmus_kernel.c    LITMUS^RT kernel features a stock kernel lacks (refused with the reason)
 *   litmus_life.c      init_litmus / exit_litmus
 * Layers, each calling only the layers before it (no file calls back into
 * one that uses it): {clusters, state, clock} {plugin, params, trace} {migration, task}
 * {ts_object, lock} {release, admission, exec} {kernel, life}.
 */
#ifndef RTSCHED_COMPAT_LITMUS_INTERNAL_H
#define RTSCHED_COMPAT_LITMUS_INTERNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "litmus.h"

#define LITMUS_EXPORT __attribute__((visibility("default")))

enum litmus_plugin {
	LITMUS_PLUGIN_LINUX = 0, /* no real-time plugin: task_mode refuses */
	LITMUS_PLUGIN_PFP,
	LITMUS_PLUGIN_PSN_EDF,
	LITMUS_PLUGIN_GSN_EDF,
	LITMUS_PLUGIN_CEDF,      /* clusters of CPUs, G-EDF inside each (litmus_clusters.h) */
};

/*
 * The calling thread as a LITMUS task. Only the thread itself reads or
 * writes it (thread-local). Invariant: rt implies params valid for plugin,
 * job_no >= 1 and release_ns the nominal release of job job_no.
 */
struct rts_trace;
struct rts_trace_stream;

struct litmus_thread {
	bool rt;
	enum litmus_plugin plugin;
	struct rt_task params;
	unsigned int job_no;
	int64_t release_ns;      /* of the current job */
	int64_t job_cpu_start_ns; /* the thread's CPU time when the job began */
	int level;               /* its level for lock ceilings (SCHED_FIFO priority, or EDF level) */
	struct rts_trace *trace;        /* RTSCHED_LITMUS_TRACE: this task's session, else NULL */
	struct rts_trace_stream *stream;
	unsigned int trace_ended_job; /* the last job whose COMPLETE is traced */
	struct control_page *ctrl;    /* get_ctrl_page's page (litmus_kernel.c), else NULL */
	/* Restored by task_mode(BACKGROUND_TASK). */
	int saved_policy;
	struct sched_param saved_param;
	cpu_set_t saved_cpus;
};

struct litmus_thread *litmus_self(void);

/* Set errno = err and the thread's message; returns -1 (the liblitmus failure value). */
int litmus_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clear the thread's message after a success. */
void litmus_ok(void);

/* Parameters stored per TID by set_rt_task_param (this process's threads). */
int litmus_params_store(pid_t tid, const struct rt_task *params);
bool litmus_params_load(pid_t tid, struct rt_task *params);
void litmus_params_forget(pid_t tid);

/* The plugin named by the environment or the plugin file; -1 and errno if unreadable. */
int litmus_plugin_current(enum litmus_plugin *plugin);
/* The same, and its argument in SPEC (C-EDF's clusters, "" for the others). */
int litmus_plugin_current_spec(enum litmus_plugin *plugin, char *spec, size_t len);
/* The current plugin and its domains; -1 via litmus_fail (bad clusters, unreadable file). */
struct litmus_domain_map;
int litmus_domains_current(enum litmus_plugin *plugin, struct litmus_domain_map *map);
int litmus_plugin_parse(const char *name, enum litmus_plugin *plugin);
const char *litmus_plugin_name(enum litmus_plugin plugin);

/* Validate params as LITMUS's kernel does (0, or -1 via litmus_fail). */
int litmus_params_check(const struct rt_task *params);
/*
 * The TID pid names for fn (0: the caller): 0 a thread of this process, 1
 * a thread of another process of the user (or any, for root), -1 via
 * litmus_fail (EINVAL, ESRCH, EPERM: another user's).
 */
int litmus_tid_resolve(pid_t pid, const char *fn, pid_t *tid);
/* Copy the caller's rt_task in (EINVAL for NULL) or out, EFAULT for a bad pointer: 0 or -1. */
int litmus_params_read(const struct rt_task *user_param, struct rt_task *copy, const char *fn);
int litmus_params_write(struct rt_task *user_param, const struct rt_task *found, const char *fn);
/* set_rt_task_param for a thread of this process (checked params): 0, or -1 (EBUSY, ENOMEM). */
int litmus_params_set_own(pid_t tid, const struct rt_task *param);

/* CLOCK_MONOTONIC / thread CPU time, ns. */
int64_t litmus_now_ns(void);
int64_t litmus_thread_cpu_ns(void);
/* Sleep to an absolute CLOCK_MONOTONIC time (restarting after signals). */
void litmus_sleep_until_ns(int64_t when_ns);

/*
 * Set by litmus_admission.c: the calling thread, not a task, takes up the
 * real-time mode another process asked for it (0: none, or it is a task
 * now; -1 via litmus_fail: refused). A pointer, as the admission layer sits
 * above the task layer that calls it.
 */
extern int (*litmus_take_up_admission)(void);

/*
 * The calling thread, which an exec left under its task's kernel policy,
 * becomes that task again (litmus_exec.c): params, plugin, the current job
 * and its release, and what task_mode(BACKGROUND_TASK) restores.
 */
void litmus_task_adopt(const struct rt_task *params, enum litmus_plugin plugin,
		       unsigned int job_no, int64_t release_ns, int saved_policy, int saved_priority);

/* Write the current job (release, deadline, number) to the caller's control page, if it has one. */
void litmus_ctrl_page_update(struct litmus_thread *self);

/* Release the next job of the real-time caller at release_ns, sleep until then, pass the lock gate. */
void litmus_job_begin(struct litmus_thread *self, int64_t release_ns);

/*
 * Tracing (litmus_trace.c), with RTSCHED_LITMUS_TRACE=DIR: each real-time
 * task writes DIR/litmus-PID-TID.rtst. Open: 0, or -1 via litmus_fail. The
 * job hooks do nothing without a session.
 */
#define LITMUS_TRACE_COST_MARKER 0x4c54 /* MARKER arg0: arg1 is the task's exec_cost (ns) */
int litmus_trace_open(struct litmus_thread *self);
void litmus_trace_job_end(struct litmus_thread *self);     /* COMPLETE (+ DEADLINE_MISS), once a job */
void litmus_trace_job_release(struct litmus_thread *self); /* RELEASE at its nominal time */
void litmus_trace_job_start(struct litmus_thread *self);   /* START */
void litmus_trace_close(struct litmus_thread *self);       /* TASK_EXIT, then the file */

/* Close every lock object of the process (exit_litmus). */
void litmus_locks_close_all(void);
/* Leave every lock table at an exec, as at a normal exit (the tables stay mapped). */
void litmus_locks_leave_for_exec(void);
/* Unmap the synchronous-release object; the last process removes it (exit_litmus). */
void litmus_release_close(void);

#endif
