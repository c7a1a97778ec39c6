/* SPDX-License-Identifier: MIT */
/*
 * PI mutexes and condition variables under the ult backend (docs/ult.md,
 * "Locks and condition variables"), on one CPU under fixed priorities, where
 * the order of events is the schedule's: priority inheritance keeps a
 * medium-priority job off the CPU (the inversion regression), hand-over goes
 * highest priority first and FIFO among equals, a requeued condvar waiter
 * boosts the signaller and returns owning the mutex, timeouts and
 * interrupts end a wait and withdraw its boost, and the backend's
 * operations refuse misuse with their error numbers.
 */
#include "ult_actors.h"

static struct actor *actor_named(struct actor *actors, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(actors[i].name, name) == 0)
			return &actors[i];
	FAIL("no actor %s", name);
	return NULL;
}

/* ---- inheritance: low holds, high blocks, medium must wait ---------------- */

enum { L_LOCKED = 1, H_REQUESTS, L_UNLOCKS, H_ACQUIRED, M_RUNS };

struct inversion {
	rts_mutex_t m;
	atomic_int high_requested;
	int boosted, own_while_boosted, after_unlock;
};

static void inversion_low(struct actor *a)
{
	struct inversion *s = a->scene;
	CHECK_OK(rts_mutex_lock(&s->m));
	log_tag(L_LOCKED);
	CHECK(busy_until(&s->high_requested, 1));
	busy_us(3000); /* medium is released meanwhile */
	s->boosted = effective_priority(0);
	s->own_while_boosted = own_priority(0);
	log_tag(L_UNLOCKS);
	CHECK_OK(rts_mutex_unlock(&s->m));
	s->after_unlock = effective_priority(0);
}

static void inversion_high(struct actor *a)
{
	struct inversion *s = a->scene;
	log_tag(H_REQUESTS);
	atomic_store(&s->high_requested, 1);
	CHECK_OK(rts_mutex_lock(&s->m));
	log_tag(H_ACQUIRED);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

static void inversion_medium(struct actor *a)
{
	(void)a;
	log_tag(M_RUNS);
}

static void test_pip_owner_inherits_and_medium_waits(void)
{
	static struct inversion s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_PIP, 0, 0, -1);
	struct actor actors[] = {
		{.name = "low", .priority = 10, .offset_ms = 0, .cpu = 0, .play = inversion_low, .scene = &s},
		{.name = "high", .priority = 50, .offset_ms = 2, .cpu = 0, .play = inversion_high, .scene = &s},
		{.name = "medium", .priority = 30, .offset_ms = 3, .cpu = 0, .play = inversion_medium, .scene = &s},
	};
	run_actors("ult:pfp", actors, 3);
	const int want[] = {L_LOCKED, H_REQUESTS, L_UNLOCKS, H_ACQUIRED, M_RUNS};
	check_log(want, 5);
	CHECK_EQ(s.boosted, 50);          /* inherited from high */
	CHECK_EQ(s.own_while_boosted, 10); /* get_attr: its own, as sched_getattr */
	CHECK_EQ(s.after_unlock, 10);
	CHECK_OK(rts_mutex_destroy(&s.m));
}

/* ---- hand-over: highest priority first, FIFO among equals ----------------- */

struct handover {
	rts_mutex_t m;
	atomic_int requested;
	int owner_boost;
};

static void handover_owner(struct actor *a)
{
	struct handover *s = a->scene;
	CHECK_OK(rts_mutex_lock(&s->m));
	/* asleep while the four arrive (a busy owner, boosted, would keep the
	 * later ones of equal priority off the CPU) */
	CHECK_OK(rts_task_sleep_until(now_ns() + 8 * MS));
	CHECK_EQ(atomic_load(&s->requested), 4);
	s->owner_boost = effective_priority(0);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

static void handover_waiter(struct actor *a)
{
	struct handover *s = a->scene;
	atomic_fetch_add(&s->requested, 1);
	CHECK_OK(rts_mutex_lock(&s->m));
	log_tag(a->result); /* its tag */
	CHECK_OK(rts_mutex_unlock(&s->m));
}

static void run_handover(int protocol, const int *want)
{
	static struct handover s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, protocol, 0, 0, -1);
	struct actor actors[] = {
		{.name = "owner", .priority = 5, .cpu = 0, .play = handover_owner, .scene = &s},
		{.name = "w1", .priority = 20, .offset_ms = 2, .cpu = 0, .play = handover_waiter, .scene = &s, .result = 1},
		{.name = "w2", .priority = 40, .offset_ms = 3, .cpu = 0, .play = handover_waiter, .scene = &s, .result = 2},
		{.name = "w3", .priority = 40, .offset_ms = 4, .cpu = 0, .play = handover_waiter, .scene = &s, .result = 3},
		{.name = "w4", .priority = 20, .offset_ms = 5, .cpu = 0, .play = handover_waiter, .scene = &s, .result = 4},
	};
	run_actors("ult:pfp", actors, 5);
	check_log(want, 4);
	if (protocol == RTS_PROTO_PIP)
		CHECK_EQ(s.owner_boost, 40);
	CHECK_OK(rts_mutex_destroy(&s.m));
}

static void test_pip_handover_priority_then_fifo(void)
{
	const int want[] = {2, 3, 1, 4};
	run_handover(RTS_PROTO_PIP, want);
}

/* ---- a requeued condvar waiter boosts the signaller, returns owning the mutex ---- */

enum { C_WAITS = 1, C_SIGNALLED, C_WOKE, C_SIGNALLER_ON };

struct requeue {
	rts_mutex_t m;
	rts_cond_t c;
	int ready;
	atomic_int waiting;
	_Atomic uint32_t waiter_id;
	int signaller_boost, owned_on_return, timed_wait;
};

static void requeue_waiter(struct actor *a)
{
	struct requeue *s = a->scene;
	CHECK_OK(rts_mutex_lock(&s->m));
	/* a timed wait nobody signals: ETIMEDOUT, the mutex owned again */
	struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 1);
	s->timed_wait = rts_cond_timedwait(&s->c, &s->m, &soon);
	log_tag(C_WAITS);
	atomic_store(&s->waiting, 1);
	while (!s->ready)
		CHECK_OK(rts_cond_wait(&s->c, &s->m));
	uint32_t word = atomic_load((rts_futex_word *)&s->m.s.word);
	s->owned_on_return = (word & RTS_FUTEX_TID_MASK) == atomic_load(&a->id);
	log_tag(C_WOKE);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

static void requeue_signaller(struct actor *a)
{
	struct requeue *s = a->scene;
	CHECK(busy_until(&s->waiting, 1));
	CHECK_OK(rts_mutex_lock(&s->m));
	s->ready = 1;
	CHECK_OK(rts_cond_signal(&s->c));
	s->signaller_boost = effective_priority(0); /* the waiter waits for the mutex now */
	log_tag(C_SIGNALLED);
	CHECK_OK(rts_mutex_unlock(&s->m));
	log_tag(C_SIGNALLER_ON);
}

static void test_cond_requeued_waiter_returns_owning_mutex(void)
{
	static struct requeue s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_PIP, 0, 0, -1);
	CHECK_OK(rts_cond_init(&s.c, NULL));
	struct actor actors[] = {
		{.name = "signaller", .priority = 10, .cpu = 0, .play = requeue_signaller, .scene = &s},
		{.name = "waiter", .priority = 50, .offset_ms = 2, .cpu = 0, .play = requeue_waiter, .scene = &s},
	};
	run_actors("ult:pfp", actors, 2);
	const int want[] = {C_WAITS, C_SIGNALLED, C_WOKE, C_SIGNALLER_ON};
	check_log(want, 4);
	CHECK_EQ(s.timed_wait, ETIMEDOUT);
	CHECK_EQ(s.signaller_boost, 50);
	CHECK_EQ(s.owned_on_return, 1);
	CHECK_OK(rts_cond_destroy(&s.c));
	CHECK_OK(rts_mutex_destroy(&s.m));
}

/* ---- timeouts and interrupts end a wait and withdraw its boost ------------ */

struct ending {
	rts_mutex_t m;
	rts_futex_word word;
	atomic_int timed_out, blocked;
	_Atomic uint32_t sleeper_id;
	int timedlock, boost_while_waited, boost_after, interrupted, woken_count, woken_result;
};

static void ending_holder(struct actor *a)
{
	struct ending *s = a->scene;
	CHECK_OK(rts_mutex_lock(&s->m));
	CHECK(busy_until(&s->blocked, 1)); /* the timed locker waits now */
	s->boost_while_waited = effective_priority(0);
	/* The timed-out waiter leaves the mutex's queue when it runs next (as
	 * under the kernel's rt_mutex): boosted to its priority, the holder
	 * must give it the CPU, so it sleeps past the deadline. */
	CHECK_OK(rts_task_sleep_until(now_ns() + 6 * MS));
	CHECK_EQ(atomic_load(&s->timed_out), 1);
	s->boost_after = effective_priority(0);
	CHECK_OK(rts_mutex_unlock(&s->m));
	/* the sleeper blocks on the word with no deadline: interrupt it */
	CHECK(busy_until(&s->blocked, 2));
	CHECK_OK(-rts_backend()->interrupt(atomic_load(&s->sleeper_id)));
	/* and again: now a wake ends it */
	CHECK(busy_until(&s->blocked, 3));
	busy_us(1000);
	s->woken_count = rts_backend()->wake(&s->word, 1, false);
}

static void ending_timed_locker(struct actor *a)
{
	struct ending *s = a->scene;
	struct timespec deadline = h_deadline_ms(CLOCK_MONOTONIC, 3);
	atomic_store(&s->blocked, 1);
	s->timedlock = rts_mutex_timedlock(&s->m, &deadline);
	atomic_store(&s->timed_out, 1);
}

static void ending_sleeper(struct actor *a)
{
	struct ending *s = a->scene;
	atomic_store(&s->sleeper_id, atomic_load(&a->id));
	atomic_store(&s->blocked, 2);
	s->interrupted = rts_backend()->block(&s->word, 0, NULL, CLOCK_MONOTONIC, false);
	atomic_store(&s->blocked, 3);
	s->woken_result = rts_backend()->block(&s->word, 0, NULL, CLOCK_MONOTONIC, false);
}

static void test_timeout_and_interrupt_end_waits(void)
{
	static struct ending s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_PIP, 0, 0, -1);
	struct actor actors[] = {
		{.name = "holder", .priority = 10, .cpu = 0, .play = ending_holder, .scene = &s},
		{.name = "timed", .priority = 40, .offset_ms = 2, .cpu = 0, .play = ending_timed_locker, .scene = &s},
		{.name = "sleeper", .priority = 30, .offset_ms = 10, .cpu = 0, .play = ending_sleeper, .scene = &s},
	};
	run_actors("ult:pfp", actors, 3);
	CHECK_EQ(s.timedlock, ETIMEDOUT);
	CHECK_EQ(s.boost_while_waited, 40);
	CHECK_EQ(s.boost_after, 10); /* the timed-out waiter's boost is withdrawn */
	CHECK_EQ(s.interrupted, -EINTR);
	CHECK_EQ(s.woken_count, 1);
	CHECK_EQ(s.woken_result, 0);
	CHECK_OK(rts_mutex_destroy(&s.m));
}

/* ---- misuse: each refusal with its error number -------------------------- */

struct misuse {
	int deadlk, eperm, pshared_pi, pshared_block, eagain, etimedout, einval_cond, einval_attr,
	    einval_policy, esrch_attr, einval_deadline, background_set, background_read,
	    fifo_again;
};

static void misuse_play(struct actor *a)
{
	struct misuse *s = a->scene;
	const struct rts_backend *b = rts_backend();
	rts_futex_word mine = atomic_load(&a->id), other_free = 0, word = 7;
	s->deadlk = b->pi_block(&mine, NULL, false);
	s->eperm = b->pi_wake(&other_free, false);
	s->pshared_pi = b->pi_block(&other_free, NULL, true);
	s->pshared_block = b->block(&word, 7, NULL, CLOCK_MONOTONIC, true);
	s->eagain = b->block(&word, 8, NULL, CLOCK_MONOTONIC, false);
	struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 2);
	s->etimedout = b->block(&word, 7, &soon, CLOCK_MONOTONIC, false);
	struct timespec bad = {.tv_sec = 1, .tv_nsec = 2000000000L};
	s->einval_deadline = b->block(&word, 7, &bad, CLOCK_MONOTONIC, false);
	s->einval_cond = b->cond_block(&word, 7, NULL, CLOCK_MONOTONIC, &word, false);
	struct rts_sched_attr attr = {.size = sizeof(attr), .sched_policy = SCHED_FIFO, .sched_priority = 0};
	s->einval_attr = b->set_attr(0, &attr);
	attr = (struct rts_sched_attr){.size = sizeof(attr), .sched_policy = SCHED_DEADLINE,
				       .sched_deadline = 1000000};
	s->einval_policy = b->set_attr(0, &attr); /* an FP form's ULTs are SCHED_FIFO or background */
	attr = (struct rts_sched_attr){.size = sizeof(attr), .sched_policy = SCHED_OTHER};
	s->background_set = b->set_attr(0, &attr);
	struct rts_sched_attr read = {.size = sizeof(read)};
	CHECK_OK(-b->get_attr(0, &read));
	s->background_read = (int)read.sched_policy;
	attr = (struct rts_sched_attr){.size = sizeof(attr), .sched_policy = SCHED_FIFO, .sched_priority = 10};
	s->fifo_again = b->set_attr(0, &attr);
	attr = (struct rts_sched_attr){.size = sizeof(attr), .sched_policy = SCHED_FIFO, .sched_priority = 20};
	s->esrch_attr = b->set_attr(RTS_ULT_ID_BIT | 999, &attr);
}

static void test_misuse_refused(void)
{
	static struct misuse s;
	struct actor actors[] = {
		{.name = "misuser", .priority = 10, .cpu = 0, .play = misuse_play, .scene = &s},
	};
	run_actors("ult:pfp", actors, 1);
	CHECK_EQ(s.deadlk, -EDEADLK);
	CHECK_EQ(s.eperm, -EPERM);
	CHECK_EQ(s.pshared_pi, -ENOTSUP);
	CHECK_EQ(s.pshared_block, -ENOTSUP);
	CHECK_EQ(s.eagain, -EAGAIN);
	CHECK_EQ(s.etimedout, -ETIMEDOUT);
	CHECK_EQ(s.einval_deadline, -EINVAL);
	CHECK_EQ(s.einval_cond, -EINVAL);
	CHECK_EQ(s.einval_attr, -EINVAL);
	CHECK_EQ(s.einval_policy, -EINVAL);
	CHECK_EQ(s.background_set, 0);
	CHECK_EQ(s.background_read, SCHED_OTHER);
	CHECK_EQ(s.fifo_again, 0);
	CHECK_EQ(s.esrch_attr, -ESRCH);
}

/* ---- set_attr: a running ULT lowered below a ready one is preempted at once ---- */

enum { S_LOWERS = 1, S_OTHER_RUNS, S_BACK };

static void attr_lowerer(struct actor *a)
{
	atomic_int *other_ready = a->scene;
	CHECK(busy_until(other_ready, 1));
	log_tag(S_LOWERS);
	struct rts_sched_attr attr = {.size = sizeof(attr), .sched_policy = SCHED_FIFO, .sched_priority = 5};
	CHECK_OK(-rts_backend()->set_attr(0, &attr));
	log_tag(S_BACK);
	a->result = own_priority(0);
}

static void attr_other(struct actor *a)
{
	(void)a;
	log_tag(S_OTHER_RUNS);
}

static void attr_releaser(struct actor *a)
{
	atomic_store((atomic_int *)a->scene, 1);
}

static void test_set_attr_lowered_is_preempted(void)
{
	static atomic_int other_ready;
	atomic_store(&other_ready, 0);
	struct actor actors[] = {
		{.name = "lowerer", .priority = 40, .cpu = 0, .play = attr_lowerer, .scene = &other_ready},
		{.name = "other", .priority = 20, .offset_ms = 2, .cpu = 0, .play = attr_other},
		/* highest: runs at once at 3 ms, after other's release at 2 ms */
		{.name = "releaser", .priority = 60, .offset_ms = 3, .cpu = 0, .play = attr_releaser, .scene = &other_ready},
	};
	run_actors("ult:pfp", actors, 3);
	const int want[] = {S_LOWERS, S_OTHER_RUNS, S_BACK};
	check_log(want, 3);
	CHECK_EQ(actor_named(actors, 3, "lowerer")->result, 5);
}

static const struct h_case cases[] = {
	H_CASE(test_pip_owner_inherits_and_medium_waits, 20000),
	H_CASE(test_pip_handover_priority_then_fifo, 20000),
	H_CASE(test_cond_requeued_waiter_returns_owning_mutex, 20000),
	H_CASE(test_timeout_and_interrupt_end_waits, 20000),
	H_CASE(test_misuse_refused, 20000),
	H_CASE(test_set_attr_lowered_is_preempted, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
