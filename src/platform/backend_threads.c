/* SPDX-License-Identifier: MIT */
/*
 * The threads backend: every task is a kernel thread; blocking, waking and
 * priority inheritance are the kernel's futexes and rt_mutexes, a task's
 * identity its TID, interrupting it a signal, its priority sched_setattr.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "internal/backend.h"
#include "internal/tid.h"
#include "internal/timespec.h"
#include "internal/wake_signal.h"

static int threads_block(rts_futex_word *word, uint32_t expected, const struct timespec *deadline,
			 clockid_t clock, bool pshared)
{
	return rts_futex_wait_until(word, expected, deadline, clock, pshared);
}

static int threads_wake(rts_futex_word *word, int count, bool pshared)
{
	return rts_futex_wake(word, count, pshared);
}

/* FUTEX_LOCK_PI2 exists from Linux 5.14; probed on first use, the answer cached. */
static atomic_bool lock_pi2_missing;

static int lock_pi_realtime_fallback(rts_futex_word *word, const struct timespec *deadline_mono,
				     bool pshared)
{
	if (!deadline_mono)
		return rts_futex_lock_pi(word, NULL, pshared);
	struct timespec deadline_real = rts_timespec_convert(deadline_mono, CLOCK_MONOTONIC, CLOCK_REALTIME);
	return rts_futex_lock_pi(word, &deadline_real, pshared);
}

static int threads_pi_block(rts_futex_word *word, const struct timespec *deadline_mono,
			    bool pshared)
{
	if (!atomic_load_explicit(&lock_pi2_missing, memory_order_relaxed)) {
		int ret = rts_futex_lock_pi2(word, deadline_mono, pshared);
		if (ret != -ENOSYS)
			return ret;
		atomic_store_explicit(&lock_pi2_missing, true, memory_order_relaxed);
	}
	return lock_pi_realtime_fallback(word, deadline_mono, pshared);
}

static int threads_pi_wake(rts_futex_word *word, bool pshared)
{
	return rts_futex_unlock_pi(word, pshared);
}

static int threads_cond_block(rts_futex_word *cond, uint32_t expected,
			      const struct timespec *deadline, clockid_t clock,
			      rts_futex_word *mutex, bool pshared)
{
	return rts_futex_wait_requeue_pi(cond, expected, deadline, clock, mutex, pshared);
}

static int threads_cond_requeue(rts_futex_word *cond, uint32_t expected, int nr_requeue,
				rts_futex_word *mutex, bool pshared)
{
	return rts_futex_cmp_requeue_pi(cond, expected, nr_requeue, mutex, pshared);
}

/* Join the task's cpuset, set its affinity and policy; a refusal is explained with the task's name. */
static int threads_task_admit(const struct rts_task_params *p, char *why, size_t why_len)
{
	const struct rts_sched_params sched = {
		.policy = p->policy,
		.priority = p->priority,
		.nice = p->nice,
		.dl_runtime_ns = (uint64_t)p->dl_runtime_ns,
		.dl_deadline_ns = (uint64_t)rts_task_dl_deadline_ns(p),
		.dl_period_ns = (uint64_t)rts_task_dl_period_ns(p),
		/* budget.c counts a job's overruns; the runtime of a reservation of the
		 * thread's own (dl_deadline_ns, dl_period_ns) is not a job's */
		.dl_overrun_signal = !p->dl_deadline_ns && !p->dl_period_ns,
		.slice_ns = (uint64_t)p->slice_ns,
	};
	char reason[512];
	int err = 0;
	if (p->cpuset)
		err = rts_cpuset_join_self(p->cpuset, reason, sizeof(reason));
	if (!err && p->cgroup)
		err = rts_cpuset_join_self(p->cgroup, reason, sizeof(reason));
	if (!err && p->cpus)
		err = rts_affinity_set_self(p->cpus, reason, sizeof(reason));
	if (!err)
		err = rts_sched_apply_self(&sched, reason, sizeof(reason));
	if (err)
		snprintf(why, why_len, "task %s: %s", p->name, reason);
	return err;
}

static int threads_sleep_until(int64_t time_ns)
{
	struct timespec until = rts_ns_to_timespec(time_ns);
	return -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
}

static uint32_t threads_self_id(void)
{
	return rts_self_tid();
}

static bool threads_task_exists(uint32_t tid)
{
	return syscall(SYS_tgkill, getpid(), (pid_t)tid, 0) == 0;
}

/* The wake signal: its handler leaves a PI wait by siglongjmp (internal/wake_signal.h). */
static int threads_interrupt(uint32_t tid)
{
	return syscall(SYS_tgkill, getpid(), (pid_t)tid, RTS_WAKE_SIGNAL) == 0 ? 0 : -errno;
}

static int threads_get_attr(uint32_t tid, struct rts_sched_attr *attr)
{
	return rts_sched_getattr((pid_t)tid, attr);
}

static int threads_set_attr(uint32_t tid, const struct rts_sched_attr *attr)
{
	struct rts_sched_attr copy = *attr; /* the kernel's call takes it writable */
	return rts_sched_setattr((pid_t)tid, &copy);
}

static int threads_current_cpu(void)
{
	return rts_kernel_cpu();
}

const struct rts_backend rts_backend_threads = {
	.name = "threads",
	.block = threads_block,
	.wake = threads_wake,
	.pi_block = threads_pi_block,
	.pi_wake = threads_pi_wake,
	.cond_block = threads_cond_block,
	.cond_requeue = threads_cond_requeue,
	.task_admit = threads_task_admit,
	.sleep_until = threads_sleep_until,
	.self_id = threads_self_id,
	.task_exists = threads_task_exists,
	.interrupt = threads_interrupt,
	.get_attr = threads_get_attr,
	.set_attr = threads_set_attr,
	.current_cpu = threads_current_cpu,
};
