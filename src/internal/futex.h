/* SPDX-License-Identifier: MIT */
/*
 * One static inline wrapper per futex operation. Each returns what the system
 * call returns on success and -errno on failure (errno is read on the line
 * after the call and never escapes this layer).
 *
 * Unused arguments of an operation are passed as 0 / NULL and say so.
 */
#ifndef RTS_INTERNAL_FUTEX_H
#define RTS_INTERNAL_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13 /* Linux 5.14 */
#endif

typedef _Atomic uint32_t rts_futex_word;

/* Bits of a PI-format futex word (the kernel's ABI). */
#define RTS_FUTEX_TID_MASK     FUTEX_TID_MASK   /* 0x3fffffff */
#define RTS_FUTEX_OWNER_DIED   FUTEX_OWNER_DIED /* 0x40000000 */
#define RTS_FUTEX_WAITERS      FUTEX_WAITERS    /* 0x80000000 */

static inline long rts_futex_call(rts_futex_word *uaddr, int op, uint32_t val,
				  const struct timespec *timeout, rts_futex_word *uaddr2,
				  uint32_t val3)
{
	long ret = syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
	return ret < 0 ? -errno : ret;
}

static inline int rts_futex_private_flag(bool pshared)
{
	return pshared ? 0 : FUTEX_PRIVATE_FLAG;
}

/*
 * Sleep while *uaddr == expected, until the absolute deadline on clock
 * (CLOCK_MONOTONIC or CLOCK_REALTIME; NULL: no deadline).
 * 0 when woken, -EAGAIN if *uaddr != expected, -ETIMEDOUT, -EINTR.
 */
static inline int rts_futex_wait_until(rts_futex_word *uaddr, uint32_t expected,
				       const struct timespec *deadline, clockid_t clock,
				       bool pshared)
{
	int op = FUTEX_WAIT_BITSET | rts_futex_private_flag(pshared) |
		 (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
	return (int)rts_futex_call(uaddr, op, expected, deadline,
				   NULL /* uaddr2: unused */, FUTEX_BITSET_MATCH_ANY);
}

/* Wake up to count waiters of uaddr. Number woken, or -errno. */
static inline int rts_futex_wake(rts_futex_word *uaddr, int count, bool pshared)
{
	return (int)rts_futex_call(uaddr, FUTEX_WAKE | rts_futex_private_flag(pshared),
				   (uint32_t)count, NULL /* timeout: unused */,
				   NULL /* uaddr2: unused */, 0 /* val3: unused */);
}

/*
 * Acquire the PI futex uaddr, blocking with priority inheritance, until the
 * absolute CLOCK_MONOTONIC deadline (NULL: none). FUTEX_LOCK_PI2 (Linux 5.14);
 * -ENOSYS on older kernels, where the caller falls back to rts_futex_lock_pi.
 */
static inline int rts_futex_lock_pi2(rts_futex_word *uaddr, const struct timespec *deadline_mono,
				     bool pshared)
{
	return (int)rts_futex_call(uaddr, FUTEX_LOCK_PI2 | rts_futex_private_flag(pshared),
				   0 /* val: unused */, deadline_mono,
				   NULL /* uaddr2: unused */, 0 /* val3: unused */);
}

/* FUTEX_LOCK_PI: as rts_futex_lock_pi2 but the deadline is on CLOCK_REALTIME. */
static inline int rts_futex_lock_pi(rts_futex_word *uaddr, const struct timespec *deadline_real,
				    bool pshared)
{
	return (int)rts_futex_call(uaddr, FUTEX_LOCK_PI | rts_futex_private_flag(pshared),
				   0 /* val: unused */, deadline_real,
				   NULL /* uaddr2: unused */, 0 /* val3: unused */);
}

/* Release the PI futex uaddr, handing it to its top waiter. 0 or -errno (-EPERM: not the owner). */
static inline int rts_futex_unlock_pi(rts_futex_word *uaddr, bool pshared)
{
	return (int)rts_futex_call(uaddr, FUTEX_UNLOCK_PI | rts_futex_private_flag(pshared),
				   0 /* val: unused */, NULL /* timeout: unused */,
				   NULL /* uaddr2: unused */, 0 /* val3: unused */);
}

/*
 * Sleep on the condvar word cond while *cond == expected; a FUTEX_CMP_REQUEUE_PI
 * moves the caller onto the PI futex mutex, and 0 means it then owns mutex.
 * -EAGAIN if *cond != expected, -ETIMEDOUT (possibly after the requeue, the
 * mutex not acquired), -EINVAL if waiters of cond named other mutexes.
 */
static inline int rts_futex_wait_requeue_pi(rts_futex_word *cond, uint32_t expected,
					    const struct timespec *deadline, clockid_t clock,
					    rts_futex_word *mutex, bool pshared)
{
	int op = FUTEX_WAIT_REQUEUE_PI | rts_futex_private_flag(pshared) |
		 (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
	return (int)rts_futex_call(cond, op, expected, deadline, mutex, 0 /* val3: unused */);
}

/*
 * If *cond == expected: give mutex to the top waiter of cond if mutex is free
 * (waking it), else move it onto mutex; then move up to nr_requeue more.
 * Number of waiters woken or moved, or -errno (-EAGAIN: *cond != expected).
 */
static inline int rts_futex_cmp_requeue_pi(rts_futex_word *cond, uint32_t expected,
					   int nr_requeue, rts_futex_word *mutex, bool pshared)
{
	/* The kernel wants nr_wake == 1 and takes nr_requeue in the timeout slot. */
	return (int)rts_futex_call(cond, FUTEX_CMP_REQUEUE_PI | rts_futex_private_flag(pshared),
				   1 /* nr_wake */,
				   (const struct timespec *)(uintptr_t)nr_requeue, mutex, expected);
}

#endif
