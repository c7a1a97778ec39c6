/* SPDX-License-Identifier: MIT */
/*
 * librtpi 1.0's C binary interface, stated independently for rtsched's
 * tests (not librtpi's header, which is LGPL): the sizes, alignments, field
 * offsets, flag values and static-initialiser images that a program built
 * against librtpi 1.0 has compiled into it. test_rtpi_abi.c is built against
 * this file, as such a program was, and runs on rtsched's librtpi.so.1.
 *
 * From librtpi 1.0.0 (src/rtpi.h, src/rtpi_internal.h, src/pi_mutex.c,
 * src/pi_cond.c):
 *  - union pi_mutex: u32 futex at 0 (the kernel PI-futex word), u32 flags
 *    at 4, padded to 64 bytes, aligned 64. pi_mutex_init(m, f) is a memset
 *    to zero plus flags = f & RTPI_MUTEX_PSHARED, so zero-filled memory is
 *    an unlocked process-private PI mutex.
 *  - union pi_cond: u32 cond (futex word), flags, wake_id, state at 0, 4,
 *    8, 12, padded to 128 bytes, aligned 64; pi_cond_init and the
 *    initialiser set state = RTPI_COND_STATE_READY (1).
 *  - RTPI_MUTEX_PSHARED 0x1; RTPI_COND_PSHARED 0x1;
 *    RTPI_COND_CLOCK_REALTIME 0x2.
 *  - the functions and their C signatures below; pi_mutex_trylock by the
 *    owner returns EDEADLOCK, pi_cond_timedwait(c, m, NULL) waits without
 *    a deadline.
 * The field names here are this file's own; only offsets and values matter.
 */
#ifndef RTPI_H
#define RTPI_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define RTPI_MUTEX_PSHARED       0x1
#define RTPI_COND_PSHARED        0x1
#define RTPI_COND_CLOCK_REALTIME 0x2
#define RTPI_COND_STATE_READY    0x1

union pi_mutex {
	struct {
		uint32_t futex;
		uint32_t flags;
	} v;
	uint8_t bytes[64];
} __attribute__((aligned(64)));

union pi_cond {
	struct {
		uint32_t cond;
		uint32_t flags;
		uint32_t wake_id;
		uint32_t state;
	} v;
	uint8_t bytes[128];
} __attribute__((aligned(64)));

typedef union pi_mutex pi_mutex_t;
typedef union pi_cond pi_cond_t;

#define PI_MUTEX_INIT(f) { .v = { .futex = 0, .flags = (f) } }
#define PI_COND_INIT(f) \
	{ .v = { .cond = 0, .flags = (f), .wake_id = 0, .state = RTPI_COND_STATE_READY } }
#define DEFINE_PI_MUTEX(mutex, flags) pi_mutex_t mutex = PI_MUTEX_INIT(flags)
#define DEFINE_PI_COND(condvar, flags) pi_cond_t condvar = PI_COND_INIT(flags)

_Static_assert(sizeof(pi_mutex_t) == 64 && _Alignof(pi_mutex_t) == 64, "librtpi 1.0 pi_mutex_t");
_Static_assert(sizeof(pi_cond_t) == 128 && _Alignof(pi_cond_t) == 64, "librtpi 1.0 pi_cond_t");

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

#endif /* RTPI_H */
