/* SPDX-License-Identifier: MIT */
#include "threads.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsc.h"

#define THREAD_STACK   (256 * 1024)
#define START_ATTEMPTS 5

static void *thread_body(void *p)
{
	struct lb_thread *t = p;
	t->fn(t->arg);
	/*
	 * Leave real time before exiting: a thread's exit path may spin on a
	 * lock (ThreadSanitizer's runtime does, with sched_yield) that a
	 * lower-priority thread of the same CPU holds while exiting too, and a
	 * SCHED_FIFO spinner never lets it run (seen: a livelock at the end of
	 * a workload run under TSan).
	 */
	struct sched_param other = { .sched_priority = 0 };
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	sem_post(&t->done);
	return NULL;
}

int lb_thread_start(struct lb_thread **out, void *(*fn)(void *), void *arg, int policy,
		    int priority, int cpu)
{
	struct lb_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	t->fn = fn;
	t->arg = arg;
	sem_init(&t->done, 0, 0);
	pthread_attr_t attr;
	int ret = pthread_attr_init(&attr);
	if (ret) {
		free(t);
		return ret;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO ? priority : 0 };
	if ((ret = pthread_attr_setstacksize(&attr, THREAD_STACK)) == 0 &&
	    (ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set)) == 0 &&
	    (ret = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED)) == 0 &&
	    (ret = pthread_attr_setschedpolicy(&attr, policy)) == 0 &&
	    (ret = pthread_attr_setschedparam(&attr, &sp)) == 0) {
		/* EINVAL / EAGAIN can be passing: another program changing
		 * cpusets or CPUs. A few tries, 10 ms apart. */
		for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
			ret = pthread_create(&t->id, &attr, thread_body, t);
			if (ret != EINVAL && ret != EAGAIN)
				break;
			struct timespec pause = { .tv_sec = 0, .tv_nsec = 10000000L };
			clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, NULL);
		}
	}
	pthread_attr_destroy(&attr);
	if (ret) {
		sem_destroy(&t->done);
		free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int lb_thread_join_within(struct lb_thread *t)
{
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += LB_PHASE_TIMEOUT_S;
	int ret;
	while ((ret = sem_clockwait(&t->done, CLOCK_MONOTONIC, &deadline)) != 0 && errno == EINTR)
		;
	if (ret != 0)
		return errno;
	pthread_join(t->id, NULL);
	sem_destroy(&t->done);
	free(t);
	return 0;
}

bool lb_breathe(struct lb_breather *b)
{
	uint64_t now = lb_tsc();
	if (now - b->last < b->every_cycles)
		return false;
	struct timespec pause = { .tv_sec = 0, .tv_nsec = LB_BREATHE_MS * 1000000L };
	clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, NULL);
	b->last = lb_tsc();
	return true;
}

uint64_t *lb_samples_alloc(size_t n)
{
	uint64_t *p = calloc(n ? n : 1, sizeof(uint64_t));
	if (p)
		memset(p, 0xff, n * sizeof(uint64_t));
	return p;
}
