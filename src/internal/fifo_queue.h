/* SPDX-License-Identifier: MIT */
/*
 * The FIFO mutex's and condvar's queue operations (seed 000, §IV): the part
 * the paper puts in the kernel, here run by the library under a queue lock
 * of the object's scope (internal/fifo_scope.h).
 *
 *   MUTEX_WAIT    rts_fifo_mutex_enqueue   (then sleep on the own record)
 *   MUTEX_WAKE    rts_fifo_mutex_wake
 *   COND_WAIT     rts_fifo_cond_enqueue    (then sleep on the own record)
 *   COND_REQUEUE  rts_fifo_cond_requeue
 *   DEQUEUE       rts_fifo_mutex_dequeue, rts_fifo_cond_dequeue
 *
 * Every operation is O(1) but DEQUEUE of a condvar waiter, which may walk its
 * queue back to the head (at most RTS_FIFO_RECORDS steps, the bound of
 * requirement 7) to learn whether a broadcast has moved it; no operation
 * loops on a CAS of a user word (requirement 5): user words are read, checked
 * and then stored, or changed by one fetch-or / fetch-and.
 */
#ifndef RTS_INTERNAL_FIFO_QUEUE_H
#define RTS_INTERNAL_FIFO_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/fifo_scope.h"
#include "internal/futex.h"

/* Bit of S, the mutex word: the mutex's queue may be non-empty. S = owner TID | WAITERS. */
#define RTS_FIFO_WAITERS RTS_FUTEX_WAITERS

/* What the queue operations need of a mutex: its scope, words and identity. */
struct rts_fifo_mutex_ref {
	struct rts_fifo_scope *scope;
	rts_futex_word *state;      /* S */
	_Atomic uint32_t *head;     /* Q */
	uint64_t key;
	uint16_t lock;
};

/* ... and of a condition variable (in its mutex's scope). */
struct rts_fifo_cond_ref {
	rts_futex_word *counter;    /* C */
	_Atomic uint32_t *head;     /* Q' */
	_Atomic uint32_t *waiters;  /* records in the condvar's queue */
	uint64_t key;
	uint16_t lock;
	int64_t mutex_offset;       /* (char *)mutex - (char *)cond */
};

/*
 * MUTEX_WAIT: if S still equals expected, queue r at the tail of the
 * mutex's queue (state MUTEX_QUEUED). 0 queued; EAGAIN S changed (try the
 * lock again); EINVAL Q names no head of this mutex's queue.
 */
int rts_fifo_mutex_enqueue(const struct rts_fifo_mutex_ref *m, struct rts_fifo_record *r,
			   uint32_t expected);

/*
 * MUTEX_WAKE, by the owner of a mutex whose S has WAITERS: hand the mutex to
 * the head of its queue (S = its TID, WAITERS if others follow) and wake it,
 * or free it (S = 0) if the queue is empty. 0, or EINVAL when Q names no
 * head of this mutex's queue (the mutex stays the caller's).
 */
int rts_fifo_mutex_wake(const struct rts_fifo_mutex_ref *m);

/*
 * DEQUEUE of a mutex waiter whose wait ended without a grant (timeout):
 * true if it left the queue, false if it had been granted the mutex meanwhile
 * (it owns it).
 */
bool rts_fifo_mutex_dequeue(const struct rts_fifo_mutex_ref *m, struct rts_fifo_record *r);

/*
 * COND_WAIT, by the owner of the mutex: queue r at the tail of the condvar's
 * queue (state COND_QUEUED), remembering the mutex for the requeue. 0, or
 * EINVAL when Q' names no head of this condvar's queue.
 */
int rts_fifo_cond_enqueue(const struct rts_fifo_mutex_ref *m, const struct rts_fifo_cond_ref *c,
			  struct rts_fifo_record *r);

/*
 * COND_REQUEUE, by the owner of the mutex (EPERM otherwise): move the head
 * (all false; its state becomes MOVED) or the whole queue of the condvar at
 * cond onto the tail of its mutex's queue, in O(1), setting WAITERS in S and
 * incrementing C; nobody is woken (the mutex's unlock hands it over). The
 * mutex is the one the waiters named (cond + their mutex_offset), which must
 * be m. 0; EINVAL for words that name no queue of these objects.
 */
int rts_fifo_cond_requeue(const struct rts_fifo_mutex_ref *m, const struct rts_fifo_cond_ref *c,
			  bool all);

/* Where DEQUEUE found a condvar waiter. */
enum rts_fifo_left {
	RTS_FIFO_LEFT_COND,     /* it was in the condvar's queue and left it */
	RTS_FIFO_IN_MUTEX,      /* a signal or broadcast moved it: it stays in the mutex's queue */
	RTS_FIFO_WAS_GRANTED,   /* it owns the mutex */
	RTS_FIFO_LOST,          /* no queue held it as the library left it (records or its
				   state rewritten by another process): it left, ungranted */
};

/* DEQUEUE of a condvar waiter (timeout, cancellation), both locks in index order. */
enum rts_fifo_left rts_fifo_cond_dequeue(const struct rts_fifo_mutex_ref *m,
					 const struct rts_fifo_cond_ref *c,
					 struct rts_fifo_record *r);

/*
 * Where the condvar's waiters said their mutex is ((char *)mutex - (char *)
 * cond), read from its head's record, never from a user word: 0; ENOENT
 * nobody waits; EINVAL Q' names no head of this condvar's queue.
 */
int rts_fifo_cond_peek(struct rts_fifo_scope *s, const struct rts_fifo_cond_ref *c,
		       int64_t *mutex_offset);

/* Whether the condvar has no waiter (Q' and the count are 0), under its lock. */
bool rts_fifo_cond_idle(struct rts_fifo_scope *s, const struct rts_fifo_cond_ref *c);

/*
 * Sleep on r's state word until it leaves the queued states (GRANTED), or
 * until deadline (CLOCK_MONOTONIC or the given clock; NULL: none). 0 granted,
 * ETIMEDOUT. With `cancellable` each sleep is a cancellation point
 * (internal/cancel.h: the caller pushes the cleanup); else none is.
 */
int rts_fifo_sleep(struct rts_fifo_scope *s, struct rts_fifo_record *r,
		   const struct timespec *deadline, clockid_t clock, bool cancellable);

#endif
