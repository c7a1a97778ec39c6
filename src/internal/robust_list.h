/* SPDX-License-Identifier: MIT */
/*
 * The kernel's robust futex list of the calling thread, shared with glibc.
 *
 * At thread exit the kernel walks the list whose head the thread registered
 * with set_robust_list(2) and marks every futex word still owned by the dead
 * thread FUTEX_OWNER_DIED, waking a waiter. glibc registers one head per
 * thread and links its robust pthread mutexes into it; rtsched links its
 * robust rts mutexes into the same list, in glibc's node format (a doubly
 * linked list of {prev, next} pairs, each pointer aimed at a `next` field,
 * bit 0 of `next` set when the following entry is a PI futex), so that both
 * libraries' mutexes are recovered and either can unlink its own.
 *
 * Invariant: only the thread that owns the list changes it, so no atomics are
 * needed, only compiler barriers that keep the kernel's view consistent
 * should the thread die between two stores.
 *
 * Protocol (as glibc's): list_op_pending names the mutex being locked or
 * unlocked while its word and the list disagree, so a death in that window
 * is still recovered.
 */
#ifndef RTS_INTERNAL_ROBUST_LIST_H
#define RTS_INTERNAL_ROBUST_LIST_H

#include <stdbool.h>

#include <rtsched/mutex.h>

/* 0, or ENOTSUP when the thread has no robust list in glibc's format. */
int rts_robust_list_check(void);
/* The caller is about to take (or release) m. */
void rts_robust_list_pending(rts_mutex_t *m, bool pi);
/* The caller took m: link it in and clear the pending mark. */
void rts_robust_list_add(rts_mutex_t *m, bool pi);
/* The caller is about to release m: mark it pending and unlink it. */
void rts_robust_list_remove(rts_mutex_t *m, bool pi);
/* Clear the pending mark (acquisition failed, or release done). */
void rts_robust_list_clear_pending(void);

#endif
