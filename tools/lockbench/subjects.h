/* SPDX-License-Identifier: MIT */
/* The measured locks behind one interface: rtsched's and glibc's. */
#ifndef LOCKBENCH_SUBJECTS_H
#define LOCKBENCH_SUBJECTS_H

#include <pthread.h>
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

/* Every function returns 0 or an error number, as pthreads does. */
struct lb_mutex_ops {
	/* ceiling: the PRIO_PROTECT priority ceiling (ignored by the others). */
	int (*init)(union lb_lock *l, int ceiling);
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
