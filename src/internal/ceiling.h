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
#include <errno.h>
#include <sched.h>
#include <stdint.h>

#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>
#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/export.h"
#include "internal/fifo_scope.h"
#include "internal/futex.h"
#include "internal/sched_self.h"
#include "internal/tid.h"

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
	uint32_t n_entries;   /* under guard */
	rts_futex_word guard; /* a PI word (internal/pi_word.h): the table and every change of top but the fast path */
	uint32_t pshared;     /* bool: the domain is shared between processes */
	struct ceiling_entry entries[RTS_LOCK_MAX_HELD];
} __attribute__((aligned(64)));

/* ---- domains ------------------------------------------------------------- */

struct rts_lockdomain {
	uint32_t magic;
	uint32_t version;
	uint32_t id;      /* nonzero for named domains; 0: the process's own */
	uint32_t pshared; /* bool */
	struct ceiling_partition partitions[RTS_LOCK_MAX_PARTITIONS];
	struct rts_fifo_scope fifo; /* RTS_PROTO_FIFO's queues (internal/fifo_scope.h) */
};

extern _Atomic(struct rts_lockdomain *) rts_lockdomain_own;
/* The domain with this id (not 0) in this process, or NULL (not open here; 0: no memory). */
struct rts_lockdomain *rts_lockdomain_find_slow(uint32_t id);

static inline struct rts_lockdomain *rts_lockdomain_find(uint32_t id)
{
	struct rts_lockdomain *d = atomic_load_explicit(&rts_lockdomain_own, memory_order_acquire);
	if (rts_likely(id == 0 && d))
		return d;
	return rts_lockdomain_find_slow(id);
}
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
	uint32_t object_id;             /* FMLP+ process-shared: its id in ticket claims */
};

/*
 * The 64 bytes of an rts_mutex_t as the futex-word protocols (the public
 * struct: word, flags, robust list node) and the ceiling protocols see them.
 * Both share word and flags, which the public calls read for every protocol;
 * the rest is each family's own (a ceiling mutex is never robust, so its
 * fields may lie over the robust list node).
 */
union rts_mutex_views {
	rts_mutex_t public_view;
	struct ceiling_mutex ceiling;
};
_Static_assert(sizeof(union rts_mutex_views) == sizeof(rts_mutex_t),
	       "a ceiling mutex fits in rts_mutex_t");
_Static_assert(offsetof(struct ceiling_mutex, word) == offsetof(struct rts_mutex_s, word) &&
		       offsetof(struct ceiling_mutex, flags) == offsetof(struct rts_mutex_s, flags),
	       "word and flags are where the public calls read them for every protocol");

static inline struct ceiling_mutex *ceiling_mutex_of(rts_mutex_t *m)
{
	return &((union rts_mutex_views *)m)->ceiling;
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
 * The calling thread's level and SCHED_FIFO priority, cached (ceiling_self.c).
 * Invariant: once `known`, they are what the kernel had when read, plus the
 * library's own changes (eager raises and restores), as long as
 * rts_sched_apply_self has not changed the policy since (`seen_changes`,
 * internal/sched_self.h); a priority changed behind the library's back
 * needs rts_lock_set_self_level(0).
 */
struct rts_ceiling_self {
	bool known;
	uint32_t seen_changes; /* rts_sched_self_changes when read */
	bool deadline;      /* SCHED_DEADLINE: a level must be declared */
	int declared_level; /* 0: none */
	int fifo_prio;      /* SCHED_FIFO/RR priority; 0 for other policies */
};
extern __thread struct rts_ceiling_self rts_ceiling_self __attribute__((tls_model("initial-exec")));

/* Fill rts_ceiling_self from the kernel; 0 or a positive errno. */
int rts_ceiling_self_read(void);
/* Set its SCHED_FIFO priority (0: SCHED_OTHER), for the eager forms; 0 or a positive errno. */
int rts_ceiling_self_set_fifo_prio(int prio);

/*
 * The calling thread's level (>= 0; SCHED_OTHER: 0). EINVAL for a
 * SCHED_DEADLINE thread that declared none.
 */
static inline int rts_ceiling_self_level(int *level)
{
	if (rts_unlikely(!rts_ceiling_self.known ||
			 rts_ceiling_self.seen_changes != rts_sched_self_changes)) {
		int err = rts_ceiling_self_read();
		if (err)
			return err;
	}
	if (rts_ceiling_self.declared_level) {
		*level = rts_ceiling_self.declared_level;
		return 0;
	}
	if (rts_unlikely(rts_ceiling_self.deadline))
		return EINVAL;
	*level = rts_ceiling_self.fifo_prio;
	return 0;
}

#endif
