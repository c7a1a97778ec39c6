/* SPDX-License-Identifier: MIT */
/*
 * rts_cond wakes waiters highest priority first, FIFO among equals, with a
 * NONE and a PIP mutex.
 *
 * SCHED_FIFO waiters of different priorities (three of them equal) sleep on
 * one condvar, all pinned to one CPU; they arrive in a scrambled order, each
 * one asleep before the next starts, so the arrival order is known. The
 * controller (SCHED_OTHER, on the other CPU) then wakes them:
 *   - one signal at a time, waiting for each woken waiter to return;
 *   - N signals in a row while holding the mutex, then one unlock;
 *   - one broadcast while holding the mutex, then one unlock;
 * and the order in which the waiters return must be by priority, FIFO among
 * equals.
 */
#include "rts_helpers.h"

/* Arrival order = index. */
static const int prios[] = { 10, 30, 50, 30, 20, 30, 40 };
#define NW ((int)(sizeof(prios) / sizeof(prios[0])))

enum how { ONE_BY_ONE, SIGNALS_UNDER_MUTEX, BROADCAST_UNDER_MUTEX };

struct shared {
	rts_mutex_t m;
	rts_cond_t c;
	pid_t tids[NW];
	int order[NW]; /* ids in the order they returned (under m) */
	int nreturned;
	int errors;
};

struct waiter_arg {
	struct shared *s;
	int id;
};

static void *waiter_main(void *p)
{
	struct waiter_arg *a = p;
	struct shared *s = a->s;
	H_STORE(&s->tids[a->id], h_gettid());
	int ret = rts_mutex_lock(&s->m);
	if (ret) {
		H_INC(&s->errors);
		return NULL;
	}
	ret = rts_cond_wait(&s->c, &s->m);
	if (ret)
		H_INC(&s->errors);
	int n = H_LOAD(&s->nreturned);
	s->order[n] = a->id;
	H_STORE(&s->nreturned, n + 1);
	rts_mutex_unlock(&s->m);
	return NULL;
}

/*
 * Whether thread tid sleeps in futex(2) on addr (/proc/<tid>/syscall: the
 * system call number, then its arguments, uaddr first).
 */
static bool sleeps_on(pid_t tid, const void *addr)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	long nr = -1;
	unsigned long uaddr = 0;
	int n = fscanf(f, "%ld %lx", &nr, &uaddr);
	fclose(f);
	return n == 2 && nr == SYS_futex && uaddr == (unsigned long)addr;
}

static void expected_order(int *out)
{
	int n = 0;
	for (int p = 99; p >= 1; p--)
		for (int i = 0; i < NW; i++)
			if (prios[i] == p)
				out[n++] = i;
}

static void wake_order(int proto, enum how how)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);
	CHECK_OK(rts_cond_init(&s->c, NULL));

	pthread_t t[NW];
	struct waiter_arg args[NW];
	for (int i = 0; i < NW; i++) {
		args[i] = (struct waiter_arg){ s, i };
		h_thread_start(&t[i], waiter_main, &args[i], prios[i], rt_cpu);
		WAIT_FOR(cond_waiters(&s->c) == (unsigned)i + 1 && H_LOAD(&s->tids[i]) != 0 &&
				 h_thread_state(H_LOAD(&s->tids[i])) == 'S',
			 2000);
		CHECK_EQ(h_thread_prio(s->tids[i]), h_fifo_prio_field(prios[i]));
	}

	switch (how) {
	case ONE_BY_ONE:
		for (int k = 0; k < NW; k++) {
			CHECK_OK(rts_mutex_lock(&s->m));
			CHECK_OK(rts_cond_signal(&s->c));
			CHECK_OK(rts_mutex_unlock(&s->m));
			WAIT_FOR(H_LOAD(&s->nreturned) == k + 1, 2000);
		}
		break;
	case SIGNALS_UNDER_MUTEX: {
		int want[NW];
		expected_order(want);
		CHECK_OK(rts_mutex_lock(&s->m));
		for (int k = 0; k < NW; k++) {
			CHECK_OK(rts_cond_signal(&s->c));
			/* The woken one queues on the mutex we hold before the next is
			 * woken (PIP: the kernel moves it there itself, requeue-PI). */
			if (proto == RTS_PROTO_NONE)
				WAIT_FOR(sleeps_on(s->tids[want[k]], &s->m.s.word), 2000);
			else
				h_sleep_ms(2);
		}
		CHECK_EQ(H_LOAD(&s->nreturned), 0);
		CHECK_OK(rts_mutex_unlock(&s->m));
		break;
	}
	case BROADCAST_UNDER_MUTEX:
		CHECK_OK(rts_mutex_lock(&s->m));
		CHECK_OK(rts_cond_broadcast(&s->c));
		h_sleep_ms(20); /* every waiter is now blocked on the mutex */
		CHECK_EQ(H_LOAD(&s->nreturned), 0);
		CHECK_OK(rts_mutex_unlock(&s->m));
		break;
	}
	WAIT_FOR(H_LOAD(&s->nreturned) == NW, 3000);
	for (int i = 0; i < NW; i++)
		h_join(t[i], 2000);
	CHECK_EQ(s->errors, 0);

	int want[NW];
	expected_order(want);
	char got_s[128] = "", want_s[128] = "";
	for (int i = 0; i < NW; i++) {
		char buf[16];
		snprintf(buf, sizeof(buf), " %d/p%d", s->order[i], prios[s->order[i]]);
		strcat(got_s, buf);
		snprintf(buf, sizeof(buf), " %d/p%d", want[i], prios[want[i]]);
		strcat(want_s, buf);
	}
	H_LOG("%s: returned in order%s", proto_name(proto), got_s);
	for (int i = 0; i < NW; i++)
		CHECK_MSG(s->order[i] == want[i],
			  "%s mutex: waiters (id/prio) returned in order%s, expected%s",
			  proto_name(proto), got_s, want_s);
	free(s);
}

static void test_signal_one_by_one_none(void)
{
	wake_order(RTS_PROTO_NONE, ONE_BY_ONE);
}

static void test_signal_one_by_one_pip(void)
{
	wake_order(RTS_PROTO_PIP, ONE_BY_ONE);
}

static void test_signals_under_mutex_none(void)
{
	wake_order(RTS_PROTO_NONE, SIGNALS_UNDER_MUTEX);
}

static void test_signals_under_mutex_pip(void)
{
	wake_order(RTS_PROTO_PIP, SIGNALS_UNDER_MUTEX);
}

static void test_broadcast_under_mutex_none(void)
{
	wake_order(RTS_PROTO_NONE, BROADCAST_UNDER_MUTEX);
}

static void test_broadcast_under_mutex_pip(void)
{
	wake_order(RTS_PROTO_PIP, BROADCAST_UNDER_MUTEX);
}

static const struct h_case cases[] = {
	H_CASE(test_signal_one_by_one_none, 8000),
	H_CASE(test_signal_one_by_one_pip, 8000),
	H_CASE(test_signals_under_mutex_none, 8000),
	H_CASE(test_signals_under_mutex_pip, 8000),
	H_CASE(test_broadcast_under_mutex_none, 8000),
	H_CASE(test_broadcast_under_mutex_pip, 8000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
