/* SPDX-License-Identifier: MIT */
/*
 * Hand-overs parked until the calling thread unlocks a mutex.
 *
 * A PI-CV waker that holds the woken waiter's mutex does not hand the waiter
 * its token at once (picv.c): the waiter, often of higher priority, would
 * preempt it only to block on that mutex. Like the kernel's requeue-PI, it
 * parks the hand-over here, and rts_mutex_unlock runs it once the mutex is
 * free. mutex.c and picv.c both call this file, never each other.
 */
#ifndef RTS_INTERNAL_HANDOVER_H
#define RTS_INTERNAL_HANDOVER_H

#include <rtsched/mutex.h>

#include "internal/futex.h"

struct rts_handover {
	struct rts_handover *next;
	rts_mutex_t *mutex;    /* run when the parking thread unlocks it */
	rts_futex_word *token; /* a PI word the parking thread owns, for its waiter */
};

/* The calling thread's parked hand-overs: NULL nearly always, so the unlock pays one TLS load. */
extern __thread struct rts_handover *rts_handovers_parked __attribute__((tls_model("initial-exec")));

/*
 * Hand the token to its waiter now. The node may end (its waiter return)
 * the moment this is done: the caller must not touch it after.
 */
void rts_handover_now(struct rts_handover *h);
/* Park h until the calling thread unlocks h->mutex. */
void rts_handover_park(struct rts_handover *h);
/* After the calling thread has unlocked m: run the hand-overs parked on it. */
void rts_handover_run_parked(rts_mutex_t *m);

#endif
