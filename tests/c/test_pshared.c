/* SPDX-License-Identifier: MIT */
/*
 * Process-shared rts_mutex + rts_cond (NONE and PIP) in shared memory:
 *  - ping-pong between a parent and a forked child, N rounds, through a
 *    MAP_SHARED anonymous mapping;
 *  - the same through a memfd mapped at DIFFERENT addresses: the child maps
 *    the object again elsewhere, unmaps the inherited mapping and plays
 *    through its own (librtpi's condvar keeps a mutex pointer and breaks here);
 *  - two mappings of one memfd in one process, a waiter using one and the
 *    signaller the other.
 * Every wait is a timed wait bounded by a deadline: a lost wake-up fails.
 */
#include <sys/mman.h>

#include "rts_helpers.h"

#define ROUNDS 500
#define MAP_LEN 8192

struct table {
	rts_mutex_t m;
	rts_cond_t c;
	int turn; /* 0: parent, 1: child */
	int rounds[2];
	int child_ready;
};

static void table_init(struct table *t, int proto)
{
	memset(t, 0, sizeof(*t));
	mutex_init_with(&t->m, proto, RTS_PROCESS_SHARED, RTS_MUTEX_STALLED);
	cond_init_with(&t->c, RTS_PROCESS_SHARED, CLOCK_MONOTONIC);
}

/* One side of the ping-pong; 0 or the first error number. */
static int play(struct table *t, int me, int rounds)
{
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 10000 * H_SLOW);
	for (int r = 0; r < rounds; r++) {
		int ret = rts_mutex_lock(&t->m);
		if (ret)
			return ret;
		while (t->turn != me && ret == 0)
			ret = rts_cond_timedwait(&t->c, &t->m, &dl);
		if (ret) {
			rts_mutex_unlock(&t->m);
			return ret;
		}
		t->turn = !me;
		t->rounds[me]++;
		ret = rts_cond_signal(&t->c);
		int ret2 = rts_mutex_unlock(&t->m);
		if (ret || ret2)
			return ret ? ret : ret2;
	}
	return 0;
}

static void wait_child_ok(pid_t pid)
{
	int status;
	CHECK_SYS(waitpid(pid, &status, 0));
	if (WIFSIGNALED(status))
		FAIL("child killed by signal %d", WTERMSIG(status));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed: %s",
		  h_errname(WEXITSTATUS(status)));
}

static void pingpong_anon(int proto)
{
	struct table *t = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	CHECK(t != MAP_FAILED);
	table_init(t, proto);
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid == 0)
		_exit(play(t, 1, ROUNDS));
	int ret = play(t, 0, ROUNDS);
	if (ret)
		kill(pid, SIGKILL);
	CHECK_OK(ret);
	wait_child_ok(pid);
	CHECK_EQ(t->rounds[0], ROUNDS);
	CHECK_EQ(t->rounds[1], ROUNDS);
	CHECK_EQ(cond_waiters(&t->c), 0);
	CHECK_EQ(mutex_owner(&t->m), 0);
	munmap(t, MAP_LEN);
}

static void test_pingpong_anon_none(void)
{
	pingpong_anon(RTS_PROTO_NONE);
}

static void test_pingpong_anon_pip(void)
{
	pingpong_anon(RTS_PROTO_PIP);
}

/* Map the memfd somewhere that is guaranteed not to be `avoid`. */
static void *map_elsewhere(int fd, void *avoid)
{
	/* Reserve two pages and map into the second one: never the same address as `avoid`,
	 * which stays mapped while we do this. */
	char *hole = mmap(NULL, 2 * MAP_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		return MAP_FAILED;
	munmap(hole, MAP_LEN);
	void *p = mmap(hole + MAP_LEN, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == avoid)
		return MAP_FAILED;
	return p;
}

static void pingpong_other_address(int proto)
{
	int fd = memfd_create("rtsched-pshared", MFD_CLOEXEC);
	CHECK_SYS(fd);
	CHECK_SYS(ftruncate(fd, MAP_LEN));
	struct table *t = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(t != MAP_FAILED);
	table_init(t, proto);
	/* The parent waits first, so that the condvar is bound while the child plays elsewhere. */
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid == 0) {
		struct table *mine = map_elsewhere(fd, t);
		if (mine == MAP_FAILED)
			_exit(100);
		/* Nothing of the parent's address stays valid here. */
		munmap(t, MAP_LEN);
		H_STORE(&mine->child_ready, 1);
		_exit(play(mine, 1, ROUNDS));
	}
	WAIT_FOR(H_LOAD(&t->child_ready), 2000);
	int ret = play(t, 0, ROUNDS);
	if (ret)
		kill(pid, SIGKILL);
	CHECK_OK(ret);
	wait_child_ok(pid);
	CHECK_EQ(t->rounds[0], ROUNDS);
	CHECK_EQ(t->rounds[1], ROUNDS);
	munmap(t, MAP_LEN);
	close(fd);
}

static void test_pingpong_other_address_none(void)
{
	pingpong_other_address(RTS_PROTO_NONE);
}

static void test_pingpong_other_address_pip(void)
{
	pingpong_other_address(RTS_PROTO_PIP);
}

/*
 * The child waits through its own mapping while the parent signals through
 * the original: the signaller finds the waiters' mutex from the condvar's
 * offset, at the signaller's address.
 */
static void waiter_in_child_other_address(int proto)
{
	int fd = memfd_create("rtsched-pshared", MFD_CLOEXEC);
	CHECK_SYS(fd);
	CHECK_SYS(ftruncate(fd, MAP_LEN));
	struct table *t = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(t != MAP_FAILED);
	table_init(t, proto);
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid == 0) {
		struct table *mine = map_elsewhere(fd, t);
		if (mine == MAP_FAILED)
			_exit(100);
		munmap(t, MAP_LEN);
		int ret = rts_mutex_lock(&mine->m);
		if (ret)
			_exit(ret);
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 5000 * H_SLOW);
		while (mine->turn != 1 && ret == 0)
			ret = rts_cond_timedwait(&mine->c, &mine->m, &dl);
		mine->rounds[1]++;
		int ret2 = rts_mutex_unlock(&mine->m);
		_exit(ret ? ret : ret2);
	}
	WAIT_FOR(cond_waiters(&t->c) == 1, 3000);
	h_sleep_ms(5);
	CHECK_OK(rts_mutex_lock(&t->m));
	t->turn = 1;
	CHECK_OK(rts_cond_signal(&t->c));
	CHECK_OK(rts_mutex_unlock(&t->m));
	wait_child_ok(pid);
	CHECK_EQ(t->rounds[1], 1);
	munmap(t, MAP_LEN);
	close(fd);
}

static void test_waiter_in_child_other_address_none(void)
{
	waiter_in_child_other_address(RTS_PROTO_NONE);
}

static void test_waiter_in_child_other_address_pip(void)
{
	waiter_in_child_other_address(RTS_PROTO_PIP);
}

/* One process, two mappings of one memfd: waiter on one, signaller on the other. */
struct two_maps {
	struct table *a, *b;
	int ret;
};

static void *wait_via_a(void *p)
{
	struct two_maps *tm = p;
	struct table *t = tm->a;
	int ret = rts_mutex_lock(&t->m);
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 5000 * H_SLOW);
	while (ret == 0 && H_LOAD(&t->turn) != 1)
		ret = rts_cond_timedwait(&t->c, &t->m, &dl);
	if (ret == 0)
		ret = rts_mutex_unlock(&t->m);
	tm->ret = ret;
	return NULL;
}

static void two_mappings_one_process(int proto)
{
	int fd = memfd_create("rtsched-pshared", MFD_CLOEXEC);
	CHECK_SYS(fd);
	CHECK_SYS(ftruncate(fd, MAP_LEN));
	struct two_maps tm;
	tm.a = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(tm.a != MAP_FAILED);
	tm.b = map_elsewhere(fd, tm.a);
	CHECK(tm.b != MAP_FAILED);
	CHECK(tm.a != tm.b);
	table_init(tm.a, proto);
	tm.ret = -1;
	pthread_t t;
	h_thread_start(&t, wait_via_a, &tm, 0, -1);
	WAIT_FOR(cond_waiters(&tm.b->c) == 1, 3000);
	h_sleep_ms(5);
	CHECK_OK(rts_mutex_lock(&tm.b->m));
	H_STORE(&tm.b->turn, 1);
	CHECK_OK(rts_cond_signal(&tm.b->c));
	CHECK_OK(rts_mutex_unlock(&tm.b->m));
	h_join(t, 3000);
	CHECK_OK(tm.ret);
	munmap(tm.a, MAP_LEN);
	munmap(tm.b, MAP_LEN);
	close(fd);
}

static void test_two_mappings_one_process_none(void)
{
	two_mappings_one_process(RTS_PROTO_NONE);
}

static void test_two_mappings_one_process_pip(void)
{
	two_mappings_one_process(RTS_PROTO_PIP);
}

static const struct h_case cases[] = {
	H_CASE(test_pingpong_anon_none, 10000),
	H_CASE(test_pingpong_anon_pip, 10000),
	H_CASE(test_pingpong_other_address_none, 10000),
	H_CASE(test_pingpong_other_address_pip, 10000),
	H_CASE(test_waiter_in_child_other_address_none, 8000),
	H_CASE(test_waiter_in_child_other_address_pip, 8000),
	H_CASE(test_two_mappings_one_process_none, 8000),
	H_CASE(test_two_mappings_one_process_pip, 8000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
