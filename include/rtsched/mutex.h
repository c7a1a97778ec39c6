/* SPDX-License-Identifier: MIT */
/*
 * rts_mutex_t: a real-time mutex in the image of pthread_mutex_t.
 *
 * Every rts_mutex is error-checking: the futex word holds the owner's TID, so
 * relocking returns EDEADLK and an unlock by a non-owner returns EPERM, for
 * every protocol, at no cost on the fast path.
 *
 * Protocols (rts_mutexattr_setprotocol):
 *   RTS_PROTO_NONE  plain futex mutex, no priority change.
 *   RTS_PROTO_PIP   priority inheritance through the kernel's PI futexes
 *                   (FUTEX_LOCK_PI2 / FUTEX_UNLOCK_PI on contention only).
 *
 * All functions return 0 or a positive error number, like pthreads; errno is
 * never an output channel.
 */
#ifndef RTSCHED_MUTEX_H
#define RTSCHED_MUTEX_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rts_protocol {
	RTS_PROTO_NONE = 0,
	RTS_PROTO_PIP = 1,
};

enum rts_pshared {
	RTS_PROCESS_PRIVATE = 0,
	RTS_PROCESS_SHARED = 1,
};

enum rts_robust {
	RTS_MUTEX_STALLED = 0,
	RTS_MUTEX_ROBUST = 1,
};

/*
 * Bits of rts_mutex_t.s.flags. Set at init, never changed afterwards except
 * RTS_MUTEX_F_INCONSISTENT and RTS_MUTEX_F_NOTRECOVERABLE (robust mutexes),
 * which only the owner changes.
 */
#define RTS_MUTEX_F_PROTO_MASK       0x000000ffu /* enum rts_protocol */
#define RTS_MUTEX_F_PSHARED          0x00000100u
#define RTS_MUTEX_F_ROBUST           0x00000200u
#define RTS_MUTEX_F_INCONSISTENT     0x00010000u /* owner died; not yet made consistent */
#define RTS_MUTEX_F_NOTRECOVERABLE   0x00020000u /* unlocked while inconsistent */

/*
 * The layout is public so that the type has a fixed size and a static
 * initializer; touch it only through the functions below.
 *
 * word: the futex word, in the kernel's PI-futex format for every protocol:
 *   bits 0..29  TID of the owner (0: unlocked)
 *   bit 30      FUTEX_OWNER_DIED (robust: the owner died holding it)
 *   bit 31      FUTEX_WAITERS (somebody sleeps in the kernel on this word)
 *
 * robust_prev / robust_next: the node of the owner thread's robust list.
 * They sit at word + 24 and word + 32, where glibc's pthread_mutex_t keeps
 * its own, so that rts mutexes share the list the kernel already walks at
 * thread exit (futex_offset -32 on 64-bit glibc).
 */
struct rts_mutex_s {
	uint32_t word;
	uint32_t flags;
	uint32_t reserved0[4];
	void *robust_prev;
	void *robust_next;
};

typedef union rts_mutex {
	struct rts_mutex_s s;
	uint8_t size_[64];
	uint64_t align_;
} rts_mutex_t;

#define RTS_MUTEX_INIT(protocol_and_flags) { .s = { .word = 0, .flags = (protocol_and_flags) } }
#define RTS_MUTEX_INITIALIZER     RTS_MUTEX_INIT(RTS_PROTO_NONE)
#define RTS_MUTEX_PIP_INITIALIZER RTS_MUTEX_INIT(RTS_PROTO_PIP)

typedef struct rts_mutexattr {
	uint32_t flags; /* RTS_MUTEX_F_* bits, plus a magic to catch uninitialised use */
} rts_mutexattr_t;

int rts_mutexattr_init(rts_mutexattr_t *attr);
int rts_mutexattr_destroy(rts_mutexattr_t *attr);
int rts_mutexattr_setprotocol(rts_mutexattr_t *attr, int protocol);
int rts_mutexattr_getprotocol(const rts_mutexattr_t *attr, int *protocol);
int rts_mutexattr_setpshared(rts_mutexattr_t *attr, int pshared);
int rts_mutexattr_getpshared(const rts_mutexattr_t *attr, int *pshared);
int rts_mutexattr_setrobust(rts_mutexattr_t *attr, int robust);
int rts_mutexattr_getrobust(const rts_mutexattr_t *attr, int *robust);

/* attr may be NULL: RTS_PROTO_NONE, process-private, not robust. */
int rts_mutex_init(rts_mutex_t *mutex, const rts_mutexattr_t *attr);
/* EBUSY while locked. */
int rts_mutex_destroy(rts_mutex_t *mutex);

/*
 * 0, EDEADLK (the caller owns it), EOWNERDEAD (robust: acquired, the previous
 * owner died; call rts_mutex_consistent or the mutex becomes unusable at
 * unlock), ENOTRECOVERABLE, EAGAIN (the kernel could not allocate PI state).
 */
int rts_mutex_lock(rts_mutex_t *mutex);
/* As rts_mutex_lock, but EBUSY instead of blocking (also when the caller owns it). */
int rts_mutex_trylock(rts_mutex_t *mutex);
/*
 * As rts_mutex_lock, with an absolute CLOCK_MONOTONIC deadline: ETIMEDOUT when
 * it passes, EINVAL for a malformed timespec (checked only when the call would block).
 */
int rts_mutex_timedlock(rts_mutex_t *mutex, const struct timespec *deadline_monotonic);
/* EPERM unless the caller owns it. */
int rts_mutex_unlock(rts_mutex_t *mutex);
/* Robust: mark the state protected by a mutex acquired with EOWNERDEAD consistent again. */
int rts_mutex_consistent(rts_mutex_t *mutex);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_MUTEX_H */
