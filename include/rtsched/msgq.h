/* SPDX-License-Identifier: MIT */
/*
 * rts_msgq_t: a bounded priority message queue whose producers and consumers
 * inherit the priority of the threads that wait for them (PI-CV, seed 004
 * Fig. 5).
 *
 *     rts_msgq_attr_t a;
 *     rts_msgq_attr_init(&a);
 *     rts_msgq_attr_setmsgsize(&a, sizeof(struct job));
 *     rts_msgq_attr_setcapacity(&a, 8);
 *     rts_msgq_init(&q, &a);
 *     // producer thread:                  // consumer thread:
 *     rts_msgq_add_producer(&q, 0);         rts_msgq_add_consumer(&q, 0);
 *     rts_msgq_send(&q, &job, 7);           rts_msgq_receive(&q, &job, &prio);
 *
 * - Messages have a fixed size (set at init) and are copied in and out.
 * - rts_msgq_receive returns the message of highest priority, FIFO among
 *   equal priorities (like mq_receive).
 * - A consumer that finds the queue empty waits on the "not empty" condition
 *   variable, whose helpers are the declared producers: they run at least at
 *   the waiting consumer's priority until a message arrives. A producer that
 *   finds the queue full waits on "not full", whose helpers are the declared
 *   consumers. Declare threads with rts_msgq_add_producer / _consumer (at any
 *   time, also while threads wait). Several producers (or consumers) are
 *   several helpers of one condition variable, at most RTS_COND_MAX_HELPERS
 *   each (rtsched/cond.h): a waiter lends to all of them.
 * - With PI-CV switched off (rts_msgq_attr_setpicv(attr, 0)) the declarations
 *   are accepted and do nothing: the same program runs without loans, to
 *   compare.
 * - The state is guarded by one internal priority-inheritance rts_mutex.
 *
 * Process-private only (the storage is allocated by rts_msgq_init).
 *
 * Every function returns 0 or a positive error number (never errno); a NULL
 * or uninitialised queue or attribute object is EINVAL.
 */
#ifndef RTSCHED_MSGQ_H
#define RTSCHED_MSGQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTS_MSGQ_CAPACITY_DEFAULT 16u
#define RTS_MSGQ_CAPACITY_MAX     65536u
#define RTS_MSGQ_MSG_SIZE_DEFAULT 8u
#define RTS_MSGQ_MSG_SIZE_MAX     65536u

typedef struct rts_msgq_attr {
	uint32_t capacity;     /* messages the queue holds */
	uint32_t msg_size;     /* bytes per message */
	uint32_t flags;        /* private: PI-CV on/off, plus a magic */
} rts_msgq_attr_t;

/* Defaults: capacity RTS_MSGQ_CAPACITY_DEFAULT, RTS_MSGQ_MSG_SIZE_DEFAULT bytes, PI-CV on. */
int rts_msgq_attr_init(rts_msgq_attr_t *attr);
int rts_msgq_attr_destroy(rts_msgq_attr_t *attr);
/* 1..RTS_MSGQ_CAPACITY_MAX, EINVAL otherwise. */
int rts_msgq_attr_setcapacity(rts_msgq_attr_t *attr, unsigned capacity);
int rts_msgq_attr_getcapacity(const rts_msgq_attr_t *attr, unsigned *capacity);
/* 1..RTS_MSGQ_MSG_SIZE_MAX bytes, EINVAL otherwise. */
int rts_msgq_attr_setmsgsize(rts_msgq_attr_t *attr, size_t msg_size);
int rts_msgq_attr_getmsgsize(const rts_msgq_attr_t *attr, size_t *msg_size);
/* 1 (the default): producers / consumers are helpers; 0: no loans. EINVAL otherwise. */
int rts_msgq_attr_setpicv(rts_msgq_attr_t *attr, int picv);
int rts_msgq_attr_getpicv(const rts_msgq_attr_t *attr, int *picv);

/* One stored message's place in the priority order (private). */
struct rts_msgq_entry {
	uint64_t seq;      /* arrival order: FIFO among equal priorities */
	uint32_t prio;
	uint32_t slot;     /* index of its bytes in storage */
};

/*
 * The layout is public so that a queue can be declared anywhere; touch it
 * only through the functions below.
 *
 * Invariants (under lock): heap[0..count) is a binary max-heap on (prio, then
 * lowest seq); its slots and free_slots[0..capacity-count) are together every
 * slot 0..capacity-1 exactly once.
 */
typedef struct rts_msgq {
	rts_mutex_t lock;     /* RTS_PROTO_PIP: guards everything below */
	rts_cond_t not_empty; /* consumers wait; helpers: the producers */
	rts_cond_t not_full;  /* producers wait; helpers: the consumers */
	unsigned char *storage;        /* capacity * msg_size bytes */
	struct rts_msgq_entry *heap;   /* capacity entries */
	uint32_t *free_slots;          /* capacity entries */
	uint64_t next_seq;
	uint32_t capacity;
	uint32_t msg_size;
	uint32_t count;
	uint32_t flags;                /* private: PI-CV on/off, plus a magic */
	uint32_t waiting;              /* threads inside send / receive */
	uint32_t reserved0[7];
} rts_msgq_t;

/* attr may be NULL (the defaults). ENOMEM. */
int rts_msgq_init(rts_msgq_t *q, const rts_msgq_attr_t *attr);
/* EBUSY while a thread is inside send or receive; frees the storage. */
int rts_msgq_destroy(rts_msgq_t *q);

/*
 * Declare thread tid (a kernel TID; 0: the calling thread) a producer
 * (a helper of "not empty") or a consumer (a helper of "not full"), or
 * withdraw it. The errors of rts_cond_helper_add / _del: ESRCH, EEXIST,
 * ENOENT, ENOSPC (RTS_COND_MAX_HELPERS already), ENOMEM, EINVAL.
 * Withdraw a thread before it exits: when every declared thread a waiter
 * lends to has exited, its send / receive returns ESRCH (rts_cond_helper_add).
 */
int rts_msgq_add_producer(rts_msgq_t *q, pid_t tid);
int rts_msgq_del_producer(rts_msgq_t *q, pid_t tid);
int rts_msgq_add_consumer(rts_msgq_t *q, pid_t tid);
int rts_msgq_del_consumer(rts_msgq_t *q, pid_t tid);

/*
 * Copy msg_size bytes from msg into the queue with priority prio (higher
 * first); waits while the queue is full. The timed version gives up with
 * ETIMEDOUT at the absolute CLOCK_MONOTONIC deadline (NULL: never).
 * ESRCH: a consumer this producer lent to exited (nothing was queued).
 */
int rts_msgq_send(rts_msgq_t *q, const void *msg, unsigned prio);
int rts_msgq_timedsend(rts_msgq_t *q, const void *msg, unsigned prio,
		       const struct timespec *deadline_monotonic);
/*
 * Take the first message (highest priority, oldest among equals): copy its
 * msg_size bytes to msg and its priority to *prio (if prio is not NULL);
 * waits while the queue is empty. Timed version and ESRCH as for send.
 */
int rts_msgq_receive(rts_msgq_t *q, void *msg, unsigned *prio);
int rts_msgq_timedreceive(rts_msgq_t *q, void *msg, unsigned *prio,
			  const struct timespec *deadline_monotonic);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_MSGQ_H */
