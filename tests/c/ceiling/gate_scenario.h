/* SPDX-License-Identifier: MIT */
/*
 * One scenario, shared by the SRP, IPCP, MPCP and FMLP+ tests: a job released
 * on a partition while a lower thread there holds a ceiling lock.
 *
 *   H (the holder, prio/level low) locks X and keeps the CPU (it spins, so
 *   that only the protocol, not a sleep, can keep the job off the CPU);
 *   J (the job, pinned to the same CPU, created first and waiting in
 *   sem_wait) is released by the controller, then calls rts_lock_gate (or is
 *   released by rts_job_next) and runs its body: optionally a trylock of X,
 *   which must succeed (a started job never blocks on a lock). In the eager
 *   form J does not call the gate: eager is the form for threads that are not
 *   released through it, so the raised priority alone must keep J out.
 *
 * expect_gated: J's body must not run before H lets go of X. Deferred form:
 * J blocks in the gate and H runs at J's priority meanwhile (/proc), its
 * base priority unchanged (sched_getattr). Eager form: H runs at the
 * ceiling (sched_getattr and /proc), so J is never even scheduled.
 * !expect_gated: J's body runs to its end while H still holds X, and H is
 * never boosted.
 * Either way, both threads are back at their base priority at the end.
 */
#ifndef RTSCHED_TESTS_GATE_SCENARIO_H
#define RTSCHED_TESTS_GATE_SCENARIO_H

#include "ceiling_helpers.h"

struct gate_params {
	const char *name;
	int proto;
	int variant;
	int ceiling;      /* 0: none (FMLP+ deferred) */
	int holder_prio;
	int holder_level; /* 0: its priority */
	int job_prio;
	int job_level;    /* 0: its priority */
	bool job_uses_lock;
	bool expect_gated;
};

struct gate_run {
	const struct gate_params *p;
	rts_mutex_t x;
	struct ev_log log;
	sem_t job_release;
	pid_t holder_tid, job_tid;
	int holder_locked, holder_go, holder_unlocked, exit_now;
	int job_waiting, job_done;
	int holder_ret, job_ret, job_trylock_ret;
};

enum { RES_X = 1 };

static void *gate_holder_main(void *arg)
{
	struct gate_run *r = arg;
	H_STORE(&r->holder_tid, h_gettid());
	int ret = r->p->holder_level ? rts_lock_set_self_level(r->p->holder_level) : 0;
	if (ret == 0) {
		ev(&r->log, 'H', EV_REQUEST, RES_X);
		ret = rts_mutex_lock(&r->x);
	}
	if (ret) {
		H_STORE(&r->holder_ret, ret);
		H_STORE(&r->holder_locked, 1);
		return NULL;
	}
	ev(&r->log, 'H', EV_ACQUIRED, RES_X);
	H_STORE(&r->holder_locked, 1);
	spin_until(&r->holder_go);
	ev(&r->log, 'H', EV_RELEASING, RES_X);
	ret = rts_mutex_unlock(&r->x);
	ev(&r->log, 'H', EV_RELEASED, RES_X);
	H_STORE(&r->holder_ret, ret);
	H_STORE(&r->holder_unlocked, 1);
	sleep_until(&r->exit_now);
	return NULL;
}

static void *gate_job_main(void *arg)
{
	struct gate_run *r = arg;
	H_STORE(&r->job_tid, h_gettid());
	int ret = r->p->job_level ? rts_lock_set_self_level(r->p->job_level) : 0;
	H_STORE(&r->job_waiting, 1);
	sem_wait_nointr(&r->job_release);
	/* Eager forms are for threads that do not pass the gate (docs/ceiling.md):
	 * the holder's raised priority alone must keep the job out. */
	if (ret == 0 && r->p->variant == RTS_CEILING_DEFERRED) {
		ev(&r->log, 'J', EV_GATE, 0);
		ret = rts_lock_gate();
	}
	if (ret == 0) {
		ev(&r->log, 'J', EV_JOB_START, 0);
		if (r->p->job_uses_lock) {
			int t = rts_mutex_trylock(&r->x);
			H_STORE(&r->job_trylock_ret, t);
			if (t == 0)
				t = rts_mutex_unlock(&r->x);
			if (t)
				ret = t;
		}
		ev(&r->log, 'J', EV_JOB_END, 0);
	}
	H_STORE(&r->job_ret, ret);
	H_STORE(&r->job_done, 1);
	sleep_until(&r->exit_now);
	return NULL;
}

static void gate_scenario(const struct gate_params *p)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct gate_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	r->p = p;
	CHECK_SYS(sem_init(&r->job_release, 0, 0));
	ceil_mutex_init(&r->x, p->proto, p->ceiling, proto_is_local(p->proto) ? rt_cpu : -1,
			p->variant);
	bool eager = p->variant == RTS_CEILING_EAGER;
	H_LOG("%s: %s %s, ceiling %d, holder %d/%d, job %d/%d", p->name, ceil_proto_name(p->proto),
	      eager ? "eager" : "deferred", p->ceiling, p->holder_prio, p->holder_level, p->job_prio,
	      p->job_level);

	/* The job first: an eager holder at or above its priority would keep it
	 * from ever reaching sem_wait. */
	pthread_t job, holder;
	h_thread_start(&job, gate_job_main, r, p->job_prio, rt_cpu);
	WAIT_FOR(H_LOAD(&r->job_waiting) && h_thread_state(H_LOAD(&r->job_tid)) == 'S', 2000);
	h_thread_start(&holder, gate_holder_main, r, p->holder_prio, rt_cpu);
	WAIT_FOR(H_LOAD(&r->holder_locked), 2000);
	CHECK_OK(H_LOAD(&r->holder_ret));
	pid_t htid = H_LOAD(&r->holder_tid), jtid = H_LOAD(&r->job_tid);
	CHECK_EQ(mutex_owner(&r->x), htid);
	if (eager) {
		/* Raised to the ceiling at lock, in its own attributes. */
		CHECK_EQ(base_fifo_prio(htid), p->ceiling);
		CHECK_EQ(effective_fifo_prio(htid), p->ceiling);
	} else {
		/* Deferred: no priority change on the uncontended path. */
		CHECK_AT_BASE(htid, p->holder_prio);
	}

	CHECK_SYS(sem_post(&r->job_release));
	if (p->expect_gated) {
		if (eager) {
			/* Woken, runnable, never run: the holder keeps the CPU at the ceiling. */
			WAIT_FOR(h_thread_state(jtid) == 'R', 2000);
			h_sleep_ms(5);
			CHECK_EQ(effective_fifo_prio(htid), p->ceiling);
		} else {
			/* The job reached the gate and lends the holder its priority. */
			WAIT_FOR(ev_find(&r->log, 'J', EV_GATE, -1) >= 0 &&
					 effective_fifo_prio(htid) == p->job_prio,
				 2000);
			CHECK_EQ(h_thread_state(jtid), 'S');
			CHECK_EQ(base_fifo_prio(htid), p->holder_prio);
		}
		if (ev_find(&r->log, 'J', EV_JOB_START, -1) >= 0) {
			ev_dump(&r->log);
			FAIL("%s: the job started while the holder held a ceiling at or above it",
			     p->name);
		}
		CHECK(!H_LOAD(&r->holder_unlocked));
	} else {
		/* Above the ceiling: the job runs to its end while the lock is held. */
		WAIT_FOR(H_LOAD(&r->job_done), 2000);
		CHECK(!H_LOAD(&r->holder_unlocked));
		CHECK_EQ(effective_fifo_prio(htid), eager ? p->ceiling : p->holder_prio);
	}

	H_STORE(&r->holder_go, 1);
	WAIT_FOR(H_LOAD(&r->holder_unlocked) && H_LOAD(&r->job_done), 5000);
	CHECK_OK(H_LOAD(&r->holder_ret));
	if (p->job_uses_lock && H_LOAD(&r->job_trylock_ret) != 0) {
		ev_dump(&r->log);
		FAIL("%s: the job ran while X was still held (its trylock: %s)", p->name,
		     h_errname(H_LOAD(&r->job_trylock_ret)));
	}
	CHECK_OK(H_LOAD(&r->job_ret));
	if (p->expect_gated)
		CHECK_EV_BEFORE(&r->log, 'H', EV_RELEASING, RES_X, 'J', EV_JOB_START, -1);
	else
		CHECK_EV_BEFORE(&r->log, 'J', EV_JOB_END, -1, 'H', EV_RELEASING, RES_X);
	CHECK_AT_BASE(htid, p->holder_prio);
	CHECK_AT_BASE(jtid, p->job_prio);
	H_STORE(&r->exit_now, 1);
	h_join(holder, 5000);
	h_join(job, 5000);
	CHECK_OK(rts_mutex_destroy(&r->x));
	sem_destroy(&r->job_release);
	free(r);
}

#endif
