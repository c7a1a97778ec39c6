/* SPDX-License-Identifier: MIT */
/*
 * rtsched-lockbench: the measurement core. lb_run() fills a struct lb_results;
 * the views (table, JSON) only print it.
 */
#ifndef LOCKBENCH_BENCH_H
#define LOCKBENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "stats.h"
#include "workload.h"

struct lb_machine {
	char cpu_model[128];
	char kernel[256];   /* uname -r -v */
	char glibc[32];
	int ncpus;          /* configured CPUs */
	double tsc_hz;      /* calibrated against CLOCK_MONOTONIC in this run */
	unsigned calibration_ms;
};

/* One mutex subject, uncontended; distributions in cycles. */
struct lb_uncontended {
	bool measured;
	struct lb_dist lock;   /* one lock, timed alone */
	struct lb_dist unlock; /* one unlock, timed alone */
	struct lb_dist pair;   /* one lock+unlock pair (batches of LB_PAIR_BATCH, divided) */
	bool syscalls_counted;
	uint64_t syscall_pairs; /* lock+unlock pairs in the counted loop */
	int64_t syscalls;       /* system calls the loop made */
};

/* One mutex subject, contended (see bench.c for the schedule). */
struct lb_contended {
	bool measured;
	size_t rounds;
	size_t contended;      /* rounds where the high thread found the mutex held */
	struct lb_dist lock;   /* the high thread's lock, contended rounds */
	struct lb_dist unlock; /* the low thread's unlock in those rounds, the high thread's run removed */
};

/* One condvar subject: ping-pong round trips, cycles. */
struct lb_condvar {
	bool measured;
	struct lb_dist round;
	bool syscalls_counted;
	uint64_t syscall_rounds; /* rounds counted (thread A only) */
	int64_t syscalls;        /* system calls thread A made in them */
};

struct lb_syscall_check {
	bool available;
	char reason[200];      /* when !available */
	char note[160];
	uint64_t overhead;     /* counted around an empty region, subtracted from every count */
	uint64_t getppid_calls;
	int64_t getppid_counted;
	bool self_check_ok;
};

/* The periodic task workload (workload.h), per class. */
struct lb_workload_class {
	bool run;
	char skipped[200];                /* why the class did not run */
	struct lb_wl_taskset first;       /* the task set of the first slice, for the header */
	struct lb_wl_result subject[LB_NR_MUTEX_SUBJECTS];
};

struct lb_workload {
	unsigned slices;                  /* timed runs per subject, each with new random tasks */
	unsigned slice_ms;                /* measured time of one timed run */
	unsigned count_ms;                /* measured time of the syscall-counting run */
	int cpus[2];
	struct lb_workload_class cls[LB_NR_WL_CLASSES];
};

struct lb_results {
	struct lb_options opts;
	struct lb_machine machine;
	int policy;               /* SCHED_FIFO, or SCHED_OTHER when FIFO was refused */
	char policy_note[200];    /* why not SCHED_FIFO */
	bool mlocked;
	char mlock_note[120];
	struct lb_dist timer;     /* two back-to-back TSC reads: included in every lock/unlock sample */
	struct lb_uncontended unc[LB_NR_MUTEX_SUBJECTS];
	struct lb_contended con[LB_NR_MUTEX_SUBJECTS];
	struct lb_condvar cv[LB_NR_SUBJECTS]; /* indexed by the condvar subjects */
	char skipped[LB_NR_SUBJECTS][160];    /* why a selected subject was not measured */
	struct lb_syscall_check sys;
	struct lb_workload wl;
};

/* Run every selected measurement. LB_EXIT_OK, or LB_EXIT_FAILURE with a message. */
int lb_run(const struct lb_options *opts, struct lb_results *r, char *err, size_t err_size);

/* A ratio of averages between two subjects, measured in the same run. */
struct lb_ratio {
	const char *key;          /* for JSON: "uncontended_pair_rts-pip_vs_glibc-inherit" */
	const char *what;         /* for people */
	enum lb_subject num, den;
	double target_max;        /* 0: for information, no target */
	bool available;           /* both sides measured */
	double value;
};

#define LB_MAX_RATIOS 24
/* The ratios of this run; returns how many were written to out. */
size_t lb_ratios(const struct lb_results *r, struct lb_ratio out[LB_MAX_RATIOS]);

/* The zero-system-call target of a deferred ceiling protocol's uncontended lock+unlock. */
struct lb_syscall_target {
	enum lb_subject subject;
	bool available; /* counted */
	double per_pair;
	bool met;       /* counted and exactly 0 */
};

/* The targets of this run (one per selected deferred protocol); returns how many. */
size_t lb_syscall_targets(const struct lb_results *r, struct lb_syscall_target out[LB_MAX_RATIOS]);

/* Cycles to nanoseconds with the run's calibration. */
static inline double lb_ns(const struct lb_results *r, double cycles)
{
	return cycles * 1e9 / r->machine.tsc_hz;
}

#endif
