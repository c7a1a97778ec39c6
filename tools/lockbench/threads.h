/* SPDX-License-Identifier: MIT */
/*
 * Benchmark threads: created with explicit attributes (policy, priority, one
 * CPU, small stack), joined with a deadline, and paused now and then so that
 * a real-time thread stays inside the kernel's RT throttling.
 */
#ifndef LOCKBENCH_THREADS_H
#define LOCKBENCH_THREADS_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LB_PHASE_TIMEOUT_S 60
#define LB_BREATHE_MS      4 /* see struct lb_breather */

/*
 * A benchmark thread. It posts `done` when its function returns, so that the
 * main thread can wait for it with a deadline and then join it (a plain join,
 * which tools such as ThreadSanitizer understand).
 */
struct lb_thread {
	pthread_t id;
	void *(*fn)(void *);
	void *arg;
	sem_t done;
};

/* Start fn(arg) with the given policy, priority and CPU; 0 or an error number. */
int lb_thread_start(struct lb_thread **out, void *(*fn)(void *), void *arg, int policy,
		    int priority, int cpu);

/*
 * Join t if it finishes within LB_PHASE_TIMEOUT_S; ETIMEDOUT means the phase
 * hangs: t is left running (and allocated) and the run must end.
 */
int lb_thread_join_within(struct lb_thread *t);

/*
 * A real-time thread's pause: one that has run for every_cycles sleeps
 * LB_BREATHE_MS, outside any timed region.
 */
struct lb_breather {
	uint64_t every_cycles;
	uint64_t last;
};

/* Sleep if the time has come; true if it slept. */
bool lb_breathe(struct lb_breather *b);

/* A sample array of n entries, touched (so that the first timed store does not fault). */
uint64_t *lb_samples_alloc(size_t n);

#endif
