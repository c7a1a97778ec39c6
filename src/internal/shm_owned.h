/* SPDX-License-Identifier: MIT */
/*
 * Opening a POSIX shared-memory object whose contents the library will trust
 * (lock domains, the LITMUS layer's tables; issue 33). /dev/shm is writable by
 * every user, so a name may already be held by another user's object, made
 * to be joined: a squatted name. An object is accepted only if
 *   - it is a regular file reached without following a symbolic link
 *     (O_NOFOLLOW), checked with fstat on the open descriptor;
 *   - it belongs to the caller's effective uid, or to root;
 *   - its mode grants nothing the caller did not ask for (mode & ~wanted == 0).
 * A refusal is immediate (no waiting for a creator), EACCES, with a one-line
 * explanation naming the object, its owner and mode, and what to do.
 */
#ifndef RTS_INTERNAL_SHM_OWNED_H
#define RTS_INTERNAL_SHM_OWNED_H

#include <stddef.h>
#include <sys/types.h>

#define RTS_SHM_WHY_MAX 768

/*
 * shm_open(name, oflag | O_NOFOLLOW | O_CLOEXEC, mode), then the checks
 * above against `mode` (the permissions the caller asked for). 0 and *fd;
 * or an error number (errno of shm_open, EACCES for a refusal, EINVAL for an
 * object that is not a regular file) with `why` filled in (why_size bytes,
 * may be NULL). An object made with O_CREAT | O_EXCL gets exactly `mode`
 * (fchmod: the umask does not narrow it).
 */
int rts_shm_open_owned(const char *name, int oflag, mode_t mode, int *fd, char *why,
		       size_t why_size);

#endif
