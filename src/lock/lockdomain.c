/* SPDX-License-Identifier: MIT */
/*
 * Lock domains: the process's own (allocated at first use) and named ones in
 * POSIX shared memory, found by id from a small table of this process's open
 * domains.
 *
 * A domain holds the ceiling protocols' partitions and the FIFO mutex's
 * scope (internal/fifo_scope.h); close refuses (EBUSY) while either is in use.
 *
 * Invariants: a table slot is written under table_lock and read without it
 * (acquire loads of the pointer, published after its id); a named domain's
 * magic is written last by its creator (release), so an opener that sees
 * the magic sees an initialised domain.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/lockdomain.h>

#include "internal/ceiling.h"
#include "internal/export.h"
#include "internal/shm_owned.h"

#define DOMAIN_MAGIC 0x4c4b444du /* "LKDM" */
#define DOMAIN_VERSION 4u /* 2: partition guards are PI words; 3: FIFO-mutex scope; 4: FMLP+ ticket claims */
#define OPEN_WAIT_TRIES 100 /* x 10 ms: a creator still initialising it */

struct open_domain {
	_Atomic uint32_t id;
	_Atomic(struct rts_lockdomain *) domain;
};

static struct open_domain table[RTS_LOCKDOMAIN_MAX_OPEN];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic(struct rts_lockdomain *) rts_lockdomain_own;
static _Atomic int named_open; /* how many table slots are in use */
static pthread_once_t own_once = PTHREAD_ONCE_INIT;
/*
 * Why the process's last rts_lockdomain_open failed ("" if it succeeded),
 * under why_lock: kept per process, not per thread, since the library's
 * thread-local space is small and fixed (initial-exec, scripts/check-tls-model).
 */
static char open_why[RTS_SHM_WHY_MAX];
static pthread_mutex_t why_lock = PTHREAD_MUTEX_INITIALIZER;

static void domain_init(struct rts_lockdomain *d, uint32_t id, bool pshared)
{
	for (int i = 0; i < RTS_LOCK_MAX_PARTITIONS; i++)
		d->partitions[i].pshared = pshared; /* guard: 0, free */
	d->version = DOMAIN_VERSION;
	d->id = id;
	d->pshared = pshared;
	d->fifo.pshared = pshared;
	atomic_store_explicit((_Atomic uint32_t *)&d->magic, DOMAIN_MAGIC, memory_order_release);
}

static void own_domain_create(void)
{
	struct rts_lockdomain *d = aligned_alloc(64, sizeof(*d));
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	domain_init(d, 0, false);
	atomic_store_explicit(&rts_lockdomain_own, d, memory_order_release);
}

struct rts_lockdomain *rts_lockdomain_find_slow(uint32_t id)
{
	if (id == 0) {
		pthread_once(&own_once, own_domain_create);
		return atomic_load_explicit(&rts_lockdomain_own, memory_order_acquire);
	}
	for (int i = 0; i < RTS_LOCKDOMAIN_MAX_OPEN; i++)
		if (atomic_load_explicit(&table[i].id, memory_order_relaxed) == id)
			return atomic_load_explicit(&table[i].domain, memory_order_acquire);
	return NULL;
}

bool rts_lockdomain_any(void)
{
	return atomic_load_explicit(&rts_lockdomain_own, memory_order_relaxed) != NULL ||
	       atomic_load_explicit(&named_open, memory_order_relaxed) > 0;
}

void rts_lockdomain_each(void (*fn)(struct rts_lockdomain *domain, void *arg), void *arg)
{
	struct rts_lockdomain *own = atomic_load_explicit(&rts_lockdomain_own, memory_order_acquire);
	if (own)
		fn(own, arg);
	for (int i = 0; i < RTS_LOCKDOMAIN_MAX_OPEN; i++) {
		struct rts_lockdomain *d = atomic_load_explicit(&table[i].domain, memory_order_acquire);
		if (d)
			fn(d, arg);
	}
}

static bool name_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > RTS_LOCKDOMAIN_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '.' || c == '-';
		if (!ok)
			return false;
	}
	return true;
}

static void shm_path(const char *name, char *path, size_t size)
{
	snprintf(path, size, "/rtsched-lockdomain.%s", name);
}

static uint32_t new_id(void)
{
	uint32_t id = 0;
	while (id == 0)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	return id;
}

/* A domain another process created: wait (briefly) until its creator has initialised it. */
static int check_existing(int fd, struct rts_lockdomain **out)
{
	for (int tries = 0;; tries++) {
		struct stat st;
		if (fstat(fd, &st) != 0)
			return errno;
		if ((size_t)st.st_size >= sizeof(struct rts_lockdomain)) {
			struct rts_lockdomain *d = mmap(NULL, sizeof(*d), PROT_READ | PROT_WRITE,
						       MAP_SHARED, fd, 0);
			if (d == MAP_FAILED)
				return errno;
			uint32_t magic = atomic_load_explicit((_Atomic uint32_t *)&d->magic,
							      memory_order_acquire);
			if (magic == DOMAIN_MAGIC && d->version == DOMAIN_VERSION) {
				*out = d;
				return 0;
			}
			munmap(d, sizeof(*d));
			if (magic != 0)
				return EPROTO;
		} else if (st.st_size != 0) {
			return EPROTO;
		}
		if (tries == OPEN_WAIT_TRIES)
			return EPROTO;
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
	}
}

static int create_new(int fd, struct rts_lockdomain **out)
{
	if (ftruncate(fd, sizeof(struct rts_lockdomain)) != 0)
		return errno;
	struct rts_lockdomain *d = mmap(NULL, sizeof(*d), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (d == MAP_FAILED)
		return errno;
	domain_init(d, new_id(), true);
	*out = d;
	return 0;
}

/*
 * Create or join the object: an existing one only if it is the caller's (or
 * root's) and no wider than `mode` (internal/shm_owned.h), so that a name
 * another user squatted is refused at once with its owner named.
 */
static int map_domain(const char *name, int flags, mode_t mode, struct rts_lockdomain **out,
		      char *why, size_t why_size)
{
	char path[RTS_LOCKDOMAIN_NAME_MAX + 32];
	shm_path(name, path, sizeof(path));
	int fd, err;
	if (flags & RTS_LOCKDOMAIN_CREATE) {
		err = rts_shm_open_owned(path, O_RDWR | O_CREAT | O_EXCL, mode, &fd, why, why_size);
		if (err == 0) {
			err = create_new(fd, out);
			close(fd);
			if (err)
				shm_unlink(path);
			return err;
		}
		if (err != EEXIST)
			return err;
	}
	err = rts_shm_open_owned(path, O_RDWR, mode, &fd, why, why_size);
	if (err)
		return err;
	err = check_existing(fd, out);
	close(fd);
	if (err == EPROTO)
		snprintf(why, why_size,
			 "/dev/shm%s is not an rtsched lock domain of version %u (or its creator "
			 "never finished it): remove it or choose another name",
			 path, DOMAIN_VERSION);
	return err;
}

static int table_insert(struct rts_lockdomain *d)
{
	int err = EMFILE;
	pthread_mutex_lock(&table_lock);
	for (int i = 0; i < RTS_LOCKDOMAIN_MAX_OPEN; i++) {
		if (atomic_load_explicit(&table[i].domain, memory_order_relaxed) == NULL) {
			atomic_store_explicit(&table[i].id, d->id, memory_order_relaxed);
			atomic_store_explicit(&table[i].domain, d, memory_order_release);
			atomic_fetch_add_explicit(&named_open, 1, memory_order_relaxed);
			err = 0;
			break;
		}
		if (atomic_load_explicit(&table[i].id, memory_order_relaxed) == d->id) {
			err = EEXIST; /* already open in this process */
			break;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return err;
}

RTS_EXPORT int rts_lockdomain_open(const char *name, int flags, mode_t mode,
				   rts_lockdomain_t **domain)
{
	char why[RTS_SHM_WHY_MAX] = "";
	struct rts_lockdomain *d = NULL;
	int err = EINVAL;
	if (!domain || !name_valid(name) || (flags & ~RTS_LOCKDOMAIN_CREATE) || (mode & ~0777u))
		snprintf(why, sizeof(why),
			 "lock domain name must be 1..%d characters of [A-Za-z0-9_.-], flags "
			 "RTS_LOCKDOMAIN_CREATE or 0, mode within 0777",
			 RTS_LOCKDOMAIN_NAME_MAX);
	else
		err = map_domain(name, flags, mode ? mode : RTS_LOCKDOMAIN_DEFAULT_MODE, &d, why,
				 sizeof(why));
	pthread_mutex_lock(&why_lock);
	memcpy(open_why, why, sizeof(open_why));
	pthread_mutex_unlock(&why_lock);
	if (err)
		return err;
	err = table_insert(d);
	if (err) {
		munmap(d, sizeof(*d));
		return err == EEXIST ? EBUSY : err;
	}
	*domain = d;
	return 0;
}

static bool holds_entries(struct rts_lockdomain *d)
{
	for (int i = 0; i < RTS_LOCK_MAX_PARTITIONS; i++)
		if (atomic_load_explicit(&d->partitions[i].top, memory_order_relaxed) != 0)
			return true;
	for (uint32_t i = 0; i < RTS_FIFO_RECORDS; i++) /* a FIFO waiter's record */
		if (atomic_load_explicit(&d->fifo.records[i].state, memory_order_relaxed) !=
		    RTS_FIFO_IDLE)
			return true;
	return false;
}

RTS_EXPORT int rts_lockdomain_close(rts_lockdomain_t *d)
{
	if (!d || d->id == 0)
		return EINVAL;
	int err = ENOENT;
	pthread_mutex_lock(&table_lock);
	for (int i = 0; i < RTS_LOCKDOMAIN_MAX_OPEN; i++) {
		if (atomic_load_explicit(&table[i].domain, memory_order_relaxed) != d)
			continue;
		if (holds_entries(d)) {
			err = EBUSY;
			break;
		}
		atomic_store_explicit(&table[i].domain, NULL, memory_order_release);
		atomic_store_explicit(&table[i].id, 0, memory_order_relaxed);
		atomic_fetch_sub_explicit(&named_open, 1, memory_order_relaxed);
		err = 0;
		break;
	}
	pthread_mutex_unlock(&table_lock);
	if (err == 0)
		munmap(d, sizeof(*d));
	return err;
}

RTS_EXPORT int rts_lockdomain_unlink(const char *name)
{
	if (!name_valid(name))
		return EINVAL;
	char path[RTS_LOCKDOMAIN_NAME_MAX + 32];
	shm_path(name, path, sizeof(path));
	return shm_unlink(path) == 0 ? 0 : errno;
}

RTS_EXPORT int rts_lockdomain_open_error(char *buf, size_t size)
{
	if (!buf || size == 0)
		return EINVAL;
	pthread_mutex_lock(&why_lock);
	snprintf(buf, size, "%s", open_why);
	pthread_mutex_unlock(&why_lock);
	return 0;
}
