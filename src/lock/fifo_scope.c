/* SPDX-License-Identifier: MIT */
/*
 * FIFO-mutex scopes (internal/fifo_scope.h): finding a domain's scope, the
 * per-thread records, the queue locks.
 *
 * A task remembers its records in a small cache (one entry per scope it has
 * waited in, RECORD_CACHE at most): its kernel thread's, or under a
 * user-level scheduler the task's own (rts_task_fifo_cache,
 * internal/task_local.h). A thread gives its records back when it exits, a
 * user-level task when it ends (rts_fifo_records_give_back). A cached record is checked to still hold the caller's TID before
 * use: after fork() the child's thread has a new TID and claims a record of
 * its own (in a shared domain the parent's thread still uses the old one).
 * A record left claimed by a thread that died without exiting (its process
 * was killed) is taken back when a scope runs out of free records: a record
 * that is idle and whose thread no longer exists.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "internal/backend.h"
#include "internal/ceiling.h"
#include "internal/fifo_scope.h"
#include "internal/pi_word.h"
#include "internal/task_local.h"
#include "internal/tid.h"

#define RECORD_CACHE 4

struct cached_record {
	struct rts_fifo_scope *scope;
	struct rts_fifo_record *record;
};

_Static_assert(RECORD_CACHE * sizeof(struct cached_record) <= sizeof(struct rts_task_fifo_cache),
	       "a task's record cache fits its slot");

static __thread struct cached_record thread_cache[RECORD_CACHE] __attribute__((tls_model("initial-exec")));
static pthread_key_t release_key;

/* The calling task's cache: its own under a user-level scheduler, else its thread's. */
static struct cached_record *own_cache(void)
{
	struct rts_task_fifo_cache *own = rts_task_fifo_cache;
	return own ? (struct cached_record *)(void *)own->bytes : thread_cache;
}
static pthread_once_t release_key_once = PTHREAD_ONCE_INIT;

struct rts_fifo_scope *rts_fifo_scope_of(uint32_t domain_id)
{
	struct rts_lockdomain *d = rts_lockdomain_find(domain_id);
	return d ? &d->fifo : NULL;
}

void rts_fifo_records_give_back(void)
{
	uint32_t tid = rts_self_tid();
	struct cached_record *cache = own_cache();
	for (int i = 0; i < RECORD_CACHE; i++) {
		struct rts_fifo_record *r = cache[i].record;
		if (r && atomic_load_explicit(&r->state, memory_order_relaxed) == RTS_FIFO_IDLE)
			atomic_compare_exchange_strong_explicit(&r->tid, &tid, 0, memory_order_release,
								memory_order_relaxed);
		cache[i] = (struct cached_record){ 0 };
	}
}

/* Thread exit (a waiter leaves its queues before). */
static void release_records(void *unused)
{
	(void)unused;
	rts_fifo_records_give_back();
}

static void release_key_create(void)
{
	pthread_key_create(&release_key, release_records);
}

/* Claim a free record, or one whose thread has gone (bounded: one pass each). */
static struct rts_fifo_record *claim(struct rts_fifo_scope *s, uint32_t tid)
{
	for (uint32_t i = 0; i < RTS_FIFO_RECORDS; i++) {
		uint32_t free_tid = 0;
		if (atomic_compare_exchange_strong_explicit(&s->records[i].tid, &free_tid, tid,
							    memory_order_acquire,
							    memory_order_relaxed))
			return &s->records[i];
	}
	const struct rts_backend *backend = rts_backend();
	for (uint32_t i = 0; i < RTS_FIFO_RECORDS; i++) {
		struct rts_fifo_record *r = &s->records[i];
		uint32_t old = atomic_load_explicit(&r->tid, memory_order_relaxed);
		if (old == 0 || atomic_load_explicit(&r->state, memory_order_relaxed) != RTS_FIFO_IDLE ||
		    backend->task_exists(old))
			continue;
		if (atomic_compare_exchange_strong_explicit(&r->tid, &old, tid, memory_order_acquire,
							    memory_order_relaxed))
			return r;
	}
	return NULL;
}

struct rts_fifo_record *rts_fifo_self_record(struct rts_fifo_scope *s)
{
	uint32_t tid = rts_self_tid();
	struct cached_record *cache = own_cache();
	int free_entry = -1;
	for (int i = 0; i < RECORD_CACHE; i++) {
		if (cache[i].scope == s) {
			struct rts_fifo_record *r = cache[i].record;
			if (atomic_load_explicit(&r->tid, memory_order_relaxed) == tid)
				return r;
			free_entry = i; /* a record of the thread we were before fork() */
			break;
		}
		if (!cache[i].scope && free_entry < 0)
			free_entry = i;
	}
	if (free_entry < 0)
		return NULL;
	pthread_once(&release_key_once, release_key_create);
	struct rts_fifo_record *r = claim(s, tid);
	if (!r)
		return NULL;
	atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
	atomic_store_explicit(&r->ticket_claim, 0, memory_order_relaxed); /* a dead thread's */
	__atomic_store_n(&r->head_of, RTS_FIFO_HEAD_NONE, __ATOMIC_RELAXED);
	cache[free_entry] = (struct cached_record){ s, r };
	if (cache == thread_cache)
		pthread_setspecific(release_key, (void *)1); /* any non-NULL value: run the destructor */
	return r;
}

/* i is always an rts_fifo_lock_index; the modulo keeps a wrong one inside the scope. */
void rts_fifo_queue_lock(struct rts_fifo_scope *s, uint16_t i)
{
	rts_pi_lock(&s->queue_locks[i % RTS_FIFO_QUEUE_LOCKS], s->pshared);
	atomic_fetch_add_explicit(&s->lock_acquisitions, 1, memory_order_relaxed);
}

void rts_fifo_queue_unlock(struct rts_fifo_scope *s, uint16_t i)
{
	rts_pi_unlock(&s->queue_locks[i % RTS_FIFO_QUEUE_LOCKS], s->pshared);
}

uint64_t rts_fifo_scope_lock_count(const struct rts_lockdomain *domain)
{
	struct rts_fifo_scope *s = rts_fifo_scope_of(domain ? domain->id : 0);
	return s ? atomic_load_explicit(&s->lock_acquisitions, memory_order_relaxed) : 0;
}

uint32_t rts_fifo_scope_records_claimed(const struct rts_lockdomain *domain)
{
	struct rts_fifo_scope *s = rts_fifo_scope_of(domain ? domain->id : 0);
	uint32_t claimed = 0;
	for (uint32_t i = 0; s && i < RTS_FIFO_RECORDS; i++)
		claimed += atomic_load_explicit(&s->records[i].tid, memory_order_relaxed) != 0;
	return claimed;
}
