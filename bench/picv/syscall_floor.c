/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "syscall_floor.h"

#include "clock_ns.h"
#include "pinned_thread.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (glibc 2.36 declares none). */
struct kernel_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

struct floor_run {
	int cpu, measurer_prio, helper_prio, calls;
	bool fifo;
	atomic_int sleeper_tid;
	atomic_int release; /* the sleeper ends when set */
	struct syscall_floor result;
	int err;
};

static void *sleeper_main(void *arg)
{
	struct floor_run *f = arg;
	atomic_store(&f->sleeper_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&f->release)) /* asleep, as a waiting helper is */
		syscall(SYS_futex, &f->release, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

static void *measurer_main(void *arg)
{
	struct floor_run *f = arg;
	pid_t tid = atomic_load(&f->sleeper_tid);
	struct kernel_sched_attr now = { .size = sizeof(now) };
	struct kernel_sched_attr raised = { .size = sizeof(raised), .sched_policy = SCHED_FIFO,
					    .sched_priority = (uint32_t)f->measurer_prio };
	struct kernel_sched_attr base = { .size = sizeof(base),
					  .sched_policy = f->fifo ? SCHED_FIFO : SCHED_OTHER,
					  .sched_priority = f->fifo ? (uint32_t)f->helper_prio : 0 };
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < f->calls; i++)
		if (syscall(SYS_sched_getattr, tid, &now, sizeof(now), 0) != 0)
			f->err = errno;
	int64_t t1 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < f->calls && f->fifo; i++)
		if (syscall(SYS_sched_setattr, tid, &raised, 0) != 0 ||
		    syscall(SYS_sched_setattr, tid, &base, 0) != 0)
			f->err = errno;
	int64_t t2 = clock_ns(CLOCK_MONOTONIC);
	f->result.getattr_ns = (double)(t1 - t0) / f->calls;
	f->result.setattr_ns = f->fifo ? (double)(t2 - t1) / (2.0 * f->calls) : 0;
	return NULL;
}

int measure_syscall_floor(int cpu, bool fifo, int measurer_prio, int helper_prio, int calls,
			  struct syscall_floor *out)
{
	struct floor_run f = { .cpu = cpu, .measurer_prio = measurer_prio,
			       .helper_prio = helper_prio, .calls = calls, .fifo = fifo };
	pthread_t sleeper, measurer;
	int err = pinned_thread_start(&sleeper, sleeper_main, &f, fifo ? helper_prio : 0, cpu);
	if (err)
		return err;
	struct timespec ms = { .tv_nsec = 1000000 };
	while (atomic_load(&f.sleeper_tid) == 0)
		nanosleep(&ms, NULL);
	err = pinned_thread_start(&measurer, measurer_main, &f, fifo ? measurer_prio : 0, cpu);
	if (!err)
		pthread_join(measurer, NULL);
	atomic_store(&f.release, 1);
	syscall(SYS_futex, &f.release, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(sleeper, NULL);
	if (err)
		return err;
	*out = f.result;
	return f.err;
}
