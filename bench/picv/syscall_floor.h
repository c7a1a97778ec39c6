/* SPDX-License-Identifier: MIT */
/*
 * The system calls the donation graph makes for each additional helper of a
 * PI-CV call (2 sched_getattr and 2 sched_setattr of another thread),
 * timed in the same run as the calls themselves, so the per-helper slope
 * can be read against the floor the kernel interface sets on this machine.
 */
#ifndef RTSCHED_BENCH_SYSCALL_FLOOR_H
#define RTSCHED_BENCH_SYSCALL_FLOOR_H

#include <stdbool.h>

struct syscall_floor {
	double getattr_ns; /* sched_getattr of a sleeping SCHED_FIFO thread on the same CPU */
	double setattr_ns; /* sched_setattr of it, raise and restore averaged */
};

/*
 * Measure from a thread at `measurer_prio` on `cpu` against a sleeping
 * thread at `helper_prio` there (both SCHED_OTHER when !fifo). 0, or an
 * error number (the threads could not be started).
 */
int measure_syscall_floor(int cpu, bool fifo, int measurer_prio, int helper_prio, int calls,
			  struct syscall_floor *out);

static inline double syscall_floor_per_helper_ns(const struct syscall_floor *f)
{
	return 2 * f->getattr_ns + 2 * f->setattr_ns;
}

#endif
