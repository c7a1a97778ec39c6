/* SPDX-License-Identifier: MIT */
/*
 * The shared table of a LITMUS lock file: attach, adopt, detach, reclaim
 * (litmus_table.h has the rules).
 *
 * Why no two live processes use different tables (or domains) for one file:
 * a table is registered in, and unlinked, only under its flock and only
 * while linked; a remover unlinks only a table without a live user, and an
 * attacher registers only in a table it found linked under the flock. So a
 * registered process's table stays the name's table until it leaves, and
 * every later attacher joins it. The domain's name carries the table's
 * nonce: a new table never joins the domain of an old one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "internal/shm_owned.h"
#include "litmus_internal.h"
#include "litmus_table.h"

#define SHM_PREFIX "rtsched-litmus-lk."
#define READY_WAIT_MS 2000 /* a creator between O_EXCL and its flock, or one that died there */
#define ATTACH_TRIES 100   /* tables removed under the attacher's feet */
#define LEFTOVER_DOMAINS 16

/*
 * Domains this process could not close (another process's entries were on
 * them: rts_lockdomain_close says EBUSY); reused if this process attaches to
 * the same table again, since a domain opens only once per process.
 */
static struct {
	char name[48];
	rts_lockdomain_t *domain;
} leftovers[LEFTOVER_DOMAINS];

int litmus_file_identify(int fd, struct litmus_file_id *id)
{
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) != 0)
		return errno;
	*id = (struct litmus_file_id){
		.dev = (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor),
		.ino = sx.stx_ino,
	};
	if (sx.stx_mask & STATX_BTIME) {
		id->has_btime = 1;
		id->btime_sec = sx.stx_btime.tv_sec;
		id->btime_nsec = sx.stx_btime.tv_nsec;
	}
	return 0;
}

static bool same_file(const struct litmus_file_id *a, const struct litmus_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->has_btime == b->has_btime &&
	       a->btime_sec == b->btime_sec && a->btime_nsec == b->btime_nsec;
}

static void domain_name_of(uint64_t nonce, char *buf, size_t size)
{
	snprintf(buf, size, "litmus.%016llx", (unsigned long long)nonce);
}

static void flock_wait(int fd, int op)
{
	while (flock(fd, op) != 0 && errno == EINTR)
		;
}

/*
 * Unlock, then close: a mapping made from fd keeps its open file description,
 * and with it the flock, alive after close.
 */
static void unlock_close(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

/*
 * Under the object's flock: unlink it and its domain: the table's own when
 * its layout is this one, else the domain an older rtsched named after the
 * file ("litmus.DEV.INO", from the table's name "/rtsched-litmus-lk.DEV.INO").
 */
static void table_remove(const char *name, const struct lock_table *t)
{
	char domain[RTS_LOCKDOMAIN_NAME_MAX + 1];
	shm_unlink(name);
	if (t)
		domain_name_of(t->nonce, domain, sizeof(domain));
	else
		snprintf(domain, sizeof(domain), "litmus.%.64s", name + strlen("/" SHM_PREFIX));
	rts_lockdomain_unlink(domain);
}

enum verdict { TABLE_LIVE, TABLE_STALE, TABLE_UNREADY, TABLE_GONE };

/*
 * Under the object's flock: what the object is. *map: the table mapped
 * (TABLE_LIVE, and TABLE_STALE when its layout is this one), else NULL.
 * Prunes the registry of dead processes.
 */
static enum verdict judge(int fd, struct lock_table **map)
{
	*map = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_nlink == 0)
		return TABLE_GONE;
	if (st.st_size == 0)
		return TABLE_UNREADY;
	if ((size_t)st.st_size != sizeof(struct lock_table))
		return TABLE_STALE; /* another layout (an older rtsched) */
	struct lock_table *t =
		mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return TABLE_GONE;
	if (!atomic_load_explicit(&t->ready, memory_order_acquire)) {
		munmap(t, sizeof(*t));
		return TABLE_UNREADY;
	}
	if (t->version != LITMUS_TABLE_VERSION) {
		munmap(t, sizeof(*t));
		return TABLE_STALE;
	}
	*map = t;
	return litmus_users_prune(t->users, LITMUS_USERS_MAX) > 0 ? TABLE_LIVE : TABLE_STALE;
}

static uint64_t new_nonce(void)
{
	uint64_t n = 0;
	while (n == 0)
		if (getrandom(&n, sizeof(n), 0) != sizeof(n))
			n = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)clock();
	return n;
}

/* The creator, holding the flock of the new (empty) object: lay out the table, register. */
static int table_create(int fd, const struct litmus_file_id *id, const struct litmus_user *self,
			struct lock_table **out)
{
	if (ftruncate(fd, sizeof(struct lock_table)) != 0)
		return errno;
	struct lock_table *t =
		mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return errno;
	t->version = LITMUS_TABLE_VERSION;
	t->nonce = new_nonce();
	t->file = *id;
	rts_mutexattr_t a;
	rts_mutexattr_init(&a);
	rts_mutexattr_setprotocol(&a, RTS_PROTO_PIP);
	rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED);
	rts_mutexattr_setrobust(&a, RTS_MUTEX_ROBUST); /* a process killed inside od_open */
	int err = rts_mutex_init(&t->guard, &a);
	rts_mutexattr_destroy(&a);
	if (err) {
		munmap(t, sizeof(*t));
		return err;
	}
	litmus_users_add(t->users, LITMUS_USERS_MAX, self);
	atomic_store_explicit(&t->ready, 1, memory_order_release);
	*out = t;
	return 0;
}

/*
 * One try to join or make the table `name`: 0 (*out mapped, self
 * registered), EAGAIN (try again), or an error with why filled in.
 */
static int table_try(const char *name, const struct litmus_file_id *id,
		     const struct litmus_user *self, int unready_ms, struct lock_table **out,
		     ino_t *shm_ino, char *why, size_t why_size)
{
	int fd = -1;
	int err = rts_shm_open_owned(name, O_RDWR | O_CREAT | O_EXCL, 0600, &fd, why, why_size);
	if (err == 0) {
		flock_wait(fd, LOCK_EX);
		err = table_create(fd, id, self, out);
		if (err)
			shm_unlink(name);
	} else if (err == EEXIST) {
		err = rts_shm_open_owned(name, O_RDWR, 0600, &fd, why, why_size);
		if (err)
			return err == ENOENT ? EAGAIN : err;
		flock_wait(fd, LOCK_EX);
		struct lock_table *t;
		enum verdict v = judge(fd, &t);
		if (v == TABLE_UNREADY && unready_ms >= READY_WAIT_MS)
			v = TABLE_STALE; /* its creator died before finishing it */
		if (v == TABLE_LIVE && !same_file(&t->file, id)) {
			snprintf(why, why_size, "/dev/shm%s belongs to another file of this device and "
						"inode that live processes still use", name);
			err = EBUSY;
		} else if (v == TABLE_LIVE) {
			err = litmus_users_add(t->users, LITMUS_USERS_MAX, self);
			if (err)
				snprintf(why, why_size, "/dev/shm%s: %d processes use this lock file "
							"already", name, LITMUS_USERS_MAX);
		} else {
			if (v == TABLE_STALE)
				table_remove(name, t);
			err = v == TABLE_UNREADY ? EINPROGRESS : EAGAIN;
		}
		if (err && t)
			munmap(t, sizeof(*t));
		if (!err)
			*out = t;
	}
	if (fd >= 0) {
		struct stat st;
		if (!err && fstat(fd, &st) == 0)
			*shm_ino = st.st_ino;
		unlock_close(fd);
	}
	return err;
}

/* Reclaim the stale table `name` of some other file, if nobody holds its flock. */
static void reclaim_one(const char *name)
{
	int fd;
	if (rts_shm_open_owned(name, O_RDWR, 0600, &fd, NULL, 0) != 0)
		return; /* gone, or another user's: not ours to judge */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		struct lock_table *t;
		if (judge(fd, &t) == TABLE_STALE)
			table_remove(name, t);
		if (t)
			munmap(t, sizeof(*t));
	}
	unlock_close(fd);
}

/* The stale tables of every file (a deleted file's table has no next user of its own). */
static void reclaim_others(const char *mine)
{
	DIR *dir = opendir("/dev/shm");
	if (!dir)
		return;
	struct dirent *e;
	char name[NAME_MAX + 2];
	while ((e = readdir(dir)) != NULL) {
		if (strncmp(e->d_name, SHM_PREFIX, strlen(SHM_PREFIX)) != 0)
			continue;
		snprintf(name, sizeof(name), "/%s", e->d_name);
		if (strcmp(name, mine) != 0)
			reclaim_one(name);
	}
	closedir(dir);
}

static int domain_open(struct litmus_table_ref *ref, char *why, size_t why_size)
{
	domain_name_of(ref->table->nonce, ref->domain_name, sizeof(ref->domain_name));
	for (int i = 0; i < LEFTOVER_DOMAINS; i++) {
		if (leftovers[i].domain && strcmp(leftovers[i].name, ref->domain_name) == 0) {
			ref->domain = leftovers[i].domain;
			leftovers[i].domain = NULL;
			return 0;
		}
	}
	int err = rts_lockdomain_open(ref->domain_name, RTS_LOCKDOMAIN_CREATE, 0, &ref->domain);
	if (err)
		rts_lockdomain_open_error(why, why_size);
	return err;
}

static void domain_close(struct litmus_table_ref *ref)
{
	if (rts_lockdomain_close(ref->domain) != EBUSY)
		return;
	for (int i = 0; i < LEFTOVER_DOMAINS; i++) {
		if (!leftovers[i].domain) {
			snprintf(leftovers[i].name, sizeof(leftovers[i].name), "%s", ref->domain_name);
			leftovers[i].domain = ref->domain;
			return;
		}
	}
}

/* Leave the table: deregister under its flock; the last live user removes it. */
static void deregister(struct litmus_table_ref *ref)
{
	int fd;
	if (rts_shm_open_owned(ref->shm_name, O_RDWR, 0600, &fd, NULL, 0) != 0)
		return;
	struct stat st;
	flock_wait(fd, LOCK_EX);
	if (fstat(fd, &st) == 0 && st.st_ino == ref->shm_ino && st.st_nlink > 0) {
		struct litmus_user self = litmus_user_self();
		litmus_users_remove(ref->table->users, LITMUS_USERS_MAX, &self);
		if (litmus_users_prune(ref->table->users, LITMUS_USERS_MAX) == 0)
			table_remove(ref->shm_name, ref->table);
	}
	unlock_close(fd);
}

static void release(struct litmus_table_ref *ref)
{
	if (ref->domain)
		domain_close(ref);
	munmap(ref->table, sizeof(struct lock_table));
	if (ref->pin_fd >= 0)
		close(ref->pin_fd);
	*ref = (struct litmus_table_ref){ .pin_fd = -1 };
}

int litmus_table_attach(int fd, const struct litmus_file_id *id, struct litmus_table_ref *ref)
{
	char why[RTS_SHM_WHY_MAX] = "";
	*ref = (struct litmus_table_ref){ .file = *id, .pin_fd = -1 };
	snprintf(ref->shm_name, sizeof(ref->shm_name), "/" SHM_PREFIX "%llx.%llx",
		 (unsigned long long)id->dev, (unsigned long long)id->ino);
	reclaim_others(ref->shm_name);
	struct litmus_user self = litmus_user_self();
	int unready_ms = 0, err = EAGAIN;
	for (int tries = 0; (err == EAGAIN && tries < ATTACH_TRIES) || err == EINPROGRESS; tries++) {
		if (err == EINPROGRESS) { /* its creator is laying it out: look again in 1 ms */
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
			unready_ms++;
		}
		err = table_try(ref->shm_name, id, &self, unready_ms, &ref->table, &ref->shm_ino,
				why, sizeof(why));
	}
	if (err == EAGAIN)
		snprintf(why, sizeof(why), "removed %d times while this process joined it",
			 ATTACH_TRIES);
	if (err)
		return litmus_fail(err, "lock table %s: %s", ref->shm_name,
				   why[0] ? why : strerror(err));
	ref->pid = getpid();
	ref->pin_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	err = domain_open(ref, why, sizeof(why));
	if (err) {
		char domain[sizeof(ref->domain_name)];
		memcpy(domain, ref->domain_name, sizeof(domain));
		litmus_table_detach(ref);
		return litmus_fail(err, "lock domain %s: %s", domain, why[0] ? why : strerror(err));
	}
	return 0;
}

int litmus_table_adopt(struct litmus_table_ref *ref)
{
	int fd, err = ESTALE;
	if (rts_shm_open_owned(ref->shm_name, O_RDWR, 0600, &fd, NULL, 0) == 0) {
		struct stat st;
		flock_wait(fd, LOCK_EX);
		if (fstat(fd, &st) == 0 && st.st_ino == ref->shm_ino && st.st_nlink > 0) {
			struct litmus_user self = litmus_user_self();
			litmus_users_prune(ref->table->users, LITMUS_USERS_MAX);
			err = litmus_users_add(ref->table->users, LITMUS_USERS_MAX, &self);
		}
		unlock_close(fd);
	}
	if (err) {
		release(ref);
		return -1;
	}
	ref->pid = getpid();
	return 0;
}

void litmus_table_leave(struct litmus_table_ref *ref)
{
	if (ref->table)
		deregister(ref);
}

void litmus_table_detach(struct litmus_table_ref *ref)
{
	if (!ref->table)
		return;
	deregister(ref);
	release(ref);
}
