/* SPDX-License-Identifier: MIT */
/* librtpi 1.0 on rtsched: each pi_* call is the rts_* call of the same name. */
#include <errno.h>
#include <stdlib.h>

#include "rtpi.h"

#define RTPI_EXPORT __attribute__((visibility("default")))

RTPI_EXPORT pi_mutex_t *pi_mutex_alloc(void)
{
	return aligned_alloc(64, sizeof(pi_mutex_t));
}

RTPI_EXPORT void pi_mutex_free(pi_mutex_t *mutex)
{
	free(mutex);
}

RTPI_EXPORT int pi_mutex_init(pi_mutex_t *mutex, uint32_t flags)
{
	if (flags & ~(uint32_t)RTPI_MUTEX_PSHARED)
		return EINVAL;
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP);
	rts_mutexattr_setpshared(&attr, (flags & RTPI_MUTEX_PSHARED) ? RTS_PROCESS_SHARED
								     : RTS_PROCESS_PRIVATE);
	return rts_mutex_init(mutex, &attr);
}

RTPI_EXPORT int pi_mutex_destroy(pi_mutex_t *mutex)
{
	return rts_mutex_destroy(mutex);
}

RTPI_EXPORT int pi_mutex_lock(pi_mutex_t *mutex)
{
	return rts_mutex_lock(mutex);
}

RTPI_EXPORT int pi_mutex_trylock(pi_mutex_t *mutex)
{
	return rts_mutex_trylock(mutex);
}

RTPI_EXPORT int pi_mutex_unlock(pi_mutex_t *mutex)
{
	return rts_mutex_unlock(mutex);
}

RTPI_EXPORT pi_cond_t *pi_cond_alloc(void)
{
	return aligned_alloc(64, sizeof(pi_cond_t));
}

RTPI_EXPORT void pi_cond_free(pi_cond_t *cond)
{
	free(cond);
}

RTPI_EXPORT int pi_cond_init(pi_cond_t *cond, uint32_t flags)
{
	if (flags & ~(uint32_t)(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME))
		return EINVAL;
	rts_condattr_t attr;
	rts_condattr_init(&attr);
	rts_condattr_setpshared(&attr, (flags & RTPI_COND_PSHARED) ? RTS_PROCESS_SHARED
								   : RTS_PROCESS_PRIVATE);
	rts_condattr_setclock(&attr, (flags & RTPI_COND_CLOCK_REALTIME) ? CLOCK_REALTIME
									: CLOCK_MONOTONIC);
	return rts_cond_init(cond, &attr);
}

RTPI_EXPORT int pi_cond_destroy(pi_cond_t *cond)
{
	return rts_cond_destroy(cond);
}

RTPI_EXPORT int pi_cond_wait(pi_cond_t *cond, pi_mutex_t *mutex)
{
	return rts_cond_wait(cond, mutex);
}

RTPI_EXPORT int pi_cond_timedwait(pi_cond_t *cond, pi_mutex_t *mutex,
				  const struct timespec *abstime)
{
	return rts_cond_timedwait(cond, mutex, abstime);
}

/* librtpi passes the mutex; rtsched's condvar already knows it from its waiters. */
RTPI_EXPORT int pi_cond_signal(pi_cond_t *cond, pi_mutex_t *mutex)
{
	(void)mutex;
	return rts_cond_signal(cond);
}

RTPI_EXPORT int pi_cond_broadcast(pi_cond_t *cond, pi_mutex_t *mutex)
{
	(void)mutex;
	return rts_cond_broadcast(cond);
}
