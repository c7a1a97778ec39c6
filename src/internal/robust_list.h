/* SPDX-License-Identifier: MIT */
/*
 * The kernel's robust futex list of the calling thread, shared with glibc.
 *
 * At thread exit the kernel walks the list whose head the thread registered
 * with set_robust_list(2) and marks every futex word still owned by the dead
 * thread FUTEX_OWNER_DIED, waking a waiter. glibc registers one head per
 * thread and links its robust pthread mutexes into it; rtsched links its
 * robust rts mutexes into the same list, in glibc's node format (a `next`
 * pointer at word + 32, bit 0 set when the entry it points to is a PI
 * futex), so that both libraries' mutexes are recovered.
 *
 * A mutex may lie in memory another process writes (issue 33), so the
 * library never follows or writes through a pointer it reads from a mutex:
 *  - the thread's robust rts mutexes form one contiguous segment of the
 *    list between two sentinel nodes in the thread's own memory (begin, end;
 *    futex word 0, which the kernel skips), linked in once per thread. glibc
 *    inserts its mutexes at the head and unlinks its own, so it only ever
 *    writes the sentinels' fields, never an rts mutex's;
 *  - the order of the segment is kept in a private per-thread array (the
 *    held set). Adding and removing write the `next` field of the mutex
 *    being added or removed, of a neighbour taken from the held set (a mutex
 *    the thread holds: a live object) or of a sentinel; nothing read from a
 *    mutex decides where a store goes;
 *  - `robust_prev` of an rts mutex is always NULL: glibc never reads it,
 *    and it would show another process an address of this thread's memory.
 *    `robust_next` must hold the next node's address, the kernel's format;
 *    that is a sentinel's or another held mutex's address. A process that
 *    rewrites it can only misdirect the kernel's walk at this thread's exit
 *    (the kernel reads the list with checked user accesses, at most 2048
 *    entries, and marks only words that hold this thread's TID).
 * A mutex is unlocked as robust only if the held set has it: a word that
 * merely shows the caller's TID (written by another process) gives EPERM.
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
/* Whether the caller holds m as a robust mutex (its held set has it). */
bool rts_robust_list_holds(const rts_mutex_t *m);
/*
 * The caller took m: link it in and clear the pending mark. 0, or EAGAIN
 * when it holds RTS_MUTEX_ROBUST_MAX_HELD robust mutexes already (m is then
 * not linked; the caller must release it).
 */
int rts_robust_list_add(rts_mutex_t *m, bool pi);
/* The caller is about to release m: mark it pending and unlink it. EPERM if not held. */
int rts_robust_list_remove(rts_mutex_t *m, bool pi);
/* Clear the pending mark (acquisition failed, or release done). */
void rts_robust_list_clear_pending(void);

#endif
