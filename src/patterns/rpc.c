/* SPDX-License-Identifier: MIT */
/*
 * The RPC server object (include/rtsched/rpc.h): a request queue ordered by
 * client priority, one reply condition variable per request slot with the
 * server thread as its helper, all under one PIP mutex.
 *
 * A call, under server->lock:
 *   wait for a bind (bound), then for a free slot (not_full);
 *   fill the slot, insert it in the queue, signal not_empty;
 *   wait on the slot's reply condvar until REPLIED (or ESHUTDOWN / ESRCH);
 *   take the result, return the slot to the free list, signal not_full.
 * The server's rts_rpc_receive pops the queue head (IN_SERVICE) and
 * rts_rpc_reply marks it REPLIED and signals its reply condvar: the server is
 * that condvar's helper, so the signal hands the waiting client its PI token
 * directly (src/sync/picv.c).
 *
 * Why the slots are the reply condvars: helpers are declared once, at bind,
 * for every slot, so a call makes no allocation and no helper change. A
 * client waits for a bind before anything else so that no client ever waits
 * on a condvar that is about to get its first helper (that would be EBUSY).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include <rtsched/rpc.h>

#include "internal/export.h"
#include "internal/backend.h"
#include "internal/tid.h"

#define RPC_MAGIC      0x52500000u /* "RP": the object was initialised */
#define RPC_MAGIC_MASK 0xffff0000u
#define RPC_F_PICV     0x00000001u

enum slot_state {
	SLOT_FREE = 0,
	SLOT_QUEUED = 1,     /* in the queue, not yet received */
	SLOT_IN_SERVICE = 2, /* returned by rts_rpc_receive */
	SLOT_REPLIED = 3,    /* result set; the client has not taken it yet */
	SLOT_ABANDONED = 4,  /* in service, but its client left (an error): the reply frees it */
};

static bool attr_ok(const rts_rpc_attr_t *attr)
{
	return attr && (attr->flags & RPC_MAGIC_MASK) == RPC_MAGIC;
}

static bool server_ok(const rts_rpc_server_t *s)
{
	return s && (s->flags & RPC_MAGIC_MASK) == RPC_MAGIC && s->slots;
}

RTS_EXPORT int rts_rpc_attr_init(rts_rpc_attr_t *attr)
{
	if (!attr)
		return EINVAL;
	attr->capacity = RTS_RPC_CAPACITY_DEFAULT;
	attr->flags = RPC_MAGIC | RPC_F_PICV;
	return 0;
}

RTS_EXPORT int rts_rpc_attr_destroy(rts_rpc_attr_t *attr)
{
	if (!attr_ok(attr))
		return EINVAL;
	attr->flags = 0;
	return 0;
}

RTS_EXPORT int rts_rpc_attr_setcapacity(rts_rpc_attr_t *attr, unsigned capacity)
{
	if (!attr_ok(attr) || capacity < 1 || capacity > RTS_RPC_CAPACITY_MAX)
		return EINVAL;
	attr->capacity = capacity;
	return 0;
}

RTS_EXPORT int rts_rpc_attr_getcapacity(const rts_rpc_attr_t *attr, unsigned *capacity)
{
	if (!attr_ok(attr) || !capacity)
		return EINVAL;
	*capacity = attr->capacity;
	return 0;
}

RTS_EXPORT int rts_rpc_attr_setpicv(rts_rpc_attr_t *attr, int picv)
{
	if (!attr_ok(attr) || (picv != 0 && picv != 1))
		return EINVAL;
	attr->flags = picv ? attr->flags | RPC_F_PICV : attr->flags & ~RPC_F_PICV;
	return 0;
}

RTS_EXPORT int rts_rpc_attr_getpicv(const rts_rpc_attr_t *attr, int *picv)
{
	if (!attr_ok(attr) || !picv)
		return EINVAL;
	*picv = (attr->flags & RPC_F_PICV) != 0;
	return 0;
}

_Static_assert(RTS_RPC_PRIORITY_DEADLINE == RTS_QUEUE_PRIORITY_DEADLINE,
	       "rpc.h's client priority is the queue priority");

static void destroy_conds(rts_rpc_server_t *s, uint32_t n_slots)
{
	for (uint32_t i = 0; i < n_slots; i++)
		rts_cond_destroy(&s->slots[i].reply);
	rts_cond_destroy(&s->not_empty);
	rts_cond_destroy(&s->not_full);
	rts_cond_destroy(&s->bound);
}

RTS_EXPORT int rts_rpc_server_init(rts_rpc_server_t *s, const rts_rpc_attr_t *attr)
{
	rts_rpc_attr_t defaults;
	if (!s)
		return EINVAL;
	if (!attr) {
		rts_rpc_attr_init(&defaults);
		attr = &defaults;
	}
	if (!attr_ok(attr))
		return EINVAL;
	*s = (rts_rpc_server_t){ 0 };
	s->slots = calloc(attr->capacity, sizeof(*s->slots));
	if (!s->slots)
		return ENOMEM;
	s->lock = (rts_mutex_t)RTS_MUTEX_PIP_INITIALIZER;
	rts_cond_init(&s->not_empty, NULL);
	rts_cond_init(&s->not_full, NULL);
	rts_cond_init(&s->bound, NULL);
	s->capacity = attr->capacity;
	/* The free list in slot order, so the first call takes slot 0. */
	for (uint32_t i = attr->capacity; i-- > 0;) {
		rts_cond_init(&s->slots[i].reply, NULL);
		s->slots[i].next = s->free_list;
		s->free_list = &s->slots[i];
	}
	s->n_free = attr->capacity;
	s->flags = RPC_MAGIC | (attr->flags & RPC_F_PICV);
	return 0;
}

/* Make the caller the helper of every condvar clients wait on; undo on failure. */
static int add_server_helper(rts_rpc_server_t *s, pid_t tid)
{
	int err = rts_cond_helper_add(&s->not_full, tid);
	uint32_t done = 0;
	while (!err && done < s->capacity) {
		err = rts_cond_helper_add(&s->slots[done].reply, tid);
		if (!err)
			done++;
	}
	if (err) {
		while (done-- > 0)
			rts_cond_helper_del(&s->slots[done].reply, tid);
		rts_cond_helper_del(&s->not_full, tid);
	}
	return err;
}

RTS_EXPORT int rts_rpc_server_bind(rts_rpc_server_t *s)
{
	if (!server_ok(s))
		return EINVAL;
	pid_t self = (pid_t)rts_self_tid();
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	if (s->shutdown_err)
		err = s->shutdown_err;
	else if (s->server_tid)
		err = EBUSY;
	else if (s->flags & RPC_F_PICV)
		err = add_server_helper(s, self); /* no client waits on these yet */
	if (!err) {
		s->server_tid = self;
		rts_cond_broadcast(&s->bound);
	}
	rts_mutex_unlock(&s->lock);
	return err;
}

static bool is_server_thread(const rts_rpc_server_t *s)
{
	return s->server_tid != 0 && s->server_tid == (pid_t)rts_self_tid();
}

/* rts_rpc_receive and rts_rpc_receive_until: deadline NULL waits for ever. */
static int receive(rts_rpc_server_t *s, rts_rpc_request_t **req, const struct timespec *deadline)
{
	if (!server_ok(s) || !req)
		return EINVAL;
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	if (!is_server_thread(s)) {
		rts_mutex_unlock(&s->lock);
		return EPERM;
	}
	s->receiving = 1;
	while (!s->queue && !s->shutdown_err && !err)
		err = deadline ? rts_cond_timedwait(&s->not_empty, &s->lock, deadline)
			       : rts_cond_wait(&s->not_empty, &s->lock);
	s->receiving = 0;
	if (!err && s->shutdown_err)
		err = s->shutdown_err;
	if (!err) {
		rts_rpc_request_t *r = s->queue;
		s->queue = r->next;
		r->next = NULL;
		r->state = SLOT_IN_SERVICE;
		*req = r;
	}
	rts_mutex_unlock(&s->lock);
	return err;
}

RTS_EXPORT int rts_rpc_receive(rts_rpc_server_t *s, rts_rpc_request_t **req)
{
	return receive(s, req, NULL);
}

RTS_EXPORT int rts_rpc_receive_until(rts_rpc_server_t *s, rts_rpc_request_t **req,
				     const struct timespec *deadline)
{
	if (!deadline || deadline->tv_nsec < 0 || deadline->tv_nsec >= 1000000000L)
		return EINVAL;
	return receive(s, req, deadline);
}

static bool is_slot_of(const rts_rpc_server_t *s, const rts_rpc_request_t *r)
{
	uintptr_t first = (uintptr_t)s->slots, at = (uintptr_t)r;
	return at >= first && at < first + s->capacity * sizeof(*r) &&
	       (at - first) % sizeof(*r) == 0;
}

/* Insert after every request of the same or a higher priority (FIFO among equals). */
static void enqueue(rts_rpc_server_t *s, rts_rpc_request_t *r)
{
	rts_rpc_request_t **at = &s->queue;
	while (*at && (*at)->client_priority >= r->client_priority)
		at = &(*at)->next;
	r->next = *at;
	*at = r;
}

static void unqueue(rts_rpc_server_t *s, rts_rpc_request_t *r)
{
	for (rts_rpc_request_t **at = &s->queue; *at; at = &(*at)->next)
		if (*at == r) {
			*at = r->next;
			return;
		}
}

static void free_slot(rts_rpc_server_t *s, rts_rpc_request_t *r)
{
	r->state = SLOT_FREE;
	r->arg = NULL;
	r->result = NULL;
	r->next = s->free_list;
	s->free_list = r;
	s->n_free++;
	rts_cond_signal(&s->not_full);
}

RTS_EXPORT int rts_rpc_reply(rts_rpc_server_t *s, rts_rpc_request_t *req, void *result)
{
	if (!server_ok(s) || !req || !is_slot_of(s, req))
		return EINVAL;
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	if (!is_server_thread(s)) {
		err = EPERM;
	} else if (req->state == SLOT_ABANDONED) {
		free_slot(s, req);
	} else if (req->state != SLOT_IN_SERVICE) {
		err = EINVAL;
	} else {
		req->result = result;
		req->state = SLOT_REPLIED;
		rts_cond_signal(&req->reply);
	}
	rts_mutex_unlock(&s->lock);
	return err;
}

/*
 * A server thread that exited is seen as ESRCH by a client lending to it:
 * nobody will serve again, so the server shuts down with that error.
 */
static void note_wait_error(rts_rpc_server_t *s, int err)
{
	if (err == ESRCH && !s->shutdown_err) {
		s->shutdown_err = ESRCH;
		rts_cond_broadcast(&s->bound);
		rts_cond_broadcast(&s->not_full);
		for (uint32_t i = 0; i < s->capacity; i++)
			rts_cond_broadcast(&s->slots[i].reply);
	}
}

/* Under the lock: get a free slot. 0, or the error the call returns. */
static int take_slot(rts_rpc_server_t *s, rts_rpc_request_t **out)
{
	int err = 0;
	while (!s->server_tid && !s->shutdown_err && !err)
		err = rts_cond_wait(&s->bound, &s->lock);
	if (!err && !s->shutdown_err && is_server_thread(s))
		return EDEADLK;
	while (!s->free_list && !s->shutdown_err && !err)
		err = rts_cond_wait(&s->not_full, &s->lock);
	note_wait_error(s, err);
	if (!err)
		err = s->shutdown_err;
	if (err)
		return err;
	rts_rpc_request_t *r = s->free_list;
	s->free_list = r->next;
	s->n_free--;
	*out = r;
	return 0;
}

RTS_EXPORT int rts_rpc_call(rts_rpc_server_t *s, void *arg, void **result)
{
	if (!server_ok(s))
		return EINVAL;
	int priority = rts_task_queue_priority(0);
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	s->in_calls++;
	rts_rpc_request_t *r = NULL;
	err = take_slot(s, &r);
	if (err) {
		/* A free slot this caller was woken for goes to the next waiter. */
		if (s->free_list)
			rts_cond_signal(&s->not_full);
		s->in_calls--;
		rts_mutex_unlock(&s->lock);
		return err;
	}
	r->arg = arg;
	r->client_tid = (pid_t)rts_self_tid();
	r->client_priority = priority;
	r->state = SLOT_QUEUED;
	enqueue(s, r);
	rts_cond_signal(&s->not_empty);

	/*
	 * A queued request is cancelled by a shutdown; one the server received
	 * is waited for to the end (the server still replies to it).
	 */
	while (r->state != SLOT_REPLIED && !err &&
	       !(r->state == SLOT_QUEUED && s->shutdown_err))
		err = rts_cond_wait(&r->reply, &s->lock);
	note_wait_error(s, err);
	if (!err && r->state != SLOT_REPLIED)
		err = s->shutdown_err;
	if (!err && result)
		*result = r->result;
	if (r->state == SLOT_QUEUED)
		unqueue(s, r);
	/* A request the server holds when its client gives up is freed by its reply. */
	if (r->state == SLOT_IN_SERVICE)
		r->state = SLOT_ABANDONED;
	else
		free_slot(s, r);
	s->in_calls--;
	rts_mutex_unlock(&s->lock);
	return err;
}

RTS_EXPORT int rts_rpc_server_shutdown(rts_rpc_server_t *s)
{
	if (!server_ok(s))
		return EINVAL;
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	if (!s->shutdown_err) {
		s->shutdown_err = ESHUTDOWN;
		rts_cond_broadcast(&s->not_empty);
		rts_cond_broadcast(&s->not_full);
		rts_cond_broadcast(&s->bound);
		for (rts_rpc_request_t *r = s->queue; r; r = r->next)
			rts_cond_broadcast(&r->reply);
	}
	rts_mutex_unlock(&s->lock);
	return 0;
}

RTS_EXPORT int rts_rpc_server_destroy(rts_rpc_server_t *s)
{
	if (!server_ok(s))
		return EINVAL;
	int err = rts_mutex_lock(&s->lock);
	if (err)
		return err;
	bool busy = s->in_calls || s->receiving;
	rts_mutex_unlock(&s->lock);
	if (busy)
		return EBUSY;
	destroy_conds(s, s->capacity);
	rts_mutex_destroy(&s->lock);
	free(s->slots);
	*s = (rts_rpc_server_t){ 0 };
	return 0;
}
