/* SPDX-License-Identifier: MIT */
/*
 * Priority-inversion regression, low / medium / high on ONE CPU (the pattern
 * of librtpi's tst-condpi2; STYLE 15).
 *
 *   low (FIFO 10)    takes the mutex and holds it until told to let go;
 *   high (FIFO 30)   blocks on the mutex (mutex case), or waits on the
 *                    condvar that low signals while holding the mutex and
 *                    keeps holding it (cond case);
 *   medium (FIFO 20) hogs the CPU for a bounded 200 ms of its own CPU time.
 *
 * Once medium hogs, low is told to let go. With PIP low runs boosted to 30,
 * preempts medium, unlocks, and high finishes before medium's hog ends. With
 * NONE low cannot run until medium is done: high finishes after medium (the
 * inversion the protocol exists to prevent). The outcome is the order of two
 * events taken from one atomic counter, never a time. The other CPU stays
 * free (the controller runs there as SCHED_OTHER).
 */
#include "rts_helpers.h"

#define LOW 10
#define MEDIUM 20
#define HIGH 30
#define HOG_CPU_MS 200
#define HOG_WALL_MS 1500

struct shared {
	rts_mutex_t m;
	rts_cond_t c;
	int predicate;
	int seq; /* event counter */
	int high_done_at;
	int medium_done_at;
	int low_unlocked_at;
	int low_holding;
	int low_release;
	int medium_started;
	int high_started;
	pid_t high_tid, low_tid;
	int errors;
};

static int next_event(struct shared *s)
{
	return H_INC(&s->seq);
}

static void low_hold_until_told(struct shared *s)
{
	H_STORE(&s->low_holding, 1);
	/* Sleep-poll: when the flag is set, low needs the CPU to notice it. */
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 5LL * 1000000000;
	while (!H_LOAD(&s->low_release) && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(200);
	if (rts_mutex_unlock(&s->m))
		H_INC(&s->errors);
	H_STORE(&s->low_unlocked_at, next_event(s));
}

static void *low_lock_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->low_tid, h_gettid());
	if (rts_mutex_lock(&s->m)) {
		H_INC(&s->errors);
		return NULL;
	}
	low_hold_until_told(s);
	return NULL;
}

static void *low_signal_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->low_tid, h_gettid());
	if (rts_mutex_lock(&s->m)) {
		H_INC(&s->errors);
		return NULL;
	}
	s->predicate = 1;
	if (rts_cond_signal(&s->c))
		H_INC(&s->errors);
	low_hold_until_told(s);
	return NULL;
}

static void *high_lock_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->high_tid, h_gettid());
	H_STORE(&s->high_started, 1);
	if (rts_mutex_lock(&s->m)) {
		H_INC(&s->errors);
		return NULL;
	}
	H_STORE(&s->high_done_at, next_event(s));
	rts_mutex_unlock(&s->m);
	return NULL;
}

static void *high_wait_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->high_tid, h_gettid());
	int ret = rts_mutex_lock(&s->m);
	H_STORE(&s->high_started, 1);
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 5000);
	while (ret == 0 && !s->predicate)
		ret = rts_cond_timedwait(&s->c, &s->m, &dl);
	if (ret) {
		H_INC(&s->errors);
		return NULL;
	}
	H_STORE(&s->high_done_at, next_event(s));
	rts_mutex_unlock(&s->m);
	return NULL;
}

static void *medium_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->medium_started, 1);
	h_burn_cpu_ms(HOG_CPU_MS, HOG_WALL_MS);
	H_STORE(&s->medium_done_at, next_event(s));
	return NULL;
}

enum scenario { MUTEX, COND };

static void inversion(int proto, enum scenario sc)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);
	CHECK_OK(rts_cond_init(&s->c, NULL));
	pthread_t low, medium, high;

	if (sc == MUTEX) {
		h_thread_start(&low, low_lock_main, s, LOW, rt_cpu);
		WAIT_FOR(H_LOAD(&s->low_holding), 2000);
		h_thread_start(&high, high_lock_main, s, HIGH, rt_cpu);
		WAIT_FOR(H_LOAD(&s->high_started) && h_thread_state(H_LOAD(&s->high_tid)) == 'S',
			 2000);
	} else {
		h_thread_start(&high, high_wait_main, s, HIGH, rt_cpu);
		WAIT_FOR(cond_waiters(&s->c) == 1 && h_thread_state(H_LOAD(&s->high_tid)) == 'S',
			 2000);
		h_thread_start(&low, low_signal_main, s, LOW, rt_cpu);
		WAIT_FOR(H_LOAD(&s->low_holding), 2000);
		/* high was signalled and now blocks on the mutex low holds */
		WAIT_FOR(h_thread_state(H_LOAD(&s->high_tid)) == 'S', 2000);
	}
	CHECK_EQ(H_LOAD(&s->high_done_at), 0);
	if (proto == RTS_PROTO_PIP)
		WAIT_FOR(h_thread_prio(H_LOAD(&s->low_tid)) == h_fifo_prio_field(HIGH), 2000);

	h_thread_start(&medium, medium_main, s, MEDIUM, rt_cpu);
	WAIT_FOR(H_LOAD(&s->medium_started), 2000);
	H_STORE(&s->low_release, 1); /* low must now get the CPU to let go */

	WAIT_FOR(H_LOAD(&s->medium_done_at) && H_LOAD(&s->high_done_at), HOG_WALL_MS + 3000);
	h_join(medium, 2000);
	h_join(high, 2000);
	h_join(low, 2000);
	CHECK_EQ(s->errors, 0);
	int high_at = s->high_done_at, medium_at = s->medium_done_at, low_at = s->low_unlocked_at;
	H_LOG("%s %s: events low-unlocked #%d, high-done #%d, medium-done #%d", proto_name(proto),
	      sc == MUTEX ? "mutex" : "cond", low_at, high_at, medium_at);
	if (proto == RTS_PROTO_PIP) {
		CHECK_MSG(high_at < medium_at,
			  "PIP: high finished as event #%d, after medium's hog (#%d): "
			  "priority inversion not prevented",
			  high_at, medium_at);
	} else {
		/* Documents the inversion without PI (and that the set-up produces it). */
		CHECK_MSG(medium_at < high_at,
			  "NONE: high finished as event #%d, before medium's hog (#%d): the "
			  "set-up did not produce the inversion it tests",
			  high_at, medium_at);
		CHECK_LT(medium_at, low_at);
	}
	free(s);
}

static void test_mutex_inversion_pip(void)
{
	inversion(RTS_PROTO_PIP, MUTEX);
}

static void test_mutex_inversion_none(void)
{
	inversion(RTS_PROTO_NONE, MUTEX);
}

static void test_cond_inversion_pip(void)
{
	inversion(RTS_PROTO_PIP, COND);
}

static void test_cond_inversion_none(void)
{
	inversion(RTS_PROTO_NONE, COND);
}

static const struct h_case cases[] = {
	H_CASE(test_mutex_inversion_pip, 8000),
	H_CASE(test_mutex_inversion_none, 8000),
	H_CASE(test_cond_inversion_pip, 8000),
	H_CASE(test_cond_inversion_none, 8000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
