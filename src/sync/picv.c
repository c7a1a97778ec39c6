/* SPDX-License-Identifier: MIT */
/*
 * PI on condition variables (seed 004), on a stock kernel.
 *
 * A condvar with helpers queues its waiters in user space (by priority, FIFO
 * among equals) under an internal PI mutex. A waiter lends to every helper
 * the condvar has when it starts waiting (a snapshot, its loan):
 *  - to one helper, its anchor (the first one whose own chain of anchors
 *    does not lead back to the waiter), through the kernel: it blocks with
 *    FUTEX_LOCK_PI on its own token word holding the anchor's TID, so the
 *    kernel boosts the anchor by the waiter's priority, carries the boost
 *    through whatever the anchor blocks on (PI mutexes, other tokens), takes
 *    the maximum over waiters, and hands the token to the waiter with
 *    FUTEX_OWNER_DIED if the anchor exits;
 *  - to every other helper through the donation graph (picv_donation.c),
 *    which raises them with sched_setattr and restores them after.
 * With one helper that is the PI token alone and the graph applies nothing;
 * with two or more it is the donation graph; the choice follows the helper
 * set. A waiter without an anchor sleeps on its state word instead.
 *
 * Waking a waiter (signal, broadcast, or a change of helpers):
 *  - its state becomes SIGNALLED (or REWAIT), under the internal lock;
 *  - if its anchor is the caller, FUTEX_UNLOCK_PI hands it the token: for
 *    REWAIT at once; for a signal or broadcast only after the internal
 *    lock is released, and if the caller owns the waiter's mutex, only when
 *    it unlocks that mutex (internal/handover.h), like the kernel's
 *    requeue-PI: the woken waiter, often of higher priority, would
 *    otherwise preempt the caller only to block on the lock or the mutex;
 *  - if its anchor is another thread, the wake signal interrupts its
 *    FUTEX_LOCK_PI and the handler leaves the wait by siglongjmp;
 *  - if it lends to nobody, FUTEX_WAKE on its state;
 *  - then its loan leaves the graph, which restores the other helpers.
 * The kernel's loan to the anchor ends when the waiter leaves its queue,
 * or when the anchor hands the token over: a waiter whose anchor signals it
 * goes on boosting the anchor until that anchor has released the internal
 * lock and the mutex, which is the boost the waiter would otherwise give it
 * through the mutex.
 *
 * Invariants:
 *  - a waiter's node lives in its own stack frame; it is in the queue from
 *    registration until a waker pops it (setting SIGNALLED) or the waiter
 *    removes itself (timeout, error, cancellation); wakers touch a node only
 *    under the internal lock, and read its `next` before they wake it;
 *  - a waiter touches the PI-CV after it first slept only with its node
 *    claimed (PICV_CLAIMED, its own CAS, which fails once SIGNALLED): a
 *    waker that pops an unclaimed node counts it out of n_waiters, and that
 *    waiter never touches the PI-CV again, so the condvar may be destroyed
 *    and freed right after a signal or broadcast (POSIX); destroy returns
 *    EBUSY while a queued node is unclaimed (blocked), and waits for the
 *    claimed ones (`exits`);
 *  - a cancelled waiter leaves as on a timeout, and passes on a signal that
 *    chose it: under the lock while it still counts, or, if its waker counted
 *    it out, through the registry of live condvars (cond_registry.c);
 *  - the loan and the token are changed only by the waiter, under the
 *    internal lock, and only while its state is WAITING, so a waker always
 *    knows which way to wake a node;
 *  - a node marked `handover` (popped by its anchor, the token to be handed
 *    over after the internal lock or the mutex is released) is touched by
 *    that waker after the lock, so its waiter does not leave before it owns
 *    the token, whatever woke it (timeout, the state seen before blocking),
 *    unless the anchor exits first (the kernel then gives the waiter the
 *    token, or FUTEX_LOCK_PI finds no owner);
 *  - `prio` is read when the waiter must be ordered against another one
 *    (QUEUE_PRIORITY_UNREAD until then: a lone waiter costs no system
 *    call), so the queue is ordered by the priorities at the time a second
 *    waiter arrived or later;
 *  - each waiter has its own token, so each is its own rt_mutex: a dying
 *    anchor's tokens are all handed over, one per waiter.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/cancel.h"
#include "internal/cond_object.h"
#include "internal/ceiling.h"
#include "internal/export.h"
#include "internal/handover.h"
#include "internal/mutex.h"
#include "internal/picv.h"
#include "internal/picv_donation.h"
#include "internal/pi_word.h"
#include "internal/sched_attr.h"
#include "internal/tid.h"
#include "internal/timespec.h"
#include "internal/wake_signal.h"

enum waiter_state {
	PICV_WAITING = 0,
	PICV_SIGNALLED = 1, /* popped by a signal or broadcast: the wait is over */
	PICV_REWAIT = 2,    /* the helpers changed: block again, lending anew */
};

/*
 * Bit of a node's state: the waiter has claimed its node to touch the PI-CV
 * (set only by the waiter, with a CAS, never while SIGNALLED; cleared by it
 * under the lock). A waker that pops a claimed node leaves the waiter count
 * to the waiter; one that pops an unclaimed node counts it out itself, and
 * that waiter never touches the PI-CV again (it may be destroyed at once).
 */
#define PICV_CLAIMED 4u

#define QUEUE_PRIORITY_UNREAD (-1)

struct picv_waiter {
	struct picv_waiter *next;
	uint32_t tid;
	int prio; /* rts_task_queue_priority, or QUEUE_PRIORITY_UNREAD */
	rts_futex_word state;
	rts_futex_word token; /* the anchor's TID while lending */
	rts_mutex_t *mutex;   /* the caller's */
	bool handover;        /* the waker hands the token over after the internal lock */
	struct rts_handover handover_link; /* the waker's hand-over, after the lock or the mutex */
	struct rts_loan loan; /* the helpers it lends to; n_helpers 0: nobody */
};

struct rts_picv {
	rts_futex_word lock; /* a PI word (internal/pi_word.h): guards everything below */
	uint32_t n_helpers;
	uint32_t helpers[RTS_COND_MAX_HELPERS]; /* in the order added */
	struct picv_waiter *queue;
	uint32_t n_waiters;    /* queued, and popped while claimed */
	rts_futex_word exits;  /* claims released: destroy sleeps on it */
	bool destroyer_sleeps;
	uint64_t handle;       /* its handle in the table below */
};

/*
 * Handles (issue 33): the condvar holds no pointer to its PI-CV state, which
 * another process could rewrite into one of its choosing, but a handle,
 * (generation << 32) | slot number, into this process's table of PI-CV
 * states. A handle is followed only when its slot number is in range, the
 * slot is live, of that generation and made for this very condvar; any other
 * non-zero value is RTS_PICV_INVALID (the calls return EINVAL). Slots are
 * made and freed under table_lock; a lookup reads without it (a slot's
 * chunk, once published, stays), and its answer holds as long as the
 * condvar is not destroyed meanwhile, which POSIX already forbids.
 */
#define PICV_CHUNK_SLOTS 256u
#define PICV_CHUNKS 256u /* at most 65536 PI-CVs alive at once (ENOMEM beyond) */

struct picv_slot_entry {
	_Atomic(struct rts_picv *) picv; /* NULL: free */
	_Atomic uint32_t generation;
	_Atomic(const rts_cond_t *) cond;
};

static _Atomic(struct picv_slot_entry *) picv_chunks[PICV_CHUNKS];
static rts_futex_word picv_table_lock; /* a PI word (internal/pi_word.h) */
static struct rts_picv picv_invalid_state;
struct rts_picv *const rts_picv_invalid = &picv_invalid_state;

static _Atomic uint64_t *handle_field(rts_cond_t *c)
{
	return (_Atomic uint64_t *)(void *)&c->s.picv;
}
_Static_assert(sizeof(((rts_cond_t *)0)->s.picv) == sizeof(uint64_t), "a handle fits the picv field");

static struct picv_slot_entry *slot_entry(uint32_t number)
{
	if (number == 0 || number > PICV_CHUNKS * PICV_CHUNK_SLOTS)
		return NULL;
	uint32_t index = number - 1;
	struct picv_slot_entry *chunk =
		atomic_load_explicit(&picv_chunks[index / PICV_CHUNK_SLOTS], memory_order_acquire);
	return chunk ? &chunk[index % PICV_CHUNK_SLOTS] : NULL;
}

struct rts_picv *rts_picv_of(rts_cond_t *c)
{
	uint64_t handle = atomic_load_explicit(handle_field(c), memory_order_acquire);
	if (rts_likely(handle == 0))
		return NULL;
	struct picv_slot_entry *e = slot_entry((uint32_t)handle);
	if (!e || atomic_load_explicit(&e->generation, memory_order_acquire) != (uint32_t)(handle >> 32) ||
	    atomic_load_explicit(&e->cond, memory_order_relaxed) != c)
		return rts_picv_invalid;
	struct rts_picv *picv = atomic_load_explicit(&e->picv, memory_order_acquire);
	return picv && picv->handle == handle ? picv : rts_picv_invalid;
}

/* A slot for picv, made for c: its handle, or 0 (no slot left, no memory). Under the table lock. */
static uint64_t slot_take(struct rts_picv *picv, const rts_cond_t *c)
{
	for (uint32_t k = 0; k < PICV_CHUNKS; k++) {
		struct picv_slot_entry *chunk =
			atomic_load_explicit(&picv_chunks[k], memory_order_relaxed);
		if (!chunk) {
			chunk = calloc(PICV_CHUNK_SLOTS, sizeof(*chunk));
			if (!chunk)
				return 0;
			atomic_store_explicit(&picv_chunks[k], chunk, memory_order_release);
		}
		for (uint32_t i = 0; i < PICV_CHUNK_SLOTS; i++) {
			struct picv_slot_entry *e = &chunk[i];
			if (atomic_load_explicit(&e->picv, memory_order_relaxed))
				continue;
			uint32_t generation =
				atomic_load_explicit(&e->generation, memory_order_relaxed) + 1;
			uint64_t handle = ((uint64_t)generation << 32) | (k * PICV_CHUNK_SLOTS + i + 1);
			picv->handle = handle;
			atomic_store_explicit(&e->cond, c, memory_order_relaxed);
			atomic_store_explicit(&e->picv, picv, memory_order_relaxed);
			atomic_store_explicit(&e->generation, generation, memory_order_release);
			return handle;
		}
	}
	return 0;
}

static void slot_free(uint64_t handle)
{
	rts_pi_lock(&picv_table_lock, false);
	struct picv_slot_entry *e = slot_entry((uint32_t)handle);
	if (e) {
		atomic_store_explicit(&e->picv, NULL, memory_order_relaxed);
		atomic_store_explicit(&e->cond, NULL, memory_order_relaxed);
		atomic_fetch_add_explicit(&e->generation, 1, memory_order_release);
	}
	rts_pi_unlock(&picv_table_lock, false);
}

static int queue_priority(struct picv_waiter *w)
{
	if (w->prio == QUEUE_PRIORITY_UNREAD)
		w->prio = rts_task_queue_priority(w->tid);
	return w->prio;
}

static void enqueue(struct rts_picv *picv, struct picv_waiter *w)
{
	struct picv_waiter **at = &picv->queue;
	if (*at)
		queue_priority(w); /* lone waiters need no order */
	while (*at && queue_priority(*at) >= w->prio)
		at = &(*at)->next;
	w->next = *at;
	*at = w;
}

static void dequeue(struct rts_picv *picv, struct picv_waiter *w)
{
	for (struct picv_waiter **at = &picv->queue; *at; at = &(*at)->next)
		if (*at == w) {
			*at = w->next;
			return;
		}
}

/* Make the node lend to the condvar's helpers now (under the lock): 0, EDEADLK, ENOTSUP. */
static int lend(struct rts_picv *picv, struct picv_waiter *w)
{
	rts_donation_begin();
	rts_donation_remove(&w->loan);
	w->loan.n_helpers = picv->n_helpers;
	w->loan.donor_level = RTS_LEVEL_UNREAD;
	memcpy(w->loan.helpers, picv->helpers, picv->n_helpers * sizeof(picv->helpers[0]));
	int err = picv->n_helpers ? rts_donation_add(&w->loan) : 0;
	if (err)
		w->loan.n_helpers = 0;
	if (err || !picv->n_helpers)
		w->loan.anchor = -1;
	rts_donation_end();
	atomic_store_explicit(&w->token, rts_loan_anchor(&w->loan), memory_order_relaxed);
	return err;
}

/* Under the lock: get a node out of its wait; its state is already set. */
static void wake_waiter(struct picv_waiter *w)
{
	uint32_t anchor = rts_loan_anchor(&w->loan);
	if (anchor == 0) {
		rts_backend()->wake(&w->state, 1, false);
		return;
	}
	if (anchor == rts_self_tid() && rts_backend()->pi_wake(&w->token, false) == 0)
		return;
	rts_backend()->interrupt(w->tid);
}

/*
 * Under the lock: set the state of the nodes from `first` up to `end`
 * (excluded), take their loans out of the graph and wake them, all under
 * the graph lock, so that no other wait sees a woken node still lending.
 * The priorities are restored after the wakes: restoring may lower the
 * caller itself. Token hand-overs go on *handovers if that is not NULL.
 */
static void wake_nodes(struct rts_picv *picv, struct picv_waiter *first, struct picv_waiter *end,
		       uint32_t state, struct rts_handover **handovers)
{
	rts_donation_begin();
	for (struct picv_waiter *w = first, *next; w != end; w = next) {
		next = w->next; /* a woken unclaimed waiter may leave at once */
		rts_donation_remove(&w->loan);
		bool later = handovers && rts_loan_anchor(&w->loan) == rts_self_tid();
		if (later) {
			w->handover = true;
			w->handover_link = (struct rts_handover){ *handovers, w->mutex, &w->token };
			*handovers = &w->handover_link;
		}
		uint32_t old = atomic_load_explicit(&w->state, memory_order_relaxed);
		while (!atomic_compare_exchange_weak_explicit(&w->state, &old,
							      state | (old & PICV_CLAIMED),
							      memory_order_release, memory_order_relaxed))
			;
		bool claimed = old & PICV_CLAIMED;
		if (state == PICV_SIGNALLED && !claimed)
			picv->n_waiters--;
		if (!later)
			wake_waiter(w);
	}
	rts_donation_end();
}

static bool owned_by_self(rts_mutex_t *m)
{
	uint32_t flags = rts_mutex_flags_load(m);
	uint32_t owner = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed);
	return !rts_protocol_is_ceiling(rts_mutex_protocol(flags)) &&
	       (owner & RTS_FUTEX_TID_MASK) == rts_self_tid();
}

/*
 * After the lock: hand the listed waiters their tokens now, or park them
 * until their mutex is unlocked (internal/handover.h). The token holds the
 * caller's TID, as a popped waiter's loan no longer changes, so the
 * hand-over cannot fail; the frame lives until its waiter owns its token.
 */
static void hand_over(struct rts_handover *handovers)
{
	while (handovers) {
		struct rts_handover *h = handovers;
		handovers = h->next; /* read first: the frame ends after the hand-over */
		if (owned_by_self(h->mutex))
			rts_handover_park(h);
		else
			rts_handover_now(h);
	}
}

static void rewait_all(struct rts_picv *picv)
{
	wake_nodes(picv, picv->queue, NULL, PICV_REWAIT, NULL);
}

/* A wait's frame, for its cancellation cleanup. */
struct picv_frame {
	struct rts_picv *picv;
	rts_cond_t *cond;
	uint64_t incarnation; /* the condvar's, in the registry of live condvars */
	struct picv_waiter *w;
	rts_mutex_t *mutex; /* the caller's */
};

static void cancelled(void *frame);

/* One blocking call on the token, a cancellation point (internal/cancel.h). */
static int pi_block_cancellable(struct picv_frame *f, const struct timespec *deadline)
{
	int ret;
	pthread_cleanup_push(cancelled, f);
	int cancel_type = rts_cancel_async_begin();
	ret = rts_backend()->pi_block(&f->w->token, deadline, false);
	rts_cancel_async_end(cancel_type);
	pthread_cleanup_pop(0);
	return ret;
}

#if defined(__SANITIZE_THREAD__)
/*
 * ThreadSanitizer runs signal handlers only at its own interception points,
 * never inside a raw futex system call, so the wake signal cannot end a
 * token wait there: under TSan the wait wakes up every millisecond to look
 * at its state instead. Production builds never poll.
 */
static int pi_block_until_woken(struct picv_frame *f, const struct timespec *deadline)
{
	struct picv_waiter *w = f->w;
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t poll_ns = rts_timespec_to_ns(&now) + 1000000;
		if (deadline && rts_timespec_to_ns(deadline) < poll_ns)
			poll_ns = rts_timespec_to_ns(deadline);
		struct timespec poll = rts_ns_to_timespec(poll_ns);
		int ret = pi_block_cancellable(f, &poll);
		bool final = deadline && poll_ns == rts_timespec_to_ns(deadline);
		if (ret != -ETIMEDOUT || final ||
		    atomic_load_explicit(&w->state, memory_order_acquire) != PICV_WAITING)
			return ret == -ETIMEDOUT && !final ? 0 : ret;
	}
}
#else
static int pi_block_until_woken(struct picv_frame *f, const struct timespec *deadline)
{
	return pi_block_cancellable(f, deadline);
}
#endif

/* Block lending to the anchor. 0 (look at the state), ETIMEDOUT, ESRCH (the anchor exited), EDEADLK. */
static int sleep_lending(struct picv_frame *f, const struct timespec *deadline)
{
	struct picv_waiter *w = f->w;
	sigjmp_buf jump;
	/* The handler runs with the wait's own signal mask (SA_NODEFER, no
	 * sa_mask), so leaving it needs no mask restored: no system call. It may
	 * jump out of the cancellable call, whose type a condvar wait's caller
	 * has deferred (POSIX: waits are not async-cancel-safe). */
	if (sigsetjmp(jump, 0)) {
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
		return 0; /* the wake signal: the state says why */
	}
	rts_wake_jump = &jump;
	if (atomic_load_explicit(&w->state, memory_order_acquire) != PICV_WAITING) {
		rts_wake_jump = NULL;
		return 0;
	}
	int ret = pi_block_until_woken(f, deadline);
	rts_wake_jump = NULL;
	switch (ret) {
	case 0: /* the token is ours: handed over by the anchor, or the anchor died */
		if ((atomic_load_explicit(&w->token, memory_order_relaxed) & RTS_FUTEX_OWNER_DIED) &&
		    atomic_load_explicit(&w->state, memory_order_acquire) == PICV_WAITING)
			return ESRCH;
		return 0;
	case -EAGAIN: /* the anchor is exiting */
	case -EINTR:
		return 0;
	default: /* -ETIMEDOUT, -EDEADLK (the token's chain is closed), -ESRCH (no such anchor) */
		return -ret;
	}
}

/*
 * A signalled waiter whose anchor hands the token over later (`handover`)
 * waits until it owns the token, so that the anchor never touches a frame
 * that has ended. The anchor is on its way to the hand-over (at most it
 * still holds the waiter's mutex, which the waiter must take next anyway,
 * and it runs with the waiter's priority), so there is no deadline. Only
 * an anchor that exits ends it otherwise: the kernel gives the token to the
 * waiter (OWNER_DIED), or finds no owner (ESRCH).
 */
static void await_handover(struct picv_waiter *w)
{
	if (!w->handover)
		return;
	while ((atomic_load_explicit(&w->token, memory_order_acquire) & RTS_FUTEX_TID_MASK) !=
	       w->tid) {
		int ret = rts_backend()->pi_block(&w->token, NULL, false);
		if (ret != 0 && ret != -EAGAIN && ret != -EINTR)
			return;
	}
}

static int sleep_plain(struct picv_frame *f, const struct timespec *deadline)
{
	int ret;
	pthread_cleanup_push(cancelled, f);
	int cancel_type = rts_cancel_async_begin();
	ret = rts_backend()->block(&f->w->state, PICV_WAITING, deadline, CLOCK_MONOTONIC, false);
	rts_cancel_async_end(cancel_type);
	pthread_cleanup_pop(0);
	return ret == -ETIMEDOUT ? ETIMEDOUT : 0;
}

/*
 * The waiter's anchor exited (its token came back with FUTEX_OWNER_DIED, or
 * FUTEX_LOCK_PI found no such thread). Under the lock, unless a waker got
 * there first: drop every helper of the condvar that has exited, then lend
 * to those left (0), or, when none is left, give up with ESRCH. Other
 * waiters that lent to the anchor learn it from their own tokens.
 */
static uint32_t state_of(struct picv_waiter *w)
{
	return atomic_load_explicit(&w->state, memory_order_acquire) & ~PICV_CLAIMED;
}

static int after_anchor_exit(struct rts_picv *picv, struct picv_waiter *w)
{
	if (state_of(w) != PICV_WAITING)
		return 0; /* signalled or rewaiting: the state decides */
	uint32_t dead_anchor = rts_loan_anchor(&w->loan), kept = 0;
	for (uint32_t i = 0; i < picv->n_helpers; i++) {
		uint32_t h = picv->helpers[i];
		if (h != dead_anchor && rts_backend()->task_exists(h))
			picv->helpers[kept++] = h;
	}
	picv->n_helpers = kept;
	return kept ? lend(picv, w) : ESRCH;
}

/*
 * The kernel found the token's chain closed (-EDEADLK) although the graph
 * has no knot: a waiter popped by a wake signal is still blocked in the
 * kernel on its own token until the signal is handled, and the new anchor
 * was that waiter. Lend to every helper with sched_setattr for the rest of
 * this wait instead (under the lock).
 */
static int after_kernel_deadlock(struct rts_picv *picv, struct picv_waiter *w)
{
	if (state_of(w) != PICV_WAITING)
		return 0;
	w->loan.avoid_anchor = true;
	return lend(picv, w);
}

/* Lend anew after a change of helpers (under the lock). */
static int after_rewait(struct rts_picv *picv, struct picv_waiter *w)
{
	if (state_of(w) != PICV_REWAIT)
		return 0;
	atomic_store_explicit(&w->state, PICV_WAITING | PICV_CLAIMED, memory_order_relaxed);
	return lend(picv, w);
}

/* Before the waiter touches the PI-CV: false if a waker popped it unclaimed (hands off). */
static bool claim(struct picv_waiter *w)
{
	uint32_t state = atomic_load_explicit(&w->state, memory_order_acquire);
	do {
		if (state & PICV_CLAIMED)
			return true;
		if (state == PICV_SIGNALLED)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&w->state, &state, state | PICV_CLAIMED,
							 memory_order_acquire, memory_order_acquire));
	return true;
}

/* Under the lock: a claim ends; wake a destroy waiting for it. */
static void count_exit(struct rts_picv *picv)
{
	atomic_fetch_add_explicit(&picv->exits, 1, memory_order_relaxed);
	if (picv->destroyer_sleeps) {
		picv->destroyer_sleeps = false;
		rts_backend()->wake(&picv->exits, 1, false);
	}
}

/* Under the lock: pop the first waiter (or all) and wake them; hand-overs go on *handovers. */
static void wake_locked(struct rts_picv *picv, bool all, struct rts_handover **handovers)
{
	struct picv_waiter *first = picv->queue, *end = first;
	for (int n = 0; end && (all || n < 1); n++)
		end = end->next;
	picv->queue = end;
	wake_nodes(picv, first, end, PICV_SIGNALLED, handovers);
}

/*
 * The waiter leaves the PI-CV: true if a signal chose it. Unless a waker
 * popped it unclaimed (and counted it out), under the lock: out of the queue
 * and the graph, counted out. A cancelled waiter (pass_on) that a signal
 * chose wakes another in its place while it is still counted, which keeps
 * the condvar alive. *counted_out: the waker counted it out, so it could
 * not pass a signal on here.
 */
static bool leave(struct rts_picv *picv, struct picv_waiter *w, bool pass_on, bool *counted_out)
{
	*counted_out = !claim(w);
	if (*counted_out)
		return true;
	struct rts_handover *handovers = NULL;
	rts_pi_lock(&picv->lock, false);
	bool signalled = state_of(w) == PICV_SIGNALLED;
	if (!signalled)
		dequeue(picv, w);
	rts_donation_begin();
	rts_donation_remove(&w->loan);
	rts_donation_end();
	if (signalled && pass_on)
		wake_locked(picv, false, &handovers);
	picv->n_waiters--;
	count_exit(picv);
	rts_pi_unlock(&picv->lock, false);
	hand_over(handovers);
	return signalled;
}

/*
 * Cancelled while blocked: leave, take the mutex again and pass on a
 * signal that chose this waiter before the caller's cleanup handlers run.
 * A waiter counted out by its waker passes it on only through the registry
 * of live condvars: the condvar may have been destroyed since.
 */
static void cancelled(void *frame)
{
	struct picv_frame *f = frame;
	rts_wake_jump = NULL; /* a late wake signal must not jump into this frame */
	bool counted_out;
	bool signalled = leave(f->picv, f->w, true, &counted_out);
	if (signalled)
		await_handover(f->w);
	rts_mutex_lock(f->mutex);
	if (!signalled || !counted_out || !f->incarnation)
		return;
	rts_cond_registry_lock();
	if (rts_cond_registry_holds(f->cond, f->incarnation))
		rts_picv_wake(f->picv, false);
	rts_cond_registry_unlock();
}

int rts_picv_wait(rts_cond_t *c, struct rts_picv *picv, rts_mutex_t *m,
		  const struct timespec *deadline)
{
	struct picv_waiter w = { .tid = rts_self_tid(), .prio = QUEUE_PRIORITY_UNREAD, .mutex = m };
	struct picv_frame f = { .picv = picv, .cond = c, .w = &w, .mutex = m };
	f.incarnation = rts_cond_incarnation(c);
	w.loan.donor = w.tid;
	w.loan.anchor = -1;
	w.loan.timed = deadline != NULL;
	rts_pi_lock(&picv->lock, false);
	enqueue(picv, &w);
	picv->n_waiters++;
	int result = lend(picv, &w);
	rts_pi_unlock(&picv->lock, false);

	bool released = false; /* the caller's mutex */
	if (result == 0) {
		result = rts_mutex_unlock(m);
		released = result == 0;
	}
	while (result == 0) {
		result = rts_loan_anchor(&w.loan) ? sleep_lending(&f, deadline)
						  : sleep_plain(&f, deadline);
		if (result && result != ESRCH && result != EDEADLK)
			break;
		if (!claim(&w))
			break; /* popped unclaimed: never touch the PI-CV again */
		rts_pi_lock(&picv->lock, false);
		if (result == ESRCH)
			result = after_anchor_exit(picv, &w);
		else if (result == EDEADLK)
			result = after_kernel_deadlock(picv, &w);
		else
			result = after_rewait(picv, &w);
		bool popped = state_of(&w) == PICV_SIGNALLED;
		if (!popped) { /* back to sleep, unclaimed */
			atomic_store_explicit(&w.state, state_of(&w), memory_order_relaxed);
			count_exit(picv);
		}
		rts_pi_unlock(&picv->lock, false);
		if (popped)
			break; /* still claimed: leave() counts it out */
	}

	bool counted_out;
	if (leave(picv, &w, false, &counted_out)) {
		await_handover(&w);
		result = 0; /* a signal that chose this waiter is never lost to a timeout */
	}
	if (!released)
		return result; /* the caller still owns the mutex */
	int lock_result = rts_mutex_lock(m);
	return lock_result ? lock_result : result;
}

int rts_picv_wake(struct rts_picv *picv, bool all)
{
	struct rts_handover *handovers = NULL;
	rts_pi_lock(&picv->lock, false);
	wake_locked(picv, all, &handovers);
	rts_pi_unlock(&picv->lock, false);
	hand_over(handovers);
	return 0;
}

/* Under the lock: a queued waiter that has not claimed its node is blocked. */
static bool any_blocked(struct rts_picv *picv)
{
	for (struct picv_waiter *w = picv->queue; w; w = w->next)
		if (!(atomic_load_explicit(&w->state, memory_order_relaxed) & PICV_CLAIMED))
			return true;
	return false;
}

int rts_picv_destroy(rts_cond_t *c)
{
	struct rts_picv *picv = rts_picv_of(c);
	for (;;) {
		rts_cond_registry_lock();
		rts_pi_lock(&picv->lock, false);
		bool blocked = any_blocked(picv);
		uint32_t inside = picv->n_waiters; /* leaving, or between two sleeps */
		uint32_t exits = atomic_load_explicit(&picv->exits, memory_order_relaxed);
		if (!blocked && inside)
			picv->destroyer_sleeps = true;
		rts_pi_unlock(&picv->lock, false);
		if (!blocked && !inside) {
			atomic_store_explicit(handle_field(c), 0, memory_order_release);
			if (rts_cond_registered(c))
				rts_cond_registry_leave(c);
		}
		rts_cond_registry_unlock();
		if (blocked)
			return EBUSY;
		if (!inside) {
			slot_free(picv->handle);
			free(picv);
			return 0;
		}
		/* Claimed waiters need only the lock: this wait is short. */
		rts_backend()->block(&picv->exits, exits, NULL, CLOCK_MONOTONIC, false);
	}
}

/* The condvar's PI-CV state, made on first use. */
static int picv_for_helpers(rts_cond_t *c, struct rts_picv **out)
{
	struct rts_picv *picv = rts_picv_of(c);
	if (picv == rts_picv_invalid)
		return EINVAL;
	if (!picv) {
		if (atomic_load_explicit((_Atomic uint32_t *)&c->s.waiters, memory_order_acquire))
			return EBUSY; /* plain waiters sleep in the kernel's requeue-PI queue */
		struct rts_picv *made = calloc(1, sizeof(*made)); /* its lock: 0, free */
		if (!made)
			return ENOMEM;
		rts_pi_lock(&picv_table_lock, false);
		uint64_t handle = slot_take(made, c), none = 0;
		bool installed = handle && atomic_compare_exchange_strong_explicit(
						   handle_field(c), &none, handle,
						   memory_order_acq_rel, memory_order_acquire);
		rts_pi_unlock(&picv_table_lock, false);
		if (installed) {
			picv = made;
		} else { /* no slot, or another thread installed one first: use it */
			if (handle)
				slot_free(handle);
			free(made);
			picv = rts_picv_of(c);
			if (!picv || picv == rts_picv_invalid)
				return handle ? EINVAL : ENOMEM;
		}
	}
	*out = picv;
	return 0;
}

static int helper_index(const struct rts_picv *picv, uint32_t tid)
{
	for (uint32_t i = 0; i < picv->n_helpers; i++)
		if (picv->helpers[i] == tid)
			return (int)i;
	return -1;
}

RTS_EXPORT int rts_cond_helper_add(rts_cond_t *c, pid_t tid)
{
	if (!c || tid <= 0)
		return EINVAL;
	if (rts_cond_flags_load(c) & RTS_COND_F_PSHARED)
		return ENOTSUP;
	if (!rts_backend()->task_exists((uint32_t)tid))
		return ESRCH;
	struct rts_picv *picv;
	int err = rts_wake_signal_install();
	if (!err)
		err = picv_for_helpers(c, &picv);
	if (err)
		return err;
	rts_pi_lock(&picv->lock, false);
	if (helper_index(picv, (uint32_t)tid) >= 0) {
		err = EEXIST;
	} else if (picv->n_helpers == RTS_COND_MAX_HELPERS) {
		err = ENOSPC;
	} else {
		picv->helpers[picv->n_helpers++] = (uint32_t)tid;
		rewait_all(picv);
	}
	rts_pi_unlock(&picv->lock, false);
	return err;
}

RTS_EXPORT int rts_cond_helper_del(rts_cond_t *c, pid_t tid)
{
	if (!c || tid <= 0)
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (!picv)
		return ENOENT;
	if (picv == rts_picv_invalid)
		return EINVAL;
	int err = 0;
	rts_pi_lock(&picv->lock, false);
	int at = helper_index(picv, (uint32_t)tid);
	if (at < 0) {
		err = ENOENT;
	} else {
		picv->n_helpers--;
		memmove(&picv->helpers[at], &picv->helpers[at + 1],
			(picv->n_helpers - (uint32_t)at) * sizeof(picv->helpers[0]));
		rewait_all(picv);
	}
	rts_pi_unlock(&picv->lock, false);
	return err;
}
