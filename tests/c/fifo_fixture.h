/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the FIFO-mutex tests: threads that queue on a mutex (or a
 * condvar) one after another in a known order and log the order in which
 * they got the mutex.
 */
#ifndef RTSCHED_TESTS_FIFO_FIXTURE_H
#define RTSCHED_TESTS_FIFO_FIXTURE_H

#include <rtsched/lockdomain.h>

#include "rts_helpers.h"

/* Library test hook: queue-lock acquisitions in the scope of domain (NULL: the process's own). */
uint64_t rts_fifo_scope_lock_count(const rts_lockdomain_t *domain);

/* The domain of the mutexes the queuers lock (NULL: process-private ones). */
static rts_lockdomain_t *queuer_domain;

#define FIFO_MAX_THREADS 16

enum queuer_kind {
	QUEUE_LOCK,       /* rts_mutex_lock */
	QUEUE_TIMEDLOCK,  /* rts_mutex_timedlock with the deadline */
	QUEUE_COND,       /* lock, rts_cond_wait, unlock */
	QUEUE_TIMEDWAIT,  /* lock, rts_cond_timedwait with the deadline, unlock */
};

struct fifo_log {
	int order[FIFO_MAX_THREADS];
	int n;
};

struct queuer {
	int index;
	enum queuer_kind kind;
	rts_mutex_t *m;
	rts_cond_t *c;
	struct fifo_log *log;
	struct timespec deadline;
	pthread_t thread;
	pid_t tid;
	int ret;
	int done;
};

/* A queuer cancelled (or made to exit) in a condvar wait leaves owning the mutex: let it go. */
static inline void queuer_unlock(void *arg)
{
	struct queuer *q = arg;
	H_STORE(&q->ret, mutex_owner(q->m) == h_gettid() ? ECANCELED : -1);
	rts_mutex_unlock(q->m);
}

static inline void *queuer_main(void *arg)
{
	struct queuer *q = arg;
	H_STORE(&q->tid, h_gettid());
	int ret;
	pthread_cleanup_push(queuer_unlock, q);
	switch (q->kind) {
	case QUEUE_LOCK:
		ret = rts_mutex_lock(q->m);
		break;
	case QUEUE_TIMEDLOCK:
		ret = rts_mutex_timedlock(q->m, &q->deadline);
		break;
	default:
		ret = rts_mutex_lock(q->m);
		if (ret == 0)
			ret = q->kind == QUEUE_COND ? rts_cond_wait(q->c, q->m)
						    : rts_cond_timedwait(q->c, q->m, &q->deadline);
		break;
	}
	pthread_cleanup_pop(0);
	if (ret == ETIMEDOUT && q->kind == QUEUE_TIMEDWAIT) { /* owns the mutex again: not in the order */
		rts_mutex_unlock(q->m);
		H_STORE(&q->ret, ret);
		H_STORE(&q->done, 1);
		return NULL;
	}
	H_STORE(&q->ret, ret);
	if (ret == 0) {
		q->log->order[q->log->n++] = q->index; /* under the mutex */
		rts_mutex_unlock(q->m);
	}
	H_STORE(&q->done, 1);
	return NULL;
}

/* Whether thread tid sleeps (state S in /proc: it is queued and asleep). */
static inline bool queuer_asleep(struct queuer *q)
{
	pid_t tid = H_LOAD(&q->tid);
	return tid != 0 && h_thread_state(tid) == 'S';
}

/*
 * Start q and return once it is queued. A mutex queuer (the mutex held by the
 * caller, nothing else going on in the scope) takes the mutex's queue lock
 * exactly once, to queue itself: once the scope's count has moved, anything
 * that later takes that lock (the next queuer, the unlock) comes after it.
 * A condvar queuer: the caller waits for the condvar's count; here, for sleep.
 */
static inline void queuer_start(struct queuer *q, int index, enum queuer_kind kind, rts_mutex_t *m,
				rts_cond_t *c, struct fifo_log *log)
{
	struct timespec deadline = q->deadline;
	memset(q, 0, sizeof(*q));
	*q = (struct queuer){ .index = index, .kind = kind, .m = m, .c = c, .log = log,
			      .deadline = deadline };
	uint64_t locks_before = rts_fifo_scope_lock_count(queuer_domain);
	h_thread_start(&q->thread, queuer_main, q, 0, -1);
	if (kind == QUEUE_LOCK || kind == QUEUE_TIMEDLOCK)
		WAIT_FOR(rts_fifo_scope_lock_count(queuer_domain) > locks_before ||
				 H_LOAD(&q->done),
			 5000);
	else
		WAIT_FOR(queuer_asleep(q) || H_LOAD(&q->done), 5000);
}

static inline void check_order(const struct fifo_log *log, const int *expected, int n)
{
	CHECK_EQ(log->n, n);
	for (int i = 0; i < n; i++)
		CHECK_MSG(log->order[i] == expected[i], "position %d: thread %d, expected %d", i,
			  log->order[i], expected[i]);
}

static inline void fifo_mutex_init(rts_mutex_t *m)
{
	mutex_init_proto(m, RTS_PROTO_FIFO);
}

#endif
