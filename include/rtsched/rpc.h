/* SPDX-License-Identifier: MIT */
/*
 * rts_rpc_server_t: a synchronous RPC server object with priority inheritance
 * from its clients (PI-CV, seed 004 §6.2).
 *
 * One server thread serves the requests of any number of client threads:
 *
 *     server thread                          client thread
 *     -------------                          -------------
 *     rts_rpc_server_bind(&srv);             void *result;
 *     for (;;) {                             err = rts_rpc_call(&srv, arg, &result);
 *             rts_rpc_request_t *req;
 *             if (rts_rpc_receive(&srv, &req))
 *                     break;  // ESHUTDOWN
 *             void *r = work(req->arg);
 *             rts_rpc_reply(&srv, req, r);
 *     }
 *
 * - Requests wait in a queue ordered by the client's priority, FIFO among
 *   equal priorities; rts_rpc_receive returns the first.
 * - Each pending client waits for its reply on its own condition variable,
 *   whose helper is the server thread (rts_cond_helper_add): while a client
 *   waits, the server runs at least at the client's priority (several
 *   clients: the highest), whether the request is still queued or being
 *   served, and transitively through whatever the server blocks on. A client
 *   that finds the queue full waits for a free place, also lending to the
 *   server. With PI-CV switched off (rts_rpc_attr_setpicv(attr, 0)) the same
 *   code runs without any loan, to compare.
 * - A client's priority is read from the calling thread at each call
 *   (sched_getattr: its own policy and priority, not a boost it is receiving):
 *   SCHED_FIFO / SCHED_RR priority 1..99; SCHED_DEADLINE ranks above every
 *   real-time priority (100); every other policy is 0.
 * - The state is guarded by one internal priority-inheritance rts_mutex.
 *
 * Process-private only: the request argument and result are pointers, and the
 * request slots are allocated by rts_rpc_server_init.
 *
 * Every function returns 0 or a positive error number (never errno); a NULL
 * or uninitialised server or attribute object is EINVAL.
 */
#ifndef RTSCHED_RPC_H
#define RTSCHED_RPC_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTS_RPC_CAPACITY_DEFAULT 16u
#define RTS_RPC_CAPACITY_MAX     4096u

/* The priority rts_rpc_call records for a SCHED_DEADLINE client. */
#define RTS_RPC_PRIORITY_DEADLINE 100

typedef struct rts_rpc_attr {
	uint32_t capacity; /* requests pending at once (queued or being served) */
	uint32_t flags;    /* private: PI-CV on/off, plus a magic */
} rts_rpc_attr_t;

/* Defaults: capacity RTS_RPC_CAPACITY_DEFAULT, PI-CV on. */
int rts_rpc_attr_init(rts_rpc_attr_t *attr);
int rts_rpc_attr_destroy(rts_rpc_attr_t *attr);
/* 1..RTS_RPC_CAPACITY_MAX, EINVAL otherwise. */
int rts_rpc_attr_setcapacity(rts_rpc_attr_t *attr, unsigned capacity);
int rts_rpc_attr_getcapacity(const rts_rpc_attr_t *attr, unsigned *capacity);
/*
 * picv 1 (the default): the server thread is the helper of every condition
 * variable clients wait on, so waiting clients lend it their priority.
 * picv 0: no helpers, no loans (the baseline of an experiment). EINVAL
 * unless 0 or 1.
 */
int rts_rpc_attr_setpicv(rts_rpc_attr_t *attr, int picv);
int rts_rpc_attr_getpicv(const rts_rpc_attr_t *attr, int *picv);

/*
 * One request, as the server sees it between rts_rpc_receive and
 * rts_rpc_reply. The server may read arg, client_tid and client_priority;
 * the other fields are private. A request lives in a slot of the server
 * (capacity slots, allocated at init): the pointer is valid until the reply.
 */
typedef struct rts_rpc_request {
	void *arg;           /* the client's argument to rts_rpc_call */
	pid_t client_tid;    /* the calling thread */
	int client_priority; /* 0..99, or RTS_RPC_PRIORITY_DEADLINE */
	/* private */
	struct rts_rpc_request *next; /* in the queue or the free list */
	void *result;
	uint32_t state;      /* free, queued, in service, replied, abandoned */
	uint32_t reserved0;
	rts_cond_t reply;    /* the client waits here; helper: the server thread */
} rts_rpc_request_t;

/*
 * The layout is public so that a server can be declared anywhere (static,
 * stack, inside another object); touch it only through the functions below.
 *
 * Invariants (under lock): every slot is in exactly one of: the free list,
 * the queue (QUEUED), or with the server (IN_SERVICE or REPLIED, until its
 * client takes the result and frees it); n_free counts the free list;
 * server_tid is 0 until bind and never changes afterwards.
 */
typedef struct rts_rpc_server {
	rts_mutex_t lock;     /* RTS_PROTO_PIP: guards everything below */
	rts_cond_t not_empty; /* the server thread waits for a request (no helper) */
	rts_cond_t not_full;  /* clients wait for a free slot; helper: the server thread */
	rts_cond_t bound;     /* clients wait for rts_rpc_server_bind (no helper) */
	rts_rpc_request_t *slots;
	rts_rpc_request_t *free_list;
	rts_rpc_request_t *queue; /* by client priority, FIFO among equals */
	uint32_t capacity;
	uint32_t n_free;
	uint32_t flags;           /* private: PI-CV on/off, plus a magic */
	pid_t server_tid;         /* 0: not bound yet */
	int shutdown_err;         /* 0, or what calls return from now on */
	uint32_t in_calls;        /* client threads inside rts_rpc_call */
	uint32_t receiving;       /* 1 while the server thread waits in rts_rpc_receive */
	uint32_t reserved0[7];
} rts_rpc_server_t;

/*
 * attr may be NULL (the defaults). Allocates the request slots: ENOMEM.
 * The server accepts calls at once; they wait (without any loan) until a
 * server thread binds.
 */
int rts_rpc_server_init(rts_rpc_server_t *server, const rts_rpc_attr_t *attr);
/*
 * Called by the server thread, once: makes it the thread that receives and
 * replies, and (PI-CV on) the helper of every condition variable clients
 * wait on. EBUSY (a thread is already bound), ESHUTDOWN, ENOMEM.
 */
int rts_rpc_server_bind(rts_rpc_server_t *server);
/*
 * Server thread: wait for a request and take the first one (highest client
 * priority, FIFO among equals). EPERM (the caller is not the bound thread),
 * ESHUTDOWN (the server was shut down; queued requests are not returned).
 */
int rts_rpc_receive(rts_rpc_server_t *server, rts_rpc_request_t **req);
/*
 * As rts_rpc_receive, but ETIMEDOUT once the absolute CLOCK_MONOTONIC
 * deadline passes with no request (a server that also watches something
 * else, such as a flag saying its application is stopping). EINVAL for a
 * NULL deadline or one whose tv_nsec is not in 0..999999999.
 */
int rts_rpc_receive_until(rts_rpc_server_t *server, rts_rpc_request_t **req,
			  const struct timespec *deadline);
/*
 * Server thread: answer req (from rts_rpc_receive); its client's call returns
 * result. Works after a shutdown too, for a request received before it.
 * EPERM (not the bound thread), EINVAL (req is not a request of this server
 * being served).
 */
int rts_rpc_reply(rts_rpc_server_t *server, rts_rpc_request_t *req, void *result);
/*
 * Client: queue a request carrying arg at the caller's priority and wait for
 * its reply; *result (if result is not NULL) gets the value the server passed
 * to rts_rpc_reply. Blocks while the queue is full and until a server thread
 * has bound. Errors:
 *   ESHUTDOWN  the server was shut down before it received this request
 *              (also for a call made after the shutdown);
 *   ESRCH      the bound server thread exited (seen by a client lending to it,
 *              PI-CV on; with PI-CV off such a call waits for ever);
 *   EDEADLK    the caller is the bound server thread (it would wait for itself),
 *              or waiting would close a donation cycle;
 *   EINVAL.
 */
int rts_rpc_call(rts_rpc_server_t *server, void *arg, void **result);
/*
 * Stop the server: rts_rpc_receive returns ESHUTDOWN from now on (to the
 * thread waiting in it too); every client whose request was not yet received,
 * every client waiting for a free slot or for a bind, and every later call
 * return ESHUTDOWN. Requests already received still get their reply. Any
 * thread may call it; a second call is a no-op (0).
 */
int rts_rpc_server_shutdown(rts_rpc_server_t *server);
/*
 * EBUSY while a client is inside rts_rpc_call or the server thread waits in
 * rts_rpc_receive (shut down first to make them leave); frees the slots.
 */
int rts_rpc_server_destroy(rts_rpc_server_t *server);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_RPC_H */
