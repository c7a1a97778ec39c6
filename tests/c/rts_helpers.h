/* SPDX-License-Identifier: MIT */
/* rtsched-specific helpers shared by the C tests (on top of harness.h). */
#ifndef RTSCHED_TESTS_RTS_HELPERS_H
#define RTSCHED_TESTS_RTS_HELPERS_H

#include "harness.h"

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

static inline const char *proto_name(int proto)
{
	return proto == RTS_PROTO_PIP ? "PIP" : proto == RTS_PROTO_FIFO ? "FIFO" : "NONE";
}

/* Initialise m with the given protocol, pshared and robust settings. */
static inline void mutex_init_with(rts_mutex_t *m, int proto, int pshared, int robust)
{
	rts_mutexattr_t a;
	CHECK_OK(rts_mutexattr_init(&a));
	CHECK_OK(rts_mutexattr_setprotocol(&a, proto));
	CHECK_OK(rts_mutexattr_setpshared(&a, pshared));
	CHECK_OK(rts_mutexattr_setrobust(&a, robust));
	CHECK_OK(rts_mutex_init(m, &a));
	CHECK_OK(rts_mutexattr_destroy(&a));
}

static inline void mutex_init_proto(rts_mutex_t *m, int proto)
{
	mutex_init_with(m, proto, RTS_PROCESS_PRIVATE, RTS_MUTEX_STALLED);
}

static inline void cond_init_with(rts_cond_t *c, int pshared, clockid_t clock)
{
	rts_condattr_t a;
	CHECK_OK(rts_condattr_init(&a));
	CHECK_OK(rts_condattr_setpshared(&a, pshared));
	CHECK_OK(rts_condattr_setclock(&a, clock));
	CHECK_OK(rts_cond_init(c, &a));
	CHECK_OK(rts_condattr_destroy(&a));
}

/* The owner TID recorded in a mutex word (0: unlocked). */
static inline pid_t mutex_owner(rts_mutex_t *m)
{
	return (pid_t)(H_LOAD(&m->s.word) & 0x3fffffffu);
}

static inline unsigned cond_waiters(rts_cond_t *c)
{
	return H_LOAD(&c->s.waiters);
}

/*
 * A thread that holds a mutex until told to let go:
 *   holder_start(&h, m) returns once h.tid owns m;
 *   holder_release(&h) makes it unlock and joins it (h.unlock_ret: the result).
 */
struct holder {
	rts_mutex_t *m;
	pthread_t thread;
	pid_t tid;
	int lock_ret;
	int unlock_ret;
	int held;
	int release;
};

static inline void *holder_main(void *arg)
{
	struct holder *h = arg;
	H_STORE(&h->tid, h_gettid());
	h->lock_ret = rts_mutex_lock(h->m);
	H_STORE(&h->held, 1);
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 20LL * 1000000000;
	while (!H_LOAD(&h->release) && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(500);
	h->unlock_ret = rts_mutex_unlock(h->m);
	return NULL;
}

static inline void holder_start_rt(struct holder *h, rts_mutex_t *m, int prio, int cpu)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	h_thread_start(&h->thread, holder_main, h, prio, cpu);
	WAIT_FOR(H_LOAD(&h->held), 2000);
	CHECK_OK(h->lock_ret);
	CHECK_EQ(mutex_owner(m), H_LOAD(&h->tid));
}

static inline void holder_start(struct holder *h, rts_mutex_t *m)
{
	holder_start_rt(h, m, 0, -1);
}

static inline void holder_release(struct holder *h)
{
	H_STORE(&h->release, 1);
	h_join(h->thread, 5000);
	CHECK_OK(h->unlock_ret);
}

/* Run fn(arg) in a new thread and return its int result (an error number). */
struct in_thread {
	int (*fn)(void *);
	void *arg;
	int ret;
};

static inline void *in_thread_main(void *p)
{
	struct in_thread *t = p;
	t->ret = t->fn(t->arg);
	return NULL;
}

static inline int run_in_thread(int (*fn)(void *), void *arg)
{
	struct in_thread t = { fn, arg, -1 };
	pthread_t th;
	h_thread_start(&th, in_thread_main, &t, 0, -1);
	h_join(th, 5000);
	return t.ret;
}

static inline int do_trylock(void *m)
{
	return rts_mutex_trylock(m);
}

static inline int do_unlock(void *m)
{
	return rts_mutex_unlock(m);
}

static inline int do_lock_unlock(void *m)
{
	int ret = rts_mutex_lock(m);
	if (ret)
		return ret;
	return rts_mutex_unlock(m);
}

/* From another thread: EBUSY when somebody holds m. */
static inline int trylock_elsewhere(rts_mutex_t *m)
{
	return run_in_thread(do_trylock, m);
}

static inline int unlock_elsewhere(rts_mutex_t *m)
{
	return run_in_thread(do_unlock, m);
}

static inline int lock_unlock_elsewhere(rts_mutex_t *m)
{
	return run_in_thread(do_lock_unlock, m);
}

#endif
