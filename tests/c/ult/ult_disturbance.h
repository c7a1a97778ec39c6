/* SPDX-License-Identifier: MIT */
/*
 * What the machine took from a run: the ways a real-time thread loses wall
 * time that its code cannot see.
 *
 *  - The host's steal, counted: a virtual CPU stopped by the hypervisor
 *    (/proc/stat's steal column, all CPUs). It moves in ticks of 10 ms, so a
 *    steal of a few milliseconds often leaves it unchanged.
 *  - The host's steal, seen by the running tasks: on a kernel with
 *    paravirtual steal accounting (CONFIG_PARAVIRT_TIME_ACCOUNTING, this
 *    VM's) a thread's CPU time leaves out what the host took while it ran,
 *    to the nanosecond. So the wall time the tasks ran in the trace (from a
 *    START or RESUME to the PREEMPT or COMPLETE after it; an interval with a
 *    block or a sleep in it is left out) minus the workers' CPU time (which
 *    also holds the scheduler's own work) is at most the steal while they ran.
 *  - Run-queue wait: the process's real-time threads runnable but not
 *    running (/proc/self/task/TID/schedstat, second field, in ns). On a
 *    kernel that does not preempt its own code (CONFIG_PREEMPT_NONE, this
 *    VM's default), a woken real-time thread waits for the running process's
 *    next preemption point: milliseconds seen with no steal at all. The
 *    scenarios' workers are pinned one per CPU, so their wait is never each
 *    other's; non-real-time threads (the test's own) are left out, since the
 *    workers keep them waiting.
 *
 * A timing check that fails after a run the machine disturbed (counted steal
 * over 1 % of the run, or 1 ms or more of steal seen by the tasks or of
 * run-queue wait) skips with the figures: it cannot blame the code.
 */
#ifndef RTSCHED_TESTS_ULT_DISTURBANCE_H
#define RTSCHED_TESTS_ULT_DISTURBANCE_H

#include <dirent.h>

#include "harness.h"

#define SC_MAX_THREADS 128
#define SC_DISTURBANCE_LIMIT_NS (1000 * 1000LL)

/* One moment's figures: the steal so far and each thread's CPU time and run-queue wait so far. */
struct sc_machine_sample {
	int64_t stolen_ns;
	int n;
	pid_t tid[SC_MAX_THREADS];
	int64_t ran_ns[SC_MAX_THREADS], waited_ns[SC_MAX_THREADS];
};

/* The host's steal of all CPUs so far, in ns; 0 when unreadable. */
static int64_t sc_stolen_ns(void)
{
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	long long v[8] = { 0 };
	int got = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
			 &v[5], &v[6], &v[7]);
	fclose(f);
	return got == 8 ? v[7] * (1000000000LL / sysconf(_SC_CLK_TCK)) : 0;
}

/* Thread tid's CPU time and run-queue wait so far, in ns; false when unreadable (the thread has gone). */
static bool sc_thread_schedstat(pid_t tid, int64_t *ran_ns, int64_t *waited_ns)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	long long ran, waited;
	int got = fscanf(f, "%lld %lld", &ran, &waited);
	fclose(f);
	*ran_ns = ran, *waited_ns = waited;
	return got == 2;
}

static void sc_sample_machine(struct sc_machine_sample *s)
{
	s->stolen_ns = sc_stolen_ns();
	s->n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) && s->n < SC_MAX_THREADS;) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid > 0 && sc_thread_schedstat(tid, &s->ran_ns[s->n], &s->waited_ns[s->n]))
			s->tid[s->n++] = tid;
	}
	closedir(d);
}

static bool sc_is_real_time(pid_t tid)
{
	int policy = sched_getscheduler(tid);
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == 6 /* SCHED_DEADLINE */;
}

/* The last run's length, what the machine took during it, and its real-time threads' CPU time
 * (sc_note_disturbance); the wall time its tasks ran in the trace (sc_note_tasks_ran). */
static int64_t sc_run_length_ns, sc_run_stolen_ns, sc_run_waited_ns, sc_run_cpu_ns, sc_run_tasks_ran_ns;

/* After a run that began at `before` and lasted length_ns; its threads must still be alive. */
static void sc_note_disturbance(const struct sc_machine_sample *before, int64_t length_ns)
{
	struct sc_machine_sample after;
	sc_sample_machine(&after);
	sc_run_stolen_ns = after.stolen_ns - before->stolen_ns;
	sc_run_waited_ns = sc_run_cpu_ns = sc_run_tasks_ran_ns = 0;
	for (int i = 0; i < after.n; i++) {
		if (!sc_is_real_time(after.tid[i]))
			continue;
		int64_t ran_from = 0, waited_from = 0; /* a thread made during the run: all it shows */
		for (int j = 0; j < before->n; j++)
			if (before->tid[j] == after.tid[i])
				ran_from = before->ran_ns[j], waited_from = before->waited_ns[j];
		sc_run_cpu_ns += after.ran_ns[i] - ran_from;
		sc_run_waited_ns += after.waited_ns[i] - waited_from;
	}
	sc_run_length_ns = length_ns;
}

/* The steal the running tasks saw (at least; 0 when their threads' CPU time covers their wall time). */
static int64_t sc_run_stolen_while_running_ns(void)
{
	return sc_run_tasks_ran_ns > sc_run_cpu_ns ? sc_run_tasks_ran_ns - sc_run_cpu_ns : 0;
}

static void sc_note_tasks_ran(int64_t tasks_ran_ns)
{
	sc_run_tasks_ran_ns = tasks_ran_ns;
	H_LOG("machine: %.1f ms stolen (counted), %.3f ms stolen while the tasks ran (%.3f ms ran, %.3f ms of CPU "
	      "time), %.3f ms of run-queue wait, in a %.0f ms run", (double)sc_run_stolen_ns / 1e6,
	      (double)sc_run_stolen_while_running_ns() / 1e6, (double)tasks_ran_ns / 1e6, (double)sc_run_cpu_ns / 1e6,
	      (double)sc_run_waited_ns / 1e6, (double)sc_run_length_ns / 1e6);
}

__attribute__((unused)) static void sc_skip_if_disturbed(const char *what)
{
	if (sc_run_stolen_ns * 100 > sc_run_length_ns)
		SKIP("the host stole %.1f ms of the CPUs in the %.0f ms run (steal in /proc/stat: in the "
		     "trace's wall time, not in the tasks' CPU time): %s",
		     (double)sc_run_stolen_ns / 1e6, (double)sc_run_length_ns / 1e6, what);
	if (sc_run_stolen_while_running_ns() >= SC_DISTURBANCE_LIMIT_NS)
		SKIP("the host stole %.2f ms from the tasks while they ran in the %.0f ms run (their wall time in "
		     "the trace minus their threads' CPU time, which leaves steal out): %s",
		     (double)sc_run_stolen_while_running_ns() / 1e6, (double)sc_run_length_ns / 1e6, what);
	if (sc_run_waited_ns >= SC_DISTURBANCE_LIMIT_NS)
		SKIP("the real-time threads waited %.2f ms in all for their CPUs in the %.0f ms run "
		     "(run-queue wait in schedstat: another process held the CPU): %s",
		     (double)sc_run_waited_ns / 1e6, (double)sc_run_length_ns / 1e6, what);
}

/* A timing check (a budget, a deadline, an order that wall time decides): skips on a disturbed run when it fails. */
#define SC_CHECK_TIMING(cond, ...)                                     \
	do {                                                           \
		if (!(cond)) {                                         \
			char sc_failed_[256];                          \
			snprintf(sc_failed_, sizeof sc_failed_, __VA_ARGS__); \
			sc_skip_if_disturbed(sc_failed_);              \
		}                                                      \
		CHECK_MSG(cond, __VA_ARGS__);                          \
	} while (0)

#endif
