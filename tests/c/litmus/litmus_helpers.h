/* SPDX-License-Identifier: MIT */
/* Helpers of the liblitmus tests (on top of harness.h). */
#ifndef RTSCHED_TESTS_LITMUS_HELPERS_H
#define RTSCHED_TESTS_LITMUS_HELPERS_H

#include "harness.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <litmus.h>

/* liblitmus's style: -1 and errno, with litmus_last_error() in the message. */
#define LCHECK_OK(expr)                                                                   \
	do {                                                                              \
		int l_ret_ = (expr);                                                      \
		if (l_ret_ < 0)                                                           \
			FAIL("%s -> %d (%s): %s", #expr, l_ret_, h_errname(errno),        \
			     litmus_last_error());                                        \
	} while (0)
#define LCHECK_FAILS(expected, expr)                                                      \
	do {                                                                              \
		errno = 0;                                                                \
		int l_ret_ = (expr);                                                      \
		if (l_ret_ >= 0 || errno != (expected))                                   \
			FAIL("%s -> %d, errno %s (expected -1, %s)", #expr, l_ret_,       \
			     h_errname(errno), #expected);                                \
		H_LOG("%s: %s", #expr, litmus_last_error());                             \
	} while (0)

/* A plugin for this case only (the forked child's environment). */
static inline void use_plugin(const char *name)
{
	CHECK_SYS(setenv("RTSCHED_LITMUS_PLUGIN", name, 1));
}

/* A per-process synchronous-release object, so that cases never meet. */
static inline void use_private_ts(char *name, size_t len)
{
	snprintf(name, len, "rtsched-litmus-ts-test.%d", (int)getpid());
	CHECK_SYS(setenv("RTSCHED_LITMUS_TS_NAME", name, 1));
}

static inline void unlink_ts(const char *name)
{
	char shm[160];
	snprintf(shm, sizeof(shm), "/%s", name);
	shm_unlink(shm);
}

/*
 * A lock name-space file. unlink_namespace removes it; its shared objects go
 * with their last user (exit_litmus, or the process's normal exit).
 */
static inline int make_namespace(char *path, size_t len)
{
	snprintf(path, len, "/tmp/rtsched-litmus-locks.XXXXXX");
	int fd = mkstemp(path);
	CHECK_SYS(fd);
	return fd;
}

static inline void unlink_namespace(const char *path, int fd)
{
	close(fd);
	unlink(path);
}

/* A P-FP task on cpu at LITMUS priority prio with period period_ns, 1/10 of it as WCET. */
static inline void become_pfp_task(int cpu, unsigned prio, lt_t period_ns)
{
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = period_ns / 10;
	p.period = period_ns;
	p.cpu = (unsigned)cpu;
	p.priority = prio;
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	LCHECK_OK(task_mode(LITMUS_RT_TASK));
}

/* Process pid's exit status 0 within ms milliseconds, or the case fails (and pid is killed). */
static inline void expect_exit_0_within(pid_t pid, int ms, const char *what)
{
	int status;
	for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited++) {
		if (waited >= ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			FAIL("%s: not done within %d ms", what, ms);
		}
		usleep(1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("%s: status 0x%x", what, status);
}

#endif
