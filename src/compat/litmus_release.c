/* SPDX-License-Identifier: MIT */
/*
 * Synchronous release of a task system, across processes: a futex word and
 * the release times in one shared object per user (litmus_ts_object.h: its
 * name, owner checks and lifetime).
 *
 * The word: bits 31..16 the release generation, bits 15..0 the number of
 * tasks waiting for the next release. Both change in one CAS, so:
 *   a waiter adds itself to the count of generation g and waits for the
 *   generation to leave g; release_ts swaps (g, n) for (g + 1, 0) and returns
 *   n. A waiter is therefore released by exactly the release_ts whose CAS
 *   moved its generation, and that call counted it: release_ts releases
 *   exactly the tasks that were waiting (none who came after).
 * The release time of generation g + 1 is written in its slot before the
 * CAS publishes it (release order), and read after the waiter has seen the
 * new generation (acquire). A slot is reused LITMUS_TS_SLOTS generations
 * later; a waiter that sleeps through that many releases reads a later time.
 *
 * Zero-filled memory (a new object) is the state "generation 0, nobody waiting".
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal/futex.h"
#include "internal/shm_owned.h"
#include "litmus_internal.h"
#include "litmus_ts_object.h"

#define LITMUS_TS_WAITERS_MASK 0xffffu
#define LITMUS_TS_GEN_SHIFT 16

static struct litmus_ts *ts_get(const char *fn)
{
	char why[RTS_SHM_WHY_MAX] = "";
	int err;
	struct litmus_ts *ts = litmus_ts_get(&err, why, sizeof(why));
	if (!ts)
		litmus_fail(err, "%s: %s", fn, why[0] ? why : strerror(err));
	return ts;
}

void litmus_release_close(void)
{
	litmus_ts_close();
}

LITMUS_EXPORT int wait_for_ts_release(void)
{
	struct litmus_thread *self = litmus_self();
	if (!self->rt)
		return litmus_fail(EPERM, "wait_for_ts_release: not a real-time task "
					  "(task_mode(LITMUS_RT_TASK) first)");
	struct litmus_ts *ts = ts_get("wait_for_ts_release");
	if (!ts)
		return -1;
	uint32_t v = atomic_load_explicit(&ts->word, memory_order_relaxed);
	do {
		if ((v & LITMUS_TS_WAITERS_MASK) == LITMUS_TS_WAITERS_MASK)
			return litmus_fail(EAGAIN, "wait_for_ts_release: %u tasks already wait",
					   LITMUS_TS_WAITERS_MASK);
	} while (!atomic_compare_exchange_weak_explicit(&ts->word, &v, v + 1, memory_order_acq_rel,
							 memory_order_relaxed));
	uint32_t gen = v >> LITMUS_TS_GEN_SHIFT;
	litmus_trace_job_end(self); /* the current job ends here, not at the release */
	for (;;) {
		uint32_t now = atomic_load_explicit(&ts->word, memory_order_acquire);
		if (now >> LITMUS_TS_GEN_SHIFT != gen)
			break;
		rts_futex_wait_until(&ts->word, now, NULL, CLOCK_MONOTONIC, true);
	}
	uint32_t released = (gen + 1) & LITMUS_TS_WAITERS_MASK;
	int64_t t = atomic_load_explicit(&ts->release_ns[released % LITMUS_TS_SLOTS],
					 memory_order_acquire);
	litmus_job_begin(self, t + (int64_t)self->params.phase);
	litmus_ok();
	return 0;
}

/* *at is absolute, as LITMUS^RT's release_ts takes it (liblitmus's release_ts
 * tool passes now + delay); a time already past (its tests pass a bare
 * delay) releases the tasks now rather than in the past. */
LITMUS_EXPORT int release_ts(lt_t *at)
{
	if (!at)
		return litmus_fail(EFAULT, "release_ts: NULL release time");
	struct litmus_ts *ts = ts_get("release_ts");
	if (!ts)
		return -1;
	int64_t now = litmus_now_ns();
	int64_t when = *at > (lt_t)now ? (int64_t)*at : now;
	uint32_t v = atomic_load_explicit(&ts->word, memory_order_relaxed), next;
	do {
		uint32_t gen = ((v >> LITMUS_TS_GEN_SHIFT) + 1) & LITMUS_TS_WAITERS_MASK;
		atomic_store_explicit(&ts->release_ns[gen % LITMUS_TS_SLOTS], when,
				      memory_order_relaxed);
		next = gen << LITMUS_TS_GEN_SHIFT;
	} while (!atomic_compare_exchange_weak_explicit(&ts->word, &v, next, memory_order_release,
							 memory_order_relaxed));
	rts_futex_wake(&ts->word, INT_MAX, true);
	litmus_ok();
	return (int)(v & LITMUS_TS_WAITERS_MASK);
}

LITMUS_EXPORT int get_nr_ts_release_waiters(void)
{
	struct litmus_ts *ts = ts_get("get_nr_ts_release_waiters");
	if (!ts)
		return -1;
	return (int)(atomic_load_explicit(&ts->word, memory_order_acquire) &
		     LITMUS_TS_WAITERS_MASK);
}
