/* SPDX-License-Identifier: MIT */
/*
 * What the PI-CV tests share: actors (threads that publish their TID and are
 * moved on step by step), a condition with its PIP mutex, waiters and
 * helpers, and priority checks in /proc (field 18: prio = -1 - rtprio under
 * SCHED_FIFO). Real-time threads run on rt_cpu; the test itself on free_cpu.
 */
#ifndef RTSCHED_TESTS_PICV_FIXTURE_H
#define RTSCHED_TESTS_PICV_FIXTURE_H

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#include "harness.h"

#define LOW 10
#define MID 30
#define HIGH 50

static int rt_cpu, free_cpu; /* real-time threads on rt_cpu; the test itself on free_cpu */

/* A thread that publishes its TID and then does `work` until told to end. */
struct actor {
	atomic_int tid;
	atomic_int step;   /* the test moves it on */
	atomic_int result; /* what the actor's wait returned (-1: not yet) */
	atomic_int done;
	int base;       /* the SCHED_FIFO priority it starts with (0: SCHED_OTHER) */
	int exit_step;  /* a waiter lingers until this step before it ends (0: ends at once) */
	void *(*work)(struct actor *);
	void *context;
};

static inline void *actor_main(void *arg)
{
	struct actor *a = arg;
	atomic_store(&a->tid, (int)h_gettid());
	return a->work(a);
}

static inline void start(struct actor *a, void *(*work)(struct actor *), void *context, int prio,
		  pthread_t *thread)
{
	atomic_store(&a->result, -1);
	a->base = prio;
	a->work = work;
	a->context = context;
	h_thread_start(thread, actor_main, a, prio, rt_cpu);
	WAIT_FOR(atomic_load(&a->tid) != 0, 2000);
}

static inline void wait_step(struct actor *a, int step)
{
	WAIT_FOR(atomic_load(&a->step) >= step, 5000);
}

/* The condition, its mutex, and a flag the helper sets before signalling. */
struct condition {
	rts_mutex_t mutex;
	rts_cond_t cond;
	int ready;
};

static inline void condition_init(struct condition *c)
{
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP));
	CHECK_OK(rts_mutex_init(&c->mutex, &attr));
	CHECK_OK(rts_cond_init(&c->cond, NULL));
	c->ready = 0;
}

/* Make c a PI-CV with no helper yet (adding and removing one). */
static inline void make_picv(struct condition *c)
{
	CHECK_OK(rts_cond_helper_add(&c->cond, h_gettid()));
	CHECK_OK(rts_cond_helper_del(&c->cond, h_gettid()));
}

/* Wait until c->ready (or a non-zero result from the wait). */
static inline void *waiter_work(struct actor *a)
{
	struct condition *c = a->context;
	int ret = 0;
	CHECK_OK(rts_mutex_lock(&c->mutex));
	while (!c->ready && ret == 0)
		ret = rts_cond_wait(&c->cond, &c->mutex);
	CHECK_OK(rts_mutex_unlock(&c->mutex));
	atomic_store(&a->result, ret);
	atomic_store(&a->done, 1);
	wait_step(a, a->exit_step);
	return NULL;
}

/* As waiter_work, with a deadline 100 ms away. */
static inline void *timed_waiter_work(struct actor *a)
{
	struct condition *c = a->context;
	struct timespec deadline = h_deadline_ms(CLOCK_MONOTONIC, 100);
	int ret = 0;
	CHECK_OK(rts_mutex_lock(&c->mutex));
	while (!c->ready && ret == 0)
		ret = rts_cond_timedwait(&c->cond, &c->mutex, &deadline);
	CHECK_OK(rts_mutex_unlock(&c->mutex));
	atomic_store(&a->result, ret);
	atomic_store(&a->done, 1);
	wait_step(a, a->exit_step);
	return NULL;
}

/* Make the condition true and signal (or broadcast), from the calling thread. */
static inline void make_ready(struct condition *c, bool all)
{
	CHECK_OK(rts_mutex_lock(&c->mutex));
	c->ready = 1;
	CHECK_OK(all ? rts_cond_broadcast(&c->cond) : rts_cond_signal(&c->cond));
	CHECK_OK(rts_mutex_unlock(&c->mutex));
}

/* The helper idles until step 1, then makes its condition true; until step 2 when asked to. */
static inline void *helper_work(struct actor *a)
{
	wait_step(a, 1);
	if (a->context)
		make_ready(a->context, false);
	wait_step(a, 2);
	atomic_store(&a->done, 1);
	return NULL;
}

/* A helper that does nothing and ends at step 1, maybe while waiters lend to it. */
static inline void *exiting_helper_work(struct actor *a)
{
	wait_step(a, 1);
	return NULL;
}

static inline int prio_of(struct actor *a)
{
	return h_thread_prio(atomic_load(&a->tid));
}

static inline void expect_prio(struct actor *a, int rtprio)
{
	WAIT_FOR(prio_of(a) == h_fifo_prio_field(rtprio), 2000);
}

/* No leaked boost: each actor (still alive) is back at the policy and priority it started with. */
static inline void expect_at_base(struct actor *const *actors, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pid_t tid = atomic_load(&actors[i]->tid);
		if (actors[i]->base > 0)
			WAIT_FOR(h_thread_prio(tid) == h_fifo_prio_field(actors[i]->base), 2000);
		else
			WAIT_FOR(sched_getscheduler(tid) == SCHED_OTHER, 2000);
	}
}

#define EXPECT_AT_BASE(...)                                              \
	do {                                                             \
		struct actor *const actors_[] = { __VA_ARGS__ };         \
		expect_at_base(actors_, sizeof(actors_) / sizeof(actors_[0])); \
	} while (0)

#endif
