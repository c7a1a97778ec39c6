/* SPDX-License-Identifier: MIT */
#include "subjects.h"

#include <errno.h>

#include "tsc.h"

/* rtsched */

static int rtsched_init(union lb_lock *l, int protocol)
{
	rts_mutexattr_t attr;
	int ret = rts_mutexattr_init(&attr);
	if (ret == 0)
		ret = rts_mutexattr_setprotocol(&attr, protocol);
	if (ret == 0)
		ret = rts_mutex_init(&l->rts, &attr);
	rts_mutexattr_destroy(&attr);
	return ret;
}

static int rtsched_none_init(union lb_lock *l, const struct lb_lock_params *p)
{
	(void)p;
	return rtsched_init(l, RTS_PROTO_NONE);
}

static int rtsched_pip_init(union lb_lock *l, const struct lb_lock_params *p)
{
	(void)p;
	return rtsched_init(l, RTS_PROTO_PIP);
}

static int rtsched_fifo_init(union lb_lock *l, const struct lb_lock_params *p)
{
	(void)p;
	return rtsched_init(l, RTS_PROTO_FIFO);
}

/*
 * Ceiling protocols (<rtsched/mutex.h>, docs/ceiling.md): local ones (PCP,
 * SRP, IPCP) belong to the partition of their users and take the highest
 * priority of their users as ceiling; global ones (MPCP, FMLP+) take a
 * ceiling above every base priority, which the eager forms raise the holder
 * to (the deferred FMLP+ ignores it).
 */
static int rtsched_ceiling_init(union lb_lock *l, int protocol, int variant,
				const struct lb_lock_params *p)
{
	bool local = protocol == RTS_PROTO_PCP || protocol == RTS_PROTO_SRP ||
		     protocol == RTS_PROTO_IPCP;
	rts_mutexattr_t attr;
	int ret = rts_mutexattr_init(&attr);
	if (ret == 0)
		ret = rts_mutexattr_setprotocol(&attr, protocol);
	if (ret == 0 && variant != RTS_CEILING_DEFERRED)
		ret = rts_mutexattr_setvariant(&attr, variant);
	if (ret == 0)
		ret = rts_mutexattr_setceiling(&attr, local ? p->local_ceiling : p->global_ceiling);
	if (ret == 0 && local)
		ret = rts_mutexattr_setpartition(&attr, p->partition);
	if (ret == 0)
		ret = rts_mutex_init(&l->rts, &attr);
	rts_mutexattr_destroy(&attr);
	return ret;
}

#define CEILING_INIT(fn, protocol, variant)                                                 \
	static int fn(union lb_lock *l, const struct lb_lock_params *p)                     \
	{                                                                                   \
		return rtsched_ceiling_init(l, protocol, variant, p);                       \
	}

CEILING_INIT(pcp_init, RTS_PROTO_PCP, RTS_CEILING_DEFERRED)
CEILING_INIT(srp_init, RTS_PROTO_SRP, RTS_CEILING_DEFERRED)
CEILING_INIT(srp_eager_init, RTS_PROTO_SRP, RTS_CEILING_EAGER)
CEILING_INIT(ipcp_init, RTS_PROTO_IPCP, RTS_CEILING_DEFERRED)
CEILING_INIT(ipcp_eager_init, RTS_PROTO_IPCP, RTS_CEILING_EAGER)
CEILING_INIT(mpcp_init, RTS_PROTO_MPCP, RTS_CEILING_DEFERRED)
CEILING_INIT(mpcp_eager_init, RTS_PROTO_MPCP, RTS_CEILING_EAGER)
CEILING_INIT(fmlp_init, RTS_PROTO_FMLP, RTS_CEILING_DEFERRED)
CEILING_INIT(fmlp_eager_init, RTS_PROTO_FMLP, RTS_CEILING_EAGER)

static inline int rtsched_lock(union lb_lock *l)
{
	return rts_mutex_lock(&l->rts);
}

static inline int rtsched_unlock(union lb_lock *l)
{
	return rts_mutex_unlock(&l->rts);
}

static int rtsched_destroy(union lb_lock *l)
{
	return rts_mutex_destroy(&l->rts);
}

/* glibc */

static int glibc_init(union lb_lock *l, int protocol, int ceiling)
{
	pthread_mutexattr_t attr;
	int ret = pthread_mutexattr_init(&attr);
	if (ret)
		return ret;
	ret = pthread_mutexattr_setprotocol(&attr, protocol);
	if (ret == 0 && protocol == PTHREAD_PRIO_PROTECT)
		ret = pthread_mutexattr_setprioceiling(&attr, ceiling);
	if (ret == 0)
		ret = pthread_mutex_init(&l->glibc, &attr);
	pthread_mutexattr_destroy(&attr);
	return ret;
}

static int glibc_none_init(union lb_lock *l, const struct lb_lock_params *p)
{
	(void)p;
	return glibc_init(l, PTHREAD_PRIO_NONE, 0);
}

static int glibc_inherit_init(union lb_lock *l, const struct lb_lock_params *p)
{
	(void)p;
	return glibc_init(l, PTHREAD_PRIO_INHERIT, 0);
}

static int glibc_protect_init(union lb_lock *l, const struct lb_lock_params *p)
{
	return glibc_init(l, PTHREAD_PRIO_PROTECT, p->local_ceiling);
}

static inline int glibc_lock(union lb_lock *l)
{
	return pthread_mutex_lock(&l->glibc);
}

static inline int glibc_unlock(union lb_lock *l)
{
	return pthread_mutex_unlock(&l->glibc);
}

static int glibc_destroy(union lb_lock *l)
{
	return pthread_mutex_destroy(&l->glibc);
}

/* The uncontended loops, inlined into one copy per pair of lock/unlock functions. */

typedef int (*lock_fn)(union lb_lock *);

static inline __attribute__((always_inline)) int
split_loop(lock_fn lock, lock_fn unlock, union lb_lock *l, uint64_t *lock_cycles,
	   uint64_t *unlock_cycles, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = lb_tsc();
		err |= lock(l);
		uint64_t t1 = lb_tsc();
		err |= unlock(l);
		uint64_t t2 = lb_tsc();
		lock_cycles[i] = t1 - t0;
		unlock_cycles[i] = t2 - t1;
		lb_drain_stores();
	}
	return err;
}

static inline __attribute__((always_inline)) int
pairs_loop(lock_fn lock, lock_fn unlock, union lb_lock *l, uint64_t *batch_cycles, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = lb_tsc();
		for (int k = 0; k < LB_PAIR_BATCH; k++) {
			err |= lock(l);
			err |= unlock(l);
		}
		batch_cycles[i] = lb_tsc() - t0;
		lb_drain_stores();
	}
	return err;
}

static inline __attribute__((always_inline)) int
plain_loop(lock_fn lock, lock_fn unlock, union lb_lock *l, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		err |= lock(l);
		err |= unlock(l);
	}
	return err;
}

#define LOOPS(family)                                                                       \
	static int family##_split(union lb_lock *l, uint64_t *lc, uint64_t *uc, size_t n)   \
	{                                                                                   \
		return split_loop(family##_lock, family##_unlock, l, lc, uc, n);            \
	}                                                                                   \
	static int family##_pairs(union lb_lock *l, uint64_t *bc, size_t n)                 \
	{                                                                                   \
		return pairs_loop(family##_lock, family##_unlock, l, bc, n);                \
	}                                                                                   \
	static int family##_loop(union lb_lock *l, size_t n)                                \
	{                                                                                   \
		return plain_loop(family##_lock, family##_unlock, l, n);                    \
	}

LOOPS(rtsched)
LOOPS(glibc)

#define OPS(init_fn, family, ...)                                                           \
	{ .init = init_fn, .destroy = family##_destroy, .lock = family##_lock,             \
	  .unlock = family##_unlock, .split = family##_split, .pairs = family##_pairs,      \
	  .loop = family##_loop, __VA_ARGS__ }

#define BOTH  (LB_IN_UNIPROCESSOR | LB_IN_MULTIPROCESSOR)
#define UNI   LB_IN_UNIPROCESSOR
#define MULTI LB_IN_MULTIPROCESSOR

/*
 * The protocols table. rts NONE and FIFO are in the loops only (the workload's plain
 * futex baseline is glibc PRIO_NONE, as in the targets). The local ceiling
 * protocols run in the uniprocessor workload, the global ones in the
 * multiprocessor one, as in seed 001. The deferred forms of SRP, IPCP, MPCP
 * and FMLP+ hold a job back at its start (rts_lock_gate, which rts_job_next
 * calls); they are not in the two-thread hand-over, whose high thread locks
 * without a job release. PCP blocks at lock and is.
 */
static const struct lb_mutex_ops mutex_ops[LB_NR_MUTEX_SUBJECTS] = {
	[LB_RTS_NONE] = OPS(rtsched_none_init, rtsched, .handover = true, .eager = LB_RTS_NONE),
	[LB_RTS_PIP] = OPS(rtsched_pip_init, rtsched, .classes = BOTH, .handover = true,
			   .eager = LB_RTS_PIP),
	[LB_RTS_FIFO] = OPS(rtsched_fifo_init, rtsched, .handover = true, .eager = LB_RTS_FIFO),
	[LB_RTS_PCP] = OPS(pcp_init, rtsched, .classes = UNI, .handover = true, .deferred = true,
			   .eager = LB_RTS_PCP),
	[LB_RTS_SRP] = OPS(srp_init, rtsched, .classes = UNI, .job_start = rts_lock_gate,
			   .deferred = true, .eager = LB_RTS_SRP_EAGER),
	[LB_RTS_SRP_EAGER] = OPS(srp_eager_init, rtsched, .classes = UNI, .eager = LB_RTS_SRP_EAGER),
	[LB_RTS_IPCP] = OPS(ipcp_init, rtsched, .classes = UNI, .job_start = rts_lock_gate,
			    .deferred = true, .eager = LB_RTS_IPCP_EAGER),
	[LB_RTS_IPCP_EAGER] = OPS(ipcp_eager_init, rtsched, .classes = UNI,
				  .eager = LB_RTS_IPCP_EAGER),
	[LB_RTS_MPCP] = OPS(mpcp_init, rtsched, .classes = MULTI, .job_start = rts_lock_gate,
			    .deferred = true, .eager = LB_RTS_MPCP_EAGER),
	[LB_RTS_MPCP_EAGER] = OPS(mpcp_eager_init, rtsched, .classes = MULTI,
				  .eager = LB_RTS_MPCP_EAGER),
	[LB_RTS_FMLP] = OPS(fmlp_init, rtsched, .classes = MULTI, .job_start = rts_lock_gate,
			    .deferred = true, .eager = LB_RTS_FMLP_EAGER),
	[LB_RTS_FMLP_EAGER] = OPS(fmlp_eager_init, rtsched, .classes = MULTI,
				  .eager = LB_RTS_FMLP_EAGER),
	[LB_GLIBC_NONE] = OPS(glibc_none_init, glibc, .classes = BOTH, .handover = true,
			      .eager = LB_GLIBC_NONE),
	[LB_GLIBC_INHERIT] = OPS(glibc_inherit_init, glibc, .classes = BOTH, .handover = true,
				 .eager = LB_GLIBC_INHERIT),
	[LB_GLIBC_PROTECT] = OPS(glibc_protect_init, glibc, .classes = BOTH, .handover = true,
				 .eager = LB_GLIBC_PROTECT),
};

const struct lb_mutex_ops *lb_mutex_ops(enum lb_subject s)
{
	return &mutex_ops[s];
}

/* Condition variables */

static int rtsched_cond_init(union lb_cond *c)
{
	return rts_cond_init(&c->rts, NULL);
}

static int rtsched_cond_destroy(union lb_cond *c)
{
	return rts_cond_destroy(&c->rts);
}

static int rtsched_cond_wait(union lb_cond *c, union lb_lock *m)
{
	return rts_cond_wait(&c->rts, &m->rts);
}

static int rtsched_cond_signal(union lb_cond *c)
{
	return rts_cond_signal(&c->rts);
}

static int glibc_cond_init(union lb_cond *c)
{
	return pthread_cond_init(&c->glibc, NULL);
}

static int glibc_cond_destroy(union lb_cond *c)
{
	return pthread_cond_destroy(&c->glibc);
}

static int glibc_cond_wait(union lb_cond *c, union lb_lock *m)
{
	return pthread_cond_wait(&c->glibc, &m->glibc);
}

static int glibc_cond_signal(union lb_cond *c)
{
	return pthread_cond_signal(&c->glibc);
}

#define RTS_COND_OPS(m)                                                                     \
	{ .mutex = m, .init = rtsched_cond_init, .destroy = rtsched_cond_destroy,         \
	  .wait = rtsched_cond_wait, .signal = rtsched_cond_signal }
#define GLIBC_COND_OPS(m)                                                                   \
	{ .mutex = m, .init = glibc_cond_init, .destroy = glibc_cond_destroy,              \
	  .wait = glibc_cond_wait, .signal = glibc_cond_signal }

static const struct lb_cond_ops cond_ops[LB_NR_SUBJECTS - LB_NR_MUTEX_SUBJECTS] = {
	[LB_COND_RTS_PIP - LB_NR_MUTEX_SUBJECTS] = RTS_COND_OPS(LB_RTS_PIP),
	[LB_COND_RTS_NONE - LB_NR_MUTEX_SUBJECTS] = RTS_COND_OPS(LB_RTS_NONE),
	[LB_COND_RTS_FIFO - LB_NR_MUTEX_SUBJECTS] = RTS_COND_OPS(LB_RTS_FIFO),
	[LB_COND_GLIBC_NONE - LB_NR_MUTEX_SUBJECTS] = GLIBC_COND_OPS(LB_GLIBC_NONE),
	[LB_COND_GLIBC_INHERIT - LB_NR_MUTEX_SUBJECTS] = GLIBC_COND_OPS(LB_GLIBC_INHERIT),
};

const struct lb_cond_ops *lb_cond_ops(enum lb_subject s)
{
	return &cond_ops[s - LB_NR_MUTEX_SUBJECTS];
}
