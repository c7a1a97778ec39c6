/* SPDX-License-Identifier: MIT */
/*
 * The ceiling protocols' state (docs/ceiling.md): lock domains, per-partition
 * system ceilings, the calling thread's level, and the mutex fields they use.
 */
#ifndef RTS_INTERNAL_CEILING_H
#define RTS_INTERNAL_CEILING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>
#include <rtsched/trace.h>

#include "internal/futex.h"

/* ---- keys ---------------------------------------------------------------- */

/*
 * An entry's key orders it on its partition; the system ceiling is the
 * highest key. Local ceilings use the level (1..RTS_LOCK_MAX_LEVEL); global
 * holders are above every level: MPCP by gcs priority, FMLP+ by request time
 * (a per-partition clock counting down, so the earlier request is higher).
 */
#define CEILING_KEY_MPCP_BASE 0x00010000u
#define CEILING_KEY_FMLP_BASE 0x40000000u
#define CEILING_FMLP_CLOCK_MASK 0x3fffffffu

/* ---- the system ceiling word ------------------------------------------- */

/*
 * top = key << 32 | GATE << 31 | FAST << 30 | TID of the entry's holder.
 * 0: the partition holds no entry.
 * FAST: the only entry is described by top alone (the table is empty); a
 *   holder whose top is still exactly its FAST value may pop it with one
 *   CAS. The slow path clears FAST (moving the entry into the table) before
 *   anything else, so every other thread's involvement sends the holder's
 *   unlock to the slow path.
 * GATE: the entry holds back job starts (SRP, IPCP, MPCP, FMLP+; not PCP).
 */
#define CEILING_TOP_TID_MASK 0x3fffffffull
#define CEILING_TOP_FAST (1ull << 30)
#define CEILING_TOP_GATE (1ull << 31)

static inline uint64_t ceiling_top_make(uint32_t key, bool gate, bool fast, uint32_t tid)
{
	return (uint64_t)key << 32 | (gate ? CEILING_TOP_GATE : 0) | (fast ? CEILING_TOP_FAST : 0) | tid;
}

static inline uint32_t ceiling_top_key(uint64_t top)
{
	return (uint32_t)(top >> 32);
}

static inline uint32_t ceiling_top_tid(uint64_t top)
{
	return (uint32_t)(top & CEILING_TOP_TID_MASK);
}

/* ---- a partition --------------------------------------------------------- */

/*
 * One entry of the table. A slot is free when in_use is 0; its token may
 * still be owned by a thread handing it down to the last blocker, so a slot
 * is reused only once its token is 0 too.
 */
struct ceiling_entry {
	uint32_t key;
	uint32_t tid;
	uint32_t gate; /* bool: holds back job starts */
	uint32_t in_use;
	rts_futex_word token; /* blockers FUTEX_LOCK_PI here, with tid as owner */
};

struct ceiling_partition {
	_Atomic uint64_t top;
	_Atomic uint32_t fmlp_clock;
	uint32_t n_entries; /* under guard */
	rts_mutex_t guard;  /* PIP: the table and every change of top other than the fast path */
	struct ceiling_entry entries[RTS_LOCK_MAX_HELD];
} __attribute__((aligned(64)));

/* ---- domains ------------------------------------------------------------- */

struct rts_lockdomain {
	uint32_t magic;
	uint32_t version;
	uint32_t id;      /* nonzero for named domains; 0: the process's own */
	uint32_t pshared; /* bool */
	struct ceiling_partition partitions[RTS_LOCK_MAX_PARTITIONS];
};

/* The domain with this id in this process, or NULL (not open here). */
struct rts_lockdomain *rts_lockdomain_find(uint32_t id);
/* Whether any domain exists in this process (the own one is made by the first ceiling mutex). */
bool rts_lockdomain_any(void);
/* Calls fn for every domain open in this process (the process's own first). */
void rts_lockdomain_each(void (*fn)(struct rts_lockdomain *domain, void *arg), void *arg);

/* ---- the mutex fields ---------------------------------------------------- */

/* How a ceiling-protocol mutex uses the 64 bytes of rts_mutex_t (never robust). */
struct ceiling_mutex {
	rts_futex_word word;            /* owner TID; MPCP: the kernel's PI format */
	uint32_t flags;                 /* RTS_MUTEX_F_* */
	int32_t ceiling;
	int32_t partition;              /* local protocols: the lock's CPU */
	uint32_t domain_id;
	uint32_t held_key;              /* the holder's entry, for its unlock */
	_Atomic uint32_t next_ticket;   /* FMLP+ */
	rts_futex_word serving;         /* FMLP+: the ticket that owns the lock */
	int32_t held_partition;         /* where the holder pushed its entry */
	int32_t eager_saved_prio;       /* eager: the holder's priority before it */
};
_Static_assert(sizeof(struct ceiling_mutex) <= sizeof(rts_mutex_t), "fits in rts_mutex_t");

static inline struct ceiling_mutex *ceiling_mutex_of(rts_mutex_t *m)
{
	return (struct ceiling_mutex *)m;
}

static inline bool rts_protocol_is_ceiling(int protocol)
{
	return protocol >= RTS_PROTO_PCP && protocol <= RTS_PROTO_FMLP;
}

static inline bool rts_protocol_is_global(int protocol)
{
	return protocol == RTS_PROTO_MPCP || protocol == RTS_PROTO_FMLP;
}

/* ---- the calling thread ------------------------------------------------- */

/*
 * The calling thread's level (> 0), read and cached at first use; EINVAL for
 * a SCHED_DEADLINE thread without a declared level. SCHED_OTHER: 0.
 */
int rts_ceiling_self_level(int *level);
/* Read the level again at next use (after rtsched changed the thread's policy). */
void rts_ceiling_self_forget(void);
/* Its SCHED_FIFO priority as the library last set or read it (eager forms). */
int rts_ceiling_self_fifo_prio(void);
/* Set its SCHED_FIFO priority (eager forms); 0 or a positive errno. */
int rts_ceiling_self_set_fifo_prio(int prio);

/* ---- partition operations (ceiling_partition.c) ------------------------- */

/*
 * Push an entry ⟨key, caller⟩, first waiting (on the ceiling token of the
 * highest such entry, lending it the caller's priority) while an entry of
 * another thread with key >= level exists; with gate_only, only entries that
 * gate job starts count (a global holder's boost). `cause` goes into the
 * trace. 0, EBUSY (nonblock and it would wait), ENOSPC (RTS_LOCK_MAX_HELD
 * entries already), EDEADLK (the holder waits, through PI, for the caller).
 */
int rts_ceiling_push(struct ceiling_partition *p, bool pshared, uint32_t key, bool gate,
		     uint32_t level, bool gate_only, enum rts_block_cause cause, bool nonblock);
/* Pop the caller's entry of this key (gate as pushed), handing its token over. */
void rts_ceiling_pop(struct ceiling_partition *p, bool pshared, uint32_t key, bool gate);
/* Wait while a gating entry of another thread with key >= level exists. 0 or EDEADLK. */
int rts_ceiling_gate(struct ceiling_partition *p, bool pshared, uint32_t level);

#endif
