// SPDX-License-Identifier: MIT
//
// librtpi behaviour that waits on work in src/sync/cond.c (issue 11 part 2,
// another branch), written now so that it is checked when that lands:
//  - cancel_in_wait (libstdc++ 30_threads/condition_variable/members/103382.cc):
//    a thread pthread_cancel'ed while blocked in rtpi::condition_variable::wait
//    ends (PTHREAD_CANCELED), unwinding its stack with the mutex held again
//    (POSIX: re-acquired before the cleanup handlers; the unique_lock's
//    destructor then releases it);
//  - destroy_right_after_notify_all (libstdc++ members/54185.cc): the last of
//    several threads notifies all and destroys the condvar at once, while
//    the others have been notified but not yet returned from wait; nothing
//    may write the condvar's storage after its destructor;
//  - pshared_killed_waiter: a process killed while waiting on a
//    process-shared pi_cond_t does not keep pi_cond_destroy at EBUSY after a
//    broadcast has found nobody (rtpi.h lists it as open).
// Until then each reports its symptom as a skip naming the issue; without
// the symptom it passes. With -DRTSCHED_EXPECT_COND_PART2=ON
// (RTPI_EXPECT_PART2=1) the first two symptoms fail, with
// -DRTSCHED_EXPECT_PSHARED_KILLED_WAITER=ON (RTPI_EXPECT_KILLED_WAITER=1)
// the third. (Checked on a trial merge with main at 1c1535e, whose cond.c
// has part 2: the first two pass, the third still skips.)
#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include <sys/mman.h>

#include "harness.h"

#ifndef RTPI_EXPECT_PART2
#define RTPI_EXPECT_PART2 0
#endif
#ifndef RTPI_EXPECT_KILLED_WAITER
#define RTPI_EXPECT_KILLED_WAITER 0
#endif

#define PENDING(expected, issue, ...)                                         \
	do {                                                                  \
		if (expected)                                                 \
			FAIL(__VA_ARGS__);                                    \
		SKIP("pending " issue ": " __VA_ARGS__);                      \
	} while (0)

using lock_t = std::unique_lock<rtpi::mutex>;

// ---- cancellation inside wait -------------------------------------------------------

static rtpi::mutex cancel_m;
static rtpi::condition_variable cancel_cv;
static std::atomic<int> cancel_waiting{ 0 };
static std::atomic<int> unwound{ 0 };     // the guard's destructor ran
static std::atomic<int> held_at_unwind{ -1 }; // pi_mutex_trylock in it: EDEADLOCK = held by us

struct unwind_guard {
	~unwind_guard()
	{
		held_at_unwind = pi_mutex_trylock(cancel_m.native_handle());
		unwound = 1;
	}
};

static void *cancellable_waiter(void *)
{
	lock_t lk(cancel_m);
	unwind_guard guard;
	cancel_waiting = 1;
	cancel_cv.wait(lk, [] { return false; }); // only cancellation ends it
	return nullptr;
}

static void test_cancel_in_wait(void)
{
	pthread_t t;
	CHECK_OK(pthread_create(&t, nullptr, cancellable_waiter, nullptr));
	WAIT_FOR(cancel_waiting.load(), 3000);
	WAIT_FOR(cancel_m.try_lock(), 3000); // it waits: the mutex is free
	cancel_m.unlock();
	CHECK_OK(pthread_cancel(t));
	struct timespec dl = h_deadline_ms(CLOCK_REALTIME, 2000 * H_SLOW);
	void *ret = nullptr;
	int e = pthread_timedjoin_np(t, &ret, &dl);
	if (e == ETIMEDOUT)
		PENDING(RTPI_EXPECT_PART2, "issue 11 part 2 (cancellation in cond.c)",
			"a thread blocked in rtpi::condition_variable::wait did not act on "
			"pthread_cancel within 2 s");
	CHECK_OK(e);
	CHECK(ret == PTHREAD_CANCELED);
	CHECK_EQ(unwound.load(), 1);
	CHECK_ERR(EDEADLOCK, held_at_unwind.load()); // the mutex was held again while unwinding
	CHECK(cancel_m.try_lock());                  // and the unique_lock released it
	cancel_m.unlock();
}

// ---- destroy right after notify_all (54185) ----------------------------------------

static void test_destroy_right_after_notify_all(void)
{
	enum { N = 4 };
	rtpi::mutex m;
	alignas(rtpi::condition_variable) static unsigned char storage[sizeof(rtpi::condition_variable)];
	auto *cv = new (storage) rtpi::condition_variable;
	int arrived = 0;
	bool done = false;
	std::vector<std::thread> waiters;
	for (int i = 0; i < N; i++)
		waiters.emplace_back([&] {
			lock_t lk(m);
			arrived++;
			cv->wait(lk, [&] { return done; });
		});
	for (;;) { // all of them in wait (they release m only there)
		lock_t lk(m);
		if (arrived == N)
			break;
		lk.unlock();
		h_sleep_ms(1);
	}
	enum { WORDS = sizeof(storage) / sizeof(uint32_t) };
	uint32_t snapshot[WORDS];
	{
		lock_t lk(m);
		done = true;
		cv->notify_all(lk);
		cv->~condition_variable(); // allowed: every waiter has been notified
		for (int w = 0; w < WORDS; w++)
			snapshot[w] = __atomic_load_n((uint32_t *)storage + w, __ATOMIC_RELAXED);
	} // the waiters now return from wait, one by one
	for (auto &t : waiters)
		t.join();
	for (int w = 0; w < WORDS; w++) {
		uint32_t now = __atomic_load_n((uint32_t *)storage + w, __ATOMIC_RELAXED);
		if (now != snapshot[w])
			PENDING(RTPI_EXPECT_PART2, "issue 11 part 2 (destroy-after-wake in cond.c)",
				"the condvar's storage was written after its destructor: byte %d, "
				"0x%x -> 0x%x",
				w * 4, snapshot[w], now);
	}
}

// ---- a process-shared condvar whose waiting process was killed ---------------------

struct shared_pair {
	pi_mutex_t lock;
	pi_cond_t cond;
	int waiting;
};

static void test_pshared_killed_waiter(void)
{
	auto *p = static_cast<shared_pair *>(mmap(nullptr, sizeof(shared_pair),
						  PROT_READ | PROT_WRITE,
						  MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	CHECK(p != MAP_FAILED);
	CHECK_OK(pi_mutex_init(&p->lock, RTPI_MUTEX_PSHARED));
	CHECK_OK(pi_cond_init(&p->cond, RTPI_COND_PSHARED));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		pi_mutex_lock(&p->lock);
		__atomic_store_n(&p->waiting, 1, __ATOMIC_RELEASE);
		for (;;)
			pi_cond_wait(&p->cond, &p->lock);
	}
	WAIT_FOR(__atomic_load_n(&p->waiting, __ATOMIC_ACQUIRE) == 1, 3000);
	WAIT_FOR(pi_mutex_trylock(&p->lock) == 0, 3000); // the child waits: the mutex is free
	CHECK_OK(pi_mutex_unlock(&p->lock));
	CHECK_SYS(kill(child, SIGKILL));
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK_OK(pi_mutex_lock(&p->lock));
	CHECK_OK(pi_cond_broadcast(&p->cond, &p->lock)); // finds nobody alive
	CHECK_OK(pi_mutex_unlock(&p->lock));
	int e = pi_cond_destroy(&p->cond);
	if (e == EBUSY)
		PENDING(RTPI_EXPECT_KILLED_WAITER, "issue 11 (process-shared waiter killed, cond.c)",
			"pi_cond_destroy is EBUSY after the only waiter's process was killed "
			"and a broadcast found nobody");
	CHECK_OK(e);
	CHECK_OK(pi_mutex_destroy(&p->lock));
	munmap(p, sizeof(*p));
}

static const struct h_case cases[] = {
	H_CASE(test_cancel_in_wait, 10000),
	H_CASE(test_destroy_right_after_notify_all, 10000),
	H_CASE(test_pshared_killed_waiter, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
