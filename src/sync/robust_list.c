/* SPDX-License-Identifier: MIT */
/* The robust list (internal/robust_list.h): why no pointer is read from a mutex is written there. */
#include <errno.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal/robust_list.h"
#include "internal/tid.h"

#define PI_BIT ((uintptr_t)1)

/* The futex word sits 32 bytes before the node (the `next` field). */
static const long rts_futex_offset =
	(long)offsetof(struct rts_mutex_s, word) - (long)offsetof(struct rts_mutex_s, robust_next);

/*
 * The thread's part of the kernel's list: glibc's head (cached: glibc keeps
 * it at the same address in a fork child), the two sentinels and the tid
 * they were linked for (a fork child, whose list glibc emptied, links its
 * own). The sentinels must outlive the thread's last user-space instruction
 * (the kernel walks them at exit): static TLS, like glibc's head.
 */
struct robust_segment {
	struct robust_list_head *head;
	uint32_t linked_tid;
	rts_mutex_t begin, end;
};
static __thread struct robust_segment seg __attribute__((tls_model("initial-exec")));

/* The held set, oldest first (held[0] is next to the end sentinel). */
struct held_mutex {
	rts_mutex_t *m;
	bool pi;
};
static __thread struct held_mutex held[RTS_MUTEX_ROBUST_MAX_HELD];
static __thread uint32_t n_held;

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

/* glibc's insertion at the head: its successor's prev field points to the node. */
static void link_sentinels(void)
{
	void **head = (void **)&seg.head->list.next;
	void *first = *head;
	void **first_prev = (void **)((uintptr_t)first & ~PI_BIT) - 1;
	*first_prev = node_of(&seg.end);
	seg.end.s.robust_next = first;
	seg.end.s.robust_prev = node_of(&seg.begin);
	seg.begin.s.robust_next = node_of(&seg.end);
	seg.begin.s.robust_prev = head;
	compiler_barrier(); /* the segment is complete before the kernel can see it */
	*head = node_of(&seg.begin);
	n_held = 0;
	seg.linked_tid = rts_self_tid();
}

int rts_robust_list_check(void)
{
	if (!seg.head) {
		struct robust_list_head *head = NULL;
		size_t len = 0;
		if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 || head == NULL ||
		    len != sizeof(*head) || head->futex_offset != rts_futex_offset)
			return ENOTSUP;
		seg.head = head;
	}
	if (seg.linked_tid != rts_self_tid())
		link_sentinels();
	return 0;
}

void rts_robust_list_pending(rts_mutex_t *m, bool pi)
{
	seg.head->list_op_pending = tagged(node_of(m), pi);
	compiler_barrier();
}

void rts_robust_list_clear_pending(void)
{
	compiler_barrier();
	seg.head->list_op_pending = NULL;
}

static int held_index(const rts_mutex_t *m)
{
	if (seg.linked_tid != rts_self_tid())
		return -1; /* a fork child holds none of its parent's */
	for (uint32_t i = 0; i < n_held; i++)
		if (held[i].m == m)
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
	return i > 0 ? tagged(node_of(held[i - 1].m), held[i - 1].pi) : node_of(&seg.end);
}

/* The next field that points at held[i] (the newer neighbour's, or the begin sentinel's). */
static void **newer_next_field(uint32_t i)
{
	return i + 1 < n_held ? node_of(held[i + 1].m) : node_of(&seg.begin);
}

int rts_robust_list_add(rts_mutex_t *m, bool pi)
{
	if (n_held == RTS_MUTEX_ROBUST_MAX_HELD) {
		rts_robust_list_clear_pending();
		return EAGAIN;
	}
	m->s.robust_prev = NULL;
	m->s.robust_next = older_than(n_held);
	compiler_barrier(); /* the node is complete before the kernel can see it */
	seg.begin.s.robust_next = tagged(node_of(m), pi);
	held[n_held++] = (struct held_mutex){ m, pi };
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
	for (; i + 1 < n_held; i++)
		held[i] = held[i + 1];
	n_held--;
	return 0;
}
