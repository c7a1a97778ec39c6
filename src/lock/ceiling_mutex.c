/* SPDX-License-Identifier: MIT */
/*
 * rts_mutex with a ceiling protocol (docs/ceiling.md): PCP, SRP, IPCP on one
 * partition; MPCP and FMLP+ across partitions.
 *
 * Local locks (PCP, SRP, IPCP): the partition's entry is the lock. Once the
 * caller's entry is pushed, no other user of the lock can hold it (every
 * user's level is at most the ceiling, and the push waited until no entry
 * of another thread at or above the caller's level remained), so the owner
 * word is a plain store: it serves EPERM/EDEADLK and rts_mutex_destroy.
 *
 * The five protocols share this file and each has its table (the end of
 * the file); the public calls reach them through internal/lock_protocol.h.
 *
 * Global locks: the word is the lock (MPCP: the kernel's PI format, so
 * waiters queue by priority; FMLP+: a ticket lock, FIFO). After acquiring,
 * the holder pushes its boost entry on the partition it runs on, above every
 * local level; it pops it after releasing.
 *
 * A holder that dies (a process killed, a thread ended) is released as
 * LITMUS^RT releases the locks of an exiting task, and the next locker gets
 * 0: its ceiling entries go at the next look at their partition (a blocker
 * finds the TID gone: ceiling_partition.c); a local lock's word naming a
 * dead owner is cleared once the caller's entry is pushed; MPCP's PI word is
 * handed by the kernel to a waiter blocked in it, or taken over from the
 * dead TID by a later locker; FMLP+'s waiters for a process-shared lock
 * look every FMLP_HOLDER_CHECK_NS whether the turn being served is still
 * held or claimed by a live thread, and pass it on if not: a holder or a
 * waiter that died (a process-private lock's threads are the waiter's
 * process, which a kill takes too; only a thread that ends holding it is
 * not recovered).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <time.h>

#include <rtsched/mutex.h>
#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/ceiling.h"
#include "internal/ceiling_partition.h"
#include "internal/ceiling_mutex.h"
#include "internal/export.h"
#include "internal/fifo_scope.h"
#include "internal/lock_protocol.h"
#include "internal/mutex.h"
#include "internal/pi_word.h"
#include "internal/tid.h"
#include "internal/timespec.h"
#include "internal/trace.h"

/* A waiter for an FMLP+ lock looks this often whether its holder still lives. */
#define FMLP_HOLDER_CHECK_NS (50 * 1000 * 1000)

static bool is_eager(const struct ceiling_mutex *cm)
{
	return cm->flags & RTS_MUTEX_F_EAGER;
}

static int protocol_of(const struct ceiling_mutex *cm)
{
	return rts_mutex_protocol(cm->flags);
}

/* Eager forms: the holder runs at the ceiling (a SCHED_FIFO priority) while it holds. */
static int eager_raise(struct ceiling_mutex *cm)
{
	int saved = rts_ceiling_self.fifo_prio;
	cm->eager_saved_prio = saved;
	if (cm->ceiling <= saved)
		return 0;
	int err = rts_ceiling_self_set_fifo_prio(cm->ceiling);
	if (!err)
		rts_trace_emit_lib(RTS_EV_BOOST, (uint32_t)cm->ceiling, rts_self_tid());
	return err;
}

/*
 * Back to `saved` (the holder's priority before eager_raise), called only
 * after the lock is released: restoring first would let a thread at or below
 * the ceiling preempt the holder while it still holds the lock. `saved` is
 * read from the mutex before the release, as the next holder overwrites it.
 */
static void eager_restore(int saved)
{
	if (rts_ceiling_self.fifo_prio == saved)
		return;
	rts_trace_emit_lib(RTS_EV_UNBOOST, (uint32_t)rts_ceiling_self.fifo_prio, rts_self_tid());
	rts_ceiling_self_set_fifo_prio(saved);
}

static inline __attribute__((always_inline)) struct ceiling_partition *
partition_at(struct ceiling_mutex *cm, int cpu, bool *pshared)
{
	struct rts_lockdomain *d = rts_lockdomain_find(cm->domain_id);
	if (rts_unlikely(!d || cpu < 0 || cpu >= RTS_LOCK_MAX_PARTITIONS))
		return NULL;
	*pshared = d->pshared;
	return &d->partitions[cpu];
}

/* ---- PCP, SRP, IPCP ---------------------------------------------------- */

/*
 * The caller's entry is pushed, yet the word names an owner: the owner died
 * holding the lock (its entry went with it: rts_ceiling_push purges the
 * entries of dead threads), so the lock is free, as LITMUS^RT frees the
 * locks of an exiting task. Whether it did so.
 */
static bool local_owner_died(struct ceiling_mutex *cm, uint32_t owner)
{
	if (rts_tid_alive(owner))
		return false;
	return atomic_compare_exchange_strong_explicit(&cm->word, &owner, 0, memory_order_relaxed,
						       memory_order_relaxed);
}

static int local_lock(struct ceiling_mutex *cm, uint32_t me, bool nonblock)
{
	if (atomic_load_explicit(&cm->word, memory_order_relaxed) == me)
		return nonblock ? EBUSY : EDEADLK; /* trylock by the owner: EBUSY, as every rts_mutex */
	int level;
	int err = rts_ceiling_self_level(&level);
	if (rts_unlikely(err))
		return err;
	if (rts_unlikely(level > cm->ceiling))
		return EINVAL;
	if (rts_unlikely(rts_current_cpu() != cm->partition))
		return EPERM;
	bool pshared = false;
	struct ceiling_partition *p = partition_at(cm, cm->partition, &pshared);
	if (rts_unlikely(!p))
		return EINVAL;
	bool gate = protocol_of(cm) != RTS_PROTO_PCP;
	enum rts_block_cause cause = atomic_load_explicit(&cm->word, memory_order_relaxed)
					     ? RTS_BLOCK_OWNER
					     : RTS_BLOCK_CEILING;
	err = rts_ceiling_push(p, pshared, (uint32_t)cm->ceiling, gate, (uint32_t)level, false, cause,
			       nonblock);
	if (rts_unlikely(err))
		return err;
	uint32_t owner = atomic_load_explicit(&cm->word, memory_order_relaxed);
	if (rts_unlikely(owner != 0) && !local_owner_died(cm, owner)) {
		/* Held although no ceiling forbade it: some user's level is above the ceiling. */
		rts_ceiling_pop(p, pshared, (uint32_t)cm->ceiling, gate);
		return EINVAL;
	}
	atomic_store_explicit(&cm->word, me, memory_order_relaxed);
	if (is_eager(cm) && (err = eager_raise(cm)) != 0) {
		atomic_store_explicit(&cm->word, 0, memory_order_relaxed);
		rts_ceiling_pop(p, pshared, (uint32_t)cm->ceiling, gate);
	}
	return err;
}

static int local_unlock(struct ceiling_mutex *cm)
{
	bool pshared = false;
	struct ceiling_partition *p = partition_at(cm, cm->partition, &pshared);
	if (rts_unlikely(!p))
		return EINVAL; /* its partition or domain was rewritten (another process): nothing to pop */
	int saved = cm->eager_saved_prio;
	atomic_store_explicit(&cm->word, 0, memory_order_release);
	rts_ceiling_pop(p, pshared, (uint32_t)cm->ceiling, protocol_of(cm) != RTS_PROTO_PCP);
	if (is_eager(cm))
		eager_restore(saved);
	return 0;
}

/* ---- MPCP, FMLP+ ------------------------------------------------------- */

static int mpcp_acquire(struct ceiling_mutex *cm, uint32_t me, bool nonblock)
{
	uint32_t v = 0;
	if (atomic_compare_exchange_strong_explicit(&cm->word, &v, me, memory_order_acquire,
						    memory_order_relaxed))
		return 0;
	if ((v & RTS_FUTEX_TID_MASK) == me)
		return nonblock ? EBUSY : EDEADLK;
	if (nonblock)
		return EBUSY;
	rts_trace_emit_lib(RTS_EV_LOCK_BLOCKED, RTS_BLOCK_OWNER, v & RTS_FUTEX_TID_MASK);
	bool pshared = rts_mutex_is_pshared(cm->flags);
	int err;
	while ((err = rts_pi_word_lock(&cm->word, me, NULL, pshared)) == ENOTRECOVERABLE) {
		/* The owner died with nobody waiting in the kernel (who would have
		 * been handed the lock): take the word over from the dead TID. */
		v = atomic_load_explicit(&cm->word, memory_order_relaxed);
		uint32_t owner = v & RTS_FUTEX_TID_MASK;
		if (owner && !rts_tid_alive(owner) &&
		    atomic_compare_exchange_strong_explicit(&cm->word, &v, me, memory_order_acquire,
							    memory_order_relaxed))
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 1000 * 1000 }, NULL); /* no spin at RT priority */
	}
	return err == EOWNERDEAD ? 0 : err; /* never robust: the protected state is the caller's to judge */
}

static void mpcp_release(struct ceiling_mutex *cm, uint32_t me)
{
	uint32_t expected = me;
	if (!atomic_compare_exchange_strong_explicit(&cm->word, &expected, 0, memory_order_release,
						     memory_order_relaxed))
		rts_pi_word_unlock(&cm->word, me, rts_mutex_is_pshared(cm->flags));
}

/*
 * FMLP+ on a process-shared lock: every ticket is claimed in the taker's
 * record of the domain (internal/fifo_scope.h) before it is taken, and the
 * claim stays until its turn is taken (the owner word written). A turn not
 * taken for FMLP_HOLDER_CHECK_NS whose ticket no live thread claims belongs
 * to a thread that died queued, holding, or between the two stores of its
 * release: the turn passes on, as the kernel drops an exiting waiter.
 */
static uint64_t ticket_claim(const struct ceiling_mutex *cm, uint32_t ticket)
{
	return (uint64_t)cm->object_id << 32 | ticket;
}

static bool ticket_claimed_alive(struct rts_fifo_scope *s, uint64_t claim)
{
	for (uint32_t i = 0; i < RTS_FIFO_RECORDS; i++) {
		struct rts_fifo_record *r = &s->records[i];
		if (atomic_load_explicit(&r->ticket_claim, memory_order_seq_cst) != claim)
			continue;
		if (rts_tid_alive(atomic_load_explicit(&r->tid, memory_order_relaxed)))
			return true;
	}
	return false;
}

/*
 * `serving` has not moved for FMLP_HOLDER_CHECK_NS. A claim is cleared only
 * after its thread wrote the owner word, so a claim found missing here means
 * the word, read after, names that thread (alive: nothing to do) or a later
 * state. Only one CAS of `serving` from this value wins (a releaser's
 * included), so a turn passes on once.
 */
static void fmlp_check_turn(struct ceiling_mutex *cm, struct rts_fifo_scope *s, uint32_t serving)
{
	uint32_t owner = atomic_load_explicit(&cm->word, memory_order_seq_cst);
	if (owner != 0 && rts_tid_alive(owner))
		return; /* a live holder: the common case, decided without the scan */
	if (ticket_claimed_alive(s, ticket_claim(cm, serving)))
		return;
	owner = atomic_load_explicit(&cm->word, memory_order_seq_cst);
	if (owner != 0 && (rts_tid_alive(owner) ||
			   !atomic_compare_exchange_strong_explicit(&cm->word, &owner, 0,
								    memory_order_seq_cst,
								    memory_order_relaxed)))
		return;
	if (atomic_compare_exchange_strong_explicit(&cm->serving, &serving, serving + 1,
						    memory_order_seq_cst, memory_order_relaxed))
		rts_backend()->wake(&cm->serving, INT_MAX, true);
}

/* Take a ticket of a process-shared lock, claimed in r first. 0 or EBUSY (nonblock). */
static int fmlp_take_ticket_shared(struct ceiling_mutex *cm, struct rts_fifo_record *r, bool nonblock,
				   uint32_t *ticket)
{
	uint32_t t = atomic_load_explicit(&cm->next_ticket, memory_order_seq_cst);
	for (;;) {
		if (nonblock && atomic_load_explicit(&cm->serving, memory_order_seq_cst) != t) {
			atomic_store_explicit(&r->ticket_claim, 0, memory_order_seq_cst);
			return EBUSY;
		}
		atomic_store_explicit(&r->ticket_claim, ticket_claim(cm, t), memory_order_seq_cst);
		if (atomic_compare_exchange_strong_explicit(&cm->next_ticket, &t, t + 1,
							    memory_order_seq_cst, memory_order_seq_cst))
			break;
	}
	*ticket = t;
	return 0;
}

static int fmlp_acquire_shared(struct ceiling_mutex *cm, uint32_t me, bool nonblock)
{
	struct rts_fifo_scope *s = rts_fifo_scope_of(cm->domain_id);
	if (rts_unlikely(!s))
		return EINVAL;
	struct rts_fifo_record *r = rts_fifo_self_record(s);
	if (rts_unlikely(!r))
		return EAGAIN; /* RTS_FIFO_RECORDS threads use this domain already */
	uint32_t ticket;
	if (fmlp_take_ticket_shared(cm, r, nonblock, &ticket) != 0)
		return EBUSY;
	bool traced = false;
	uint32_t serving;
	while ((serving = atomic_load_explicit(&cm->serving, memory_order_seq_cst)) != ticket) {
		uint32_t owner = atomic_load_explicit(&cm->word, memory_order_relaxed);
		if (!traced && owner != 0) {
			rts_trace_emit_lib(RTS_EV_LOCK_BLOCKED, RTS_BLOCK_OWNER, owner);
			traced = true;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		struct timespec check = rts_ns_to_timespec(rts_timespec_to_ns(&now) + FMLP_HOLDER_CHECK_NS);
		if (rts_backend()->block(&cm->serving, serving, &check, CLOCK_MONOTONIC, true) ==
			    -ETIMEDOUT &&
		    atomic_load_explicit(&cm->serving, memory_order_seq_cst) == serving)
			fmlp_check_turn(cm, s, serving);
	}
	atomic_store_explicit(&cm->word, me, memory_order_seq_cst);
	atomic_store_explicit(&r->ticket_claim, 0, memory_order_seq_cst);
	return 0;
}

static int fmlp_acquire(struct ceiling_mutex *cm, uint32_t me, bool nonblock)
{
	if (rts_mutex_is_pshared(cm->flags))
		return fmlp_acquire_shared(cm, me, nonblock);
	uint32_t ticket;
	if (nonblock) {
		ticket = atomic_load_explicit(&cm->next_ticket, memory_order_relaxed);
		if (atomic_load_explicit(&cm->serving, memory_order_relaxed) != ticket ||
		    !atomic_compare_exchange_strong_explicit(&cm->next_ticket, &ticket, ticket + 1,
							     memory_order_acquire, memory_order_relaxed))
			return EBUSY;
	} else {
		ticket = atomic_fetch_add_explicit(&cm->next_ticket, 1, memory_order_acquire);
	}
	bool traced = false;
	uint32_t serving;
	/* The holder is a thread of this process: it does not die alone. */
	while ((serving = atomic_load_explicit(&cm->serving, memory_order_acquire)) != ticket) {
		/* The owner word is 0 while the lock passes between two holders: name
		 * the thread waited for once one holds it. */
		uint32_t owner = atomic_load_explicit(&cm->word, memory_order_relaxed);
		if (!traced && owner != 0) {
			rts_trace_emit_lib(RTS_EV_LOCK_BLOCKED, RTS_BLOCK_OWNER, owner);
			traced = true;
		}
		rts_backend()->block(&cm->serving, serving, NULL, CLOCK_MONOTONIC, false);
	}
	atomic_store_explicit(&cm->word, me, memory_order_relaxed);
	return 0;
}

/*
 * `serving` is the holder's ticket until it moves it: a plain store for a
 * process-private lock; a CAS for a shared one, where fmlp_check_turn may
 * pass the turn on first once the word is 0.
 */
static void fmlp_release(struct ceiling_mutex *cm)
{
	bool pshared = rts_mutex_is_pshared(cm->flags);
	uint32_t mine = atomic_load_explicit(&cm->serving, memory_order_relaxed);
	atomic_store_explicit(&cm->word, 0, pshared ? memory_order_seq_cst : memory_order_relaxed);
	uint32_t next = mine + 1;
	if (!pshared)
		atomic_store_explicit(&cm->serving, next, memory_order_release);
	else if (!atomic_compare_exchange_strong_explicit(&cm->serving, &mine, next, memory_order_seq_cst,
							  memory_order_relaxed))
		return; /* passed on already, and its waiters woken */
	if (atomic_load_explicit(&cm->next_ticket, memory_order_relaxed) != next)
		rts_backend()->wake(&cm->serving, INT_MAX, pshared);
}

static uint32_t boost_key(struct ceiling_mutex *cm, uint32_t fmlp_request_clock)
{
	if (protocol_of(cm) == RTS_PROTO_MPCP)
		return CEILING_KEY_MPCP_BASE + (uint32_t)cm->ceiling;
	return CEILING_KEY_FMLP_BASE + (CEILING_FMLP_CLOCK_MASK - (fmlp_request_clock & CEILING_FMLP_CLOCK_MASK));
}

static void global_release_word(struct ceiling_mutex *cm, uint32_t me)
{
	if (protocol_of(cm) == RTS_PROTO_MPCP)
		mpcp_release(cm, me);
	else
		fmlp_release(cm);
}

static int global_lock(struct ceiling_mutex *cm, uint32_t me, bool nonblock)
{
	if ((atomic_load_explicit(&cm->word, memory_order_relaxed) & RTS_FUTEX_TID_MASK) == me)
		return nonblock ? EBUSY : EDEADLK;
	int level;
	int err = rts_ceiling_self_level(&level);
	if (rts_unlikely(err))
		return err;
	int cpu = rts_current_cpu();
	bool pshared = false;
	struct ceiling_partition *p = partition_at(cm, cpu, &pshared);
	if (rts_unlikely(!p))
		return EINVAL;
	bool mpcp = protocol_of(cm) == RTS_PROTO_MPCP;
	uint32_t clock = mpcp ? 0 : atomic_fetch_add_explicit(&p->fmlp_clock, 1, memory_order_relaxed);
	err = mpcp ? mpcp_acquire(cm, me, nonblock) : fmlp_acquire(cm, me, nonblock);
	if (err)
		return err;
	uint32_t key = boost_key(cm, clock);
	err = rts_ceiling_push(p, pshared, key, true, key, true, RTS_BLOCK_GATE, nonblock);
	if (err) {
		global_release_word(cm, me);
		return err;
	}
	cm->held_key = key;
	cm->held_partition = cpu;
	rts_trace_emit_lib(RTS_EV_BOOST, key, me);
	if (is_eager(cm) && (err = eager_raise(cm)) != 0) {
		global_release_word(cm, me);
		rts_ceiling_pop(p, pshared, key, true);
	}
	return err;
}

static int global_unlock(struct ceiling_mutex *cm, uint32_t me)
{
	bool pshared = false;
	struct ceiling_partition *p = partition_at(cm, cm->held_partition, &pshared);
	if (rts_unlikely(!p))
		return EINVAL; /* its partition or domain was rewritten (another process): nothing to pop */
	uint32_t key = cm->held_key;
	int saved = cm->eager_saved_prio;
	global_release_word(cm, me);
	rts_ceiling_pop(p, pshared, key, true);
	if (is_eager(cm))
		eager_restore(saved);
	rts_trace_emit_lib(RTS_EV_UNBOOST, key, me);
	return 0;
}

/* ---- the protocols' tables (internal/lock_protocol.h) ----------------------- */

static int ceiling_lock(struct ceiling_mutex *cm, bool nonblock)
{
	uint32_t me = rts_self_tid();
	if (rts_protocol_is_global(protocol_of(cm)))
		return global_lock(cm, me, nonblock);
	return local_lock(cm, me, nonblock);
}

static int lock_blocking(rts_mutex_t *m, uint32_t flags, const struct timespec *deadline)
{
	(void)flags, (void)deadline; /* no deadline: the tables say timed = false */
	return ceiling_lock(ceiling_mutex_of(m), false);
}

static int lock_nonblocking(rts_mutex_t *m, uint32_t flags)
{
	(void)flags;
	return ceiling_lock(ceiling_mutex_of(m), true);
}

static int unlock(rts_mutex_t *m, uint32_t flags)
{
	(void)flags;
	struct ceiling_mutex *cm = ceiling_mutex_of(m);
	uint32_t me = rts_self_tid();
	if ((atomic_load_explicit(&cm->word, memory_order_relaxed) & RTS_FUTEX_TID_MASK) != me)
		return EPERM;
	if (rts_protocol_is_global(protocol_of(cm)))
		return global_unlock(cm, me);
	return local_unlock(cm);
}

static bool ceiling_valid(int protocol, bool eager, int ceiling)
{
	int max = eager ? 99 : RTS_LOCK_MAX_LEVEL; /* eager: a SCHED_FIFO priority */
	if (protocol == RTS_PROTO_FMLP && !eager)
		return ceiling >= 0 && ceiling <= max;
	if (protocol == RTS_PROTO_MPCP)
		return ceiling >= 1 && ceiling <= 99;
	return ceiling >= 1 && ceiling <= max;
}

static int init(rts_mutex_t *m, uint32_t flags, const rts_mutexattr_t *attr)
{
	int ceiling, partition;
	uint32_t domain_id;
	rts_mutexattr_ceiling_fields(attr, &ceiling, &partition, &domain_id);
	int protocol = rts_mutex_protocol(flags);
	bool eager = flags & RTS_MUTEX_F_EAGER;
	if (flags & RTS_MUTEX_F_ROBUST)
		return EINVAL;
	if (protocol == RTS_PROTO_PCP && eager)
		return ENOTSUP;
	if (eager && ceiling > 99 && protocol != RTS_PROTO_MPCP)
		return ENOTSUP; /* a preemption level, not a priority the kernel knows */
	if (!ceiling_valid(protocol, eager, ceiling))
		return EINVAL;
	bool local = !rts_protocol_is_global(protocol);
	if (local && (partition < 0 || partition >= RTS_LOCK_MAX_PARTITIONS))
		return EINVAL;
	struct rts_lockdomain *d = rts_lockdomain_find(domain_id);
	if (!d)
		return domain_id ? EINVAL : ENOMEM;
	if ((bool)d->pshared != rts_mutex_is_pshared(flags))
		return EINVAL;
	struct ceiling_mutex *cm = ceiling_mutex_of(m);
	*cm = (struct ceiling_mutex){
		.flags = flags,
		.ceiling = ceiling,
		.partition = local ? partition : -1,
		.domain_id = domain_id,
	};
	if (protocol == RTS_PROTO_FMLP && d->pshared) /* its ticket claims' name (fmlp_check_turn) */
		cm->object_id = atomic_fetch_add_explicit(&d->fifo.next_object_id, 1,
							  memory_order_relaxed) + 1;
	return 0;
}

#define CEILING_PROTOCOL(name_)                                                       \
	{                                                                             \
		.name = name_, .init = init, .lock = lock_blocking,                   \
		.trylock = lock_nonblocking, .unlock = unlock, .timed = false,        \
	}

const struct rts_lock_protocol rts_protocol_pcp = CEILING_PROTOCOL("PCP");
const struct rts_lock_protocol rts_protocol_srp = CEILING_PROTOCOL("SRP");
const struct rts_lock_protocol rts_protocol_ipcp = CEILING_PROTOCOL("IPCP");
const struct rts_lock_protocol rts_protocol_mpcp = CEILING_PROTOCOL("MPCP");
const struct rts_lock_protocol rts_protocol_fmlp = CEILING_PROTOCOL("FMLP+");

/* ---- job start ------------------------------------------------------------ */

struct gate_args {
	int cpu;
	uint32_t level;
	int err;
};

static void gate_domain(struct rts_lockdomain *d, void *arg)
{
	struct gate_args *g = arg;
	int err = rts_ceiling_gate(&d->partitions[g->cpu], d->pshared, g->level);
	if (err && !g->err)
		g->err = err;
}

int rts_ceiling_job_start(void)
{
	if (!rts_lockdomain_any())
		return 0; /* no ceiling mutex was ever made in this process */
	int cpu = rts_current_cpu();
	int level;
	if (cpu < 0 || cpu >= RTS_LOCK_MAX_PARTITIONS || rts_ceiling_self_level(&level) != 0)
		return 0; /* no partition, or a SCHED_DEADLINE thread without a level: nothing gates it */
	struct gate_args g = {.cpu = cpu, .level = (uint32_t)level};
	rts_lockdomain_each(gate_domain, &g);
	return g.err;
}

RTS_EXPORT int rts_lock_gate(void)
{
	return rts_ceiling_job_start();
}
