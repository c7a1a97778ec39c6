/* SPDX-License-Identifier: MIT */
/*
 * The processes attached to a LITMUS lock table or to the release word
 * (litmus_users.c), a registry of n entries: each one
 * recorded as its pid and its start time (field 22 of /proc/PID/stat, clock
 * ticks since boot), so that a pid the kernel reused is not taken for the
 * process that registered. An object whose users are all dead is stale.
 *
 * The registry lies in shared memory any process of the user may write
 * (docs/shared-state.md): an entry is only ever compared and passed to
 * kill(pid, 0) and a /proc read; a pid <= 0 is an empty entry.
 */
#ifndef RTS_LITMUS_USERS_H
#define RTS_LITMUS_USERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define LITMUS_USERS_MAX 64 /* processes attached to one lock file at once */
#define LITMUS_TS_USERS_MAX 256 /* processes using one release word at once */

struct litmus_user {
	int32_t pid; /* <= 0: empty */
	uint32_t reserved;
	uint64_t start_ticks; /* 0: unknown (no /proc) */
};

/* The calling process as a registry entry. */
struct litmus_user litmus_user_self(void);
/* Process or thread pid as an entry (its start time read now). */
struct litmus_user litmus_user_of(pid_t pid);
/* Whether the entry's process still runs (same pid and, when known, same start time). */
bool litmus_user_alive(const struct litmus_user *u);
/* Add self (once): 0, or ENOSPC when all n entries are live. */
int litmus_users_add(struct litmus_user *users, int n, const struct litmus_user *self);
/* Remove self's entry (if any). */
void litmus_users_remove(struct litmus_user *users, int n, const struct litmus_user *self);
/* Empty the entries of dead processes; the number of live ones left. */
int litmus_users_prune(struct litmus_user *users, int n);

#endif
