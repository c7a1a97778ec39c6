/* SPDX-License-Identifier: MIT */
/*
 * Synchronous release of a task system, across processes: one POSIX
 * shared-memory object per user ("/rtsched-litmus-ts.UID", or "/"
 * RTSCHED_LITMUS_TS_NAME) holding a futex word and the release times.
 *
 * Per user, mode 0600, joined only if it is the caller's (or root's) and no
 * wider (internal/shm_owned.h): another user's object of the name is refused
 * at once, naming its owner, instead of being trusted (issue 33). It counts
 * the processes that mapped it; the last to leave (exit_litmus, or its
 * normal exit: an atexit handler) removes it. A process that crashes stays
 * counted, and the object stays.
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
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/futex.h"
#include "internal/shm_owned.h"
#include "litmus_internal.h"

#define LITMUS_TS_SLOTS 16
#define LITMUS_TS_WAITERS_MASK 0xffffu
#define LITMUS_TS_GEN_SHIFT 16

struct litmus_ts {
	rts_futex_word word;
	_Atomic uint32_t processes; /* mapped it; the last to leave removes the name */
	_Atomic int64_t release_ns[LITMUS_TS_SLOTS];
};

#define LITMUS_TS_MODE 0600

static pthread_mutex_t ts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct litmus_ts *ts_shared; /* written under ts_lock */
static char ts_name[128];

/* Leave the count; the last process unlinks the name. Under ts_lock. */
static void ts_leave(struct litmus_ts *ts)
{
	/* One that maps it in between keeps its mapping; the next opener then starts afresh. */
	if (atomic_fetch_sub_explicit(&ts->processes, 1, memory_order_acq_rel) == 1)
		shm_unlink(ts_name);
}

/*
 * A normal exit without exit_litmus: leave, keeping the mapping for threads
 * still running (one inside ts_lock: the process stays counted).
 */
static void ts_leave_at_exit(void)
{
	if (pthread_mutex_trylock(&ts_lock) != 0)
		return;
	if (ts_shared)
		ts_leave(ts_shared);
	ts_shared = NULL;
	pthread_mutex_unlock(&ts_lock);
}

static void ts_exit_handler(void)
{
	atexit(ts_leave_at_exit);
}

/* Map the caller's object (made if missing): 0, or an error number with why filled in. */
static int ts_map(char *why, size_t why_size)
{
	const char *env = getenv("RTSCHED_LITMUS_TS_NAME");
	if (env && *env)
		snprintf(ts_name, sizeof(ts_name), "/%s", env);
	else
		snprintf(ts_name, sizeof(ts_name), "/rtsched-litmus-ts.%u", (unsigned)geteuid());
	int fd;
	int err = rts_shm_open_owned(ts_name, O_RDWR | O_CREAT | O_EXCL, LITMUS_TS_MODE, &fd, why,
				     why_size);
	if (err == EEXIST)
		err = rts_shm_open_owned(ts_name, O_RDWR, LITMUS_TS_MODE, &fd, why, why_size);
	if (err)
		return err;
	struct stat st;
	/* Every opener sets the same size: racing ftruncates agree. */
	if (fstat(fd, &st) != 0 ||
	    ((size_t)st.st_size < sizeof(struct litmus_ts) &&
	     ftruncate(fd, sizeof(struct litmus_ts)) != 0)) {
		err = errno;
		close(fd);
		snprintf(why, why_size, "/dev/shm%s: %s", ts_name, strerror(err));
		return err;
	}
	struct litmus_ts *p =
		mmap(NULL, sizeof(struct litmus_ts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = p == MAP_FAILED ? errno : 0;
	close(fd);
	if (err) {
		snprintf(why, why_size, "/dev/shm%s: %s", ts_name, strerror(err));
		return err;
	}
	atomic_fetch_add_explicit(&p->processes, 1, memory_order_acq_rel);
	ts_shared = p;
	static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
	pthread_once(&exit_once, ts_exit_handler);
	return 0;
}

static struct litmus_ts *ts_get(const char *fn)
{
	char why[RTS_SHM_WHY_MAX] = "";
	int err = 0;
	pthread_mutex_lock(&ts_lock);
	if (!ts_shared)
		err = ts_map(why, sizeof(why));
	struct litmus_ts *ts = ts_shared;
	pthread_mutex_unlock(&ts_lock);
	if (err)
		litmus_fail(err, "%s: %s", fn, why);
	return ts;
}

void litmus_release_close(void)
{
	pthread_mutex_lock(&ts_lock);
	struct litmus_ts *ts = ts_shared;
	if (ts) {
		ts_leave(ts);
		munmap(ts, sizeof(*ts));
		ts_shared = NULL;
	}
	pthread_mutex_unlock(&ts_lock);
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
