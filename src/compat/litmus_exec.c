/* SPDX-License-Identifier: MIT */
/*
 * A task that execs stays the task, as under LITMUS^RT (liblitmus's
 * rt_launch: set_rt_task_param, task_mode, exec PROGRAM).
 *
 * The kernel keeps the thread's scheduling policy, affinity and cpuset
 * across exec, so any program runs under the task's SCHED_FIFO priority or
 * SCHED_DEADLINE reservation. The task's -llitmus state (parameters, plugin,
 * job number and release) lives in the process and would be lost: the exec
 * functions are interposed (-llitmus is loaded before libc) and a real-time
 * caller passes it to the new image in the environment variable
 * RTSCHED_LITMUS_EXEC (any other caller's environment loses the variable).
 * The new image's -llitmus takes it up at load if it names this process
 * (pid and start time, which exec keeps) and the thread still has the
 * plugin's policy with reset-on-fork (so a child's exec, or one after
 * task_mode(BACKGROUND_TASK), is no task). A program without -llitmus just
 * runs under the kernel policy.
 *
 * The process leaves the release word's object and its lock tables at exec
 * as at a normal exit (the new image joins again what it uses), so nothing
 * stays in /dev/shm. Lock descriptors are not carried: the new image opens
 * its locks again.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "litmus_internal.h"
#include "litmus_ts_object.h"
#include "litmus_users.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#define KERNEL_SCHED_DEADLINE 6

#define EXEC_VAR "RTSCHED_LITMUS_EXEC"
#define EXEC_VAR_LEN (sizeof(EXEC_VAR) - 1)
#define EXEC_ENTRY_MAX 400
#define EXEC_FIELDS 16

extern char **environ;

static bool is_exec_var(const char *entry)
{
	return strncmp(entry, EXEC_VAR "=", EXEC_VAR_LEN + 1) == 0;
}

/* "RTSCHED_LITMUS_EXEC=..." for the real-time caller; false if it is none. */
static bool format_state(char *buf, size_t size)
{
	const struct litmus_thread *self = litmus_self();
	if (!self->rt)
		return false;
	const struct rt_task *p = &self->params;
	struct litmus_user me = litmus_user_self();
	int n = snprintf(buf, size,
			 EXEC_VAR "=%d %" PRIu64 " %d %u %" PRId64 " %llu %llu %llu %llu %u %u %d %d "
				  "%d %d %d",
			 (int)me.pid, me.start_ticks, (int)self->plugin, self->job_no,
			 self->release_ns, (unsigned long long)p->exec_cost,
			 (unsigned long long)p->period, (unsigned long long)p->relative_deadline,
			 (unsigned long long)p->phase, p->cpu, p->priority, (int)p->cls,
			 (int)p->budget_policy, (int)p->release_policy, self->saved_policy,
			 self->saved_param.sched_priority);
	return n > 0 && (size_t)n < size;
}

static size_t env_count(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* out (n + 2 entries): envp without the variable, plus state when given. */
static char **carried_env(char *const envp[], char **out, char *state)
{
	size_t k = 0;
	for (size_t i = 0; envp && envp[i]; i++)
		if (!is_exec_var(envp[i]))
			out[k++] = envp[i];
	if (state)
		out[k++] = state;
	out[k] = NULL;
	return out;
}

/*
 * Run exec(envp') where envp' is envp carrying the caller's state. On the
 * stack only: a vfork child may call exec (malloc is not safe there).
 */
#define WITH_CARRIED_ENV(envp, new_env, call)                                                  \
	do {                                                                                    \
		char state_[EXEC_ENTRY_MAX];                                                    \
		char *new_env[env_count(envp) + 2];                                              \
		carried_env(envp, new_env, format_state(state_, sizeof(state_)) ? state_ : NULL); \
		litmus_ts_leave_for_exec();                                                     \
		litmus_locks_leave_for_exec();                                                  \
		return call;                                                                    \
	} while (0)

LITMUS_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	WITH_CARRIED_ENV(envp, env, (int)syscall(SYS_execve, path, argv, env));
}

LITMUS_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	WITH_CARRIED_ENV(envp, env, (int)syscall(SYS_execveat, fd, "", argv, env, AT_EMPTY_PATH));
}

LITMUS_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*libc_execvpe)(const char *, char *const[], char *const[]) =
		(int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	if (!libc_execvpe) {
		errno = ENOSYS;
		return -1;
	}
	WITH_CARRIED_ENV(envp, env, libc_execvpe(file, argv, env));
}

LITMUS_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

LITMUS_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The argument list of execl* (arg0 ... NULL) as an argv of n + 1 entries. */
#define VA_ARGV(arg0, last_named, argv)                                                 \
	size_t argc_ = 1;                                                               \
	va_list ap_;                                                                    \
	va_start(ap_, last_named);                                                      \
	while (va_arg(ap_, const char *))                                               \
		argc_++;                                                                \
	va_end(ap_);                                                                    \
	char *argv[argc_ + 1];                                                          \
	argv[0] = (char *)(arg0);                                                       \
	va_start(ap_, last_named);                                                      \
	for (size_t i_ = 1; i_ <= argc_; i_++)                                          \
		argv[i_] = va_arg(ap_, char *);                                         \

LITMUS_EXPORT int execl(const char *path, const char *arg, ...)
{
	VA_ARGV(arg, arg, argv);
	va_end(ap_);
	return execve(path, argv, environ);
}

LITMUS_EXPORT int execlp(const char *file, const char *arg, ...)
{
	VA_ARGV(arg, arg, argv);
	va_end(ap_);
	return execvpe(file, argv, environ);
}

LITMUS_EXPORT int execle(const char *path, const char *arg, ...)
{
	VA_ARGV(arg, arg, argv);
	char *const *envp = va_arg(ap_, char *const *);
	va_end(ap_);
	return execve(path, argv, envp);
}

/* The new image: take the task up if the variable names this process and its policy held. */
__attribute__((constructor)) static void take_up_exec_state(void)
{
	const char *v = getenv(EXEC_VAR);
	if (!v)
		return;
	long long f[EXEC_FIELDS];
	int n = 0;
	for (char *end; n < EXEC_FIELDS; n++, v = end) {
		f[n] = strtoll(v, &end, 10);
		if (end == v)
			break;
	}
	struct litmus_user me = litmus_user_self();
	if (n != EXEC_FIELDS || f[0] != (long long)me.pid || (uint64_t)f[1] != me.start_ticks)
		return;
	enum litmus_plugin plugin = (enum litmus_plugin)f[2];
	int want = plugin == LITMUS_PLUGIN_PFP ? SCHED_FIFO : KERNEL_SCHED_DEADLINE;
	if (plugin == LITMUS_PLUGIN_LINUX || plugin > LITMUS_PLUGIN_CEDF ||
	    syscall(SYS_sched_getscheduler, 0) != (want | SCHED_RESET_ON_FORK))
		return;
	struct rt_task p = { .exec_cost = (lt_t)f[5], .period = (lt_t)f[6],
			     .relative_deadline = (lt_t)f[7], .phase = (lt_t)f[8],
			     .cpu = (unsigned int)f[9], .priority = (unsigned int)f[10],
			     .cls = (task_class_t)f[11], .budget_policy = (budget_policy_t)f[12],
			     .release_policy = (release_policy_t)f[13] };
	litmus_task_adopt(&p, plugin, (unsigned int)f[3], (int64_t)f[4], (int)f[14], (int)f[15]);
}
