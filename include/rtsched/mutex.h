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
 *   RTS_PROTO_FIFO  the deterministic fast user-space mutex (seed 000, Züpke;
 *                   docs/fifo-mutex.md): strict FIFO hand-over to the oldest
 *                   waiter (no barging), one CAS each way uncontended, wait
 *                   queues in per-thread records of the mutex's scope (the
 *                   process, or a lock domain for RTS_PROCESS_SHARED). Not
 *                   robust; no priority change. With rts_cond, broadcast
 *                   moves every waiter onto the mutex's queue in O(1).
 *
 * Ceiling protocols for partitioned scheduling (seed 001; docs/ceiling.md).
 * A partition is one CPU. The library keeps, per partition, the system
 * ceiling (the highest ceiling of the locks held there) and plays the part
 * LITMUS^RT's scheduler plays in the paper:
 *   RTS_PROTO_PCP   the original priority ceiling protocol, local to one
 *                   partition: a thread may lock only if its level is above
 *                   the system ceiling or it holds that ceiling; otherwise it
 *                   blocks and the ceiling's holder inherits its priority.
 *   RTS_PROTO_SRP   stack resource policy, local: a job may not START while
 *                   the system ceiling is at or above its preemption level
 *                   (rts_job_next / rts_lock_gate block it); once started it
 *                   never blocks on a lock. Fixed priority or EDF (levels).
 *   RTS_PROTO_IPCP  immediate ceiling, local: the semantics of glibc's
 *                   PTHREAD_PRIO_PROTECT: while a lock is held, no thread of
 *                   level at or below its ceiling runs a job on the partition.
 *   RTS_PROTO_MPCP  global (any partition): waiters in priority order; the
 *                   holder is boosted above every local base priority of its
 *                   partition, holders of higher ceiling (gcs priority) first.
 *   RTS_PROTO_FMLP  FMLP+, global: waiters in FIFO order; holders boosted, in
 *                   order of request time on each partition.
 * Each has a DEFERRED form (the default: no priority change on the
 * uncontended path; a thread that starts a job or locks while a ceiling
 * above it is held blocks on that holder's ceiling token, whose holder the
 * kernel's PI then boosts) and an EAGER form (sched_setattr raises the
 * holder to the ceiling at lock and restores it at unlock), for comparison.
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
	RTS_PROTO_PCP = 2,
	RTS_PROTO_SRP = 3,
	RTS_PROTO_IPCP = 4,
	RTS_PROTO_MPCP = 5,
	RTS_PROTO_FMLP = 6, /* FMLP+ */
	RTS_PROTO_FIFO = 7,
};

enum rts_ceiling_variant {
	RTS_CEILING_DEFERRED = 0,
	RTS_CEILING_EAGER = 1,
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
#define RTS_MUTEX_F_EAGER            0x00000400u /* ceiling protocols: enum rts_ceiling_variant */
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
 * thread exit (futex_offset -32 on 64-bit glibc). The library only writes
 * them (robust_prev stays NULL) and never reads them back.
 */
struct rts_mutex_s {
	uint32_t word;
	uint32_t flags;
	uint32_t reserved0[4]; /* ceiling protocols: their own fields over these 48 bytes */
	void *robust_prev;     /* (a ceiling mutex is never robust) */
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

typedef struct rts_lockdomain rts_lockdomain_t; /* <rtsched/lockdomain.h> */

typedef struct rts_mutexattr {
	uint32_t flags; /* RTS_MUTEX_F_* bits, plus a magic to catch uninitialised use */
	int32_t ceiling;
	int32_t partition;
	uint32_t domain_id;
} rts_mutexattr_t;

int rts_mutexattr_init(rts_mutexattr_t *attr);
int rts_mutexattr_destroy(rts_mutexattr_t *attr);
int rts_mutexattr_setprotocol(rts_mutexattr_t *attr, int protocol);
int rts_mutexattr_getprotocol(const rts_mutexattr_t *attr, int *protocol);
int rts_mutexattr_setpshared(rts_mutexattr_t *attr, int pshared);
int rts_mutexattr_getpshared(const rts_mutexattr_t *attr, int *pshared);
int rts_mutexattr_setrobust(rts_mutexattr_t *attr, int robust);
int rts_mutexattr_getrobust(const rts_mutexattr_t *attr, int *robust);
/*
 * Ceiling protocols. The ceiling is a level: a SCHED_FIFO priority (1..99)
 * under fixed priority, or an SRP preemption level (1..65535) for threads
 * that declared one (rts_lock_set_self_level). PCP/SRP/IPCP: the highest
 * level of the threads that use the lock. MPCP: the lock's gcs priority (the
 * highest priority of its users on other partitions), which orders boosted
 * holders of one partition; FMLP: unused in the deferred form. EAGER forms
 * raise the holder's SCHED_FIFO priority to the ceiling (MPCP, FMLP: to the
 * ceiling, which must then be above every local base priority). Default 0:
 * rts_mutex_init refuses a ceiling protocol without a ceiling (EINVAL),
 * except FMLP deferred.
 */
int rts_mutexattr_setceiling(rts_mutexattr_t *attr, int ceiling);
int rts_mutexattr_getceiling(const rts_mutexattr_t *attr, int *ceiling);
/* PCP/SRP/IPCP: the CPU whose partition the lock belongs to (0..RTS_LOCK_MAX_PARTITIONS-1). */
int rts_mutexattr_setpartition(rts_mutexattr_t *attr, int cpu);
int rts_mutexattr_getpartition(const rts_mutexattr_t *attr, int *cpu);
/* enum rts_ceiling_variant; RTS_CEILING_DEFERRED by default. PCP has no eager form (ENOTSUP). */
int rts_mutexattr_setvariant(rts_mutexattr_t *attr, int variant);
int rts_mutexattr_getvariant(const rts_mutexattr_t *attr, int *variant);
/*
 * Where the protocol state lives: NULL (the default) is the process's own
 * domain; a process-shared ceiling mutex needs a domain opened with
 * rts_lockdomain_open, the same in every process that uses it.
 */
int rts_mutexattr_setdomain(rts_mutexattr_t *attr, const rts_lockdomain_t *domain);

/*
 * attr may be NULL: RTS_PROTO_NONE, process-private, not robust. Ceiling
 * protocols: EINVAL for a missing or out-of-range ceiling or partition, for
 * robust, or for process-shared without a process-shared domain (and the
 * reverse); ENOTSUP for PCP eager and for eager SRP/IPCP under EDF levels.
 */
int rts_mutex_init(rts_mutex_t *mutex, const rts_mutexattr_t *attr);
/* EBUSY while locked. */
int rts_mutex_destroy(rts_mutex_t *mutex);

/*
 * 0, EDEADLK (the caller owns it), EOWNERDEAD (robust: acquired, the previous
 * owner died; call rts_mutex_consistent or the mutex becomes unusable at
 * unlock; a mutex that is not robust never returns it: a word marked
 * owner-died by anything is simply taken), ENOTRECOVERABLE, EAGAIN (the
 * kernel could not allocate PI state, or the thread holds
 * RTS_MUTEX_ROBUST_MAX_HELD robust mutexes already).
 * Ceiling protocols add: EINVAL (the caller's level is above the ceiling,
 * like PTHREAD_PRIO_PROTECT), EPERM (a local lock taken from a thread that
 * does not run on the lock's partition), ENOSPC (too many ceilings held at
 * once on one partition, RTS_LOCK_MAX_HELD).
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

/*
 * The most robust mutexes one thread may hold at once: a lock beyond it
 * returns EAGAIN (the thread keeps its own record of them, so that an unlock
 * never trusts the list pointers inside a mutex; docs/shared-state.md).
 */
#define RTS_MUTEX_ROBUST_MAX_HELD 64

/* Limits of the ceiling protocols' per-partition state. */
#define RTS_LOCK_MAX_PARTITIONS 128
#define RTS_LOCK_MAX_HELD 32
#define RTS_LOCK_MAX_LEVEL 65535

/*
 * The calling thread's level for the ceiling protocols. 0: its SCHED_FIFO
 * priority, read now (the default, read at its first ceiling lock; call
 * again after changing the priority other than through <rtsched/sched.h>).
 * 1..RTS_LOCK_MAX_LEVEL: an SRP preemption level (SCHED_DEADLINE threads
 * must declare one: EINVAL otherwise at their first ceiling lock).
 */
int rts_lock_set_self_level(int level);

/*
 * Job start under SRP, IPCP, MPCP and FMLP (deferred forms): block while a
 * ceiling at or above the caller's level is held on its partition by
 * another thread, lending that thread the caller's priority. rts_job_next
 * calls it before each job; threads that run their own loops call it at the
 * start of each job. 0, or EINTR never: returns once the caller may start.
 */
int rts_lock_gate(void);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_MUTEX_H */
