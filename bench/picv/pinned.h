/* SPDX-License-Identifier: MIT */
/* What the PI-CV benchmark's parts share: threads pinned to the measured CPU, and the clock. */
#ifndef RTSCHED_BENCH_PINNED_H
#define RTSCHED_BENCH_PINNED_H

#include <pthread.h> /* the includer defines _GNU_SOURCE first (affinity) */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Start fn(arg) on `cpu`, SCHED_FIFO at prio when fifo (else SCHED_OTHER); 0 or an error number. */
static inline int start_pinned_thread(pthread_t *t, void *(*fn)(void *), void *arg, int prio,
				      bool fifo, int cpu)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (fifo) {
		struct sched_param sp = { .sched_priority = prio };
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	int err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

#endif
