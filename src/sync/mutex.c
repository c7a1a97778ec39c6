/* SPDX-License-Identifier: MIT */
/*
 * rts_mutex: the public calls. Each checks its arguments, tries the inline
 * fast path of the word protocols (NONE, PIP and FIFO, not robust: one CAS
 * of the word, no system call), and otherwise calls the mutex's protocol
 * (internal/lock_protocol.h). After an unlock it runs the PI-CV token
 * hand-overs parked on the mutex (internal/handover.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <rtsched/mutex.h>

#include "internal/export.h"
#include "internal/handover.h"
#include "internal/lock_protocol.h"
#include "internal/mutex.h"
#include "internal/tid.h"

RTS_EXPORT int rts_mutex_init(rts_mutex_t *m, const rts_mutexattr_t *attr)
{
	uint32_t flags;
	if (!m)
		return EINVAL;
	int ret = rts_mutexattr_flags(attr, &flags);
	if (ret)
		return ret;
	memset(m, 0, sizeof(*m));
	return rts_lock_protocol_of(flags)->init(m, flags, attr);
}

RTS_EXPORT int rts_mutex_destroy(rts_mutex_t *m)
{
	if (!m)
		return EINVAL;
	uint32_t word = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed);
	return (word & RTS_FUTEX_TID_MASK) ? EBUSY : 0;
}

static bool lock_fast(rts_mutex_t *m, uint32_t flags)
{
	uint32_t expected = 0;
	return rts_lock_word_fast_path(flags) &&
	       atomic_compare_exchange_strong_explicit(rts_mutex_word(m), &expected, rts_self_tid(),
						       memory_order_acquire, memory_order_relaxed);
}

RTS_EXPORT int rts_mutex_lock(rts_mutex_t *m)
{
	if (rts_unlikely(!m))
		return EINVAL;
	uint32_t flags = rts_mutex_flags_load(m);
	if (rts_likely(lock_fast(m, flags)))
		return 0;
	return rts_lock_protocol_of(flags)->lock(m, flags, NULL);
}

RTS_EXPORT int rts_mutex_timedlock(rts_mutex_t *m, const struct timespec *deadline_monotonic)
{
	if (!m || !deadline_monotonic)
		return EINVAL;
	uint32_t flags = rts_mutex_flags_load(m);
	const struct rts_lock_protocol *protocol = rts_lock_protocol_of(flags);
	if (!protocol->timed)
		return ENOTSUP; /* the ceiling protocols wait without a deadline */
	if (lock_fast(m, flags))
		return 0;
	return protocol->lock(m, flags, deadline_monotonic);
}

RTS_EXPORT int rts_mutex_trylock(rts_mutex_t *m)
{
	if (rts_unlikely(!m))
		return EINVAL;
	uint32_t flags = rts_mutex_flags_load(m);
	if (lock_fast(m, flags))
		return 0;
	return rts_lock_protocol_of(flags)->trylock(m, flags);
}

RTS_EXPORT int rts_mutex_unlock(rts_mutex_t *m)
{
	if (rts_unlikely(!m))
		return EINVAL;
	uint32_t flags = rts_mutex_flags_load(m);
	uint32_t expected = rts_self_tid();
	int ret = 0;
	if (!rts_lock_word_fast_path(flags) ||
	    !atomic_compare_exchange_strong_explicit(rts_mutex_word(m), &expected, 0,
						     memory_order_release, memory_order_relaxed))
		ret = rts_lock_protocol_of(flags)->unlock(m, flags);
	if (rts_unlikely(rts_handovers_parked != NULL) && ret == 0)
		rts_handover_run_parked(m); /* PI-CV waiters signalled while m was held */
	return ret;
}

RTS_EXPORT int rts_mutex_consistent(rts_mutex_t *m)
{
	if (!m)
		return EINVAL;
	uint32_t flags = rts_mutex_flags_load(m);
	uint32_t owner = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed) &
			 RTS_FUTEX_TID_MASK;
	if (!(flags & RTS_MUTEX_F_ROBUST) || !(flags & RTS_MUTEX_F_INCONSISTENT) ||
	    owner != rts_self_tid())
		return EINVAL;
	rts_mutex_flags_update(m, 0, RTS_MUTEX_F_INCONSISTENT);
	return 0;
}
