/* SPDX-License-Identifier: MIT */
/* Opening a shared-memory object only if it is the caller's (internal/shm_owned.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/shm_owned.h"

static void explain(char *why, size_t why_size, const char *fmt, const char *name,
		    const struct stat *st, mode_t mode)
{
	if (!why || !why_size)
		return;
	snprintf(why, why_size, fmt, name, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
		 (unsigned)geteuid(), (unsigned)mode, name);
}

int rts_shm_open_owned(const char *name, int oflag, mode_t mode, int *fd, char *why,
		       size_t why_size)
{
	if (why && why_size)
		why[0] = '\0';
	int opened = shm_open(name, oflag | O_NOFOLLOW | O_CLOEXEC, mode);
	if (opened < 0) {
		int err = errno;
		if (why && why_size)
			snprintf(why, why_size, "/dev/shm%s: %s", name, strerror(err));
		return err;
	}
	struct stat st;
	if (fstat(opened, &st) != 0) {
		int err = errno;
		close(opened);
		return err;
	}
	int err = 0;
	if (!S_ISREG(st.st_mode)) {
		err = EINVAL;
		explain(why, why_size,
			"/dev/shm%s is not a regular file (owner uid %u, mode %04o; this process: uid "
			"%u, mode %04o): choose another name or remove /dev/shm%s",
			name, &st, mode);
	} else if (st.st_uid != geteuid() && st.st_uid != 0) {
		err = EACCES;
		explain(why, why_size,
			"/dev/shm%s is owned by uid %u (mode %04o), not by this process's uid %u "
			"(asked for mode %04o): another user holds the name; choose another name "
			"(e.g. with your uid in it), or have its owner remove /dev/shm%s",
			name, &st, mode);
	} else if (st.st_mode & 07777 & ~mode) {
		err = EACCES;
		explain(why, why_size,
			"/dev/shm%s (owner uid %u) has mode %04o, wider than this process (uid %u) "
			"asked for (%04o): open it with that mode, or choose another name, or remove "
			"/dev/shm%s",
			name, &st, mode);
	} else if ((oflag & O_EXCL) && fchmod(opened, mode) != 0) {
		err = errno; /* exactly the mode asked for: not narrowed by the umask */
	}
	if (err) {
		close(opened);
		return err;
	}
	*fd = opened;
	return 0;
}
