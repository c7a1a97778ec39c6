/* SPDX-License-Identifier: MIT */
/* What the measurements share: clocks, pauses, SCHED_FIFO threads pinned to the measured CPU. */
#ifndef CALIBRATE_PINNED_H
#define CALIBRATE_PINNED_H

#include <pthread.h>
#include <stdint.h>

/* CLOCK_MONOTONIC (vDSO: no system call) in ns. */
uint64_t cal_now_ns(void);
/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, a system call) in ns. */
uint64_t cal_thread_cpu_ns(void);
/*
 * Sleep ns. The measurements pause between batches so that a SCHED_FIFO
 * thread never runs long enough to meet the kernel's RT throttling
 * (sched_rt_runtime_us, 95% of each second by default).
 */
void cal_pause_ns(uint64_t ns);
/* Start fn(arg) as a SCHED_FIFO thread at priority, pinned to cpu: 0 or an error number. */
int cal_start_fifo_thread(pthread_t *thread, void *(*fn)(void *), void *arg, int priority, int cpu);

/* Round trips (or calls) timed back to back before a pause. */
#define CAL_BATCH 256u
#define CAL_PAUSE_NS 1000000u

#endif
