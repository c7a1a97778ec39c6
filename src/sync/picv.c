/* SPDX-License-Identifier: MIT */
/*
 * PI on condition variables (seed 004), on a stock kernel: the PI token.
 *
 * A condvar with helpers queues its waiters in user space (by priority, FIFO
 * among equals) under an internal PI mutex. A waiter that lends to a helper
 * h blocks with FUTEX_LOCK_PI on its own token word holding h's TID, so the
 * kernel boosts h by the waiter's priority, carries the boost through
 * whatever h blocks on (PI mutexes, other tokens), takes the maximum over
 * waiters, reports a cycle as EDEADLK, and hands the token to the waiter
 * with FUTEX_OWNER_DIED if h exits. A waiter without a helper sleeps on its
 * state word instead.
 *
 * Waking a waiter (signal, broadcast, or a change of helpers):
 *  - its state becomes SIGNALLED (or REWAIT), under the internal lock;
 *  - if it lends to the caller, FUTEX_UNLOCK_PI hands it the token;
 *  - if it lends to another thread, the wake signal interrupts its
 *    FUTEX_LOCK_PI and the handler leaves the wait by siglongjmp;
 *  - if it lends to nobody, FUTEX_WAKE on its state.
 * Either way the loan ends when the waiter leaves the kernel's queue.
 *
 * Invariants:
 *  - a waiter's node lives in its own stack frame; it is in the queue from
 *    registration until a waker pops it (setting SIGNALLED) or the waiter
 *    removes itself (timeout, error); the waiter takes the internal lock
 *    before its frame ends, and wakers touch a node only under that lock;
 *  - `lent_to` and the token are changed only under the internal lock, so a
 *    waker always knows which way to wake a node;
 *  - each waiter has its own token, so each is its own rt_mutex: a dying
 *    helper's tokens are all handed over, one per waiter.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/export.h"
#include "internal/mutex.h"
#include "internal/picv.h"
#include "internal/sched_attr.h"
#include "internal/tid.h"
#include "internal/timespec.h"
#include "internal/wake_signal.h"

enum waiter_state {
	PICV_WAITING = 0,
	PICV_SIGNALLED = 1, /* popped by a signal or broadcast: the wait is over */
	PICV_REWAIT = 2,    /* the helpers changed: block again, lending anew */
};

struct picv_waiter {
	struct picv_waiter *next;
	uint32_t tid;
	int prio;
	rts_futex_word state;
	rts_futex_word token; /* the helper's TID while lending to it */
	uint32_t lent_to;     /* that helper; 0: lends to nobody */
};

struct rts_picv {
	rts_mutex_t lock; /* PIP: guards everything below */
	uint32_t helper;  /* 0: none */
	struct picv_waiter *queue;
	uint32_t n_waiters;
};

static _Atomic(struct rts_picv *) *picv_slot(rts_cond_t *c)
{
	return (_Atomic(struct rts_picv *) *)&c->s.picv;
}

struct rts_picv *rts_picv_of(rts_cond_t *c)
{
	return atomic_load_explicit(picv_slot(c), memory_order_acquire);
}

/* Queue order: real-time priority; SCHED_DEADLINE above all; others below. */
static int current_priority(void)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	if (rts_sched_getattr(0, &attr) != 0)
		return 0;
	switch (attr.sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return (int)attr.sched_priority;
	case SCHED_DEADLINE:
		return 100;
	default:
		return 0;
	}
}

static void enqueue(struct rts_picv *picv, struct picv_waiter *w)
{
	struct picv_waiter **at = &picv->queue;
	while (*at && (*at)->prio >= w->prio)
		at = &(*at)->next;
	w->next = *at;
	*at = w;
}

static void dequeue(struct rts_picv *picv, struct picv_waiter *w)
{
	for (struct picv_waiter **at = &picv->queue; *at; at = &(*at)->next)
		if (*at == w) {
			*at = w->next;
			return;
		}
}

/* Make the node lend to the current helper (under the lock). */
static void lend(struct rts_picv *picv, struct picv_waiter *w)
{
	w->lent_to = picv->helper;
	atomic_store_explicit(&w->token, w->lent_to, memory_order_relaxed);
}

/* Under the lock: get a node out of its wait; its state is already set. */
static void wake_waiter(struct picv_waiter *w)
{
	if (w->lent_to == 0) {
		rts_backend()->wake(&w->state, 1, false);
		return;
	}
	if (w->lent_to == rts_self_tid() && rts_backend()->pi_wake(&w->token, false) == 0)
		return;
	syscall(SYS_tgkill, getpid(), (pid_t)w->tid, RTS_WAKE_SIGNAL);
}

static void rewait_all(struct rts_picv *picv)
{
	for (struct picv_waiter *w = picv->queue; w; w = w->next) {
		atomic_store_explicit(&w->state, PICV_REWAIT, memory_order_release);
		wake_waiter(w);
	}
}

#if defined(__SANITIZE_THREAD__)
/*
 * ThreadSanitizer runs signal handlers only at its own interception points,
 * never inside a raw futex system call, so the wake signal cannot end a
 * token wait there: under TSan the wait wakes up every millisecond to look
 * at its state instead. Production builds never poll.
 */
static int pi_block_until_woken(struct picv_waiter *w, const struct timespec *deadline)
{
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t poll_ns = rts_timespec_to_ns(&now) + 1000000;
		if (deadline && rts_timespec_to_ns(deadline) < poll_ns)
			poll_ns = rts_timespec_to_ns(deadline);
		struct timespec poll = rts_ns_to_timespec(poll_ns);
		int ret = rts_backend()->pi_block(&w->token, &poll, false);
		bool final = deadline && poll_ns == rts_timespec_to_ns(deadline);
		if (ret != -ETIMEDOUT || final ||
		    atomic_load_explicit(&w->state, memory_order_acquire) != PICV_WAITING)
			return ret == -ETIMEDOUT && !final ? 0 : ret;
	}
}
#else
static int pi_block_until_woken(struct picv_waiter *w, const struct timespec *deadline)
{
	return rts_backend()->pi_block(&w->token, deadline, false);
}
#endif

/* Block lending to w->lent_to. 0 (look at the state), ETIMEDOUT, ESRCH (the helper exited), EDEADLK. */
static int sleep_lending(struct picv_waiter *w, const struct timespec *deadline)
{
	sigjmp_buf jump;
	if (sigsetjmp(jump, 1))
		return 0; /* the wake signal: the state says why */
	rts_wake_jump = &jump;
	if (atomic_load_explicit(&w->state, memory_order_acquire) != PICV_WAITING) {
		rts_wake_jump = NULL;
		return 0;
	}
	int ret = pi_block_until_woken(w, deadline);
	rts_wake_jump = NULL;
	switch (ret) {
	case 0: /* the token is ours: handed over by the helper, or the helper died */
		if ((atomic_load_explicit(&w->token, memory_order_relaxed) & RTS_FUTEX_OWNER_DIED) &&
		    atomic_load_explicit(&w->state, memory_order_acquire) == PICV_WAITING)
			return ESRCH;
		return 0;
	case -EAGAIN: /* the helper is exiting */
	case -EINTR:
		return 0;
	default: /* -ETIMEDOUT, -EDEADLK (a donation cycle), -ESRCH (no such helper) */
		return -ret;
	}
}

static int sleep_plain(struct picv_waiter *w, const struct timespec *deadline)
{
	int ret = rts_backend()->block(&w->state, PICV_WAITING, deadline, CLOCK_MONOTONIC, false);
	return ret == -ETIMEDOUT ? ETIMEDOUT : 0;
}

/* A helper that exited is no helper: its other waiters lend anew (under the lock). */
static void forget_dead_helper(struct rts_picv *picv, uint32_t tid)
{
	if (picv->helper == tid) {
		picv->helper = 0;
		rewait_all(picv);
	}
}

int rts_picv_wait(struct rts_picv *picv, rts_mutex_t *m, const struct timespec *deadline)
{
	struct picv_waiter w = { .tid = rts_self_tid(), .prio = current_priority() };
	rts_mutex_lock(&picv->lock);
	enqueue(picv, &w);
	lend(picv, &w);
	picv->n_waiters++;
	rts_mutex_unlock(&picv->lock);

	int result = rts_mutex_unlock(m);
	while (result == 0) {
		result = w.lent_to ? sleep_lending(&w, deadline) : sleep_plain(&w, deadline);
		uint32_t state = atomic_load_explicit(&w.state, memory_order_acquire);
		if (state == PICV_SIGNALLED || result)
			break;
		if (state == PICV_REWAIT) {
			rts_mutex_lock(&picv->lock);
			if (atomic_load_explicit(&w.state, memory_order_relaxed) == PICV_REWAIT) {
				atomic_store_explicit(&w.state, PICV_WAITING, memory_order_relaxed);
				lend(picv, &w);
			}
			rts_mutex_unlock(&picv->lock);
		}
	}

	rts_mutex_lock(&picv->lock);
	bool signalled = atomic_load_explicit(&w.state, memory_order_acquire) == PICV_SIGNALLED;
	if (!signalled)
		dequeue(picv, &w);
	if (result == ESRCH)
		forget_dead_helper(picv, w.lent_to);
	picv->n_waiters--;
	rts_mutex_unlock(&picv->lock);
	if (signalled)
		result = 0; /* a signal that chose this waiter is never lost to a timeout */

	int lock_result = rts_mutex_lock(m);
	return lock_result ? lock_result : result;
}

int rts_picv_wake(struct rts_picv *picv, bool all)
{
	rts_mutex_lock(&picv->lock);
	struct picv_waiter *w;
	while ((w = picv->queue) != NULL) {
		picv->queue = w->next;
		atomic_store_explicit(&w->state, PICV_SIGNALLED, memory_order_release);
		wake_waiter(w);
		if (!all)
			break;
	}
	rts_mutex_unlock(&picv->lock);
	return 0;
}

int rts_picv_destroy(rts_cond_t *c)
{
	struct rts_picv *picv = rts_picv_of(c);
	rts_mutex_lock(&picv->lock);
	uint32_t waiting = picv->n_waiters;
	rts_mutex_unlock(&picv->lock);
	if (waiting)
		return EBUSY;
	atomic_store_explicit(picv_slot(c), NULL, memory_order_release);
	free(picv);
	return 0;
}

static struct rts_picv *new_picv(void)
{
	struct rts_picv *picv = calloc(1, sizeof(*picv));
	if (!picv)
		return NULL;
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP);
	rts_mutex_init(&picv->lock, &attr);
	return picv;
}

/* The condvar's PI-CV state, made on first use. */
static int picv_for_helpers(rts_cond_t *c, struct rts_picv **out)
{
	struct rts_picv *picv = rts_picv_of(c);
	if (!picv) {
		if (atomic_load_explicit((_Atomic uint32_t *)&c->s.waiters, memory_order_acquire))
			return EBUSY; /* plain waiters sleep in the kernel's requeue-PI queue */
		struct rts_picv *made = new_picv();
		if (!made)
			return ENOMEM;
		if (atomic_compare_exchange_strong_explicit(picv_slot(c), &picv, made,
							    memory_order_acq_rel, memory_order_acquire))
			picv = made;
		else
			free(made); /* another thread installed one first: use it */
	}
	*out = picv;
	return 0;
}

static bool thread_exists(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) == 0;
}

RTS_EXPORT int rts_cond_helper_add(rts_cond_t *c, pid_t tid)
{
	if (!c || tid <= 0)
		return EINVAL;
	if (c->s.flags & RTS_COND_F_PSHARED)
		return ENOTSUP;
	if (!thread_exists(tid))
		return ESRCH;
	struct rts_picv *picv;
	int err = rts_wake_signal_install();
	if (!err)
		err = picv_for_helpers(c, &picv);
	if (err)
		return err;
	rts_mutex_lock(&picv->lock);
	if (picv->helper == (uint32_t)tid) {
		err = EEXIST;
	} else if (picv->helper) {
		err = ENOTSUP; /* several helpers need the donation graph (docs/picv-design.md) */
	} else {
		picv->helper = (uint32_t)tid;
		rewait_all(picv);
	}
	rts_mutex_unlock(&picv->lock);
	return err;
}

RTS_EXPORT int rts_cond_helper_del(rts_cond_t *c, pid_t tid)
{
	if (!c || tid <= 0)
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (!picv)
		return ENOENT;
	int err = 0;
	rts_mutex_lock(&picv->lock);
	if (picv->helper != (uint32_t)tid) {
		err = ENOENT;
	} else {
		picv->helper = 0;
		rewait_all(picv);
	}
	rts_mutex_unlock(&picv->lock);
	return err;
}
