/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the ceiling-protocol tests (tests/c/ceiling), on top of
 * harness.h and rts_helpers.h:
 *  - ceiling mutexes made from (protocol, ceiling, partition, variant);
 *  - a thread's base SCHED_FIFO priority (sched_getattr: what the thread
 *    asked for, boosts excluded) next to its effective one (/proc field 18:
 *    boosts included), and the "no leaked boost" check on both;
 *  - an event log with one sequence for every thread, so that a test asserts
 *    the ORDER in which things happened, never how long they took;
 *  - spin/sleep waits on a flag, always bounded so that a broken protocol
 *    fails the case instead of hanging the machine.
 */
#ifndef RTSCHED_TESTS_CEILING_HELPERS_H
#define RTSCHED_TESTS_CEILING_HELPERS_H

#include "rts_helpers.h"

#include <semaphore.h>

#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>

#include "internal/sched_attr.h"

/* ---- ceiling mutexes ------------------------------------------------------ */

/* ceiling 0: left unset; partition < 0: left unset (global protocols). */
static inline void ceil_attr_init(rts_mutexattr_t *a, int proto, int ceiling, int partition,
				  int variant)
{
	CHECK_OK(rts_mutexattr_init(a));
	CHECK_OK(rts_mutexattr_setprotocol(a, proto));
	if (ceiling)
		CHECK_OK(rts_mutexattr_setceiling(a, ceiling));
	if (partition >= 0)
		CHECK_OK(rts_mutexattr_setpartition(a, partition));
	CHECK_OK(rts_mutexattr_setvariant(a, variant));
}

static inline void ceil_mutex_init(rts_mutex_t *m, int proto, int ceiling, int partition,
				   int variant)
{
	rts_mutexattr_t a;
	ceil_attr_init(&a, proto, ceiling, partition, variant);
	CHECK_OK(rts_mutex_init(m, &a));
	CHECK_OK(rts_mutexattr_destroy(&a));
}

static inline bool proto_is_local(int proto)
{
	return proto == RTS_PROTO_PCP || proto == RTS_PROTO_SRP || proto == RTS_PROTO_IPCP;
}

static inline const char *ceil_proto_name(int proto)
{
	static const char *const names[] = { "NONE", "PIP", "PCP", "SRP", "IPCP", "MPCP", "FMLP+" };
	return proto >= 0 && proto <= RTS_PROTO_FMLP ? names[proto] : "?";
}

/* ---- priorities ----------------------------------------------------------- */

/* The thread's own SCHED_FIFO priority (0 for SCHED_OTHER), PI boosts excluded. */
static inline int base_fifo_prio(pid_t tid)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	int ret = rts_sched_getattr(tid, &attr);
	if (ret)
		FAIL("sched_getattr(%d): %s", (int)tid, h_errname(-ret));
	return attr.sched_policy == SCHED_FIFO ? (int)attr.sched_priority : 0;
}

/* Its effective SCHED_FIFO priority, PI boosts included (/proc field 18). */
static inline int effective_fifo_prio(pid_t tid)
{
	return -1 - h_thread_prio(tid);
}

/* No leaked boost: base and effective priority are both back at prio. */
#define CHECK_AT_BASE(tid, prio)                                    \
	do {                                                        \
		CHECK_EQ(base_fifo_prio(tid), (prio));              \
		CHECK_EQ(effective_fifo_prio(tid), (prio));         \
	} while (0)

/* ---- the event log -------------------------------------------------------- */

enum ev_what {
	EV_REQUEST = 1, /* about to lock (res: which lock) */
	EV_ACQUIRED,    /* lock returned 0 */
	EV_RELEASING,   /* about to unlock */
	EV_RELEASED,    /* unlock returned 0 */
	EV_GATE,        /* about to call rts_lock_gate / the job's release */
	EV_JOB_START,   /* first instruction of the job body */
	EV_JOB_END,
};

#define EV_MAX 4096

struct ev_entry {
	char who; /* 'L', 'M', 'H', ... */
	int what;
	int res;
};

/*
 * Each event is one 64-bit word (0: not written yet), stored and loaded
 * atomically, so that the controller may read the log while threads write it.
 */
struct ev_log {
	unsigned n;
	uint64_t e[EV_MAX];
};

static inline uint64_t ev_pack(char who, int what, int res)
{
	return (uint64_t)1 << 56 | (uint64_t)(uint8_t)who << 40 | (uint64_t)(uint8_t)what << 32 |
	       (uint32_t)res;
}

/* Event i, or who == 0 if it is not written yet. */
static inline struct ev_entry ev_get(const struct ev_log *log, unsigned i)
{
	uint64_t v = H_LOAD(&log->e[i]);
	struct ev_entry e = { (char)(v >> 40), (int)(uint8_t)(v >> 32), (int32_t)(uint32_t)v };
	return e;
}

/* One sequence for every thread: the slot taken is the order of the event. */
static inline void ev(struct ev_log *log, char who, int what, int res)
{
	unsigned i = __atomic_fetch_add(&log->n, 1, __ATOMIC_ACQ_REL);
	if (i >= EV_MAX)
		FAIL("event log full");
	H_STORE(&log->e[i], ev_pack(who, what, res));
}

static inline unsigned ev_count(const struct ev_log *log)
{
	unsigned n = H_LOAD(&log->n);
	return n < EV_MAX ? n : EV_MAX;
}

static inline void ev_dump(const struct ev_log *log)
{
	static const char *const what[] = { "?",	"request",   "acquired", "releasing",
					    "released", "gate",      "job start", "job end" };
	unsigned n = ev_count(log);
	fprintf(stderr, "event log (%u events):\n", n);
	for (unsigned i = 0; i < n; i++) {
		struct ev_entry e = ev_get(log, i);
		fprintf(stderr, "  %3u %c %-9s %d\n", i, e.who ? e.who : '?',
			e.what >= 1 && e.what <= EV_JOB_END ? what[e.what] : "?", e.res);
	}
}

/* Index of the first event (who, what, res), res < 0 matching any; -1 if none. */
static inline int ev_find(const struct ev_log *log, char who, int what, int res)
{
	unsigned n = ev_count(log);
	for (unsigned i = 0; i < n; i++) {
		struct ev_entry e = ev_get(log, i);
		if (e.who == who && e.what == what && (res < 0 || e.res == res))
			return (int)i;
	}
	return -1;
}

/* Both events happened, the first one before the second (the log is printed otherwise). */
#define CHECK_EV_BEFORE(log, who1, what1, res1, who2, what2, res2)                          \
	do {                                                                                 \
		int ev_a_ = ev_find((log), (who1), (what1), (res1));                        \
		int ev_b_ = ev_find((log), (who2), (what2), (res2));                        \
		if (ev_a_ < 0 || ev_b_ < 0 || ev_a_ >= ev_b_) {                               \
			ev_dump(log);                                                        \
			FAIL("expected %c/%s/%d (at %d) before %c/%s/%d (at %d)", (who1), #what1, \
			     (res1), ev_a_, (who2), #what2, (res2), ev_b_);                   \
		}                                                                            \
	} while (0)

/* ---- waiting on flags ----------------------------------------------------- */

#define GIVE_UP_MS 10000

/*
 * Keep the CPU (a real-time thread that must not sleep, e.g. an eager holder
 * that a same-priority thread must not get past) until *flag is set; give up
 * after GIVE_UP_MS so that a broken protocol cannot wedge the CPU.
 */
static inline void spin_until(const int *flag)
{
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + (int64_t)GIVE_UP_MS * H_SLOW * 1000000;
	while (!H_LOAD(flag) && clock_ns(CLOCK_MONOTONIC) < give_up)
		for (volatile int i = 0; i < 200; i++)
			;
}

/* Sleep in 0.5 ms steps until *flag is set (bounded likewise). */
static inline void sleep_until(const int *flag)
{
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + (int64_t)GIVE_UP_MS * H_SLOW * 1000000;
	while (!H_LOAD(flag) && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(500);
}

/* A little CPU work (no system call: the monotonic clock is read through the vDSO). */
static inline void burn_loops(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

/* Wait (from the controller) until tid sleeps in the kernel. */
#define WAIT_ASLEEP(tid) WAIT_FOR(h_thread_state(tid) == 'S', 2000)

/* A thread that waits in sem_wait for its release by the controller. */
static inline void sem_wait_nointr(sem_t *s)
{
	while (sem_wait(s) != 0 && errno == EINTR)
		;
}

#endif
