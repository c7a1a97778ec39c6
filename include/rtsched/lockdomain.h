/* SPDX-License-Identifier: MIT */
/*
 * Lock domains: where the ceiling protocols keep their per-partition state
 * (system ceilings, their holders, ceiling tokens, FMLP+ request clocks), and
 * the scope of RTS_PROTO_FIFO mutexes and their condvars (wait-queue records
 * and queue locks; docs/fifo-mutex.md). Process-shared FIFO mutexes need a
 * named domain too.
 *
 * Process-private ceiling mutexes use the process's own domain and need
 * nothing from here. Ceiling mutexes shared between processes (mutex in
 * shared memory, RTS_PROCESS_SHARED) need a named domain that every process
 * using them opens: a POSIX shared-memory object "/rtsched-lockdomain.NAME".
 *
 *   rts_lockdomain_t *d;
 *   rts_lockdomain_open("plant", RTS_LOCKDOMAIN_CREATE, 0600, &d);
 *   rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED);
 *   rts_mutexattr_setdomain(&a, d);
 *
 * Functions return 0 or a positive error number.
 */
#ifndef RTSCHED_LOCKDOMAIN_H
#define RTSCHED_LOCKDOMAIN_H

#include <sys/types.h>

#include <rtsched/mutex.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTS_LOCKDOMAIN_CREATE 0x1 /* create it if it does not exist */
#define RTS_LOCKDOMAIN_NAME_MAX 200
#define RTS_LOCKDOMAIN_DEFAULT_MODE 0600 /* mode 0 means this: owner only */

/*
 * Open (or with RTS_LOCKDOMAIN_CREATE create, with permissions `mode`, 0
 * for RTS_LOCKDOMAIN_DEFAULT_MODE) the domain NAME: [A-Za-z0-9_.-], 1..RTS_LOCKDOMAIN_NAME_MAX
 * characters. EINVAL (bad name, flags or mode; or the name is not a regular
 * file), ENOENT (no such domain and no CREATE), EACCES (see below), EPROTO
 * (the object is not an rtsched lock domain of this version), EMFILE
 * (RTS_LOCKDOMAIN_MAX_OPEN domains already open in this process), EBUSY
 * (already open in this process), ENOMEM.
 *
 * An existing domain is joined only if it belongs to the caller's effective
 * uid (or to root) and its mode grants nothing beyond `mode` (a domain made
 * 0660 must be opened with 0660): a name held by another user's object, or
 * widened since, is refused at once with EACCES, never joined, since its
 * contents steer the caller's locks (docs/shared-state.md). Symbolic links
 * are not followed. Domains are therefore per user; processes of one user
 * share them.
 */
#define RTS_LOCKDOMAIN_MAX_OPEN 16
int rts_lockdomain_open(const char *name, int flags, mode_t mode, rts_lockdomain_t **domain);
/*
 * Copy into buf (size bytes, truncated) why the process's last
 * rts_lockdomain_open failed, one line naming the object, its owner uid and
 * mode and what to do (e.g. "... is owned by uid 1001 (mode 0666), not by
 * this process's uid 0 ...: choose another name"); "" after a success or for
 * errors with nothing to add. 0, or EINVAL (no buffer).
 */
int rts_lockdomain_open_error(char *buf, size_t size);
/*
 * Unmap it from this process. EBUSY while any of its ceilings is held, or a
 * thread waits on one of its RTS_PROTO_FIFO objects (by any process).
 */
int rts_lockdomain_close(rts_lockdomain_t *domain);
/* Remove the name (processes that have it open keep using it). */
int rts_lockdomain_unlink(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_LOCKDOMAIN_H */
