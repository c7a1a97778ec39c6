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
 * A thread's segment: the two sentinels and the held set (oldest first:
 * held[0] is next to the end sentinel; each entry a mutex address, bit 0 set
 * for PI). Allocated at the thread's first robust mutex: the library's
 * thread-local space is small (initial-exec, scripts/check-tls-model). It
 * must outlive the kernel's walk at thread exit while it is in the list, so
 * it is freed at thread exit only when it holds nothing (then unlinked
 * first); a thread that dies holding robust mutexes leaves it behind.
 */
struct segment {
	struct sentinel begin, end;
	uint32_t n_held;
	uintptr_t held[RTS_MUTEX_ROBUST_MAX_HELD];
};

struct thread_robust {
	struct robust_list_head *head; /* glibc's (the same address in a fork child) */
	struct segment *seg;
	uint32_t linked_tid; /* the thread the segment is linked for (a fork child links its own) */
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
static void link_segment(struct segment *seg)
{
	void **head = (void **)&self.head->list.next;
	void *first = *head;
	*prev_field_of(first) = &seg->end.next;
	seg->end.next = first;
	seg->end.prev = &seg->begin.next;
	seg->begin.next = &seg->end.next;
	seg->begin.prev = head;
	compiler_barrier(); /* the segment is complete before the kernel can see it */
	*head = &seg->begin.next;
	seg->n_held = 0;
	self.linked_tid = rts_self_tid();
}

/* glibc's removal, of the whole (empty) segment: only glibc's and our own pointers. */
static void unlink_segment(struct segment *seg)
{
	void **prev = seg->begin.prev;
	*prev_field_of(seg->end.next) = prev;
	*prev = seg->end.next;
	compiler_barrier();
}

/* Thread exit: free an empty segment (one still holding mutexes must stay for the kernel). */
static void thread_exit(void *seg_arg)
{
	struct segment *seg = seg_arg;
	if (seg != self.seg || self.linked_tid != rts_self_tid() || seg->n_held != 0)
		return;
	unlink_segment(seg);
	self.seg = NULL;
	self.linked_tid = 0;
	free(seg);
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
	if (self.linked_tid == rts_self_tid())
		return 0;
	/* First use in this thread, or a fork child (glibc emptied its list; the
	 * parent's segment, copied, is left alone). */
	struct segment *seg = calloc(1, sizeof(*seg));
	if (!seg)
		return EAGAIN;
	pthread_once(&exit_key_once, exit_key_create);
	if (pthread_setspecific(exit_key, seg) != 0) {
		free(seg);
		return EAGAIN;
	}
	self.seg = seg;
	link_segment(seg);
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
	if (self.linked_tid != rts_self_tid())
		return -1; /* a fork child holds none of its parent's */
	const struct segment *seg = self.seg;
	for (uint32_t i = 0; i < seg->n_held; i++)
		if (held_mutex(seg->held[i]) == m)
			return (int)i;
	return -1;
}

bool rts_robust_list_holds(const rts_mutex_t *m)
{
	return held_index(m) >= 0;
}

/* The node older than held[i] (toward the end sentinel), tagged for its kind. */
static void *older_than(const struct segment *seg, uint32_t i)
{
	if (i == 0)
		return &self.seg->end.next;
	uintptr_t entry = seg->held[i - 1];
	return tagged(node_of(held_mutex(entry)), entry & PI_BIT);
}

/* The next field that points at held[i] (the newer neighbour's, or the begin sentinel's). */
static void **newer_next_field(struct segment *seg, uint32_t i)
{
	return i + 1 < seg->n_held ? node_of(held_mutex(seg->held[i + 1])) : &seg->begin.next;
}

int rts_robust_list_add(rts_mutex_t *m, bool pi)
{
	struct segment *seg = self.seg;
	if (seg->n_held == RTS_MUTEX_ROBUST_MAX_HELD) {
		rts_robust_list_clear_pending();
		return EAGAIN;
	}
	m->s.robust_prev = NULL;
	m->s.robust_next = older_than(seg, seg->n_held);
	compiler_barrier(); /* the node is complete before the kernel can see it */
	seg->begin.next = tagged(node_of(m), pi);
	seg->held[seg->n_held++] = (uintptr_t)m | (pi ? PI_BIT : 0);
	rts_robust_list_clear_pending();
	return 0;
}

int rts_robust_list_remove(rts_mutex_t *m, bool pi)
{
	int at = held_index(m);
	if (at < 0)
		return EPERM;
	rts_robust_list_pending(m, pi);
	struct segment *seg = self.seg;
	uint32_t i = (uint32_t)at;
	*newer_next_field(seg, i) = older_than(seg, i);
	compiler_barrier(); /* unlinked before the node's own pointer goes */
	m->s.robust_prev = NULL;
	m->s.robust_next = NULL;
	for (; i + 1 < seg->n_held; i++)
		seg->held[i] = seg->held[i + 1];
	seg->n_held--;
	return 0;
}
