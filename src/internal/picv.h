/* SPDX-License-Identifier: MIT */
/* PI on condition variables: what cond.c delegates to picv.c once a condvar has helpers. */
#ifndef RTS_INTERNAL_PICV_H
#define RTS_INTERNAL_PICV_H

#include <stdbool.h>
#include <time.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

/*
 * The condvar's PI-CV state, or NULL (acquire: pairs with its installation),
 * or rts_picv_invalid when its handle names no PI-CV state of this condvar
 * (rewritten: the calls return EINVAL).
 */
struct rts_picv *rts_picv_of(rts_cond_t *cond);
extern struct rts_picv *const rts_picv_invalid;
/*
 * As rts_cond_timedwait on cond, whose PI-CV state is picv; the caller owns
 * mutex. deadline on CLOCK_MONOTONIC or NULL. A cancellation point.
 */
int rts_picv_wait(rts_cond_t *cond, struct rts_picv *picv, rts_mutex_t *mutex,
		  const struct timespec *deadline_mono);
/* Wake the highest-priority waiter, or every waiter. */
int rts_picv_wake(struct rts_picv *picv, bool all);
/* EBUSY while threads are blocked; waits for woken ones still leaving; then frees the state. */
int rts_picv_destroy(rts_cond_t *cond);

#endif
