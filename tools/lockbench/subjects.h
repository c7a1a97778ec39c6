/* SPDX-License-Identifier: MIT */
/* The measured locks behind one interface: rtsched's and glibc's. */
#ifndef LOCKBENCH_SUBJECTS_H
#define LOCKBENCH_SUBJECTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#include "options.h"

union lb_lock {
	rts_mutex_t rts;
	pthread_mutex_t glibc;
} __attribute__((aligned(64)));

union lb_cond {
	rts_cond_t rts;
	pthread_cond_t glibc;
} __attribute__((aligned(64)));

/* Lock+unlock pairs timed together per pair sample: the timer cost is amortised. */
#define LB_PAIR_BATCH 32

/* What a lock is created with; each protocol uses what it needs. */
struct lb_lock_params {
	int local_ceiling;  /* PRIO_PROTECT, PCP, SRP, IPCP: the highest priority of the users */
	int global_ceiling; /* MPCP, FMLP+: above every base priority of the users */
	int partition;      /* PCP, SRP, IPCP: the CPU of the users */
};

/* The workload classes a subject takes part in (bits). */
#define LB_IN_UNIPROCESSOR   0x1u /* several tasks on one CPU */
#define LB_IN_MULTIPROCESSOR 0x2u /* tasks on two CPUs sharing a global resource */

/* Every function returns 0 or an error number, as pthreads does. */
struct lb_mutex_ops {
	int (*init)(union lb_lock *l, const struct lb_lock_params *p);
	int (*destroy)(union lb_lock *l);
	int (*lock)(union lb_lock *l);
	int (*unlock)(union lb_lock *l);
	/*
	 * The uncontended loops, compiled per subject so that the lock and
	 * unlock calls in them are direct calls, as in an application:
	 * split: n samples of lock and of unlock, timed separately;
	 * pairs: n samples of LB_PAIR_BATCH lock+unlock pairs timed together;
	 * loop:  n untimed pairs (warm-up, system-call counting).
	 */
	int (*split)(union lb_lock *l, uint64_t *lock_cycles, uint64_t *unlock_cycles, size_t n);
	int (*pairs)(union lb_lock *l, uint64_t *batch_cycles, size_t n);
	int (*loop)(union lb_lock *l, size_t n);
	/*
	 * Called at the start of every job of the workload, NULL if the
	 * protocol has nothing to do there (the deferred ceiling protocols
	 * hold a job back there while a ceiling at or above it is held).
	 */
	int (*job_start)(void);
	unsigned classes;  /* LB_IN_* */
	/*
	 * Measured in the two-thread hand-over (bench.c): the protocols whose
	 * lock a thread may contend for without a job release in between.
	 */
	bool handover;
	/*
	 * A ceiling protocol in its deferred form: the uncontended
	 * targets apply (no system call, against glibc's NONE and PROTECT).
	 */
	bool deferred;
	/* Its eager form, for the deferred-against-eager comparison (or itself). */
	enum lb_subject eager;
};

struct lb_cond_ops {
	enum lb_subject mutex; /* the mutex subject the condvar is used with */
	int (*init)(union lb_cond *c);
	int (*destroy)(union lb_cond *c);
	int (*wait)(union lb_cond *c, union lb_lock *m);
	int (*signal)(union lb_cond *c);
};

/* For a mutex subject (s < LB_NR_MUTEX_SUBJECTS). */
const struct lb_mutex_ops *lb_mutex_ops(enum lb_subject s);
/* For a condvar subject. */
const struct lb_cond_ops *lb_cond_ops(enum lb_subject s);

#endif
