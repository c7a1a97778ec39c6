/* SPDX-License-Identifier: MIT */
/*
 * rtsched-latency core: the measurement threads. Views (JSON, progress)
 * only read the result.
 *
 * Each thread: join a cpuset if asked, pin to its CPU, take its policy,
 * then loop { next += interval; clock_nanosleep(CLOCK_MONOTONIC,
 * TIMER_ABSTIME, next); latency = now - next } as cyclictest does (its
 * default mode). A wake-up later than a whole interval skips the missed
 * deadlines and counts an overrun.
 */
#ifndef LATENCY_CORE_H
#define LATENCY_CORE_H

#include "histogram.h"
#include "options.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct lat_thread {
	int index;
	int cpu;
	uint64_t interval_ns;
	long tid;
	bool pinned;          /* false: SCHED_DEADLINE refused a one-CPU affinity, runs unpinned */
	const char *cpuset;   /* the cpuset it joined, or NULL */
	long timerslack_ns;   /* as read back with PR_GET_TIMERSLACK */
	int error;            /* 0, or the errno that stopped it */
	const char *error_what;
	struct lat_histogram hist;
	uint64_t overruns;
	_Atomic uint64_t progress_samples; /* for the progress view (relaxed) */
	_Atomic uint64_t progress_max_ns;
	_Atomic bool done;
};

struct lat_run {
	const struct lat_options *opts;
	int nthreads;
	struct lat_thread threads[LAT_MAX_THREADS];
	uint64_t start_ns;    /* CLOCK_MONOTONIC when the threads were released */
	uint64_t elapsed_ns;
	bool dma_latency_held;
	bool mlocked;
};

/* Ask the running measurement to stop (async-signal-safe). */
void lat_request_stop(void);

/*
 * Run the measurement described by opts into run (caller-owned, zeroed).
 * progress(run, arg) is called from the main thread every progress period.
 * Returns 0, or a positive errno with run->threads[i].error naming the failure.
 */
int lat_run(const struct lat_options *opts, struct lat_run *run,
	    void (*progress)(const struct lat_run *run, void *arg), void *arg);
void lat_run_free(struct lat_run *run);


#endif
