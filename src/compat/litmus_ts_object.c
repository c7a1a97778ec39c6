/* SPDX-License-Identifier: MIT */
/* The release word's shared object: map, register, leave, reclaim (litmus_ts_object.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/shm_owned.h"
#include "litmus_internal.h"
#include "litmus_ts_object.h"

#define LITMUS_TS_MODE 0600
#define OPEN_TRIES 100 /* objects unlinked under the opener's feet */

static pthread_mutex_t ts_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under ts_lock: the mapping, the object's inode and the process registered in it. */
static struct litmus_ts *ts_shared;
static ino_t ts_ino;
static pid_t ts_pid;
static char ts_name[128];

static void flock_wait(int fd, int op)
{
	while (flock(fd, op) != 0 && errno == EINTR)
		;
}

/* Unlock, then close (the mapping keeps the open file description, and its flock, alive). */
static void unlock_close(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

static void name_of_caller(void)
{
	const char *env = getenv("RTSCHED_LITMUS_TS_NAME");
	if (env && *env)
		snprintf(ts_name, sizeof(ts_name), "/%s", env);
	else
		snprintf(ts_name, sizeof(ts_name), "/rtsched-litmus-ts.%u", (unsigned)geteuid());
}

/*
 * One try, holding the flock of the open object fd: map it and register.
 * 0; EAGAIN (unlinked meanwhile, or of another layout and unlinked now: try
 * again); or an error with why filled in.
 */
static int join_locked(int fd, char *why, size_t why_size)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_nlink == 0)
		return EAGAIN;
	if (st.st_size != 0 && (size_t)st.st_size != sizeof(struct litmus_ts)) {
		shm_unlink(ts_name); /* an older rtsched's layout, not ours to read */
		return EAGAIN;
	}
	if (st.st_size == 0 && ftruncate(fd, sizeof(struct litmus_ts)) != 0) {
		snprintf(why, why_size, "/dev/shm%s: %s", ts_name, strerror(errno));
		return errno;
	}
	struct litmus_ts *p =
		mmap(NULL, sizeof(struct litmus_ts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_size, "/dev/shm%s: %s", ts_name, strerror(errno));
		return errno;
	}
	if (litmus_users_prune(p->users, LITMUS_TS_USERS_MAX) == 0)
		memset(p, 0, sizeof(*p)); /* its users crashed: nobody waits, nothing was released */
	struct litmus_user self = litmus_user_self();
	if (litmus_users_add(p->users, LITMUS_TS_USERS_MAX, &self) != 0) {
		munmap(p, sizeof(*p));
		snprintf(why, why_size, "/dev/shm%s: %d processes use it already", ts_name,
			 LITMUS_TS_USERS_MAX);
		return ENOSPC;
	}
	ts_shared = p;
	ts_ino = st.st_ino;
	ts_pid = getpid();
	return 0;
}

/* Map the caller's object (made if missing, when create) and register. Under ts_lock. */
static int ts_open(bool create, char *why, size_t why_size)
{
	name_of_caller();
	int err = EAGAIN;
	for (int tries = 0; err == EAGAIN && tries < OPEN_TRIES; tries++) {
		int fd;
		err = create ? rts_shm_open_owned(ts_name, O_RDWR | O_CREAT | O_EXCL, LITMUS_TS_MODE,
						  &fd, why, why_size)
			     : EEXIST;
		if (err == EEXIST)
			err = rts_shm_open_owned(ts_name, O_RDWR, LITMUS_TS_MODE, &fd, why, why_size);
		if (err == ENOENT && create)
			err = EAGAIN; /* unlinked between the two opens */
		if (err)
			continue;
		flock_wait(fd, LOCK_EX);
		err = join_locked(fd, why, why_size);
		unlock_close(fd);
	}
	if (err == EAGAIN)
		snprintf(why, why_size, "/dev/shm%s: removed %d times while this process joined it",
			 ts_name, OPEN_TRIES);
	return err;
}

/*
 * Deregister under the object's flock while it is still the name's object;
 * the last live user unlinks it. Under ts_lock.
 */
static void ts_deregister(void)
{
	int fd;
	if (ts_pid != getpid() ||
	    rts_shm_open_owned(ts_name, O_RDWR, LITMUS_TS_MODE, &fd, NULL, 0) != 0)
		return; /* a forked child that never used it; or the name is gone */
	struct stat st;
	flock_wait(fd, LOCK_EX);
	if (fstat(fd, &st) == 0 && st.st_ino == ts_ino && st.st_nlink > 0) {
		struct litmus_user self = litmus_user_self();
		litmus_users_remove(ts_shared->users, LITMUS_TS_USERS_MAX, &self);
		if (litmus_users_prune(ts_shared->users, LITMUS_TS_USERS_MAX) == 0)
			shm_unlink(ts_name);
	}
	unlock_close(fd);
	ts_pid = 0;
}

/*
 * A normal exit without exit_litmus: leave, keeping the mapping for threads
 * still running (one inside ts_lock: the process stays registered, and the
 * next user reclaims the object once this one is gone).
 */
static void ts_leave_at_exit(void)
{
	if (pthread_mutex_trylock(&ts_lock) != 0)
		return;
	if (ts_shared)
		ts_deregister();
	pthread_mutex_unlock(&ts_lock);
}

void litmus_ts_leave_for_exec(void)
{
	if (__atomic_load_n(&ts_pid, __ATOMIC_RELAXED) != getpid())
		return; /* never registered, or a vfork child sharing the parent's memory */
	ts_leave_at_exit();
}

static void ts_exit_handler(void)
{
	atexit(ts_leave_at_exit);
}

/* A forked child joins the object its parent mapped, or maps the name's object anew. Under ts_lock. */
static int ts_adopt(bool create, char *why, size_t why_size)
{
	int fd;
	if (rts_shm_open_owned(ts_name, O_RDWR, LITMUS_TS_MODE, &fd, NULL, 0) == 0) {
		struct stat st;
		int err = ESTALE;
		flock_wait(fd, LOCK_EX);
		if (fstat(fd, &st) == 0 && st.st_ino == ts_ino && st.st_nlink > 0) {
			struct litmus_user self = litmus_user_self();
			litmus_users_prune(ts_shared->users, LITMUS_TS_USERS_MAX);
			err = litmus_users_add(ts_shared->users, LITMUS_TS_USERS_MAX, &self);
		}
		unlock_close(fd);
		if (err == 0) {
			ts_pid = getpid();
			return 0;
		}
	}
	munmap(ts_shared, sizeof(*ts_shared));
	ts_shared = NULL;
	return ts_open(create, why, why_size);
}

static struct litmus_ts *ts_get(bool create, int *err, char *why, size_t why_size)
{
	static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
	pthread_once(&exit_once, ts_exit_handler);
	*err = 0;
	pthread_mutex_lock(&ts_lock);
	if (!ts_shared)
		*err = ts_open(create, why, why_size);
	else if (ts_pid != getpid())
		*err = ts_adopt(create, why, why_size);
	struct litmus_ts *ts = *err ? NULL : ts_shared;
	pthread_mutex_unlock(&ts_lock);
	return ts;
}

struct litmus_ts *litmus_ts_get(int *err, char *why, size_t why_size)
{
	return ts_get(true, err, why, why_size);
}

struct litmus_ts *litmus_ts_find(void)
{
	char why[RTS_SHM_WHY_MAX];
	int err;
	return ts_get(false, &err, why, sizeof(why));
}

int litmus_ts_locked(int (*fn)(struct litmus_ts *ts, void *arg), void *arg)
{
	char why[RTS_SHM_WHY_MAX] = "";
	int err, fd = -1;
	struct litmus_ts *ts = litmus_ts_get(&err, why, sizeof(why));
	if (ts)
		err = rts_shm_open_owned(ts_name, O_RDWR, LITMUS_TS_MODE, &fd, why, sizeof(why));
	if (!ts || err)
		return litmus_fail(err, "%s", why[0] ? why : strerror(err));
	flock_wait(fd, LOCK_EX);
	int ret = fn(ts, arg);
	unlock_close(fd);
	return ret;
}

void litmus_ts_close(void)
{
	pthread_mutex_lock(&ts_lock);
	if (ts_shared) {
		ts_deregister();
		munmap(ts_shared, sizeof(*ts_shared));
		ts_shared = NULL;
	}
	pthread_mutex_unlock(&ts_lock);
}
