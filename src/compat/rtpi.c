/* SPDX-License-Identifier: MIT */
/*
 * librtpi 1.0 on rtsched: each pi_* call adopts its objects (rtpi.h: the
 * librtpi images in the flags words become rtsched's flags) and is then the
 * rts_* call of the same name on the rtsched object inside.
 *
 * Why adoption is safe without a lock: every caller adopts before it touches
 * the object and sees the adopted flags before it goes on (its own CAS
 * succeeded, or failed on the adopted value); the adopted value depends only
 * on the image (immutable once initialised), so racing adopters agree; the
 * flags words are never changed again by rtsched for these objects
 * (pi mutexes are never robust, the only case in which rts_mutex_* change
 * their flags; rts_cond_* never change theirs). The release CAS / acquire
 * load pair orders the adopter's write before the plain reads of the flags
 * that rts_cond_* make in other threads.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtpi_rts.h"

#define RTPI_EXPORT __attribute__((visibility("default")))

/* The kernel's PI-futex owner field (<linux/futex.h> FUTEX_TID_MASK). */
#define RTPI_FUTEX_TID_MASK 0x3fffffffu

/* librtpi 1.0's ABI (rtpi.h); tests/c/librtpi10/rtpi.h is an independent statement of it. */
_Static_assert(offsetof(struct pi_mutex_s, futex) == 0 && offsetof(struct pi_mutex_s, flags) == 4,
	       "librtpi 1.0: u32 futex at 0, u32 flags at 4");
_Static_assert(offsetof(struct pi_cond_s, cond) == 0 && offsetof(struct pi_cond_s, flags) == 4 &&
		       offsetof(struct pi_cond_s, wake_id) == 8 &&
		       offsetof(struct pi_cond_s, state) == 12,
	       "librtpi 1.0: u32 cond, flags, wake_id, state at 0, 4, 8, 12");
/* The rtsched objects inside (and rtpi_rts.h). */
_Static_assert(offsetof(struct rts_mutex_s, word) == offsetof(struct pi_mutex_s, futex) &&
		       offsetof(struct rts_mutex_s, flags) == offsetof(struct pi_mutex_s, flags),
	       "rtsched's mutex word and flags where librtpi keeps its futex and flags");
_Static_assert((RTPI_MUTEX_F_RTSCHED &
		(RTS_MUTEX_F_PROTO_MASK | RTS_MUTEX_F_PSHARED | RTS_MUTEX_F_ROBUST |
		 RTS_MUTEX_F_EAGER | RTS_MUTEX_F_INCONSISTENT | RTS_MUTEX_F_NOTRECOVERABLE)) == 0,
	       "the adoption bit is none of rtsched's mutex flags");

static _Atomic uint32_t *mutex_flags(pi_mutex_t *m)
{
	return (_Atomic uint32_t *)&m->s.flags;
}

static uint32_t mutex_adopted_flags(uint32_t image)
{
	return RTPI_MUTEX_F_RTSCHED | RTS_PROTO_PIP |
	       ((image & RTPI_MUTEX_PSHARED) ? RTS_MUTEX_F_PSHARED : 0u);
}

/* The rtsched mutex in m, adopting a librtpi image first. */
static rts_mutex_t *mutex_adopt(pi_mutex_t *m)
{
	uint32_t f = atomic_load_explicit(mutex_flags(m), memory_order_acquire);
	if (__builtin_expect(!(f & RTPI_MUTEX_F_RTSCHED), 0))
		atomic_compare_exchange_strong_explicit(mutex_flags(m), &f, mutex_adopted_flags(f),
							memory_order_acq_rel, memory_order_acquire);
	return rtpi_rts_mutex(m);
}

static _Atomic uint32_t *cond_rts_flags(pi_cond_t *c)
{
	return (_Atomic uint32_t *)&rtpi_rts_cond(c)->s.flags;
}

/* The rtsched condvar in c, adopting a librtpi image first. */
static rts_cond_t *cond_adopt(pi_cond_t *c)
{
	uint32_t image = c->s.flags;
	uint32_t want = ((image & RTPI_COND_PSHARED) ? RTS_COND_F_PSHARED : 0u) |
			((image & RTPI_COND_CLOCK_REALTIME) ? RTS_COND_F_REALTIME : 0u);
	if (want) {
		uint32_t f = atomic_load_explicit(cond_rts_flags(c), memory_order_acquire);
		while ((f & want) != want &&
		       !atomic_compare_exchange_weak_explicit(cond_rts_flags(c), &f, f | want,
							      memory_order_acq_rel,
							      memory_order_acquire))
			;
	}
	return rtpi_rts_cond(c);
}

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
	if (!mutex)
		return EINVAL;
	if (flags & ~(uint32_t)RTPI_MUTEX_PSHARED)
		return EINVAL;
	rts_mutexattr_t attr;
	rts_mutexattr_init(&attr);
	rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP);
	rts_mutexattr_setpshared(&attr, (flags & RTPI_MUTEX_PSHARED) ? RTS_PROCESS_SHARED
								     : RTS_PROCESS_PRIVATE);
	int ret = rts_mutex_init(rtpi_rts_mutex(mutex), &attr);
	if (ret == 0)
		atomic_store_explicit(mutex_flags(mutex), mutex->s.flags | RTPI_MUTEX_F_RTSCHED,
				      memory_order_release);
	return ret;
}

RTPI_EXPORT int pi_mutex_destroy(pi_mutex_t *mutex)
{
	if (!mutex)
		return EINVAL;
	return rts_mutex_destroy(mutex_adopt(mutex));
}

RTPI_EXPORT int pi_mutex_lock(pi_mutex_t *mutex)
{
	if (!mutex)
		return EINVAL;
	int ret = rts_mutex_lock(mutex_adopt(mutex));
	return ret == EDEADLK ? EDEADLOCK : ret;
}

RTPI_EXPORT int pi_mutex_trylock(pi_mutex_t *mutex)
{
	if (!mutex)
		return EINVAL;
	rts_mutex_t *m = mutex_adopt(mutex);
	int ret = rts_mutex_trylock(m);
	if (ret != EBUSY)
		return ret;
	/* librtpi: EDEADLOCK when the caller owns it. A system call, on this path only. */
	uint32_t owner = atomic_load_explicit((_Atomic uint32_t *)&m->s.word, memory_order_relaxed) &
			 RTPI_FUTEX_TID_MASK;
	return owner == (uint32_t)gettid() ? EDEADLOCK : EBUSY;
}

RTPI_EXPORT int pi_mutex_unlock(pi_mutex_t *mutex)
{
	if (!mutex)
		return EINVAL;
	return rts_mutex_unlock(mutex_adopt(mutex));
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
	if (!cond)
		return EINVAL;
	if (flags & ~(uint32_t)(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME))
		return EINVAL;
	rts_condattr_t attr;
	rts_condattr_init(&attr);
	rts_condattr_setpshared(&attr, (flags & RTPI_COND_PSHARED) ? RTS_PROCESS_SHARED
								   : RTS_PROCESS_PRIVATE);
	rts_condattr_setclock(&attr, (flags & RTPI_COND_CLOCK_REALTIME) ? CLOCK_REALTIME
									: CLOCK_MONOTONIC);
	memset(cond, 0, offsetof(struct pi_cond_s, __rts_cond));
	cond->s.flags = flags;
	cond->s.state = RTPI_COND_STATE_READY;
	return rts_cond_init(rtpi_rts_cond(cond), &attr);
}

RTPI_EXPORT int pi_cond_destroy(pi_cond_t *cond)
{
	if (!cond)
		return EINVAL;
	return rts_cond_destroy(cond_adopt(cond));
}

RTPI_EXPORT int pi_cond_wait(pi_cond_t *cond, pi_mutex_t *mutex)
{
	if (!cond || !mutex)
		return EINVAL;
	return rts_cond_wait(cond_adopt(cond), mutex_adopt(mutex));
}

/*
 * librtpi: a NULL deadline waits without one; an invalid deadline is EINVAL
 * before anything else is looked at (before the ownership check that gives
 * EPERM; librtpi's tst-cond19 calls it without the mutex).
 */
RTPI_EXPORT int pi_cond_timedwait(pi_cond_t *cond, pi_mutex_t *mutex,
				  const struct timespec *abstime)
{
	if (!cond || !mutex)
		return EINVAL;
	if (abstime && (abstime->tv_sec < 0 || abstime->tv_nsec < 0 ||
			abstime->tv_nsec >= 1000000000L))
		return EINVAL;
	if (!abstime)
		return rts_cond_wait(cond_adopt(cond), mutex_adopt(mutex));
	return rts_cond_timedwait(cond_adopt(cond), mutex_adopt(mutex), abstime);
}

/* librtpi passes the mutex; rtsched's condvar already knows it from its waiters. */
RTPI_EXPORT int pi_cond_signal(pi_cond_t *cond, pi_mutex_t *mutex)
{
	(void)mutex;
	if (!cond)
		return EINVAL;
	return rts_cond_signal(cond_adopt(cond));
}

RTPI_EXPORT int pi_cond_broadcast(pi_cond_t *cond, pi_mutex_t *mutex)
{
	(void)mutex;
	if (!cond)
		return EINVAL;
	return rts_cond_broadcast(cond_adopt(cond));
}
