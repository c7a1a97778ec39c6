// SPDX-License-Identifier: MIT
//
// librtpi condition variables in C++, where a waiter's life ends early:
//  - cancel_in_wait (libstdc++ 30_threads/condition_variable/members/103382.cc):
//    a thread pthread_cancel'ed while blocked in rtpi::condition_variable::wait
//    ends (PTHREAD_CANCELED), unwinding its stack with the mutex held again
//    (POSIX: re-acquired before the cleanup handlers; the unique_lock's
//    destructor then releases it);
//  - destroy_right_after_notify_all (libstdc++ members/54185.cc): the last of
//    several threads notifies all and destroys the condvar at once, while
//    the others have been notified but not yet returned from wait; nothing
//    may write the condvar's storage after its destructor.
#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "harness.h"

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
		FAIL("a thread blocked in rtpi::condition_variable::wait did not act on "
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
			FAIL("the condvar's storage was written after its destructor: byte %d, "
				"0x%x -> 0x%x",
				w * 4, snapshot[w], now);
	}
}

static const struct h_case cases[] = {
	H_CASE(test_cancel_in_wait, 10000),
	H_CASE(test_destroy_right_after_notify_all, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
