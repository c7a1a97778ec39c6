/* SPDX-License-Identifier: MIT */
/*
 * The bounded priority message queue (include/rtsched/msgq.h), seed 004
 * Fig. 5: one PIP mutex, "not empty" with the producers as helpers, "not
 * full" with the consumers as helpers.
 *
 * Storage: capacity fixed-size slots for the message bytes, a binary max-heap
 * of (prio, seq, slot) entries giving the order, and a stack of free slots.
 * seq is the arrival number, so equal priorities leave in arrival order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rtsched/msgq.h>

#include "internal/export.h"
#include "internal/tid.h"

#define MSGQ_MAGIC      0x4d510000u /* "MQ": the object was initialised */
#define MSGQ_MAGIC_MASK 0xffff0000u
#define MSGQ_F_PICV     0x00000001u

static bool attr_ok(const rts_msgq_attr_t *attr)
{
	return attr && (attr->flags & MSGQ_MAGIC_MASK) == MSGQ_MAGIC;
}

static bool queue_ok(const rts_msgq_t *q)
{
	return q && (q->flags & MSGQ_MAGIC_MASK) == MSGQ_MAGIC && q->storage;
}

RTS_EXPORT int rts_msgq_attr_init(rts_msgq_attr_t *attr)
{
	if (!attr)
		return EINVAL;
	attr->capacity = RTS_MSGQ_CAPACITY_DEFAULT;
	attr->msg_size = RTS_MSGQ_MSG_SIZE_DEFAULT;
	attr->flags = MSGQ_MAGIC | MSGQ_F_PICV;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_destroy(rts_msgq_attr_t *attr)
{
	if (!attr_ok(attr))
		return EINVAL;
	attr->flags = 0;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_setcapacity(rts_msgq_attr_t *attr, unsigned capacity)
{
	if (!attr_ok(attr) || capacity < 1 || capacity > RTS_MSGQ_CAPACITY_MAX)
		return EINVAL;
	attr->capacity = capacity;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_getcapacity(const rts_msgq_attr_t *attr, unsigned *capacity)
{
	if (!attr_ok(attr) || !capacity)
		return EINVAL;
	*capacity = attr->capacity;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_setmsgsize(rts_msgq_attr_t *attr, size_t msg_size)
{
	if (!attr_ok(attr) || msg_size < 1 || msg_size > RTS_MSGQ_MSG_SIZE_MAX)
		return EINVAL;
	attr->msg_size = (uint32_t)msg_size;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_getmsgsize(const rts_msgq_attr_t *attr, size_t *msg_size)
{
	if (!attr_ok(attr) || !msg_size)
		return EINVAL;
	*msg_size = attr->msg_size;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_setpicv(rts_msgq_attr_t *attr, int picv)
{
	if (!attr_ok(attr) || (picv != 0 && picv != 1))
		return EINVAL;
	attr->flags = picv ? attr->flags | MSGQ_F_PICV : attr->flags & ~MSGQ_F_PICV;
	return 0;
}

RTS_EXPORT int rts_msgq_attr_getpicv(const rts_msgq_attr_t *attr, int *picv)
{
	if (!attr_ok(attr) || !picv)
		return EINVAL;
	*picv = (attr->flags & MSGQ_F_PICV) != 0;
	return 0;
}

static void free_storage(rts_msgq_t *q)
{
	free(q->storage);
	free(q->heap);
	free(q->free_slots);
}

/*
 * Put cond in PI-CV mode now (one helper added and removed), so that helpers
 * may be declared later while threads wait: a condvar gets its first helper
 * with EBUSY while plain waiters sleep in it (rtsched/cond.h).
 */
static int make_picv(rts_cond_t *cond)
{
	pid_t self = (pid_t)rts_self_tid();
	int err = rts_cond_helper_add(cond, self);
	return err ? err : rts_cond_helper_del(cond, self);
}

RTS_EXPORT int rts_msgq_init(rts_msgq_t *q, const rts_msgq_attr_t *attr)
{
	rts_msgq_attr_t defaults;
	if (!q)
		return EINVAL;
	if (!attr) {
		rts_msgq_attr_init(&defaults);
		attr = &defaults;
	}
	if (!attr_ok(attr))
		return EINVAL;
	*q = (rts_msgq_t){ 0 };
	q->storage = malloc((size_t)attr->capacity * attr->msg_size);
	q->heap = calloc(attr->capacity, sizeof(*q->heap));
	q->free_slots = calloc(attr->capacity, sizeof(*q->free_slots));
	if (!q->storage || !q->heap || !q->free_slots) {
		free_storage(q);
		*q = (rts_msgq_t){ 0 };
		return ENOMEM;
	}
	for (uint32_t i = 0; i < attr->capacity; i++)
		q->free_slots[i] = attr->capacity - 1 - i; /* slot 0 is used first */
	q->lock = (rts_mutex_t)RTS_MUTEX_PIP_INITIALIZER;
	rts_cond_init(&q->not_empty, NULL);
	rts_cond_init(&q->not_full, NULL);
	if (attr->flags & MSGQ_F_PICV) {
		int err = make_picv(&q->not_empty);
		if (!err)
			err = make_picv(&q->not_full);
		if (err) {
			rts_cond_destroy(&q->not_empty);
			rts_cond_destroy(&q->not_full);
			free_storage(q);
			*q = (rts_msgq_t){ 0 };
			return err;
		}
	}
	q->capacity = attr->capacity;
	q->msg_size = attr->msg_size;
	q->flags = MSGQ_MAGIC | (attr->flags & MSGQ_F_PICV);
	return 0;
}

RTS_EXPORT int rts_msgq_destroy(rts_msgq_t *q)
{
	if (!queue_ok(q))
		return EINVAL;
	int err = rts_mutex_lock(&q->lock);
	if (err)
		return err;
	bool busy = q->waiting != 0;
	rts_mutex_unlock(&q->lock);
	if (busy)
		return EBUSY;
	rts_cond_destroy(&q->not_empty);
	rts_cond_destroy(&q->not_full);
	rts_mutex_destroy(&q->lock);
	free_storage(q);
	*q = (rts_msgq_t){ 0 };
	return 0;
}

/* ---- helpers ------------------------------------------------------------- */

static int change_helper(rts_msgq_t *q, rts_cond_t *cond, pid_t tid, bool add)
{
	if (!queue_ok(q) || tid < 0)
		return EINVAL;
	if (!(q->flags & MSGQ_F_PICV))
		return 0; /* PI-CV off: accepted, no loans */
	if (tid == 0)
		tid = (pid_t)rts_self_tid();
	return add ? rts_cond_helper_add(cond, tid) : rts_cond_helper_del(cond, tid);
}

RTS_EXPORT int rts_msgq_add_producer(rts_msgq_t *q, pid_t tid)
{
	return change_helper(q, q ? &q->not_empty : NULL, tid, true);
}

RTS_EXPORT int rts_msgq_del_producer(rts_msgq_t *q, pid_t tid)
{
	return change_helper(q, q ? &q->not_empty : NULL, tid, false);
}

RTS_EXPORT int rts_msgq_add_consumer(rts_msgq_t *q, pid_t tid)
{
	return change_helper(q, q ? &q->not_full : NULL, tid, true);
}

RTS_EXPORT int rts_msgq_del_consumer(rts_msgq_t *q, pid_t tid)
{
	return change_helper(q, q ? &q->not_full : NULL, tid, false);
}

/* ---- the heap ------------------------------------------------------------- */

/* a leaves before b: higher priority, or equal priority and older. */
static bool before(const struct rts_msgq_entry *a, const struct rts_msgq_entry *b)
{
	return a->prio != b->prio ? a->prio > b->prio : a->seq < b->seq;
}

static void heap_push(rts_msgq_t *q, struct rts_msgq_entry e)
{
	uint32_t i = q->count++;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (!before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
}

static struct rts_msgq_entry heap_pop(rts_msgq_t *q)
{
	struct rts_msgq_entry top = q->heap[0];
	struct rts_msgq_entry last = q->heap[--q->count];
	uint32_t i = 0;
	for (;;) {
		uint32_t child = 2 * i + 1;
		if (child >= q->count)
			break;
		if (child + 1 < q->count && before(&q->heap[child + 1], &q->heap[child]))
			child++;
		if (!before(&q->heap[child], &last))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	if (q->count > 0)
		q->heap[i] = last;
	return top;
}

/* ---- send and receive ------------------------------------------------------ */

static int wait_on(rts_msgq_t *q, rts_cond_t *cond, const struct timespec *deadline)
{
	return deadline ? rts_cond_timedwait(cond, &q->lock, deadline) : rts_cond_wait(cond, &q->lock);
}

RTS_EXPORT int rts_msgq_timedsend(rts_msgq_t *q, const void *msg, unsigned prio,
				  const struct timespec *deadline)
{
	if (!queue_ok(q) || !msg)
		return EINVAL;
	int err = rts_mutex_lock(&q->lock);
	if (err)
		return err;
	q->waiting++;
	while (q->count == q->capacity && !err)
		err = wait_on(q, &q->not_full, deadline);
	if (err == ETIMEDOUT && q->count < q->capacity)
		err = 0; /* room came with the deadline: take it */
	if (!err) {
		uint32_t slot = q->free_slots[q->capacity - 1 - q->count];
		memcpy(q->storage + (size_t)slot * q->msg_size, msg, q->msg_size);
		heap_push(q, (struct rts_msgq_entry){ .seq = q->next_seq++, .prio = prio, .slot = slot });
		rts_cond_signal(&q->not_empty);
	}
	q->waiting--;
	rts_mutex_unlock(&q->lock);
	return err;
}

RTS_EXPORT int rts_msgq_send(rts_msgq_t *q, const void *msg, unsigned prio)
{
	return rts_msgq_timedsend(q, msg, prio, NULL);
}

RTS_EXPORT int rts_msgq_timedreceive(rts_msgq_t *q, void *msg, unsigned *prio,
				     const struct timespec *deadline)
{
	if (!queue_ok(q) || !msg)
		return EINVAL;
	int err = rts_mutex_lock(&q->lock);
	if (err)
		return err;
	q->waiting++;
	while (q->count == 0 && !err)
		err = wait_on(q, &q->not_empty, deadline);
	if (err == ETIMEDOUT && q->count > 0)
		err = 0; /* a message came with the deadline: take it */
	if (!err) {
		struct rts_msgq_entry e = heap_pop(q);
		memcpy(msg, q->storage + (size_t)e.slot * q->msg_size, q->msg_size);
		q->free_slots[q->capacity - 1 - q->count] = e.slot;
		if (prio)
			*prio = e.prio;
		rts_cond_signal(&q->not_full);
	}
	q->waiting--;
	rts_mutex_unlock(&q->lock);
	return err;
}

RTS_EXPORT int rts_msgq_receive(rts_msgq_t *q, void *msg, unsigned *prio)
{
	return rts_msgq_timedreceive(q, msg, prio, NULL);
}
