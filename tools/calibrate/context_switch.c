/* SPDX-License-Identifier: MIT */
#include "measures.h"
#include "clock_ns.h"
#include "pinned.h"
#include "pinned_thread.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * turn says whose move it is: PING (the measuring thread) or PONG (the
 * partner). Each thread sets the other's turn, wakes it and waits until the
 * turn comes back; stop is read by the partner whenever it is woken.
 */
enum { PING = 0, PONG = 1 };

struct pingpong {
	_Atomic uint32_t turn;
	atomic_bool stop;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *pong_main(void *arg)
{
	struct pingpong *pp = arg;
	for (;;) {
		while (atomic_load(&pp->turn) == PING)
			futex_wait(&pp->turn, PING);
		if (atomic_load(&pp->stop))
			return NULL;
		atomic_store(&pp->turn, PING);
		futex_wake(&pp->turn);
	}
}

static uint64_t round_trip_ns(struct pingpong *pp)
{
	uint64_t t0 = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	atomic_store(&pp->turn, PONG);
	futex_wake(&pp->turn);
	while (atomic_load(&pp->turn) == PONG)
		futex_wait(&pp->turn, PONG);
	return (uint64_t)clock_ns(CLOCK_MONOTONIC) - t0;
}

int cal_context_switch(const struct cal_options *o, struct cal_samples *switch_ns,
		       char *why, size_t why_len)
{
	struct pingpong pp = {.turn = PING};
	pthread_t pong;
	int err = pinned_thread_start(&pong, pong_main, &pp, o->priority, o->cpu);
	if (err) {
		snprintf(why, why_len, "starting the partner thread (SCHED_FIFO %d, CPU %d)", o->priority, o->cpu);
		return err;
	}
	for (unsigned i = 0; i < CAL_BATCH; i++) /* warm-up: caches, page faults */
		round_trip_ns(&pp);
	while (switch_ns->n < switch_ns->capacity) {
		cal_pause_ns(CAL_PAUSE_NS);
		for (unsigned i = 0; i < CAL_BATCH && switch_ns->n < switch_ns->capacity; i++)
			cal_samples_add(switch_ns, (round_trip_ns(&pp) + 1) / 2);
	}
	atomic_store(&pp.stop, true);
	atomic_store(&pp.turn, PONG);
	futex_wake(&pp.turn);
	pthread_join(pong, NULL);
	return 0;
}
