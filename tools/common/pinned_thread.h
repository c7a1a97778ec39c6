/* SPDX-License-Identifier: MIT */
/*
 * Starting a thread pinned to one CPU under SCHED_FIFO: what every benchmark,
 * tool and test that measures on a real-time CPU does. Header only (see
 * clock_ns.h). The includer defines _GNU_SOURCE before any include (affinity).
 */
#ifndef RTSCHED_TOOLS_PINNED_THREAD_H
#define RTSCHED_TOOLS_PINNED_THREAD_H

#include <pthread.h>
#include <sched.h>

/*
 * Start fn(arg) as *thread: SCHED_FIFO at fifo_priority (0: the creator's
 * policy and priority, inherited), on cpu alone (-1: any CPU). 0 or an error number:
 * EPERM when the process may not use SCHED_FIFO (no CAP_SYS_NICE, and
 * RLIMIT_RTPRIO below the priority), EINVAL for a CPU outside the process's
 * cpuset.
 */
static inline int pinned_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, int fifo_priority,
				      int cpu)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);
	if (err)
		return err;
	if (fifo_priority > 0) {
		struct sched_param sp = { .sched_priority = fifo_priority };
		if (!(err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED)) &&
		    !(err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO)))
			err = pthread_attr_setschedparam(&attr, &sp);
	}
	if (!err && cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (!err)
		err = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

#endif
