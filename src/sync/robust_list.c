/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal/robust_list.h"

#define PI_BIT ((uintptr_t)1)

/* The futex word sits 32 bytes before the node (the `next` field). */
static const long rts_futex_offset =
	(long)offsetof(struct rts_mutex_s, word) - (long)offsetof(struct rts_mutex_s, robust_next);

/* Cached per thread; glibc keeps the head at the same address in a fork child. */
static __thread struct robust_list_head *tls_head __attribute__((tls_model("initial-exec")));

static void compiler_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

int rts_robust_list_check(void)
{
	if (tls_head)
		return 0;
	struct robust_list_head *head = NULL;
	size_t len = 0;
	if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 || head == NULL ||
	    len != sizeof(*head) || head->futex_offset != rts_futex_offset)
		return ENOTSUP;
	tls_head = head;
	return 0;
}

static void **node_of(rts_mutex_t *m)
{
	return &m->s.robust_next;
}

static void **untag(void *p)
{
	return (void **)((uintptr_t)p & ~PI_BIT);
}

/* The prev field of a node is the pointer just before its next field. */
static void **prev_field(void **node)
{
	return node - 1;
}

static void *tagged(void **node, bool pi)
{
	return (void *)((uintptr_t)node | (pi ? PI_BIT : 0));
}

void rts_robust_list_pending(rts_mutex_t *m, bool pi)
{
	tls_head->list_op_pending = tagged(node_of(m), pi);
	compiler_barrier();
}

void rts_robust_list_clear_pending(void)
{
	compiler_barrier();
	tls_head->list_op_pending = NULL;
}

void rts_robust_list_add(rts_mutex_t *m, bool pi)
{
	void **head = (void **)&tls_head->list.next;
	void **node = node_of(m);
	void *first = *head;

	*prev_field(untag(first)) = node;
	m->s.robust_next = first;
	m->s.robust_prev = head;
	compiler_barrier(); /* the node is complete before the kernel can see it */
	*head = tagged(node, pi);
	rts_robust_list_clear_pending();
}

void rts_robust_list_remove(rts_mutex_t *m, bool pi)
{
	rts_robust_list_pending(m, pi);
	void **next = untag(m->s.robust_next);
	void **prev = untag(m->s.robust_prev);
	*prev_field(next) = m->s.robust_prev;
	*prev = m->s.robust_next;
	compiler_barrier(); /* unlinked before the node's own pointers go */
	m->s.robust_prev = NULL;
	m->s.robust_next = NULL;
}
