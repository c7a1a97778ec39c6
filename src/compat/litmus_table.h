/* SPDX-License-Identifier: MIT */
/*
 * The shared table of a LITMUS lock file (litmus_table.c): its layout, and
 * how a process attaches to it and leaves it.
 *
 * A table is POSIX shm "/rtsched-litmus-lk.DEV.INO", named by the lock
 * file's device and inode, and records the file's identity (device, inode,
 * birth time) and the processes attached (litmus_users.h). Each table
 * generation has its own lock domain "litmus.NONCE" (a random number the
 * creator draws), where the ceiling protocols keep their per-partition state.
 * The name, the registry and unlinking are changed only under flock(2) on
 * the table object, and only while the object is still linked (st_nlink 1):
 *   - an attacher registers in a linked table that has a live user and the
 *     file's identity; a table whose users are all dead, or of another
 *     layout, is stale: it is unlinked with its domain and made afresh (so a
 *     crash leaves objects only until the next user of the file);
 *   - a leaving process (exit_litmus, or an atexit handler at a normal exit)
 *     deregisters; the last live user unlinks the table and its domain;
 *   - every attacher also reclaims the stale tables of other files (a file
 *     deleted after its users crashed has no next user of its own).
 * A user keeps the lock file open while attached, so its inode cannot be
 * reused by a new file while the table is live: identity holds even where
 * the file system reports no birth time.
 */
#ifndef RTS_LITMUS_TABLE_H
#define RTS_LITMUS_TABLE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>

#include "litmus_users.h"

#define LITMUS_LOCKS_PER_FILE 64
#define LITMUS_TABLE_VERSION 2u /* 2: identity, registry and a domain per generation */

struct lock_slot {
	uint32_t used;
	int32_t id;
	int32_t type;      /* obj_type_t */
	int32_t partition; /* PCP, SRP: the CPU; -1 otherwise */
	int32_t ceiling;
	int32_t reserved[11];
	rts_mutex_t mutex;
};

/* A lock file's identity; birth time only where statx reports it (has_btime). */
struct litmus_file_id {
	uint64_t dev;
	uint64_t ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
	uint32_t has_btime;
};

struct lock_table {
	_Atomic uint32_t ready; /* set last by the creator, under the flock */
	uint32_t version;       /* LITMUS_TABLE_VERSION */
	uint64_t nonce;         /* names the lock domain: "litmus.%016llx" */
	struct litmus_file_id file;
	uint32_t reserved[8];
	struct litmus_user users[LITMUS_USERS_MAX]; /* under the object's flock */
	rts_mutex_t guard;                          /* slots change only under it (robust PIP) */
	struct lock_slot slots[LITMUS_LOCKS_PER_FILE];
};

/* This process's attachment to one table. */
struct litmus_table_ref {
	struct lock_table *table; /* NULL: unused */
	rts_lockdomain_t *domain;
	struct litmus_file_id file;
	ino_t shm_ino; /* the table object's inode: is the name still ours? */
	int pin_fd;    /* the lock file, kept open while attached */
	pid_t pid;     /* the registered process (a forked child must register too) */
	char shm_name[64];
	char domain_name[48];
};

/* The identity of the open file fd: 0 or an errno. */
int litmus_file_identify(int fd, struct litmus_file_id *id);
/* Attach to (or make) the table of file fd: 0, or -1 via litmus_fail. */
int litmus_table_attach(int fd, const struct litmus_file_id *id, struct litmus_table_ref *ref);
/* A forked child registers in its parent's table: 0, or -1 (the table is gone; ref is released). */
int litmus_table_adopt(struct litmus_table_ref *ref);
/*
 * At exit: deregister (the last live user removes the table and its domain)
 * but keep the mapping, which threads still running may use.
 */
void litmus_table_leave(struct litmus_table_ref *ref);
/* Deregister as litmus_table_leave, then unmap: ref becomes unused. */
void litmus_table_detach(struct litmus_table_ref *ref);

#endif
