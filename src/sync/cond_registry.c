/* SPDX-License-Identifier: MIT */
/*
 * The registry of live process-private condvars: lets a cancelled waiter
 * pass on a signal it was chosen by without touching a condvar that may have
 * been destroyed and freed since.
 *
 * A waiter that a signal moved onto a PIP mutex (requeue-PI) and that is then
 * cancelled while it waits for the mutex has been chosen by the signal, but
 * will not act on it: it leaves through its cleanup handlers. Other threads
 * blocked on the condvar must not lose that signal. The waiter may not read
 * the condvar, though: once it was taken out of the queue nothing stops the
 * program from destroying and freeing the condvar. But a condvar that another
 * thread is blocked on cannot be destroyed (destroy returns EBUSY), so the
 * signal matters only while the condvar lives, and the registry says whether
 * it does: each private condvar enters it, with a fresh incarnation number,
 * at its first wait; destroy leaves it. A cancelled waiter signals the
 * condvar only if it is still registered with the incarnation the waiter saw,
 * under the registry lock, which destroy also takes: the condvar cannot be
 * destroyed meanwhile. Lock order: the registry lock, then a queue lock.
 *
 * Only first waits, destroys and cancellations take the registry lock.
 * A program that frees a condvar without destroying it leaves a stale entry:
 * harmless unless a cancelled waiter of that very condvar looks it up after
 * the memory was reused for something else (POSIX wants destroy first).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <rtsched/cond.h>

#include "internal/cond_object.h"
#include "internal/pi_word.h"

struct entry {
	rts_cond_t *cond; /* NULL: free slot */
	uint64_t incarnation;
};

static rts_futex_word registry_lock; /* a PI word (internal/pi_word.h) */
static struct entry *entries; /* open addressing, linear probing; `capacity` a power of two */
static size_t capacity, used;
static uint64_t last_incarnation;

static size_t slot_of(const rts_cond_t *c)
{
	uintptr_t key = (uintptr_t)c >> 6; /* condvars are 64-byte objects */
	return (size_t)(key * 0x9e3779b97f4a7c15ull) & (capacity - 1);
}

static struct entry *find(const rts_cond_t *c)
{
	if (!capacity)
		return NULL;
	for (size_t i = slot_of(c);; i = (i + 1) & (capacity - 1)) {
		if (entries[i].cond == c)
			return &entries[i];
		if (!entries[i].cond)
			return NULL;
	}
}

static void place(rts_cond_t *c, uint64_t incarnation)
{
	size_t i = slot_of(c);
	while (entries[i].cond)
		i = (i + 1) & (capacity - 1);
	entries[i] = (struct entry){ c, incarnation };
	used++;
}

static int grow(void)
{
	size_t old_capacity = capacity;
	struct entry *old = entries;
	size_t new_capacity = capacity ? capacity * 2 : 64;
	struct entry *fresh = calloc(new_capacity, sizeof(*fresh));
	if (!fresh)
		return ENOMEM;
	entries = fresh;
	capacity = new_capacity;
	used = 0;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i].cond)
			place(old[i].cond, old[i].incarnation);
	free(old);
	return 0;
}

/* Linear probing deletes by re-placing the run that follows the hole. */
static void erase(struct entry *e)
{
	size_t i = (size_t)(e - entries);
	e->cond = NULL;
	used--;
	for (size_t j = (i + 1) & (capacity - 1); entries[j].cond; j = (j + 1) & (capacity - 1)) {
		struct entry moved = entries[j];
		entries[j].cond = NULL;
		used--;
		place(moved.cond, moved.incarnation);
	}
}

static uint64_t registry_enter(rts_cond_t *c)
{
	uint64_t incarnation = 0;
	rts_pi_lock(&registry_lock, false);
	struct entry *e = find(c);
	if (e) {
		e->incarnation = ++last_incarnation; /* re-initialised without a destroy */
		incarnation = e->incarnation;
	} else if ((used + 1) * 2 <= capacity || grow() == 0) {
		incarnation = ++last_incarnation;
		place(c, incarnation);
	}
	rts_pi_unlock(&registry_lock, false);
	return incarnation;
}

void rts_cond_registry_lock(void)
{
	rts_pi_lock(&registry_lock, false);
}

void rts_cond_registry_unlock(void)
{
	rts_pi_unlock(&registry_lock, false);
}

bool rts_cond_registry_holds(const rts_cond_t *c, uint64_t incarnation)
{
	struct entry *e = find(c);
	return e && e->incarnation == incarnation;
}

void rts_cond_registry_leave(const rts_cond_t *c)
{
	struct entry *e = find(c);
	if (e)
		erase(e);
}

static _Atomic uint64_t *incarnation_of(rts_cond_t *c)
{
	return (_Atomic uint64_t *)&c->s.incarnation;
}

uint64_t rts_cond_incarnation(rts_cond_t *c)
{
	uint64_t incarnation = atomic_load_explicit(incarnation_of(c), memory_order_relaxed);
	if (!incarnation) {
		incarnation = registry_enter(c);
		atomic_store_explicit(incarnation_of(c), incarnation, memory_order_relaxed);
	}
	return incarnation;
}

bool rts_cond_registered(rts_cond_t *c)
{
	return atomic_load_explicit(incarnation_of(c), memory_order_relaxed) != 0;
}

bool rts_cond_trusted_locked(const rts_cond_t *c)
{
	struct entry *e = find(c);
	return e && e->incarnation == __atomic_load_n(&c->s.incarnation, __ATOMIC_RELAXED);
}

bool rts_cond_trusted(const rts_cond_t *c)
{
	rts_pi_lock(&registry_lock, false);
	bool trusted = rts_cond_trusted_locked(c);
	rts_pi_unlock(&registry_lock, false);
	return trusted;
}

int rts_cond_admit(rts_cond_t *c, uint64_t *incarnation)
{
	int err = 0;
	rts_pi_lock(&registry_lock, false);
	struct entry *e = find(c);
	uint64_t seen = atomic_load_explicit(incarnation_of(c), memory_order_relaxed);
	if (e && seen != 0 && seen != e->incarnation) {
		err = EINVAL; /* live here, and its number rewritten: its words are not ours */
	} else if (e) {
		if (seen == 0) /* re-initialised without a destroy */
			e->incarnation = ++last_incarnation;
	} else if ((used + 1) * 2 > capacity && grow() != 0) {
		err = ENOMEM;
	} else {
		/* Not live in this process: nobody of ours waits on it, so its queue
		 * words are stale or foreign; start them afresh. */
		__atomic_store_n(&c->s.queue, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&c->s.lock, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->s.waiters, 0, __ATOMIC_RELAXED);
		place(c, ++last_incarnation);
		e = find(c);
	}
	if (!err) {
		*incarnation = e->incarnation;
		atomic_store_explicit(incarnation_of(c), e->incarnation, memory_order_relaxed);
	}
	rts_pi_unlock(&registry_lock, false);
	return err;
}
