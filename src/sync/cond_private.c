/* SPDX-License-Identifier: MIT */
/*
 * Process-private rts_cond: a queue of waiter records, one per waiting
 * thread, each with its own futex word; requeue-PI for PIP mutexes.
 *
 * Why records and not one futex word for all: POSIX lets a program destroy
 * a condition variable, and free its memory, as soon as no thread is
 * blocked on it, e.g. right after a broadcast while it still holds the
 * mutex. With requeue-PI a woken waiter returns from the kernel owning the
 * mutex, so it cannot tell the condvar it has left without waiting for the
 * mutex that the destroyer holds; and from the kernel's answers a waiter
 * cannot tell whether a signal moved it or it timed out first. With a
 * record per waiter, the signaller takes the waiter out of the queue itself:
 * a woken waiter never touches the condvar again.
 *
 * A waiter's record lives in its thread's TLS (a thread waits on one
 * condvar at a time); a user-level task has its own (internal/task_local.h).
 * Its word holds the record's generation, advanced by GENERATION_STEP
 * for every wait, and a state in the low bits:
 *   WAITING    queued, asleep or on its way to sleep;
 *   SIGNALLED  taken out of the queue by a signal or broadcast (the
 *              signaller's CAS, under the queue lock): the wait is over,
 *              and the waiter never touches the condvar again;
 *   LEAVING    the waiter leaves on its own (timeout, cancellation, error;
 *              its own CAS, without the lock): it is still queued and
 *              unlinks itself under the lock, and destroy waits for that.
 * The two CASes decide every race between a signal and a waiter leaving.
 *
 * Wait (the caller owns the mutex):
 *   1. word = generation | WAITING; queue the record by priority, FIFO
 *      among equals (under the lock); waiters += 1
 *   2. unlock the mutex
 *   3. sleep while word == generation | WAITING: FUTEX_WAIT_REQUEUE_PI onto
 *      the mutex (PIP) or FUTEX_WAIT (any other protocol), a cancellation
 *      point
 *   4. CAS word WAITING -> LEAVING: if it succeeds the wait timed out or
 *      was interrupted: unlink, then lock the mutex; if it fails, a signal
 *      chose this waiter: own the mutex (the kernel gave it, or lock it).
 *
 * Signal: under the lock, CAS the first WAITING record to SIGNALLED and
 * unlink it; then, after the lock, FUTEX_CMP_REQUEUE_PI (or FUTEX_WAKE) on
 * its word. If that moved nobody, the waiter was not asleep: it has left on
 * its own or is about to find its word changed; the signal goes on to the
 * next waiter, so that none is lost (at worst one spurious wake-up, which
 * POSIX allows). Broadcast takes every WAITING record out and wakes each
 * under the lock (a woken waiter needs no lock), one system call per
 * waiter: the kernel can move a whole queue only when it shares one word.
 *
 * Stale wakes: a signaller's system call may come after its waiter has left
 * and started another wait with the same record. The requeue compares the
 * word with the value the signaller set, which the new wait's generation
 * differs from, so it moves nobody; a FUTEX_WAKE is not compared, so a
 * plain waiter woken while its word is still WAITING sleeps again. If the
 * thread has exited, the call finds a word that is not its value, or
 * unmapped memory (EFAULT): nobody is moved either way.
 *
 * Priorities are read (sched_getattr) only when a second waiter must be
 * ordered against the first: a lone waiter costs no system call.
 *
 * Cancellation (in step 3): the cleanup does step 4 and owns the mutex
 * again before the caller's cleanup handlers run. A cancelled waiter that a
 * signal had chosen will not act on it, so it passes it on: if the signal
 * had not moved it yet, the signaller found it not asleep and went on to
 * the next waiter already; if it had (the waiter was cancelled while it
 * waited for the mutex), the waiter signals the condvar itself, but only
 * through the registry of live condvars (cond_registry.c), since the
 * condvar may have been destroyed since it was taken out of the queue.
 * Either way a spurious wake-up at worst, never a lost one.
 */
#include <errno.h>
#include <stdatomic.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/cancel.h"
#include "internal/cond_object.h"
#include "internal/mutex.h"
#include "internal/pi_word.h"
#include "internal/robust_list.h"
#include "internal/sched_attr.h"
#include "internal/task_local.h"
#include "internal/tid.h"

#define STATE_MASK 3u
#define WAITING 0u
#define SIGNALLED 1u
#define LEAVING 2u
#define GENERATION_STEP 4u

/* Bit of `waiters`: a destroy sleeps on the word until the leaving waiters are gone. */
#define DESTROYER_SLEEPS 0x80000000u

#define PRIORITY_UNREAD (-1)

struct cond_waiter {
	struct cond_waiter *next; /* under the queue lock */
	rts_futex_word word;      /* generation | state */
	uint32_t tid;
	int prio;                     /* rts_task_queue_priority, or PRIORITY_UNREAD (under the lock) */
	rts_futex_word *requeue_onto; /* the PIP mutex's word, or NULL: plain sleep */
	uint32_t generation;          /* the owning thread's alone */
};

static __thread struct cond_waiter thread_record __attribute__((tls_model("initial-exec")));

_Static_assert(sizeof(struct cond_waiter) <= sizeof(struct rts_task_cond_record) &&
		       _Alignof(struct cond_waiter) <= _Alignof(struct rts_task_cond_record),
	       "a user-level task's record slot holds a waiter record");

/* The calling task's record: its kernel thread's, or the one a user-level
 * scheduler gives each of its tasks (internal/task_local.h). */
static struct cond_waiter *self_record(void)
{
	struct rts_task_cond_record *own = rts_task_cond_record;
	return own ? (struct cond_waiter *)(void *)own : &thread_record;
}

/* What a signaller needs of a record it took out, copied under the lock. */
struct taken {
	rts_futex_word *word;
	uint32_t value; /* generation | SIGNALLED */
	rts_futex_word *requeue_onto;
};

static rts_futex_word *lock_word(rts_cond_t *c)
{
	return (rts_futex_word *)&c->s.lock;
}

static struct cond_waiter **queue_head(rts_cond_t *c)
{
	return (struct cond_waiter **)&c->s.queue;
}

/* The queue lock: a PI word (internal/pi_word.h). */
static void queue_lock(rts_cond_t *c)
{
	rts_pi_lock(lock_word(c), false);
}

static void queue_unlock(rts_cond_t *c)
{
	rts_pi_unlock(lock_word(c), false);
}

static int priority_of(struct cond_waiter *w)
{
	if (w->prio == PRIORITY_UNREAD)
		w->prio = rts_task_queue_priority(w->tid);
	return w->prio;
}

/* Under the lock. */
static void enqueue(rts_cond_t *c, struct cond_waiter *w)
{
	struct cond_waiter **at = queue_head(c);
	if (*at)
		priority_of(w); /* lone waiters need no order */
	while (*at && priority_of(*at) >= w->prio)
		at = &(*at)->next;
	w->next = *at;
	*at = w;
	atomic_fetch_add_explicit(rts_cond_waiters(c), 1, memory_order_relaxed);
}

/* Under the lock: take w out of the queue; wake a destroy waiting for it. */
static void unlink_record(rts_cond_t *c, struct cond_waiter *w)
{
	for (struct cond_waiter **at = queue_head(c); *at; at = &(*at)->next)
		if (*at == w) {
			*at = w->next;
			break;
		}
	uint32_t before = atomic_fetch_sub_explicit(rts_cond_waiters(c), 1, memory_order_relaxed);
	if (before & DESTROYER_SLEEPS)
		rts_backend()->wake(rts_cond_waiters(c), 1, false);
}

/* Under the lock: the first WAITING record, now SIGNALLED and out of the queue. */
static bool take_first_waiting(rts_cond_t *c, struct taken *out)
{
	for (struct cond_waiter *w = *queue_head(c); w; w = w->next) {
		uint32_t value = atomic_load_explicit(&w->word, memory_order_relaxed);
		if ((value & STATE_MASK) != WAITING)
			continue; /* leaving: it unlinks itself */
		if (!atomic_compare_exchange_strong_explicit(&w->word, &value, value | SIGNALLED,
							     memory_order_release,
							     memory_order_relaxed))
			continue; /* it began to leave just now */
		*out = (struct taken){ &w->word, value | SIGNALLED, w->requeue_onto };
		unlink_record(c, w);
		return true;
	}
	return false;
}

/* Wake a taken waiter; false when it was not asleep on its word. */
static bool kick(const struct taken *t)
{
	const struct rts_backend *backend = rts_backend();
	int moved = t->requeue_onto
			    ? backend->cond_requeue(t->word, t->value, 0, t->requeue_onto, false)
			    : backend->wake(t->word, 1, false);
	return moved > 0;
}

/* Signal or broadcast a condvar known to be this process's (see rts_cond_trusted). */
static int wake_trusted(rts_cond_t *c, bool all)
{
	struct taken t;
	if (all) {
		queue_lock(c);
		while (take_first_waiting(c, &t))
			kick(&t);
		queue_unlock(c);
		return 0;
	}
	for (;;) {
		queue_lock(c);
		bool found = take_first_waiting(c, &t);
		queue_unlock(c);
		if (!found || kick(&t))
			return 0;
		/* not asleep: the signal goes on to the next waiter */
	}
}

int rts_cond_private_wake(rts_cond_t *c, bool all)
{
	if ((atomic_load_explicit(rts_cond_waiters(c), memory_order_acquire) & ~DESTROYER_SLEEPS) == 0)
		return 0;
	if (!rts_cond_trusted(c))
		return EINVAL; /* waiters counted, but none of this process: the words are not ours */
	return wake_trusted(c, all);
}

/* Step 4: 0 if a signal chose the waiter, else ETIMEDOUT or EINTR (the record is unlinked). */
static int end_wait(rts_cond_t *c, struct cond_waiter *w, uint32_t waiting, int slept)
{
	uint32_t expected = atomic_load_explicit(&w->word, memory_order_acquire);
	if (expected != waiting || /* the common case: signalled, no CAS needed */
	    !atomic_compare_exchange_strong_explicit(&w->word, &expected, waiting | LEAVING,
						     memory_order_acquire, memory_order_acquire))
		return 0;
	queue_lock(c);
	unlink_record(c, w);
	queue_unlock(c);
	return slept == -ETIMEDOUT ? ETIMEDOUT : EINTR;
}

struct wait_frame {
	rts_cond_t *c;
	rts_mutex_t *m;
	struct cond_waiter *w;
	uint32_t waiting;
	uint64_t incarnation; /* the condvar's, in the registry */
	bool robust_pending;
};

/* Cancelled in step 3: leave, and own the mutex again before the caller's handlers run. */
static void cancelled(void *arg)
{
	struct wait_frame *f = arg;
	bool chosen = end_wait(f->c, f->w, f->waiting, -EINTR) == 0;
	if (f->robust_pending)
		rts_robust_list_clear_pending();
	rts_mutex_own_again(f->m, f->w->requeue_onto != NULL);
	if (!chosen || !f->incarnation)
		return;
	rts_cond_registry_lock();
	if (rts_cond_registry_holds(f->c, f->incarnation) && rts_cond_trusted_locked(f->c))
		wake_trusted(f->c, false);
	rts_cond_registry_unlock();
}


/* Step 3: the kernel's answer (0: woken, and for PIP owning the mutex). */
static int sleep_on_record(struct wait_frame *f, const struct timespec *deadline, clockid_t clock)
{
	const struct rts_backend *backend = rts_backend();
	struct cond_waiter *w = f->w;
	int slept;
	pthread_cleanup_push(cancelled, f);
	do {
		int cancel_type = rts_cancel_async_begin();
		slept = w->requeue_onto
				? backend->cond_block(&w->word, f->waiting, deadline, clock,
						      w->requeue_onto, false)
				: backend->block(&w->word, f->waiting, deadline, clock, false);
		rts_cancel_async_end(cancel_type);
	}
	/* a signal handler (EINTR), or a stale FUTEX_WAKE from a former wait */
	while ((slept == -EINTR || (slept == 0 && !w->requeue_onto)) &&
	       atomic_load_explicit(&w->word, memory_order_acquire) == f->waiting);
	pthread_cleanup_pop(0);
	return slept;
}

int rts_cond_private_wait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	struct cond_waiter *w = self_record();
	bool pi = rts_mutex_protocol(rts_mutex_flags_load(m)) == RTS_PROTO_PIP;
	w->generation += GENERATION_STEP;
	struct wait_frame f = { .c = c, .m = m, .w = w, .waiting = w->generation | WAITING };
	int admitted = rts_cond_admit(c, &f.incarnation);
	if (admitted)
		return admitted;
	atomic_store_explicit(&w->word, f.waiting, memory_order_relaxed);
	w->tid = rts_self_tid();
	w->requeue_onto = pi ? rts_mutex_word(m) : NULL;
	w->prio = PRIORITY_UNREAD;
	if (atomic_load_explicit(rts_cond_waiters(c), memory_order_relaxed) & ~DESTROYER_SLEEPS)
		w->prio = rts_task_queue_priority(0); /* read before the lock, not under it */
	/* Everything the wait needs of c is read now: once queued, the record may be
	 * taken and c destroyed at any moment. */
	clockid_t clock = rts_cond_clock(c);

	queue_lock(c);
	enqueue(c, w);
	queue_unlock(c);
	int ret = rts_mutex_unlock(m);
	if (ret) {
		if (end_wait(c, w, f.waiting, -EINTR) == 0)
			wake_trusted(c, false); /* a signal chose it already: pass it on */
		return ret;
	}

	f.robust_pending = pi && (rts_mutex_flags_load(m) & RTS_MUTEX_F_ROBUST) &&
			   rts_mutex_robust_announce(m) == 0;
	int slept = sleep_on_record(&f, deadline, clock);
	if (f.robust_pending && slept != 0)
		rts_robust_list_clear_pending();
	int result = end_wait(c, w, f.waiting, slept);
	int lock_ret = rts_mutex_own_again(m, pi);
	if (lock_ret)
		return lock_ret;
	return result == ETIMEDOUT ? ETIMEDOUT : 0; /* EINTR: a spurious wake-up */
}

static bool any_waiting(rts_cond_t *c)
{
	for (struct cond_waiter *w = *queue_head(c); w; w = w->next)
		if ((atomic_load_explicit(&w->word, memory_order_relaxed) & STATE_MASK) == WAITING)
			return true;
	return false;
}

int rts_cond_private_destroy(rts_cond_t *c)
{
	for (;;) {
		rts_cond_registry_lock();
		if (!rts_cond_trusted_locked(c)) {
			rts_cond_registry_unlock();
			return 0; /* never waited on in this process: nothing of ours in it */
		}
		queue_lock(c);
		uint32_t leaving = atomic_load_explicit(rts_cond_waiters(c), memory_order_relaxed) &
				   ~DESTROYER_SLEEPS;
		bool busy = any_waiting(c);
		if (!busy && leaving) /* see below */
			atomic_store_explicit(rts_cond_waiters(c), leaving | DESTROYER_SLEEPS,
					      memory_order_relaxed);
		queue_unlock(c);
		if (!busy && !leaving && rts_cond_registered(c))
			rts_cond_registry_leave(c);
		rts_cond_registry_unlock();
		if (busy)
			return EBUSY;
		if (!leaving)
			return 0;
		/* Waiters that timed out or were cancelled are unlinking themselves: they
		 * need only the queue lock, so this wait is short. */
		rts_backend()->block(rts_cond_waiters(c), leaving | DESTROYER_SLEEPS, NULL,
				     CLOCK_MONOTONIC, false);
	}
}
