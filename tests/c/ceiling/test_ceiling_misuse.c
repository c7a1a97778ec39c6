/* SPDX-License-Identifier: MIT */
/*
 * Misuse of the ceiling protocols, each with its exact error number:
 *  - unlock of a lock the caller does not own: EPERM; relock: EDEADLK
 *    (trylock: EBUSY); destroy while locked: EBUSY;
 *  - a thread whose level is above the declared ceiling: EINVAL (by
 *    SCHED_FIFO priority and by declared level);
 *  - a local lock taken from another partition: EPERM;
 *  - rts_mutex_init / attribute errors of <rtsched/mutex.h> (the first call
 *    that sees the problem answers; the mutex is never initialised);
 *  - lock domains: bad names, flags and modes (EINVAL), a missing domain
 *    (ENOENT); a process-shared ceiling mutex in a named domain, created with
 *    mode 0600, excludes and hands over across fork().
 */
#include "ceiling_helpers.h"

#include <sys/mman.h>
#include <sys/stat.h>

static const int all_protos[] = { RTS_PROTO_PCP, RTS_PROTO_SRP, RTS_PROTO_IPCP, RTS_PROTO_MPCP,
				  RTS_PROTO_FMLP };
static const int local_protos[] = { RTS_PROTO_PCP, RTS_PROTO_SRP, RTS_PROTO_IPCP };

/* The calling thread pinned to the first CPU it may use; that CPU. */
static int pin_to_first_cpu(void)
{
	cpu_set_t set;
	CHECK_OK(pthread_getaffinity_np(pthread_self(), sizeof(set), &set));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			h_pin_cpu(c);
			return c;
		}
	FAIL("no CPU in the affinity mask");
}

static void init_any(rts_mutex_t *m, int proto, int cpu)
{
	ceil_mutex_init(m, proto, 50, proto_is_local(proto) ? cpu : -1, RTS_CEILING_DEFERRED);
}

/* ---- ownership ------------------------------------------------------------ */

struct owned_elsewhere {
	rts_mutex_t *m;
	int cpu;
	int ret;
};

static int unlock_pinned(void *arg)
{
	struct owned_elsewhere *o = arg;
	h_pin_cpu(o->cpu);
	return rts_mutex_unlock(o->m);
}

static void test_unlock_not_owned_is_eperm(void)
{
	int cpu = pin_to_first_cpu();
	for (size_t i = 0; i < H_NCASES(all_protos); i++) {
		H_LOG("%s", ceil_proto_name(all_protos[i]));
		rts_mutex_t m;
		init_any(&m, all_protos[i], cpu);
		CHECK_ERR(EPERM, rts_mutex_unlock(&m)); /* never locked */
		CHECK_OK(rts_mutex_lock(&m));
		struct owned_elsewhere o = { &m, cpu, 0 };
		CHECK_ERR(EPERM, run_in_thread(unlock_pinned, &o)); /* owned by another */
		CHECK_EQ(mutex_owner(&m), h_gettid());
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_ERR(EPERM, rts_mutex_unlock(&m)); /* unlocked twice */
		CHECK_OK(rts_mutex_destroy(&m));
	}
}

static void test_relock_is_edeadlk(void)
{
	int cpu = pin_to_first_cpu();
	for (size_t i = 0; i < H_NCASES(all_protos); i++) {
		H_LOG("%s", ceil_proto_name(all_protos[i]));
		rts_mutex_t m;
		init_any(&m, all_protos[i], cpu);
		CHECK_OK(rts_mutex_lock(&m));
		CHECK_ERR(EDEADLK, rts_mutex_lock(&m));
		CHECK_ERR(EBUSY, rts_mutex_trylock(&m));
		CHECK_ERR(EBUSY, rts_mutex_destroy(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_OK(rts_mutex_trylock(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_OK(rts_mutex_destroy(&m));
	}
}

/* ---- the ceiling violated -------------------------------------------------- */

static void test_priority_above_ceiling_is_einval(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	h_pin_cpu(rt_cpu);
	h_set_fifo(30);
	int errs[2 * H_NCASES(local_protos)];
	int n = 0;
	for (size_t i = 0; i < H_NCASES(local_protos); i++) {
		rts_mutex_t m;
		ceil_mutex_init(&m, local_protos[i], 20, rt_cpu, RTS_CEILING_DEFERRED);
		errs[n++] = rts_mutex_lock(&m);
		errs[n++] = rts_mutex_trylock(&m);
		CHECK_EQ(mutex_owner(&m), 0);
	}
	h_set_fifo(0);
	h_pin_cpu(free_cpu);
	for (int i = 0; i < n; i++) {
		H_LOG("%s %s", ceil_proto_name(local_protos[i / 2]), i % 2 ? "trylock" : "lock");
		CHECK_ERR(EINVAL, errs[i]);
	}
}

static void test_declared_level_above_ceiling_is_einval(void)
{
	int cpu = pin_to_first_cpu();
	CHECK_OK(rts_lock_set_self_level(300));
	for (size_t i = 0; i < H_NCASES(local_protos); i++) {
		H_LOG("%s", ceil_proto_name(local_protos[i]));
		rts_mutex_t low, high;
		ceil_mutex_init(&low, local_protos[i], 200, cpu, RTS_CEILING_DEFERRED);
		ceil_mutex_init(&high, local_protos[i], 300, cpu, RTS_CEILING_DEFERRED);
		CHECK_ERR(EINVAL, rts_mutex_lock(&low));
		CHECK_ERR(EINVAL, rts_mutex_trylock(&low));
		CHECK_OK(rts_mutex_lock(&high)); /* at the ceiling is allowed */
		CHECK_OK(rts_mutex_unlock(&high));
	}
}

static void test_set_self_level_range(void)
{
	CHECK_ERR(EINVAL, rts_lock_set_self_level(-1));
	CHECK_ERR(EINVAL, rts_lock_set_self_level(RTS_LOCK_MAX_LEVEL + 1));
	CHECK_OK(rts_lock_set_self_level(RTS_LOCK_MAX_LEVEL));
	CHECK_OK(rts_lock_set_self_level(0));
}

/* ---- another partition ----------------------------------------------------- */

static void test_other_partition_is_eperm(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu); /* pins us to free_cpu */
	for (size_t i = 0; i < H_NCASES(local_protos); i++) {
		H_LOG("%s", ceil_proto_name(local_protos[i]));
		rts_mutex_t m;
		ceil_mutex_init(&m, local_protos[i], 50, rt_cpu, RTS_CEILING_DEFERRED);
		CHECK_ERR(EPERM, rts_mutex_lock(&m));
		CHECK_ERR(EPERM, rts_mutex_trylock(&m));
		CHECK_EQ(mutex_owner(&m), 0);
		h_pin_cpu(rt_cpu); /* on its partition it is fine */
		CHECK_OK(rts_mutex_lock(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		h_pin_cpu(free_cpu);
	}
	/* Global locks belong to no partition. */
	rts_mutex_t g;
	ceil_mutex_init(&g, RTS_PROTO_MPCP, 50, -1, RTS_CEILING_DEFERRED);
	CHECK_OK(rts_mutex_lock(&g));
	CHECK_OK(rts_mutex_unlock(&g));
}

/* ---- init errors ------------------------------------------------------------ */

struct init_spec {
	int proto;
	int ceiling;   /* 0: not set */
	int partition; /* < 0: not set */
	int variant;
	int robust;
	int pshared;
	const rts_lockdomain_t *domain;
};

/* The first nonzero answer of the setters, then of rts_mutex_init. */
static int init_spec_result(const struct init_spec *s)
{
	rts_mutexattr_t a;
	CHECK_OK(rts_mutexattr_init(&a));
	int ret = rts_mutexattr_setprotocol(&a, s->proto);
	if (ret == 0 && s->ceiling)
		ret = rts_mutexattr_setceiling(&a, s->ceiling);
	if (ret == 0 && s->partition >= 0)
		ret = rts_mutexattr_setpartition(&a, s->partition);
	if (ret == 0)
		ret = rts_mutexattr_setvariant(&a, s->variant);
	if (ret == 0)
		ret = rts_mutexattr_setrobust(&a, s->robust);
	if (ret == 0)
		ret = rts_mutexattr_setpshared(&a, s->pshared);
	if (ret == 0 && s->domain)
		ret = rts_mutexattr_setdomain(&a, s->domain);
	rts_mutex_t m;
	memset(&m, 0xa5, sizeof(m));
	if (ret == 0) {
		ret = rts_mutex_init(&m, &a);
		if (ret == 0)
			CHECK_OK(rts_mutex_destroy(&m));
	}
	CHECK_OK(rts_mutexattr_destroy(&a));
	return ret;
}

#define D RTS_CEILING_DEFERRED
#define E RTS_CEILING_EAGER

static void test_init_errors(void)
{
	static const struct { int err; struct init_spec s; const char *what; } table[] = {
		{ 0, { RTS_PROTO_PCP, 10, 0, D, 0, 0, NULL }, "PCP, fine" },
		{ EINVAL, { RTS_PROTO_PCP, 0, 0, D, 0, 0, NULL }, "PCP without a ceiling" },
		{ EINVAL, { RTS_PROTO_SRP, 0, 0, D, 0, 0, NULL }, "SRP without a ceiling" },
		{ EINVAL, { RTS_PROTO_IPCP, 0, 0, E, 0, 0, NULL }, "IPCP eager without a ceiling" },
		{ EINVAL, { RTS_PROTO_MPCP, 0, -1, D, 0, 0, NULL }, "MPCP without a ceiling" },
		{ 0, { RTS_PROTO_FMLP, 0, -1, D, 0, 0, NULL }, "FMLP+ deferred needs none" },
		{ EINVAL, { RTS_PROTO_FMLP, 0, -1, E, 0, 0, NULL }, "FMLP+ eager without a ceiling" },
		{ EINVAL, { RTS_PROTO_IPCP, 10, -1, D, 0, 0, NULL }, "local lock without a partition" },
		{ EINVAL, { RTS_PROTO_PCP, 10, RTS_LOCK_MAX_PARTITIONS, D, 0, 0, NULL },
		  "partition out of range" },
		{ EINVAL, { RTS_PROTO_SRP, RTS_LOCK_MAX_LEVEL + 1, 0, D, 0, 0, NULL },
		  "ceiling out of range" },
		{ EINVAL, { RTS_PROTO_IPCP, -5, 0, D, 0, 0, NULL }, "negative ceiling" },
		{ EINVAL, { RTS_PROTO_PCP, 10, 0, D, RTS_MUTEX_ROBUST, 0, NULL }, "robust PCP" },
		{ EINVAL, { RTS_PROTO_MPCP, 10, -1, D, RTS_MUTEX_ROBUST, 0, NULL }, "robust MPCP" },
		{ ENOTSUP, { RTS_PROTO_PCP, 10, 0, E, 0, 0, NULL }, "PCP eager" },
		{ ENOTSUP, { RTS_PROTO_IPCP, 200, 0, E, 0, 0, NULL }, "eager IPCP at an EDF level" },
		{ ENOTSUP, { RTS_PROTO_SRP, 200, 0, E, 0, 0, NULL }, "eager SRP at an EDF level" },
		{ EINVAL, { RTS_PROTO_IPCP, 10, 0, 7, 0, 0, NULL }, "unknown variant" },
		{ EINVAL, { RTS_PROTO_IPCP, 10, 0, D, 0, RTS_PROCESS_SHARED, NULL },
		  "process-shared without a domain" },
		{ EINVAL, { RTS_PROTO_FMLP, 0, -1, D, 0, RTS_PROCESS_SHARED, NULL },
		  "process-shared FMLP+ without a domain" },
	};
	for (size_t i = 0; i < H_NCASES(table); i++) {
		int got = init_spec_result(&table[i].s);
		CHECK_MSG(got == table[i].err, "%s: expected %s, got %s", table[i].what,
			  h_errname(table[i].err), h_errname(got));
	}
}

/* ---- lock domains ----------------------------------------------------------- */

static void domain_name(char *buf, size_t size, const char *tag)
{
	snprintf(buf, size, "ceiltest-%s-%d", tag, (int)getpid());
}

static void test_lockdomain_open_errors(void)
{
	rts_lockdomain_t *d = NULL;
	char too_long[RTS_LOCKDOMAIN_NAME_MAX + 2];
	memset(too_long, 'a', sizeof(too_long) - 1);
	too_long[sizeof(too_long) - 1] = '\0';
	static const char *const bad[] = { "", "a/b", "with space", "semi;colon", "tab\t" };
	for (size_t i = 0; i < H_NCASES(bad); i++) {
		CHECK_MSG(rts_lockdomain_open(bad[i], RTS_LOCKDOMAIN_CREATE, 0600, &d) == EINVAL,
			  "name \"%s\" is not EINVAL", bad[i]);
	}
	CHECK_ERR(EINVAL, rts_lockdomain_open(NULL, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	CHECK_ERR(EINVAL, rts_lockdomain_open(too_long, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	char name[64];
	domain_name(name, sizeof(name), "errors");
	CHECK_ERR(EINVAL, rts_lockdomain_open(name, 0x2, 0600, &d));          /* unknown flag */
	CHECK_ERR(EINVAL, rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0100600, &d)); /* mode */
	CHECK_ERR(ENOENT, rts_lockdomain_open(name, 0, 0600, &d));
	/* The longest valid name works. */
	too_long[RTS_LOCKDOMAIN_NAME_MAX] = '\0';
	memcpy(too_long, "ceiltest-", 9);
	CHECK_OK(rts_lockdomain_open(too_long, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	CHECK_OK(rts_lockdomain_close(d));
	CHECK_OK(rts_lockdomain_unlink(too_long));
}

static char proc_state_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

struct shared_page {
	rts_mutex_t m;
	int child_about_to_lock;
	int released;
	int child_trylock_ret, child_unlock_ret, child_lock_ret, child_unlock2_ret;
	int child_saw_released;
};

static void test_pshared_ceiling_across_fork(void)
{
	int cpu = pin_to_first_cpu();
	char name[64];
	domain_name(name, sizeof(name), "fork");
	mode_t old_umask = umask(0);
	rts_lockdomain_t *d;
	CHECK_OK(rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	umask(old_umask);
	char path[128];
	snprintf(path, sizeof(path), "/dev/shm/rtsched-lockdomain.%s", name);
	struct stat st;
	CHECK_SYS(stat(path, &st));
	CHECK_EQ(st.st_mode & 07777, 0600);

	/* A process-private mutex may not name a process-shared domain. */
	rts_mutexattr_t a;
	ceil_attr_init(&a, RTS_PROTO_IPCP, 10, cpu, RTS_CEILING_DEFERRED);
	CHECK_OK(rts_mutexattr_setdomain(&a, d));
	rts_mutex_t priv;
	CHECK_ERR(EINVAL, rts_mutex_init(&priv, &a));
	CHECK_OK(rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED));

	struct shared_page *sp = mmap(NULL, sizeof(*sp), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sp != MAP_FAILED);
	memset(sp, 0, sizeof(*sp));
	CHECK_OK(rts_mutex_init(&sp->m, &a));
	CHECK_OK(rts_mutexattr_destroy(&a));

	CHECK_OK(rts_mutex_lock(&sp->m));
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		sp->child_trylock_ret = rts_mutex_trylock(&sp->m);
		sp->child_unlock_ret = rts_mutex_unlock(&sp->m);
		H_STORE(&sp->child_about_to_lock, 1);
		sp->child_lock_ret = rts_mutex_lock(&sp->m);
		sp->child_saw_released = H_LOAD(&sp->released);
		if (sp->child_lock_ret == 0)
			sp->child_unlock2_ret = rts_mutex_unlock(&sp->m);
		_exit(0);
	}
	/* The child waits in the kernel for the parent's lock. */
	WAIT_FOR(H_LOAD(&sp->child_about_to_lock) && proc_state_of(child) == 'S', 2000);
	H_STORE(&sp->released, 1);
	CHECK_OK(rts_mutex_unlock(&sp->m));
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_ERR(EBUSY, sp->child_trylock_ret);
	CHECK_ERR(EPERM, sp->child_unlock_ret);
	CHECK_OK(sp->child_lock_ret);
	CHECK_EQ(sp->child_saw_released, 1);
	CHECK_OK(sp->child_unlock2_ret);
	CHECK_EQ(mutex_owner(&sp->m), 0);
	CHECK_OK(rts_mutex_destroy(&sp->m));
	munmap(sp, sizeof(*sp));

	CHECK_OK(rts_lockdomain_close(d));
	CHECK_OK(rts_lockdomain_unlink(name));
	CHECK_ERR(ENOENT, rts_lockdomain_open(name, 0, 0600, &d));
}

static const struct h_case cases[] = {
	H_CASE(test_unlock_not_owned_is_eperm, 10000),
	H_CASE(test_relock_is_edeadlk, 10000),
	H_CASE(test_priority_above_ceiling_is_einval, 10000),
	H_CASE(test_declared_level_above_ceiling_is_einval, 10000),
	H_CASE(test_set_self_level_range, 10000),
	H_CASE(test_other_partition_is_eperm, 10000),
	H_CASE(test_init_errors, 10000),
	H_CASE(test_lockdomain_open_errors, 10000),
	H_CASE(test_pshared_ceiling_across_fork, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
