/* SPDX-License-Identifier: MIT */
/*
 * librtpi 1.0 API on top of rtsched, installed as <rtpi.h> together with a
 * librtpi.so.1 built from rtsched (and the C++ headers <rtpi/mutex.hpp>,
 * <rtpi/condition_variable.hpp>): a program written for librtpi builds
 * against it and links with -lrtpi unchanged.
 *
 * Binary layout: the same as librtpi 1.0's (decision, issue 11 part 4).
 * rtsched's librtpi.so.1 carries librtpi's SONAME, so the loader will run a
 * program built against real librtpi's header on it (and one built against
 * this header on real librtpi). Both directions are made safe by using
 * librtpi 1.0's layout and initialiser images exactly:
 *   pi_mutex_t  64 bytes, aligned 64; u32 futex at 0, u32 flags at 4;
 *               PI_MUTEX_INIT(f) = { futex 0, flags f }, the rest zero.
 *   pi_cond_t   128 bytes, aligned 64; u32 cond, flags, wake_id, state at
 *               0, 4, 8, 12; PI_COND_INIT(f) = { 0, f, 0,
 *               RTPI_COND_STATE_READY }, the rest zero.
 *   RTPI_MUTEX_PSHARED 0x1, RTPI_COND_PSHARED 0x1, RTPI_COND_CLOCK_REALTIME 0x2.
 * A zero-filled librtpi mutex is an unlocked process-private PI mutex
 * (librtpi's pi_mutex_init is a memset plus the flags); here too.
 * The alternative, a SONAME of its own, was rejected: existing librtpi
 * binaries could then not switch to rtsched at all, and the layout costs
 * rtsched nothing (the objects are as large as rtsched's own).
 *
 * How rtsched reads librtpi's images ("adoption", in the library at the
 * first pi_* call on an object, and at every call after it, one load and a
 * branch):
 *  - mutex: the 64 bytes are an rts_mutex_t (word at 0, flags at 4, same
 *    kernel PI-futex word format as librtpi's). The flags word holds either
 *    a librtpi image or, once adopted, rtsched's flags with
 *    RTPI_MUTEX_F_RTSCHED set; one CAS adopts (state table in rtpi_rts.h).
 *  - condvar: the first 16 bytes keep librtpi's image (rtsched reads only
 *    its flags, which never change); the rtsched condition variable is
 *    s.__rts_cond, at offset 64, all zero in librtpi's initialisers. Adoption sets
 *    RTS_COND_F_PSHARED / RTS_COND_F_REALTIME in it from s.flags (one CAS).
 *    (Not at offset 0: librtpi's image has its own flag values at 4 and
 *    RTPI_COND_STATE_READY, 1, at 12, words that rts_cond_t uses itself.)
 *
 * Differences from librtpi 1.0 (tests: tests/c/test_rtpi_compat.c,
 * test_rtpi_abi.c, tests/cxx/):
 *  - a process-shared pi_cond_t works across processes that map it at
 *    different addresses (librtpi's does not);
 *  - pi_cond_signal / pi_cond_broadcast ignore their mutex argument: the
 *    condvar knows the mutex its waiters use (librtpi requeues onto the
 *    mutex it is given);
 *  - pi_mutex_destroy returns EBUSY while the mutex is locked and
 *    pi_cond_destroy returns EBUSY while threads wait, and neither clears
 *    the object (librtpi: always 0, and memset to zero), as POSIX
 *    recommends for pthread_*_destroy;
 *  - pi_cond_wait / pi_cond_timedwait return EINVAL when a process-shared
 *    condvar is used with a process-private mutex or the reverse (librtpi
 *    takes the condvar's flag for both futexes; rtsched refuses rather than
 *    let the two futex keys disagree);
 *  - pi_cond_alloc / pi_mutex_alloc return 64-byte aligned memory (librtpi
 *    uses malloc, which does not promise the alignment the types declare);
 *  - process-shared condvars (RTPI_COND_PSHARED) count their waiters in the
 *    shared object and keep them in one kernel futex queue (a per-waiter
 *    record, which makes process-private condvars destroyable right after a
 *    wake, cannot be reached from another address space). So a woken
 *    waiter leaves the count only after it has the mutex again, and
 *    pi_cond_destroy returns EBUSY until then (librtpi: always 0); and a
 *    waiter whose process is killed while it waits stays counted: destroy
 *    returns EBUSY for good, and pi_cond_init starts the object afresh
 *    (rtsched/cond.h);
 *  - cancellation: pi_cond_wait / pi_cond_timedwait are cancellation
 *    points, as in librtpi 1.0 built with its default
 *    --enable-cancellation; the mutex is held again when the cleanup
 *    handlers run, and a signal the cancelled waiter was chosen by goes on
 *    to another waiter (tests/cxx/test_rtpi_cxx_lifetime.cpp,
 *    tests/c/test_cond_cancel.c).
 * Same as librtpi 1.0 (were differences before): pi_cond_timedwait with a
 * NULL deadline waits without one, and with an invalid one (tv_sec < 0,
 * tv_nsec outside 0..999999999) returns EINVAL before the mutex is looked
 * at (librtpi's tst-cond19: not EPERM for a mutex not held); librtpi.a is
 * installed (with rtsched's objects inside: `-static -lrtpi -lpthread`); pi_mutex_trylock by the owner returns
 * EDEADLOCK (librtpi's value; EDEADLK and EDEADLOCK are one number on the
 * common Linux ports), as does pi_mutex_lock; timedwait deadlines are
 * CLOCK_MONOTONIC unless the condvar was made with RTPI_COND_CLOCK_REALTIME.
 * Only librtpi's names are declared here: rtsched's types stay inside the
 * library (behind the reserved member name __rts_cond); the adopted
 * state of the flags words is the library's business (src/compat/rtpi_rts.h).
 * Mixing the two libraries on one object (a shared mapping used by a
 * process on real librtpi and one on rtsched) is not supported.
 */
#ifndef RTPI_H
#define RTPI_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>


#define RTPI_MUTEX_PSHARED        0x1
#define RTPI_COND_PSHARED         0x1
#define RTPI_COND_CLOCK_REALTIME  0x2

/* librtpi's value of pi_cond_t.s.state after an initialiser or pi_cond_init. */
#define RTPI_COND_STATE_READY     0x1


union pi_mutex {
	struct pi_mutex_s {
		uint32_t futex; /* kernel PI-futex word: owner TID | FUTEX_WAITERS | FUTEX_OWNER_DIED */
		uint32_t flags; /* see the state table above */
	} s;
	uint8_t pad[64];        /* all 64 bytes are rtsched's mutex once adopted (the library's view) */
} __attribute__((aligned(64)));

union pi_cond {
	struct pi_cond_s {
		uint32_t cond;          /* librtpi's futex word; unused by rtsched */
		uint32_t flags;         /* RTPI_COND_* as initialised; never changed */
		uint32_t wake_id;       /* unused by rtsched */
		uint32_t state;         /* RTPI_COND_STATE_READY; unused by rtsched */
		uint8_t reserved[48];
		uint64_t __rts_cond[8]; /* offset 64: rtsched's condition variable (the library's view) */
	} s;
	uint8_t pad[128];
} __attribute__((aligned(64)));

typedef union pi_mutex pi_mutex_t;
typedef union pi_cond pi_cond_t;

#ifndef __cplusplus
#define PI_MUTEX_INIT(f) { .s = { .futex = 0, .flags = (f) } }
#define PI_COND_INIT(f) \
	{ .s = { .cond = 0, .flags = (f), .wake_id = 0, .state = RTPI_COND_STATE_READY } }
_Static_assert(sizeof(pi_mutex_t) == 64 && _Alignof(pi_mutex_t) == 64,
	       "pi_mutex_t: librtpi 1.0's size and alignment");
_Static_assert(sizeof(pi_cond_t) == 128 && _Alignof(pi_cond_t) == 64,
	       "pi_cond_t: librtpi 1.0's size and alignment");
#else
/* As in librtpi, constexpr functions in C++ (no designated initialisers before C++20). */
inline constexpr pi_mutex PI_MUTEX_INIT(uint32_t f)
{
	return pi_mutex{ { 0, f } };
}
inline constexpr pi_cond PI_COND_INIT(uint32_t f)
{
	return pi_cond{ { 0, f, 0, RTPI_COND_STATE_READY, {}, {} } };
}
static_assert(sizeof(pi_mutex_t) == 64 && alignof(pi_mutex_t) == 64,
	      "pi_mutex_t: librtpi 1.0's size and alignment");
static_assert(sizeof(pi_cond_t) == 128 && alignof(pi_cond_t) == 64,
	      "pi_cond_t: librtpi 1.0's size and alignment");
#endif

#define DEFINE_PI_MUTEX(mutex, flags) pi_mutex_t mutex = PI_MUTEX_INIT(flags)
#define DEFINE_PI_COND(condvar, flags) pi_cond_t condvar = PI_COND_INIT(flags)

#ifdef __cplusplus
extern "C" {
#endif

pi_mutex_t *pi_mutex_alloc(void);
void pi_mutex_free(pi_mutex_t *mutex);
/* EINVAL for flags other than RTPI_MUTEX_PSHARED. */
int pi_mutex_init(pi_mutex_t *mutex, uint32_t flags);
/* EBUSY while locked (librtpi: 0). */
int pi_mutex_destroy(pi_mutex_t *mutex);
/* 0, EDEADLOCK (the caller owns it), EAGAIN (no kernel PI state). */
int pi_mutex_lock(pi_mutex_t *mutex);
/* 0, EBUSY, EDEADLOCK (the caller owns it). */
int pi_mutex_trylock(pi_mutex_t *mutex);
/* EPERM unless the caller owns it. */
int pi_mutex_unlock(pi_mutex_t *mutex);

pi_cond_t *pi_cond_alloc(void);
void pi_cond_free(pi_cond_t *cond);
/* EINVAL for flags other than RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME. */
int pi_cond_init(pi_cond_t *cond, uint32_t flags);
/* EBUSY while threads wait (librtpi: 0). */
int pi_cond_destroy(pi_cond_t *cond);
/* EPERM unless the caller owns mutex; returns with it held again. */
int pi_cond_wait(pi_cond_t *cond, pi_mutex_t *mutex);
/*
 * As pi_cond_wait; ETIMEDOUT once abstime (CLOCK_MONOTONIC, or
 * CLOCK_REALTIME for RTPI_COND_CLOCK_REALTIME) passes; abstime NULL: no deadline.
 */
int pi_cond_timedwait(pi_cond_t *cond, pi_mutex_t *mutex, const struct timespec *abstime);
/* mutex is not used (see above); may be NULL. */
int pi_cond_signal(pi_cond_t *cond, pi_mutex_t *mutex);
int pi_cond_broadcast(pi_cond_t *cond, pi_mutex_t *mutex);

#ifdef __cplusplus
}
#endif

#endif /* RTPI_H */
