/* SPDX-License-Identifier: MIT */
/*
 * The LITMUS layer's shared lock state survives its processes (issue 30):
 *  - a lock whose holder is killed (kill -9) is recovered: a process that
 *    waited for it, and a new process, lock it (the case's timeout turns a
 *    regression into a failure, not a hang);
 *  - an FMLP waiter killed while queued loses its turn: the waiter behind
 *    it gets the lock (within a bound the case checks);
 *  - a new lock file that reuses a deleted file's inode starts with fresh
 *    state, and the deleted file's table is reclaimed;
 *  - a process that exits without exit_litmus leaves no shared object of its
 *    file (nor the release word) behind; a crash leaves them only until the
 *    next user (the release word then counts no dead waiter).
 * Orders and outcomes only, never times.
 */
#include "litmus_helpers.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "compat/litmus_table.h"
#include "internal/ceiling.h"

enum step { STEP_NONE, STEP_LOCKING, STEP_HOLDING, STEP_GOT_IT }; /* in this order */

/* What a case's processes tell each other (MAP_SHARED). */
struct board {
	int step[4];
	int go[4]; /* queued_locker: may lock (1), may unlock (2) */
};

static struct board *board_new(void)
{
	struct board *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	CHECK(b != MAP_FAILED);
	return b;
}

/* Wait until process pid (the board's `who`) reaches step; fail if it ends first. */
static void board_wait(struct board *b, int who, pid_t pid, int step)
{
	while (H_LOAD(&b->step[who]) < step) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			FAIL("process %d ended (status 0x%x) before step %d", (int)pid, status, step);
		usleep(1000);
	}
}

static int open_protocol(int fd, int type, int cpu)
{
	switch (type) {
	case FMLP_SEM:
		return open_fmlp_sem(fd, 0);
	case PCP_SEM:
		return open_pcp_sem(fd, 0, cpu);
	case SRP_SEM:
		return open_srp_sem(fd, 0);
	default:
		return open_mpcp_sem(fd, 0);
	}
}

/* The table name of the file fd. */
static void table_name(int fd, char *name, size_t len)
{
	struct stat st;
	CHECK_SYS(fstat(fd, &st));
	snprintf(name, len, "/dev/shm/rtsched-litmus-lk.%llx.%llx", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
}

/* The lock domain of the table `name` (its nonce), or "" if there is no table. */
static void domain_of_table(const char *name, char *domain, size_t len)
{
	domain[0] = '\0';
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct lock_table t;
	if (pread(fd, &t, sizeof(t), 0) == (ssize_t)sizeof(t))
		snprintf(domain, len, "/dev/shm/rtsched-lockdomain.litmus.%016llx",
			 (unsigned long long)t.nonce);
	close(fd);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A process that becomes a P-FP task at prio and locks lock 0 of type; it reports its steps on b. */
static pid_t locker(struct board *b, int who, int fd, int type, int cpu, unsigned prio,
		    bool unlock_and_exit)
{
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid != 0)
		return pid;
	H_STORE(&b->step[who], STEP_LOCKING); /* before the job starts: SRP's gate may hold it */
	become_pfp_task(cpu, prio, ms2ns(100));
	int od = open_protocol(fd, type, cpu);
	LCHECK_OK(od);
	LCHECK_OK(litmus_lock(od));
	H_STORE(&b->step[who], unlock_and_exit ? STEP_GOT_IT : STEP_HOLDING);
	if (!unlock_and_exit)
		for (;;)
			pause();
	LCHECK_OK(litmus_unlock(od));
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	exit(0); /* without exit_litmus, as liblitmus's tests */
}

static void expect_exit_0(pid_t pid)
{
	int status;
	CHECK_SYS(waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void kill_9(pid_t pid)
{
	int status;
	CHECK_SYS(kill(pid, SIGKILL));
	CHECK_SYS(waitpid(pid, &status, 0));
	CHECK(WIFSIGNALED(status));
}

/*
 * Kill the holder of lock 0 of `type` while a second process waits for it:
 * the waiter gets it; then a new process locks it too. Local locks (PCP,
 * SRP) and their waiters share the holder's partition; the waiter has the
 * lower priority, so that it runs only once the holder sleeps.
 */
static void holder_killed(int type)
{
	int rt_cpu;
	char path[64], table[128];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	table_name(fd, table, sizeof(table));
	struct board *b = board_new();
	pid_t holder = locker(b, 0, fd, type, rt_cpu, 10, false);
	board_wait(b, 0, holder, STEP_HOLDING);
	pid_t waiter = locker(b, 1, fd, type, rt_cpu, 20, true);
	board_wait(b, 1, waiter, STEP_LOCKING);
	usleep(100 * 1000); /* most likely blocked by now; either way it must get the lock */
	CHECK_EQ(H_LOAD(&b->step[1]), STEP_LOCKING);
	kill_9(holder);
	expect_exit_0(waiter);
	pid_t late = locker(b, 2, fd, type, rt_cpu, 10, true);
	expect_exit_0(late);
	CHECK(!exists(table)); /* its last user left */
	unlink_namespace(path, fd);
}

static void test_fmlp_holder_killed(void)
{
	holder_killed(FMLP_SEM);
}

static void test_mpcp_holder_killed(void)
{
	holder_killed(MPCP_SEM);
}

static void test_pcp_holder_killed(void)
{
	holder_killed(PCP_SEM);
}

static void test_srp_holder_killed(void)
{
	holder_killed(SRP_SEM);
}

/* Kill the holder with nobody waiting: a new process takes the lock over. */
static void test_holder_killed_nobody_waiting(void)
{
	int rt_cpu;
	char path[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	static const int types[] = { FMLP_SEM, MPCP_SEM, PCP_SEM, SRP_SEM };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int fd = make_namespace(path, sizeof(path));
		struct board *b = board_new();
		pid_t holder = locker(b, 0, fd, types[i], rt_cpu, 10, false);
		board_wait(b, 0, holder, STEP_HOLDING);
		kill_9(holder);
		expect_exit_0(locker(b, 1, fd, types[i], rt_cpu, 10, true));
		unlink_namespace(path, fd);
	}
}

/*
 * A new lock file on the inode of a deleted one whose user crashed holding
 * an FMLP lock 0: lock 0 of the new file is a PCP lock, free (the stale
 * table would say "an FMLP lock" and hold it). When the file system gives
 * another inode, the deleted file's table must still be gone.
 */
static void test_new_file_on_reused_inode(void)
{
	int rt_cpu;
	char path[64], old_table[128], new_table[128];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	struct stat old_st, new_st;
	CHECK_SYS(fstat(fd, &old_st));
	table_name(fd, old_table, sizeof(old_table));
	struct board *b = board_new();
	pid_t holder = locker(b, 0, fd, FMLP_SEM, rt_cpu, 10, false);
	board_wait(b, 0, holder, STEP_HOLDING);
	kill_9(holder);
	CHECK(exists(old_table));
	close(fd);
	CHECK_SYS(unlink(path));
	int tries = 0;
	do { /* ext4 and tmpfs hand the freed inode out again, mostly at once */
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		CHECK_SYS(fd);
		CHECK_SYS(fstat(fd, &new_st));
		if (new_st.st_ino == old_st.st_ino)
			break;
		close(fd);
		CHECK_SYS(unlink(path));
	} while (++tries < 1000);
	if (new_st.st_ino != old_st.st_ino) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		CHECK_SYS(fd);
	}
	H_LOG("inode reused: %s (%d tries)", new_st.st_ino == old_st.st_ino ? "yes" : "no", tries);
	table_name(fd, new_table, sizeof(new_table));
	pid_t user = fork();
	CHECK_SYS(user);
	if (user == 0) {
		become_pfp_task(rt_cpu, 10, ms2ns(100));
		int od = open_pcp_sem(fd, 0, rt_cpu);
		LCHECK_OK(od);
		LCHECK_OK(litmus_lock(od));
		LCHECK_OK(litmus_unlock(od));
		CHECK(strcmp(old_table, new_table) == 0 || !exists(old_table));
		exit(0);
	}
	expect_exit_0(user);
	CHECK(!exists(old_table) && !exists(new_table));
	unlink_namespace(path, fd);
}

/*
 * Exit without exit_litmus: nothing of the file is left in /dev/shm. A
 * crash leaves the table and its domain until the next user, who replaces
 * them (a new domain), and leaves nothing when it exits.
 */
static void test_shared_objects_gone_after_exit_and_crash(void)
{
	int rt_cpu;
	char path[64], table[128], domain[128], crashed_domain[128];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	table_name(fd, table, sizeof(table));
	struct board *b = board_new();
	pid_t holder = locker(b, 0, fd, PCP_SEM, rt_cpu, 10, false);
	board_wait(b, 0, holder, STEP_HOLDING);
	domain_of_table(table, domain, sizeof(domain));
	if (!domain[0] || !exists(domain))
		FAIL("table %s (exists %d): domain '%s' missing", table, exists(table), domain);
	kill_9(holder); /* a crash: the objects stay */
	CHECK(exists(table) && exists(domain));
	memcpy(crashed_domain, domain, sizeof(domain));
	b->step[0] = STEP_NONE;
	holder = locker(b, 0, fd, PCP_SEM, rt_cpu, 10, false);
	board_wait(b, 0, holder, STEP_HOLDING);
	domain_of_table(table, domain, sizeof(domain));
	H_LOG("crashed %s, now %s", crashed_domain, domain);
	CHECK(domain[0] && strcmp(domain, crashed_domain) != 0);
	CHECK(!exists(crashed_domain));
	CHECK_SYS(kill(holder, SIGTERM)); /* no handler: still a crash */
	waitpid(holder, NULL, 0);
	expect_exit_0(locker(b, 1, fd, PCP_SEM, rt_cpu, 10, true));
	CHECK(!exists(table));
	CHECK(!exists(domain));
	unlink_namespace(path, fd);
}

/* The release word too: a process that used it and exits without exit_litmus removes it. */
static void test_release_word_gone_after_exit(void)
{
	char name[64], path[96];
	use_private_ts(name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	pid_t user = fork();
	CHECK_SYS(user);
	if (user == 0) {
		LCHECK_OK(get_nr_ts_release_waiters());
		CHECK(exists(path));
		exit(0);
	}
	expect_exit_0(user);
	CHECK(!exists(path));
}

/* Tickets of lock 0 of the file's table taken and not yet served (its holder's included). */
static uint32_t fmlp_queued(const char *table)
{
	int fd = open(table, O_RDONLY | O_CLOEXEC);
	CHECK_SYS(fd);
	struct lock_table t;
	CHECK(pread(fd, &t, sizeof(t), 0) == (ssize_t)sizeof(t));
	close(fd);
	for (int i = 0; i < LITMUS_LOCKS_PER_FILE; i++) {
		if (t.slots[i].used && t.slots[i].id == 0) {
			struct ceiling_mutex *cm = ceiling_mutex_of(&t.slots[i].mutex);
			return atomic_load(&cm->next_ticket) - atomic_load(&cm->serving);
		}
	}
	FAIL("no lock 0 in %s", table);
}

static void wait_queued(const char *table, uint32_t n, int ms)
{
	for (int waited = 0; fmlp_queued(table) != n; waited++) {
		if (waited >= ms)
			FAIL("%s: %u tickets queued after %d ms, not %u", table, fmlp_queued(table), ms, n);
		usleep(1000);
	}
}

/*
 * A P-FP task that opens FMLP lock 0, locks it once told (go 1: before, so
 * that the holder's boost does not hold back its job start), and unlocks it
 * once told (go 2) or at once (unlock_at_once).
 */
static pid_t queued_locker(struct board *b, int who, int fd, int cpu, unsigned prio, bool unlock_at_once)
{
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid != 0)
		return pid;
	become_pfp_task(cpu, prio, ms2ns(100));
	int od = open_fmlp_sem(fd, 0);
	LCHECK_OK(od);
	H_STORE(&b->step[who], STEP_LOCKING);
	while (H_LOAD(&b->go[who]) < 1)
		usleep(1000);
	LCHECK_OK(litmus_lock(od));
	H_STORE(&b->step[who], STEP_HOLDING);
	while (!unlock_at_once && H_LOAD(&b->go[who]) < 2)
		usleep(1000);
	LCHECK_OK(litmus_unlock(od));
	exit(0); /* without exit_litmus, as liblitmus's tests */
}

/*
 * Kill an FMLP waiter queued behind the holder and before a second waiter,
 * then let the holder unlock: the second waiter gets the lock (it looks at
 * a stuck turn every 50 ms; 5 s is the bound), and so does a new process.
 */
static void test_fmlp_waiter_killed(void)
{
	int rt_cpu;
	char path[64], table[128];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	table_name(fd, table, sizeof(table));
	struct board *b = board_new();
	pid_t p[3];
	for (int i = 0; i < 3; i++) {
		p[i] = queued_locker(b, i, fd, rt_cpu, 10 + (unsigned)i, i == 2);
		board_wait(b, i, p[i], STEP_LOCKING);
	}
	H_STORE(&b->go[0], 1);
	board_wait(b, 0, p[0], STEP_HOLDING);
	for (int i = 1; i < 3; i++) { /* queued in this order */
		H_STORE(&b->go[i], 1);
		wait_queued(table, (uint32_t)i + 1, 5000);
	}
	kill_9(p[1]);
	H_STORE(&b->go[0], 2);
	expect_exit_0_within(p[0], 5000, "the holder's unlock");
	expect_exit_0_within(p[2], 5000, "the waiter behind the killed one");
	struct board *late = board_new();
	pid_t next = queued_locker(late, 0, fd, rt_cpu, 10, true);
	H_STORE(&late->go[0], 1);
	expect_exit_0_within(next, 5000, "a new process's lock");
	CHECK(!exists(table)); /* its last live user left */
	unlink_namespace(path, fd);
}

/* The release word's count of waiting tasks, read from the object at path (no mapping: no user). */
static uint32_t ts_waiters(const char *path)
{
	uint32_t word = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK_SYS(fd);
	CHECK(pread(fd, &word, sizeof(word), 0) == (ssize_t)sizeof(word));
	close(fd);
	return word & 0xffffu;
}

/*
 * A task killed while it waits for the release: the object stays (a crash),
 * counting it, until the next user, who finds no live user, starts it afresh
 * (nobody waits) and removes it at its exit.
 */
static void test_release_word_reclaimed_after_crash(void)
{
	int rt_cpu;
	char name[64], path[96];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	pid_t waiter = fork();
	CHECK_SYS(waiter);
	if (waiter == 0) {
		become_pfp_task(rt_cpu, 10, ms2ns(100));
		LCHECK_OK(wait_for_ts_release());
		exit(0);
	}
	for (int waited = 0; !exists(path) || ts_waiters(path) != 1; waited++) {
		if (waited >= 5000)
			FAIL("the waiter is not counted after 5 s");
		usleep(1000);
	}
	kill_9(waiter);
	CHECK(exists(path));
	pid_t user = fork();
	CHECK_SYS(user);
	if (user == 0) {
		CHECK_EQ(get_nr_ts_release_waiters(), 0);
		exit(0);
	}
	expect_exit_0(user);
	CHECK(!exists(path));
}

static const struct h_case cases[] = {
	H_CASE(test_fmlp_holder_killed, 10000),
	H_CASE(test_mpcp_holder_killed, 10000),
	H_CASE(test_pcp_holder_killed, 10000),
	H_CASE(test_srp_holder_killed, 10000),
	H_CASE(test_holder_killed_nobody_waiting, 10000),
	H_CASE(test_fmlp_waiter_killed, 20000),
	H_CASE(test_new_file_on_reused_inode, 10000),
	H_CASE(test_shared_objects_gone_after_exit_and_crash, 10000),
	H_CASE(test_release_word_gone_after_exit, 5000),
	H_CASE(test_release_word_reclaimed_after_crash, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
