/* SPDX-License-Identifier: MIT */
/*
 * Scopes of the FIFO mutex and its condition variable (seed 000, Züpke,
 * §III.B-C): where the wait queues live and which locks guard them.
 *
 * The paper's kernel keeps its wait queues in thread control blocks and
 * finds them through a thread ID written next to the lock word; the lock
 * guarding a queue is found by hashing the object's address into a lock
 * array that belongs to the object's scope. Here the library plays the
 * kernel, and a scope is a lock domain (<rtsched/lockdomain.h>):
 *
 *   process-private objects: the process's own domain (private memory);
 *   process-shared objects:  the named domain given at rts_mutex_init
 *                            (POSIX shared memory, mapped by every process
 *                            that uses the objects).
 *
 * A scope holds RTS_FIFO_QUEUE_LOCKS queue locks (PI words: a queue lock is
 * held for a bounded number of steps, and its holder inherits the priority
 * of whoever waits for it) and RTS_FIFO_RECORDS per-thread records. A thread
 * claims one record per scope at its first wait there and keeps it until it
 * exits; a record is the paper's TCB part: the links of the one queue the
 * thread waits in, and what it waits for. Nothing is allocated per lock.
 * A record also holds its thread's FMLP+ ticket claim (ceiling_mutex.c):
 * which ticket of which process-shared FMLP+ lock the thread is taking, so
 * that a ticket whose thread died is passed on.
 *
 * Partitioning (requirements 8 and 9): the queue locks of two scopes are
 * different memory, so objects of one process never contend with another
 * process's private objects on an internal lock; shared objects contend only
 * within their domain. rts_fifo_scope_lock_count is the test hook that
 * observes it.
 *
 * Trust: the words of a mutex or condvar (S, Q, C, Q', the ids) may be
 * written by any process that maps the object and are validated at every
 * use (fifo_queue.c). The records and the queue locks are the library's own:
 * a process that can write a domain's shared memory directly is as trusted
 * as the paper's kernel.
 */
#ifndef RTS_INTERNAL_FIFO_SCOPE_H
#define RTS_INTERNAL_FIFO_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/futex.h"

#define RTS_FIFO_QUEUE_LOCKS 64u
/* Threads that may wait in one scope at once (the broadcast benchmark uses 1000). */
#define RTS_FIFO_RECORDS 1280u

/* What a record's thread is doing: its `state` word, which it sleeps on. */
enum rts_fifo_state {
	RTS_FIFO_IDLE = 0,         /* in no queue */
	RTS_FIFO_MUTEX_QUEUED = 1, /* in a mutex queue (rts_mutex_lock) */
	RTS_FIFO_COND_QUEUED = 2,  /* in a condvar queue, or moved by a broadcast into
				      its mutex's queue (not told: that is O(1)) */
	RTS_FIFO_MOVED = 3,        /* moved by a signal into its mutex's queue */
	RTS_FIFO_GRANTED = 4,      /* out of every queue, owning the mutex */
};

/* Which queue a record heads (head_of). */
enum rts_fifo_head {
	RTS_FIFO_HEAD_NONE = 0,
	RTS_FIFO_HEAD_MUTEX = 1,
	RTS_FIFO_HEAD_COND = 2,
};

/*
 * Invariants (under the queue locks named):
 *  - A queue is a circular doubly linked list of records (next, prev: slot
 *    numbers, 1-based) whose first record has head_of set and whose other
 *    records have RTS_FIFO_HEAD_NONE; its object's user word (Q or Q') holds
 *    the head's slot number, or 0 for an empty queue.
 *  - A record in a mutex queue is guarded by that mutex's queue lock; one in
 *    a condvar queue by the condvar's lock. A record that waited on a condvar
 *    may be in either queue; the operations that cannot tell (DEQUEUE) take
 *    both locks, in index order.
 *  - Only the thread owning a record sets it queued or idle; a waker sets it
 *    MOVED or GRANTED under the lock (and then wakes its state word).
 */
struct rts_fifo_record {
	rts_futex_word state;    /* enum rts_fifo_state */
	_Atomic uint32_t tid;    /* the owning thread (0: a free slot) */
	uint32_t next, prev;     /* the queue's links */
	uint32_t head_of;        /* enum rts_fifo_head */
	uint16_t mutex_lock;     /* queue-lock index of the mutex it waits for */
	uint16_t cond_lock;      /* ... of the condvar it waits on */
	uint64_t mutex_key;      /* the mutex's identity in the scope */
	uint64_t cond_key;       /* the condvar's (cond waits only) */
	int64_t mutex_offset;    /* (char *)mutex - (char *)cond, cond waits only */
	_Atomic uint64_t ticket_claim; /* FMLP+: lock id << 32 | ticket taken, until its
					  turn is taken; 0: none (written by the owner only) */
};

struct rts_fifo_scope {
	rts_futex_word queue_locks[RTS_FIFO_QUEUE_LOCKS];
	uint32_t pshared;                 /* bool: futex calls on shared memory */
	_Atomic uint32_t next_object_id;  /* ids of the shared objects */
	_Atomic uint64_t lock_acquisitions; /* test hook: queue locks taken */
	struct rts_fifo_record records[RTS_FIFO_RECORDS];
};

/* A record's slot number (1-based; 0 means none) and back. */
static inline uint32_t rts_fifo_slot(const struct rts_fifo_scope *s, const struct rts_fifo_record *r)
{
	return (uint32_t)(r - s->records) + 1;
}

/* The record of a slot number read from anywhere, or NULL if out of range. */
static inline struct rts_fifo_record *rts_fifo_record_at(struct rts_fifo_scope *s, uint32_t slot)
{
	return slot >= 1 && slot <= RTS_FIFO_RECORDS ? &s->records[slot - 1] : NULL;
}

/* The scope of the own domain (private objects) or of the domain with this id; NULL if none. */
struct rts_fifo_scope *rts_fifo_scope_of(uint32_t domain_id);

/* The calling task's record in s (claimed at first use); NULL if every record is taken. */
struct rts_fifo_record *rts_fifo_self_record(struct rts_fifo_scope *s);
/* The calling task ends: give back its idle records (a thread's exit does it by itself). */
void rts_fifo_records_give_back(void);

/* The queue lock an object's key hashes to. */
static inline uint16_t rts_fifo_lock_index(uint64_t key)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (uint16_t)(key % RTS_FIFO_QUEUE_LOCKS);
}

/* Take / release queue lock i (counted in lock_acquisitions). */
void rts_fifo_queue_lock(struct rts_fifo_scope *s, uint16_t i);
void rts_fifo_queue_unlock(struct rts_fifo_scope *s, uint16_t i);

/* Test hook: queue locks taken in the scope of domain (NULL: the process's own). */
struct rts_lockdomain;
uint64_t rts_fifo_scope_lock_count(const struct rts_lockdomain *domain);
/* Test hook: records claimed in the scope of domain (NULL: the process's own). */
uint32_t rts_fifo_scope_records_claimed(const struct rts_lockdomain *domain);

#endif
