/* SPDX-License-Identifier: MIT */
/*
 * The library's view of librtpi's objects (<rtpi.h> declares only librtpi's
 * names): a pi_mutex_t is an rts_mutex_t, the 64 bytes at offset 64 of a
 * pi_cond_t (s.__rts_cond) an rts_cond_t. Private to librtpi (rtpi.c) and
 * its white-box tests. The library is built with -fno-strict-aliasing: the
 * same bytes are read as librtpi's images and as rtsched's objects.
 */
#ifndef RTSCHED_COMPAT_RTPI_RTS_H
#define RTSCHED_COMPAT_RTPI_RTS_H

#include <stddef.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#include "rtpi.h"

/*
 * Set in pi_mutex_t.s.flags once rtsched has adopted the mutex: the word is
 * then rtsched's RTS_MUTEX_F_* flags. rts_mutex_* ignore this bit.
 *
 * States of pi_mutex_t.s.flags:
 *   0                                   librtpi image, process-private
 *                                       (PI_MUTEX_INIT(0), zero-filled memory)
 *   RTPI_MUTEX_PSHARED                  librtpi image, process-shared
 *   RTPI_MUTEX_F_RTSCHED | RTS_PROTO_PIP                        adopted, private
 *   RTPI_MUTEX_F_RTSCHED | RTS_PROTO_PIP | RTS_MUTEX_F_PSHARED  adopted, shared
 * Transitions: image -> adopted, by one CAS at the first pi_* call (or
 * pi_mutex_init, which writes the adopted form); never back. A librtpi
 * image is never taken for an adopted word: RTS_PROTO_PIP alone (0x1) equals
 * RTPI_MUTEX_PSHARED, which is why the bit exists.
 */
#define RTPI_MUTEX_F_RTSCHED      0x80000000u

_Static_assert(sizeof(rts_mutex_t) == sizeof(pi_mutex_t), "an rts_mutex_t fills a pi_mutex_t");
_Static_assert(offsetof(struct pi_cond_s, __rts_cond) == 64 &&
		       sizeof(((struct pi_cond_s *)0)->__rts_cond) >= sizeof(rts_cond_t) &&
		       _Alignof(rts_cond_t) <= 8,
	       "rtsched's condvar in the second cache line of a pi_cond_t");

static inline rts_mutex_t *rtpi_rts_mutex(pi_mutex_t *m)
{
	return (rts_mutex_t *)(void *)m;
}

static inline rts_cond_t *rtpi_rts_cond(pi_cond_t *c)
{
	return (rts_cond_t *)(void *)c->s.__rts_cond;
}

#endif
