/* SPDX-License-Identifier: MIT */
/*
 * The lock-protocol interface: one table per rts_mutex protocol. The public
 * calls (src/sync/mutex.c) check their arguments, try the inline fast path
 * of the futex-word protocols, and otherwise call the mutex's protocol.
 *
 * A new protocol is a file under src/lock/ that defines its table and an
 * entry in src/lock/protocols.c. Protocols that share their code keep it in
 * one file (NONE and PIP: word_protocols.c; the ceiling family:
 * ceiling_mutex.c), each with its own table.
 *
 * Every call returns 0 or a positive error number (pthreads' convention).
 * A protocol never calls the public rts_mutex_* functions: the library's own
 * internal locks are PI words (internal/pi_word.h).
 */
#ifndef RTS_INTERNAL_LOCK_PROTOCOL_H
#define RTS_INTERNAL_LOCK_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rtsched/mutex.h>

#include "internal/export.h"

struct rts_lock_protocol {
	const char *name;
	/* rts_mutex_init's part. m is all zero; flags are the attribute's (the
	 * protocol's number included); attr may be NULL (the defaults). */
	int (*init)(rts_mutex_t *m, uint32_t flags, const rts_mutexattr_t *attr);
	/* Acquire, blocking until deadline_mono (CLOCK_MONOTONIC; NULL: none).
	 * For NONE and PIP, called once the inline CAS failed (or for a robust
	 * mutex, which has no inline path). */
	int (*lock)(rts_mutex_t *m, uint32_t flags, const struct timespec *deadline_mono);
	/* Acquire without blocking: 0 or EBUSY (or a robust mutex's answers). */
	int (*trylock)(rts_mutex_t *m, uint32_t flags);
	/* Release. For NONE and PIP, called once the inline CAS failed. */
	int (*unlock)(rts_mutex_t *m, uint32_t flags);
	/* Whether lock takes a deadline (rts_mutex_timedlock; ENOTSUP otherwise). */
	bool timed;
};

/*
 * The inline fast path (rts_mutex_lock / unlock): CAS 0 -> caller's TID and
 * back, for NONE, PIP and FIFO mutexes that are not robust (a FIFO mutex
 * never is). For all three, 0 is the free word and the owner's TID alone the
 * word of a held mutex that nobody waits for.
 */
#define RTS_LOCK_FAST_PATH_PROTOCOLS \
	((1u << RTS_PROTO_NONE) | (1u << RTS_PROTO_PIP) | (1u << RTS_PROTO_FIFO))

static inline bool rts_lock_word_fast_path(uint32_t flags)
{
	uint32_t kind = flags & (RTS_MUTEX_F_PROTO_MASK | RTS_MUTEX_F_ROBUST);
	return kind < 32 && ((1u << kind) & RTS_LOCK_FAST_PATH_PROTOCOLS);
}
_Static_assert(RTS_MUTEX_F_ROBUST >= 32, "a robust mutex never takes the inline fast path");

/* The protocols by enum rts_protocol (lock/protocols.c); a number without
 * one is NULL, and numbers from RTS_LOCK_PROTOCOL_NUMBERS on have none. */
#define RTS_LOCK_PROTOCOL_NUMBERS 8
extern const struct rts_lock_protocol *const rts_lock_protocols[RTS_LOCK_PROTOCOL_NUMBERS];
/* Every call of it returns EINVAL. */
extern const struct rts_lock_protocol rts_lock_protocol_invalid;

/* The protocol in flags; for a number no protocol has (a mutex never
 * initialised), one whose every call returns EINVAL. Inline: every locking
 * call that leaves the inline fast path starts here. */
static inline const struct rts_lock_protocol *rts_lock_protocol_of(uint32_t flags)
{
	uint32_t number = flags & RTS_MUTEX_F_PROTO_MASK;
	const struct rts_lock_protocol *protocol =
		number < RTS_LOCK_PROTOCOL_NUMBERS ? rts_lock_protocols[number] : NULL;
	return rts_likely(protocol != NULL) ? protocol : &rts_lock_protocol_invalid;
}

extern const struct rts_lock_protocol rts_protocol_none;
extern const struct rts_lock_protocol rts_protocol_pip;
extern const struct rts_lock_protocol rts_protocol_pcp;
extern const struct rts_lock_protocol rts_protocol_srp;
extern const struct rts_lock_protocol rts_protocol_ipcp;
extern const struct rts_lock_protocol rts_protocol_mpcp;
extern const struct rts_lock_protocol rts_protocol_fmlp;
extern const struct rts_lock_protocol rts_protocol_fifo;

#endif
