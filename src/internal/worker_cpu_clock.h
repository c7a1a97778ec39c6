/* SPDX-License-Identifier: MIT */
/*
 * A ult worker's own CPU time, read without a system call
 * (ult/worker_cpu_clock.c): the time its kernel thread ran, so that time the
 * thread lost to the host, an interrupt, the fair server or another
 * real-time thread is not charged to the ULT it had switched in.
 *
 * One clock per worker thread, opened and read by that thread only (a
 * perf_event task clock counts the thread that opened it). Its values are on
 * the thread's CLOCK_THREAD_CPUTIME_ID scale (aligned at open), but only
 * differences of two reads on the same thread are exact.
 */
#ifndef RTSCHED_INTERNAL_WORKER_CPU_CLOCK_H
#define RTSCHED_INTERNAL_WORKER_CPU_CLOCK_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

/* How a clock is read (the names are what the runner reports). */
enum rts_worker_cpu_clock_method {
	/* The page of a perf_event_open(PERF_COUNT_SW_TASK_CLOCK) counter on
	 * the thread, extrapolated with rdtsc: no system call. */
	RTS_WORKER_CPU_CLOCK_PERF_MMAP,
	/* The same page's sequence count, which moves whenever the thread is
	 * switched in: while it has not moved the thread has run all along,
	 * and its CPU time grew as CLOCK_MONOTONIC (vDSO), for 200 us at most
	 * (host steal); after it moved, or after those 200 us, one
	 * clock_gettime(CLOCK_THREAD_CPUTIME_ID). Where the page cannot be
	 * extrapolated (no cap_user_time: a paravirtual sched_clock, as
	 * kvm-clock's; not x86-64). */
	RTS_WORKER_CPU_CLOCK_PERF_SEQ,
	/* clock_gettime(CLOCK_THREAD_CPUTIME_ID): a system call (no vDSO). */
	RTS_WORKER_CPU_CLOCK_THREAD_CPUTIME,
};

/* PERF_SEQ's last system call: the CPU time read at mono_ns, while the
 * page's sequence count was lock; last_ns, the last value returned (reads
 * never go back). Written by its thread under gen (odd while it writes), so
 * a read in a signal handler that interrupted a write does not use it. */
struct rts_worker_cpu_clock_sync {
	uint32_t gen;
	uint32_t lock;
	int64_t cpu_ns;
	int64_t mono_ns;
	int64_t last_ns;
};

struct rts_worker_cpu_clock {
	const volatile struct perf_event_mmap_page *page; /* NULL: the fallback */
	int fd;                                           /* -1: none */
	int64_t origin_ns; /* PERF_MMAP: CLOCK_THREAD_CPUTIME_ID minus the page's reading, at open */
	enum rts_worker_cpu_clock_method method;
	struct rts_worker_cpu_clock_sync sync; /* PERF_SEQ */
	const void *owner; /* the thread that opened it: the only one that writes sync */
};

/* A clock not opened: reads CLOCK_THREAD_CPUTIME_ID, closes to nothing. */
#define RTS_WORKER_CPU_CLOCK_NONE \
	((struct rts_worker_cpu_clock){.fd = -1, .method = RTS_WORKER_CPU_CLOCK_THREAD_CPUTIME})

/*
 * Open the calling thread's clock. Always usable afterwards: 0 with the perf
 * page (method PERF_MMAP, or PERF_SEQ where it cannot be extrapolated, with
 * why saying so), or an errno (EACCES/EPERM: perf_event_paranoid or seccomp;
 * ENOENT / ENOSYS / EOPNOTSUPP: no such event) with why saying so, and the
 * clock reads CLOCK_THREAD_CPUTIME_ID.
 */
int rts_worker_cpu_clock_open(struct rts_worker_cpu_clock *clock, char *why, size_t why_len);

/* The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID's scale);
 * non-decreasing. Async-signal-safe; by the thread that opened the clock (a
 * read by another thread returns a meaningless value and changes nothing). */
int64_t rts_worker_cpu_clock_ns(struct rts_worker_cpu_clock *clock);

/* Unmap and close (by any thread, once the owner no longer reads it). */
void rts_worker_cpu_clock_close(struct rts_worker_cpu_clock *clock);

/* "perf-mmap", "perf-seq" or "thread-cputime". */
const char *rts_worker_cpu_clock_method_name(enum rts_worker_cpu_clock_method method);

#endif
