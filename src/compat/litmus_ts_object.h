/* SPDX-License-Identifier: MIT */
/*
 * The shared object of the synchronous release and of the admissions of
 * another process's threads (litmus_ts_object.c): one
 * POSIX shared-memory object per user ("/rtsched-litmus-ts.UID", or "/"
 * RTSCHED_LITMUS_TS_NAME), mode 0600, joined only if it is the caller's (or
 * root's) and no wider (internal/shm_owned.h).
 *
 * Its lifetime follows its users, as a lock table's does (litmus_table.h):
 * the processes that use it are registered in it (litmus_users.h), and the
 * registry is changed, and the object unlinked, only under flock(2) on the
 * object and only while it is still linked:
 *   - the last live user to leave (exit_litmus, or a normal exit) unlinks it;
 *   - an opener that finds no live user (they crashed) starts it afresh: its
 *     release word and times are zeroed, so dead waiters are not counted;
 *   - a forked child registers at its first use of the inherited mapping.
 * So a crash leaves the object only until the next user of its name.
 */
#ifndef RTS_LITMUS_TS_OBJECT_H
#define RTS_LITMUS_TS_OBJECT_H

#include <stddef.h>
#include <stdint.h>

#include "internal/futex.h"
#include "litmus.h"
#include "litmus_users.h"

#define LITMUS_TS_SLOTS 16
#define LITMUS_ADMISSIONS_MAX 64 /* threads given parameters by another process, at once */

enum litmus_admission_state {
	LITMUS_ADMISSION_FREE = 0,
	LITMUS_ADMISSION_PARAMS = 1,    /* set_rt_task_param from another process */
	LITMUS_ADMISSION_REQUESTED = 2, /* sched_setscheduler(SCHED_LITMUS) from another process */
	LITMUS_ADMISSION_ADMITTED = 3,  /* the thread became the task (litmus_admission.c) */
};

/* A thread of some process and the task another process made of it; changed under the flock. */
struct litmus_admission {
	struct litmus_user thread; /* its TID and start time; pid <= 0: free */
	uint32_t state;            /* enum litmus_admission_state */
	uint32_t reserved;
	struct rt_task params;
};

/* Zero-filled (a new or reclaimed object) is "generation 0, nobody waiting". */
struct litmus_ts {
	rts_futex_word word; /* litmus_release.c */
	uint32_t reserved;
	_Atomic int64_t release_ns[LITMUS_TS_SLOTS];
	struct litmus_user users[LITMUS_TS_USERS_MAX]; /* under the object's flock */
	struct litmus_admission admissions[LITMUS_ADMISSIONS_MAX];
};

/* The caller's object, mapped and the process registered; NULL with why filled in and *err set. */
struct litmus_ts *litmus_ts_get(int *err, char *why, size_t why_size);
/* As litmus_ts_get, but NULL (no error) when no object of the name exists: none is made. */
struct litmus_ts *litmus_ts_find(void);
/*
 * Call fn on the object under its flock (litmus_ts_get's object): fn's
 * result, or -1 via litmus_fail when the object cannot be had.
 */
int litmus_ts_locked(int (*fn)(struct litmus_ts *ts, void *arg), void *arg);
/* Leave it at an exec, as at a normal exit: the new image joins again if it uses it. */
void litmus_ts_leave_for_exec(void);
/* Leave it (exit_litmus): deregister, unmap; the last live user unlinks it. */
void litmus_ts_close(void);

#endif
