/* SPDX-License-Identifier: MIT */
/* The robust list (internal/robust_list.h): why no pointer is read from a mutex is written there. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal/robust_list.h"
#include "internal/tid.h"

#define PI_BIT ((uintptr_t)1)

/* The futex word sits 32 bytes before the node (the `next` field). */
static const long rts_futex_offset =
	(long)offsetof(struct rts_mutex_s, word) - (long)offsetof(struct rts_mutex_s, robust_next);

/* A sentinel node: a futex word the kernel skips (0 is nobody's TID), in glibc's node format. */
struct sentinel {
	uint32_t word;
	uint32_t unused[5];
	void *prev;
	void *next;
};
_Static_assert(offsetof(struct sentinel, next) - offsetof(struct sentinel, word) ==
		       offsetof(struct rts_mutex_s, robust_next) - offsetof(struct rts_mutex_s, word) &&
	       offsetof(struct sentinel, prev) + sizeof(void *) == offsetof(struct sentinel, next),
	       "a sentinel is a node of the same format as an rts mutex's");

/*
 * A thread's segment: the two sentinels, in static TLS like glibc's head
 * (the kernel walks them after the thread's last user-space instruction),
 * and the held set (oldest first: held[0] is next to the end sentinel; each
 * entry a mutex address, bit 0 set for PI), allocated at the thread's first
 * robust lock (the library's thread-local space is small: initial-exec,
 * scripts/check-tls-model) and freed at its exit: only the library reads it.
 */
struct thread_robust {
	struct robust_list_head *head; /* glibc's (the same address in a fork child) */
	uintptr_t *held;
	uint32_t n_held;
	uint32_t linked_tid; /* the thread the segment is linked for (a fork child links its own) */
	struct sentinel begin, end;
};
static __thread struct thread_robust self __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void compiler_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static void **node_of(rts_mutex_t *m)
{
	return &m->s.robust_next;
}

static void *tagged(void **node, bool pi)
{
	return (void *)((uintptr_t)node | (pi ? PI_BIT : 0));
}

static rts_mutex_t *held_mutex(uintptr_t entry)
{
	return (rts_mutex_t *)(entry & ~PI_BIT);
}

/* The prev field of the node a (tagged) next pointer points to. */
static void **prev_field_of(void *next)
{
	return (void **)((uintptr_t)next & ~PI_BIT) - 1;
}

/* glibc's insertion at the head, of the segment begin -> end. */
static void link_segment(void)
{
	void **head = (void **)&self.head->list.next;
	void *first = *head;
	*prev_field_of(first) = &self.end.next;
	self.end.next = first;
	self.end.prev = &self.begin.next;
	self.begin.next = &self.end.next;
	self.begin.prev = head;
	compiler_barrier(); /* the segment is complete before the kernel can see it */
	*head = &self.begin.next;
	self.n_held = 0;
	self.linked_tid = rts_self_tid();
}

/*
 * Thread exit (a key destructor): free the held set. The segment stays
 * linked: the kernel walks it, and the mutexes still held, when the thread
 * ends. (A later destructor that takes a robust mutex gets a fresh held set
 * and the mutexes held before leave the kernel's view.)
 */
static void thread_exit(void *held)
{
	if (held == self.held)
		self.held = NULL;
	free(held);
}

static void exit_key_create(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

int rts_robust_list_check(void)
{
	if (!self.head) {
		struct robust_list_head *head = NULL;
		size_t len = 0;
		if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 || head == NULL ||
		    len != sizeof(*head) || head->futex_offset != rts_futex_offset)
			return ENOTSUP;
		self.head = head;
	}
	if (!self.held) { /* first use in this thread (a fork child keeps its copy) */
		uintptr_t *held = calloc(RTS_MUTEX_ROBUST_MAX_HELD, sizeof(*held));
		if (!held)
			return EAGAIN;
		pthread_once(&exit_key_once, exit_key_create);
		if (pthread_setspecific(exit_key, held) != 0) {
			free(held);
			return EAGAIN;
		}
		self.held = held;
	}
	if (self.linked_tid != rts_self_tid())
		link_segment(); /* first use, or a fork child: glibc emptied its list */
	return 0;
}

void rts_robust_list_pending(rts_mutex_t *m, bool pi)
{
	self.head->list_op_pending = tagged(node_of(m), pi);
	compiler_barrier();
}

void rts_robust_list_clear_pending(void)
{
	compiler_barrier();
	self.head->list_op_pending = NULL;
}

static int held_index(const rts_mutex_t *m)
{
	if (self.linked_tid != rts_self_tid() || !self.held)
		return -1; /* a fork child holds none of its parent's */
	for (uint32_t i = 0; i < self.n_held; i++)
		if (held_mutex(self.held[i]) == m)
			return (int)i;
	return -1;
}

bool rts_robust_list_holds(const rts_mutex_t *m)
{
	return held_index(m) >= 0;
}

/* The node older than held[i] (toward the end sentinel), tagged for its kind. */
static void *older_than(uint32_t i)
{
	if (i == 0)
		return &self.end.next;
	uintptr_t entry = self.held[i - 1];
	return tagged(node_of(held_mutex(entry)), entry & PI_BIT);
}

/* The next field that points at held[i] (the newer neighbour's, or the begin sentinel's). */
static void **newer_next_field(uint32_t i)
{
	return i + 1 < self.n_held ? node_of(held_mutex(self.held[i + 1])) : &self.begin.next;
}

int rts_robust_list_add(rts_mutex_t *m, bool pi)
{
	if (self.n_held == RTS_MUTEX_ROBUST_MAX_HELD) {
		rts_robust_list_clear_pending();
		return EAGAIN;
	}
	m->s.robust_prev = NULL;
	m->s.robust_next = older_than(self.n_held);
	compiler_barrier(); /* the node is complete before the kernel can see it */
	self.begin.next = tagged(node_of(m), pi);
	self.held[self.n_held++] = (uintptr_t)m | (pi ? PI_BIT : 0);
	rts_robust_list_clear_pending();
	return 0;
}

int rts_robust_list_remove(rts_mutex_t *m, bool pi)
{
	int at = held_index(m);
	if (at < 0)
		return EPERM;
	rts_robust_list_pending(m, pi);
	uint32_t i = (uint32_t)at;
	*newer_next_field(i) = older_than(i);
	compiler_barrier(); /* unlinked before the node's own pointer goes */
	m->s.robust_prev = NULL;
	m->s.robust_next = NULL;
	for (; i + 1 < self.n_held; i++)
		self.held[i] = self.held[i + 1];
	self.n_held--;
	return 0;
}
