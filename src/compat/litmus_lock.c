/* SPDX-License-Identifier: MIT */
/*
 * LITMUS^RT locks, named by (file, id), on rtsched ceiling mutexes.
 *
 * A file (the "namespace") names a shared table (litmus_table.h: its
 * identity, the processes attached, when it is made and removed): a guard
 * mutex (robust PIP, process-shared) and LITMUS_LOCKS_PER_FILE slots, each
 * one lock id with its protocol, partition, ceiling and rtsched mutex; and
 * the table's lock domain, where the ceiling protocols keep their
 * per-partition state for every process using the file. Slots change only
 * under the guard.
 *
 * A lock whose holder dies is released, as LITMUS^RT releases the locks of
 * an exiting task: the protocols recover it (src/lock/ceiling_mutex.c), and
 * litmus_lock returns 0 to the next locker.
 *
 * Ceilings are computed as LITMUS computes them, from the tasks that open
 * the lock: the highest level of its openers (SCHED_FIFO priority under
 * P-FP, the EDF level under PSN-EDF). An open that raises the ceiling
 * re-initialises the mutex, which is only safe while nobody holds it or is
 * about to lock it: EBUSY if it is held; opening every lock before the first
 * job locks it (LITMUS's own rule for SRP) keeps the rest safe.
 *
 * Object descriptors are indexes into this process's table `ods`, written
 * under ods_lock before the descriptor is returned and read without it; a
 * forked child starts with an empty table (ods_fork_child).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>

#include "internal/shm_owned.h"
#include "litmus_internal.h"
#include "litmus_table.h"

#define LITMUS_NAMESPACES_MAX 16 /* files with open locks in one process */
#define LITMUS_ODS_MAX 256

struct od {
	struct lock_slot *slot; /* NULL: free */
	int type;
};

static pthread_mutex_t ods_lock = PTHREAD_MUTEX_INITIALIZER;
static struct litmus_table_ref namespaces[LITMUS_NAMESPACES_MAX];
static struct od ods[LITMUS_ODS_MAX];
/* Locks the calling thread holds, for LITMUS^RT's nesting rule (litmus_lock). */
static _Thread_local int held_global, held_local;

static const char *const protocol_names[] = {
	[FMLP_SEM] = "FMLP", [SRP_SEM] = "SRP",	 [MPCP_SEM] = "MPCP", [MPCP_VS_SEM] = "MPCP-VS",
	[DPCP_SEM] = "DPCP", [PCP_SEM] = "PCP", [DFLP_SEM] = "DFLP",
};
#define N_PROTOCOLS ((int)(sizeof(protocol_names) / sizeof(protocol_names[0])))

LITMUS_EXPORT int lock_protocol_for_name(const char *name)
{
	for (int i = 0; name && i < N_PROTOCOLS; i++)
		if (strcmp(name, protocol_names[i]) == 0)
			return i;
	if (name && strcmp(name, "MPCP_VS") == 0) /* liblitmus takes both spellings */
		return MPCP_VS_SEM;
	return -1;
}

LITMUS_EXPORT const char *name_for_lock_protocol(int id)
{
	return id >= 0 && id < N_PROTOCOLS ? protocol_names[id] : "UNKNOWN";
}

/* ---- tables and domains -------------------------------------------------- */

static void close_all_at_exit(void);

static void exit_handler(void)
{
	atexit(close_all_at_exit);
}

/*
 * The table of the file fd (litmus_table.h), attached and registered for
 * this process. Under ods_lock.
 */
static int namespace_get(int fd, struct litmus_table_ref **out)
{
	static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
	struct litmus_file_id id;
	int err = litmus_file_identify(fd, &id);
	if (err)
		return litmus_fail(err, "od_open: the lock file: %s", strerror(err));
	struct litmus_table_ref *free_ns = NULL;
	for (int i = 0; i < LITMUS_NAMESPACES_MAX; i++) {
		struct litmus_table_ref *ns = &namespaces[i];
		if (ns->table && ns->file.dev == id.dev && ns->file.ino == id.ino &&
		    (ns->pid == getpid() || litmus_table_adopt(ns) == 0)) {
			*out = ns;
			return 0;
		}
		if (!ns->table && !free_ns)
			free_ns = ns;
	}
	if (!free_ns)
		return litmus_fail(ENOSPC, "locks of %d files are open in this process already",
				   LITMUS_NAMESPACES_MAX);
	pthread_once(&exit_once, exit_handler);
	if (litmus_table_attach(fd, &id, free_ns) != 0)
		return -1;
	*out = free_ns;
	return 0;
}

/* ---- protocols ------------------------------------------------------------ */

static const int rts_protocol_of[] = {
	[FMLP_SEM] = RTS_PROTO_FMLP,
	[SRP_SEM] = RTS_PROTO_SRP,
	[MPCP_SEM] = RTS_PROTO_MPCP,
	[PCP_SEM] = RTS_PROTO_PCP,
};

/* Does the plugin offer the protocol (LITMUS^RT's own matrix)? -1 via litmus_fail if not. */
static int protocol_check(obj_type_t type, void *config, enum litmus_plugin plugin)
{
	if (type == DPCP_SEM || type == DFLP_SEM || type == MPCP_VS_SEM) {
		/* The caller's mistakes first, as LITMUS^RT reports them (its pcp.c
		 * tests): a best-effort opener, a CPU that does not exist. */
		if (!litmus_self()->rt)
			return litmus_fail(EPERM, "%s: only real-time tasks open this lock",
					   name_for_lock_protocol(type));
		if (type != MPCP_VS_SEM && config &&
		    (*(int *)config < 0 || *(int *)config >= num_online_cpus()))
			return litmus_fail(EINVAL, "%s: CPU %d is not online",
					   name_for_lock_protocol(type), *(int *)config);
		return litmus_fail(ENOTSUP, "%s: rtsched has no distributed (agent-based) or "
					    "virtual-spinning protocol; use MPCP or FMLP",
				   name_for_lock_protocol(type));
	}
	if ((int)type < 0 || (int)type >= N_PROTOCOLS)
		return litmus_fail(EINVAL, "lock type %d is not a LITMUS protocol", (int)type);
	bool offered = plugin == LITMUS_PLUGIN_PFP ||
		       (plugin == LITMUS_PLUGIN_PSN_EDF && (type == FMLP_SEM || type == SRP_SEM)) ||
		       (plugin == LITMUS_PLUGIN_GSN_EDF && type == FMLP_SEM);
	if (!offered)
		return litmus_fail(ENXIO, "%s: the %s plugin does not offer this protocol (P-FP: "
					  "FMLP, SRP, PCP, MPCP; PSN-EDF: FMLP, SRP; GSN-EDF: FMLP)",
				   name_for_lock_protocol(type), litmus_plugin_name(plugin));
	return 0;
}

/* type: the caller's, never the slot's (the table is shared memory another process may write). */
static int mutex_setup(struct litmus_table_ref *ns, struct lock_slot *s, obj_type_t type, int ceiling)
{
	rts_mutexattr_t a;
	rts_mutexattr_init(&a);
	rts_mutexattr_setprotocol(&a, rts_protocol_of[type]);
	rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED);
	rts_mutexattr_setdomain(&a, ns->domain);
	rts_mutexattr_setceiling(&a, ceiling);
	if (s->partition >= 0)
		rts_mutexattr_setpartition(&a, s->partition);
	int err = rts_mutex_init(&s->mutex, &a);
	rts_mutexattr_destroy(&a);
	if (err)
		return litmus_fail(err, "%s lock %d: rtsched refused its mutex (ceiling %d, "
					"partition %d): %s",
				   name_for_lock_protocol(s->type), s->id, ceiling, s->partition,
				   strerror(err));
	s->ceiling = ceiling;
	return 0;
}

/* Find or make slot id for type; raise its ceiling to level. Under the table's guard. */
static int slot_open(struct litmus_table_ref *ns, obj_type_t type, int id, int partition, int level,
		     struct lock_slot **out)
{
	struct lock_table *t = ns->table;
	struct lock_slot *s = NULL, *free_slot = NULL;
	for (int i = 0; i < LITMUS_LOCKS_PER_FILE && !s; i++) {
		if (t->slots[i].used && t->slots[i].id == id)
			s = &t->slots[i];
		else if (!t->slots[i].used && !free_slot)
			free_slot = &t->slots[i];
	}
	if (s) {
		if (s->type != (int)type)
			return litmus_fail(EINVAL, "lock %d of this file is a %s lock, not %s", id,
					   name_for_lock_protocol(s->type),
					   name_for_lock_protocol(type));
		if (type == PCP_SEM && s->partition != partition)
			return litmus_fail(EINVAL, "PCP lock %d belongs to CPU %d, not %d", id,
					   s->partition, partition);
		if (level > s->ceiling) {
			if (atomic_load_explicit((_Atomic uint32_t *)&s->mutex.s.word,
						 memory_order_acquire) != 0)
				return litmus_fail(EBUSY, "lock %d is held: its ceiling cannot rise to "
							  "%d now (open every lock before locking)",
						   id, level);
			rts_mutex_destroy(&s->mutex);
			if (mutex_setup(ns, s, type, level) != 0)
				return -1;
		}
		*out = s;
		return 0;
	}
	if (!free_slot)
		return litmus_fail(ENOSPC, "%d locks already in this file", LITMUS_LOCKS_PER_FILE);
	s = free_slot;
	s->id = id;
	s->type = (int)type;
	s->partition = partition;
	if (mutex_setup(ns, s, type, level) != 0)
		return -1;
	s->used = 1;
	*out = s;
	return 0;
}

static int od_alloc(struct lock_slot *s, obj_type_t type)
{
	for (int i = 0; i < LITMUS_ODS_MAX; i++) {
		if (!ods[i].slot) {
			ods[i].slot = s;
			ods[i].type = (int)type;
			return i;
		}
	}
	return litmus_fail(ENOSPC, "%d lock descriptors already open", LITMUS_ODS_MAX);
}

/* The partition and ceiling level the caller brings to a lock of type. */
static int opener_view(obj_type_t type, void *config, int *partition, int *level)
{
	struct litmus_thread *self = litmus_self();
	*partition = -1;
	*level = 0;
	if (type == FMLP_SEM)
		return 0; /* FMLP+ (deferred) needs no ceiling; best-effort openers are fine */
	if (!self->rt)
		return litmus_fail(EPERM, "%s: only real-time tasks open this lock (its ceiling "
					  "comes from its openers)",
				   name_for_lock_protocol(type));
	*level = self->level;
	if (type == SRP_SEM)
		*partition = (int)self->params.cpu;
	if (type == PCP_SEM) {
		/* No CPU given: the caller's partition, as LITMUS^RT's P-FP takes it. */
		*partition = config ? *(int *)config : (int)self->params.cpu;
		if (*partition < 0 || *partition >= num_online_cpus())
			return litmus_fail(EINVAL, "PCP: CPU %d is not online", *partition);
	}
	return 0;
}

/*
 * Descriptors are not inherited across fork (LITMUS^RT's object table
 * belongs to the task): the child starts with none and holds nothing.
 * ods_lock is held across fork so that the child's copy is consistent.
 */
static void ods_fork_prepare(void)
{
	pthread_mutex_lock(&ods_lock);
}

static void ods_fork_parent(void)
{
	pthread_mutex_unlock(&ods_lock);
}

static void ods_fork_child(void)
{
	for (int i = 0; i < LITMUS_ODS_MAX; i++)
		ods[i].slot = NULL;
	held_global = held_local = 0;
	pthread_mutex_init(&ods_lock, NULL);
}

static void ods_fork_handlers(void)
{
	pthread_atfork(ods_fork_prepare, ods_fork_parent, ods_fork_child);
}

LITMUS_EXPORT int od_openx(int fd, obj_type_t type, int obj_id, void *config)
{
	static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
	pthread_once(&fork_once, ods_fork_handlers);
	enum litmus_plugin plugin;
	struct stat st;
	int partition, level;
	if (fstat(fd, &st) != 0)
		return litmus_fail(EBADF, "od_open: fd %d is not an open file", fd);
	(void)st; /* namespace_get identifies the file itself */
	if (litmus_plugin_current(&plugin) != 0 || protocol_check(type, config, plugin) != 0 ||
	    opener_view(type, config, &partition, &level) != 0)
		return -1;
	struct litmus_table_ref *ns = NULL;
	struct lock_slot *s = NULL;
	int od = -1;
	pthread_mutex_lock(&ods_lock);
	if (namespace_get(fd, &ns) == 0) {
		int err = rts_mutex_lock(&ns->table->guard);
		if (err == EOWNERDEAD) /* killed in od_open: a slot is marked used only once set up */
			err = rts_mutex_consistent(&ns->table->guard);
		if (err == 0) {
			if (slot_open(ns, type, obj_id, partition, level, &s) == 0)
				od = od_alloc(s, type);
			rts_mutex_unlock(&ns->table->guard);
		} else {
			litmus_fail(err, "od_open: lock table guard: %s", strerror(err));
		}
	}
	pthread_mutex_unlock(&ods_lock);
	if (od >= 0)
		litmus_ok();
	return od;
}

LITMUS_EXPORT int litmus_open_lock(obj_type_t protocol, int lock_id, const char *name_space,
				   void *config_param)
{
	if (!name_space)
		return litmus_fail(EINVAL, "litmus_open_lock: NULL name space");
	int fd = open(name_space, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return litmus_fail(errno, "litmus_open_lock: %s: %s", name_space, strerror(errno));
	int od = od_openx(fd, protocol, lock_id, config_param);
	close(fd);
	return od;
}

LITMUS_EXPORT int od_close(int od)
{
	int ret = 0;
	pthread_mutex_lock(&ods_lock);
	if (od < 0 || od >= LITMUS_ODS_MAX || !ods[od].slot)
		ret = litmus_fail(EINVAL, "od_close: %d is not an open lock descriptor", od);
	else
		ods[od].slot = NULL;
	pthread_mutex_unlock(&ods_lock);
	return ret;
}

/* Is slot s a global lock (FMLP, MPCP) or a local one (PCP, SRP)? */
static bool slot_global(const struct lock_slot *s)
{
	return s->type == FMLP_SEM || s->type == MPCP_SEM;
}

static struct lock_slot *od_slot(int od, const char *fn)
{
	if (od < 0 || od >= LITMUS_ODS_MAX || !ods[od].slot) {
		litmus_fail(EINVAL, "%s: %d is not an open lock descriptor", fn, od);
		return NULL;
	}
	return ods[od].slot;
}

LITMUS_EXPORT int litmus_lock(int od)
{
	struct lock_slot *s = od_slot(od, "litmus_lock");
	if (!s)
		return -1;
	if (!litmus_self()->rt)
		return litmus_fail(EPERM, "litmus_lock: only real-time tasks lock (task_mode first)");
	/* LITMUS^RT's nesting rule: a global lock is taken holding nothing; a
	 * local (ceiling) lock may nest only in other local locks. */
	if (held_global > 0 || (slot_global(s) && held_local > 0))
		return litmus_fail(EBUSY, "litmus_lock: %s lock %d would nest in a held %s lock (LITMUS "
					  "nests only PCP and SRP locks)",
				   name_for_lock_protocol(s->type), s->id,
				   held_global > 0 ? "FMLP/MPCP" : "PCP/SRP");
	int err = rts_mutex_lock(&s->mutex);
	if (err == EPERM)
		return litmus_fail(EPERM, "litmus_lock: %s lock %d belongs to CPU %d; this task runs "
					  "on another partition",
				   name_for_lock_protocol(s->type), s->id, s->partition);
	if (err)
		return litmus_fail(err, "litmus_lock: %s lock %d: %s", name_for_lock_protocol(s->type),
				   s->id, strerror(err));
	*(slot_global(s) ? &held_global : &held_local) += 1;
	return 0;
}

LITMUS_EXPORT int litmus_unlock(int od)
{
	struct lock_slot *s = od_slot(od, "litmus_unlock");
	if (!s)
		return -1;
	int err = rts_mutex_unlock(&s->mutex);
	if (err == EPERM)
		return litmus_fail(EINVAL, "litmus_unlock: the caller does not hold %s lock %d",
				   name_for_lock_protocol(s->type), s->id);
	if (err)
		return litmus_fail(err, "litmus_unlock: %s", strerror(err));
	*(slot_global(s) ? &held_global : &held_local) -= 1;
	return 0;
}

/* Leave every table (the last user of a file removes its table); under ods_lock. */
static void close_all_locked(void)
{
	for (int i = 0; i < LITMUS_ODS_MAX; i++)
		ods[i].slot = NULL;
	for (int i = 0; i < LITMUS_NAMESPACES_MAX; i++)
		litmus_table_detach(&namespaces[i]);
}

void litmus_locks_close_all(void)
{
	pthread_mutex_lock(&ods_lock);
	close_all_locked();
	pthread_mutex_unlock(&ods_lock);
}

/*
 * A normal exit without exit_litmus (no liblitmus test calls it) leaves the
 * tables too, keeping them mapped for threads still running. A thread inside
 * od_open holds ods_lock: then the tables stay, for the next user of the
 * file to reclaim.
 */
static void close_all_at_exit(void)
{
	if (pthread_mutex_trylock(&ods_lock) != 0)
		return;
	for (int i = 0; i < LITMUS_NAMESPACES_MAX; i++)
		litmus_table_leave(&namespaces[i]);
	pthread_mutex_unlock(&ods_lock);
}

/* An exec leaves the tables as a normal exit does (the new image attaches again). */
void litmus_locks_leave_for_exec(void)
{
	close_all_at_exit();
}
