/* SPDX-License-Identifier: MIT */
/*
 * rts_cond: the public calls. Arguments are checked here; the wait itself is
 * one of two algorithms, chosen by the condvar's pshared attribute:
 * cond_private.c (a queue of per-thread waiter records: a woken waiter never
 * touches the condvar again, so it may be destroyed right after a wake) and
 * cond_shared.c (one futex word shared by processes). Both keep priority
 * inheritance across the wait with requeue-PI for PIP mutexes. With an
 * RTS_PROTO_FIFO mutex (either pshared setting), cond_fifo.c: seed 000's
 * condvar, whose broadcast moves its queue onto the mutex's in O(1).
 *
 * Once a condvar has had a helper (rts_cond_helper_add), every wait and wake
 * goes through the PI-CV path of picv.c instead.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <rtsched/cond.h>

#include "internal/cond_object.h"
#include "internal/export.h"
#include "internal/mutex.h"
#include "internal/picv.h"
#include "internal/tid.h"
#include "internal/timespec.h"

static _Atomic int64_t *mutex_offset(rts_cond_t *c)
{
	return (_Atomic int64_t *)&c->s.mutex_offset;
}

RTS_EXPORT int rts_cond_init(rts_cond_t *c, const rts_condattr_t *attr)
{
	uint32_t flags;
	if (!c)
		return EINVAL;
	int ret = rts_condattr_flags(attr, &flags);
	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->s.flags = flags;
	return 0;
}

RTS_EXPORT int rts_cond_destroy(rts_cond_t *c)
{
	if (!c)
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (picv == rts_picv_invalid)
		return EINVAL;
	if (picv)
		return rts_picv_destroy(c);
	uint32_t cflags = rts_cond_flags_load(c); /* read once: see bind_mutex */
	if (cflags & RTS_COND_F_FIFO)
		return rts_cond_fifo_destroy(c);
	return (cflags & RTS_COND_F_PSHARED) ? rts_cond_shared_destroy(c)
					     : rts_cond_private_destroy(c);
}

/*
 * Check the pair and record the mutex for signallers. cflags: the condvar's
 * flags, read once by the caller: every choice of a wait follows that one
 * read, since another process may rewrite a shared condvar's flags at any
 * time (a private algorithm chosen on a second read could then run on a
 * shared object).
 */
static int bind_mutex(rts_cond_t *c, uint32_t cflags, rts_mutex_t *m)
{
	uint32_t mflags = rts_mutex_flags_load(m);
	if (rts_mutex_is_pshared(mflags) != (bool)(cflags & RTS_COND_F_PSHARED))
		return EINVAL; /* futex keys of the two words would not match */
	uint32_t owner = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed) &
			 RTS_FUTEX_TID_MASK;
	if (owner != rts_self_tid())
		return EPERM;
	int64_t offset = (char *)m - (char *)c;
	int64_t bound = atomic_load_explicit(mutex_offset(c), memory_order_relaxed);
	if (bound != offset) {
		if (atomic_load_explicit(rts_cond_waiters(c), memory_order_relaxed) != 0)
			return EINVAL; /* others wait with another mutex */
		atomic_store_explicit(mutex_offset(c), offset, memory_order_relaxed);
		if (rts_cond_flags_load(c) & RTS_COND_F_FIFO) /* a FIFO wait sets it again */
			__atomic_fetch_and(&c->s.flags, ~RTS_COND_F_FIFO, __ATOMIC_RELAXED);
	}
	return 0;
}

static int wait_common(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	if (!c || !m)
		return EINVAL;
	uint32_t cflags = rts_cond_flags_load(c);
	int ret = bind_mutex(c, cflags, m);
	if (ret)
		return ret;
	if (deadline && !rts_timespec_valid(deadline))
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (picv == rts_picv_invalid)
		return EINVAL;
	if (picv) {
		struct timespec deadline_mono;
		if (deadline && rts_cond_clock(c) == CLOCK_REALTIME) {
			deadline_mono = rts_timespec_convert(deadline, CLOCK_REALTIME, CLOCK_MONOTONIC);
			deadline = &deadline_mono;
		}
		return rts_picv_wait(c, picv, m, deadline);
	}
	bool fifo_waiters = cflags & RTS_COND_F_FIFO;
	if (rts_mutex_protocol(rts_mutex_flags_load(m)) == RTS_PROTO_FIFO)
		return rts_cond_fifo_wait(c, cflags & RTS_COND_F_PSHARED, m, deadline);
	if (fifo_waiters)
		return EINVAL; /* the mutex was made anew with another protocol while threads wait */
	return (cflags & RTS_COND_F_PSHARED) ? rts_cond_shared_wait(c, m, deadline)
					     : rts_cond_private_wait(c, m, deadline);
}

RTS_EXPORT int rts_cond_wait(rts_cond_t *c, rts_mutex_t *m)
{
	return wait_common(c, m, NULL);
}

RTS_EXPORT int rts_cond_timedwait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	if (!deadline)
		return EINVAL;
	return wait_common(c, m, deadline);
}

static int wake_waiters(rts_cond_t *c, bool all)
{
	if (!c)
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (picv == rts_picv_invalid)
		return EINVAL;
	if (picv)
		return rts_picv_wake(picv, all);
	uint32_t cflags = rts_cond_flags_load(c); /* read once: see bind_mutex */
	if (cflags & RTS_COND_F_FIFO)
		return rts_cond_fifo_wake(c, cflags & RTS_COND_F_PSHARED, all);
	return (cflags & RTS_COND_F_PSHARED) ? rts_cond_shared_wake(c, all)
					     : rts_cond_private_wake(c, all);
}

RTS_EXPORT int rts_cond_signal(rts_cond_t *c)
{
	return wake_waiters(c, false);
}

RTS_EXPORT int rts_cond_broadcast(rts_cond_t *c)
{
	return wake_waiters(c, true);
}
