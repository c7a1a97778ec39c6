/* SPDX-License-Identifier: MIT */
/*
 * Budget overrun detection: a per-thread CPU-time timer armed at each job
 * start with the job's budget, and under SCHED_DEADLINE the kernel's
 * SCHED_FLAG_DL_OVERRUN; both raise SIGXCPU on the task's own thread, whose
 * handler only sets a thread-local flag read at job completion, where the
 * job's CPU time is also compared with the budget (the signal may come a tick
 * late, after a short overrun has ended).
 *
 * A backend whose tasks are not kernel threads of their own (the ult
 * backend) has no timer here: a kernel CPU-time timer would measure the
 * worker, not the task. It measures each task's CPU time at every switch
 * (its cputime_ns), so the comparison at completion is exact and is the
 * whole check; an overrun is recorded at the same point (the job's
 * COMPLETE) as the threads backend records it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal/backend.h"
#include "internal/task.h"
#include "internal/timespec.h"

/* initial-exec, as every thread-local of the library: each access is one
 * %fs-relative instruction, so a ULT preempted and resumed on another
 * worker never uses an address computed on the first (docs/ult.md). */
static __thread volatile sig_atomic_t tls_overrun __attribute__((tls_model("initial-exec")));

static void on_overrun(int signo)
{
	(void)signo;
	tls_overrun = 1;
}

int rts_budget_install_handler(void)
{
	struct sigaction action = { .sa_handler = on_overrun, .sa_flags = SA_RESTART };
	sigemptyset(&action.sa_mask);
	return sigaction(SIGXCPU, &action, NULL) == 0 ? 0 : errno;
}

int rts_budget_timer_create(rts_task_t *task)
{
	struct sigevent event;
	memset(&event, 0, sizeof(event));
	event.sigev_notify = SIGEV_THREAD_ID;
	event.sigev_signo = SIGXCPU;
	event._sigev_un._tid = gettid(); /* sigev_notify_thread_id: glibc 2.36 lacks the macro */
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &task->budget_timer) != 0)
		return errno;
	task->has_budget_timer = true;
	return 0;
}

/*
 * Only a task on a kernel thread of its own touches tls_overrun (its timer's
 * or SCHED_FLAG_DL_OVERRUN's signal sets it). A ULT never does: the flag is its
 * worker's, and under a sanitizer an access is no longer one %fs-relative
 * instruction, so a ULT preempted between computing the address and storing
 * to it, then resumed on another worker, would store into the first worker's
 * block (ASan+UBSan caught it in test_ult_lock_stress).
 */
static bool on_own_thread(void)
{
	return !rts_backend()->cputime_ns;
}

void rts_budget_arm(rts_task_t *task)
{
	if (!on_own_thread())
		return;
	tls_overrun = 0;
	if (!task->has_budget_timer)
		return;
	struct itimerspec budget = { .it_value = rts_ns_to_timespec(task->params.budget_ns) };
	timer_settime(task->budget_timer, 0, &budget, NULL);
}

bool rts_budget_job_end(rts_task_t *task, int64_t job_cpu_ns)
{
	if (task->has_budget_timer) {
		struct itimerspec off = { 0 };
		timer_settime(task->budget_timer, 0, &off, NULL);
	}
	bool signalled = false;
	if (on_own_thread()) {
		signalled = tls_overrun;
		tls_overrun = 0;
	}
	/* The kernel checks CPU-time timers at its tick, so a short overrun can end
	 * before the signal comes: the job's measured CPU time settles it. */
	bool overran = signalled || (task->params.budget_ns > 0 && job_cpu_ns > task->params.budget_ns);
	return overran;
}
