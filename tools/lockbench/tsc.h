/* SPDX-License-Identifier: MIT */
/* Time-stamp counter: fenced reads and calibration against CLOCK_MONOTONIC. */
#ifndef LOCKBENCH_TSC_H
#define LOCKBENCH_TSC_H

#include <stdbool.h>
#include <stdint.h>

#if !defined(__x86_64__) && !defined(__i386__)
#error "rtsched-lockbench reads the x86 time-stamp counter (rdtscp)"
#endif

/*
 * rdtscp waits until every earlier instruction has executed (so the operation
 * timed before it is complete) and the lfence after it keeps later ones from
 * starting before the counter is read. One read both ends a sample and starts
 * the next.
 */
static inline __attribute__((always_inline)) uint64_t lb_tsc(void)
{
	uint32_t lo, hi, aux;
	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Wait until every earlier store is globally visible. Called before a timed
 * region that starts with a locked instruction (a lock's CAS), which would
 * otherwise wait inside the region for the benchmark's own sample stores
 * (cache misses on the sample arrays) to drain.
 */
static inline __attribute__((always_inline)) void lb_drain_stores(void)
{
	__asm__ __volatile__("mfence" ::: "memory");
}

/* Whether this CPU has rdtscp and an invariant (constant, nonstop) TSC. */
bool lb_tsc_usable(const char **why_not);

/*
 * TSC ticks per second against CLOCK_MONOTONIC over about duration_ms:
 * each end is the TSC read bracketed most tightly by two clock reads.
 */
double lb_tsc_calibrate_hz(unsigned duration_ms);

#endif
