/* SPDX-License-Identifier: MIT */
/*
 * The periodic task workload of seed 001 §VI-A, scaled to this machine:
 * tasks that each lock one shared resource once per job, measured lock by
 * lock (see workload.c for what one sample is).
 */
#ifndef LOCKBENCH_WORKLOAD_H
#define LOCKBENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "stats.h"
#include "subjects.h"
#include "syscount.h"

enum lb_wl_class {
	LB_WL_UNIPROCESSOR,   /* LB_UNI_TASKS tasks on one CPU */
	LB_WL_MULTIPROCESSOR, /* LB_MULTI_TASKS tasks, half on each of two CPUs */
	LB_NR_WL_CLASSES,
};

enum lb_wl_op {
	LB_WL_LOCK,
	LB_WL_UNLOCK,
	LB_WL_JOB_START, /* the protocol's job-start hook (lb_mutex_ops.job_start) */
	LB_NR_WL_OPS,
};

/* Seed 001 §VI-A: 5 tasks on one core; 6 tasks on three cores (here two). */
#define LB_UNI_TASKS   5
#define LB_MULTI_TASKS 6
#define LB_WL_MAX_TASKS 6
/* Critical section 60-80 us, execution C + 0-20 us, as in the seed. */
#define LB_WL_CS_MIN_US     60
#define LB_WL_CS_MAX_US     80
#define LB_WL_EXTRA_MAX_US  20
/*
 * Periods: the seed's 600-800 us times this factor, so that the tasks load
 * one CPU about 30% (uniprocessor) and each of two about 17% (multi), well
 * under the RT throttling and leaving the VM its share.
 */
#define LB_WL_PERIOD_MIN_US 600
#define LB_WL_PERIOD_MAX_US 800
#define LB_WL_PERIOD_SCALE  2

struct lb_wl_task {
	int cpu;
	int priority; /* SCHED_FIFO, rate monotonic */
	uint64_t period_ns, exec_ns, cs_ns, phase_ns;
};

struct lb_wl_taskset {
	enum lb_wl_class cls;
	int ntasks;
	struct lb_wl_task task[LB_WL_MAX_TASKS];
	struct lb_lock_params params; /* ceilings from the priorities, partition = the CPU */
};

/*
 * A task set of class cls with random parameters from seed, priorities
 * base_priority .. base_priority + ntasks - 1, on cpus[0] (uniprocessor) or
 * alternately on cpus[0] and cpus[1].
 */
void lb_wl_taskset_make(enum lb_wl_class cls, const int cpus[2], int base_priority,
			uint64_t seed, struct lb_wl_taskset *ts);

/* The measurement of one subject in one class, summed over the runs. */
struct lb_wl_result {
	bool measured;
	uint64_t jobs;     /* jobs measured */
	uint64_t overruns; /* releases skipped because a job was still running */
	/* [op][0]: uncontended, [op][1]: contended; cycles. */
	struct lb_dist dist[LB_NR_WL_OPS][2];
	/* Per job, every one: job start + lock + unlock samples (the protocol's cost to the job). */
	struct lb_dist per_job;
	bool syscalls_counted;
	uint64_t counted_ops[LB_NR_WL_OPS][2];
	int64_t syscalls[LB_NR_WL_OPS][2];
};

/* Samples of one subject and class over the runs. */
struct lb_wl_acc {
	uint64_t *cycles[LB_NR_WL_OPS][2];
	size_t n[LB_NR_WL_OPS][2], cap;
	uint64_t *job_cycles;
	size_t n_jobs;
	uint64_t jobs, overruns;
	uint64_t counted_ops[LB_NR_WL_OPS][2];
	int64_t syscalls[LB_NR_WL_OPS][2];
	bool syscalls_counted;
};

int lb_wl_acc_alloc(struct lb_wl_acc *acc, size_t cap);
void lb_wl_acc_free(struct lb_wl_acc *acc);
/* The summary of acc (sorts its samples). */
void lb_wl_acc_summarise(struct lb_wl_acc *acc, struct lb_wl_result *out);

/* The most jobs any task set can release in duration_ms: for sizing an acc. */
size_t lb_wl_max_jobs(unsigned duration_ms);

struct lb_wl_env {
	int policy;
	double tsc_hz;
	const struct lb_syscount_probe *probe;
};

/*
 * Run the task set for duration_ms with subject s's lock; the jobs released
 * after a warm-up are measured and appended to acc. count_syscalls: instead
 * of timing, count each operation's system calls (the syscall tracepoint
 * slows every system call while it is enabled, so the timed runs never
 * enable it). LB_EXIT_OK; LB_EXIT_FAILURE with a message in err; or
 * LB_EXIT_OK with why in skipped when the subject cannot run here.
 */
int lb_wl_run(const struct lb_wl_env *env, enum lb_subject s, const struct lb_wl_taskset *ts,
	      unsigned duration_ms, bool count_syscalls, struct lb_wl_acc *acc, char *skipped,
	      size_t skipped_size, char *err, size_t err_size);

#endif
