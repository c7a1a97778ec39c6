/* SPDX-License-Identifier: MIT */
/*
 * librtpi 1.0 API on top of rtsched, installed as <rtpi.h> together with a
 * librtpi built from rtsched: a program written for librtpi builds against
 * it and links with -lrtpi unchanged.
 *
 * Differences from librtpi, all in the user's favour:
 *  - a process-shared pi_cond_t works across processes that map it at
 *    different addresses (librtpi's does not);
 *  - the mutex is error-checking (EDEADLK, EPERM);
 *  - pi_cond_timedwait deadlines are CLOCK_MONOTONIC unless the condvar was
 *    made with RTPI_COND_CLOCK_REALTIME, as in librtpi.
 */
#ifndef RTPI_H
#define RTPI_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <rtsched/mutex.h>
#include <rtsched/cond.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef rts_mutex_t pi_mutex_t;
typedef rts_cond_t pi_cond_t;

#define RTPI_MUTEX_PSHARED        0x1
#define RTPI_COND_PSHARED         0x1
#define RTPI_COND_CLOCK_REALTIME  0x2

#define PI_MUTEX_INIT(f) \
	RTS_MUTEX_INIT(RTS_PROTO_PIP | (((f) & RTPI_MUTEX_PSHARED) ? RTS_MUTEX_F_PSHARED : 0u))
#define PI_COND_INIT(f) \
	RTS_COND_INIT((((f) & RTPI_COND_PSHARED) ? RTS_COND_F_PSHARED : 0u) | \
		      (((f) & RTPI_COND_CLOCK_REALTIME) ? RTS_COND_F_REALTIME : 0u))

#define DEFINE_PI_MUTEX(mutex, flags) pi_mutex_t mutex = PI_MUTEX_INIT(flags)
#define DEFINE_PI_COND(condvar, flags) pi_cond_t condvar = PI_COND_INIT(flags)

pi_mutex_t *pi_mutex_alloc(void);
void pi_mutex_free(pi_mutex_t *mutex);
int pi_mutex_init(pi_mutex_t *mutex, uint32_t flags);
int pi_mutex_destroy(pi_mutex_t *mutex);
int pi_mutex_lock(pi_mutex_t *mutex);
int pi_mutex_trylock(pi_mutex_t *mutex);
int pi_mutex_unlock(pi_mutex_t *mutex);

pi_cond_t *pi_cond_alloc(void);
void pi_cond_free(pi_cond_t *cond);
int pi_cond_init(pi_cond_t *cond, uint32_t flags);
int pi_cond_destroy(pi_cond_t *cond);
int pi_cond_wait(pi_cond_t *cond, pi_mutex_t *mutex);
int pi_cond_timedwait(pi_cond_t *cond, pi_mutex_t *mutex, const struct timespec *abstime);
int pi_cond_signal(pi_cond_t *cond, pi_mutex_t *mutex);
int pi_cond_broadcast(pi_cond_t *cond, pi_mutex_t *mutex);

#ifdef __cplusplus
}
#endif

#endif /* RTPI_H */
