// SPDX-License-Identifier: MIT
//
// rtpi::mutex and rtpi::condition_variable (<rtpi/mutex.hpp>,
// <rtpi/condition_variable.hpp>), tested the way libstdc++'s testsuite tests
// std::mutex and std::condition_variable (30_threads/mutex/...,
// 30_threads/condition_variable/...: construction, requirements and type
// sizes, lock / try_lock / unlock, wait and notify, wait_for and wait_until
// with and without predicates on several clocks and duration types, a
// condvar deleted by the thread its wait returned to), plus what librtpi adds:
// notify_one(lock) / notify_all(lock), a PI futex word underneath, waiters
// woken highest priority first. Built as a librtpi C++ program: the compat
// include directory and -lrtpi, nothing else of rtsched.
#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <ratio>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness.h"

using namespace std::chrono;
using lock_t = std::unique_lock<rtpi::mutex>;

// ---- requirements (requirements/typedefs.cc, standard_layout.cc, typesizes.cc) ----

static_assert(std::is_same<rtpi::mutex::native_handle_type, pi_mutex *>::value, "librtpi's handle");
static_assert(std::is_same<rtpi::condition_variable::native_handle_type, pi_cond_t *>::value,
	      "librtpi's handle");
static_assert(std::is_same<rtpi::cv_status, std::cv_status>::value, "rtpi::cv_status");
static_assert(sizeof(rtpi::mutex) == sizeof(pi_mutex_t) && alignof(rtpi::mutex) == 64,
	      "rtpi::mutex is one pi_mutex_t");
static_assert(sizeof(rtpi::condition_variable) == sizeof(pi_cond_t),
	      "rtpi::condition_variable is one pi_cond_t");
static_assert(std::is_standard_layout<rtpi::mutex>::value, "standard layout");
static_assert(std::is_standard_layout<rtpi::condition_variable>::value, "standard layout");
static_assert(std::is_nothrow_default_constructible<rtpi::mutex>::value, "noexcept ctor");
static_assert(std::is_nothrow_default_constructible<rtpi::condition_variable>::value,
	      "noexcept ctor");
static_assert(!std::is_copy_constructible<rtpi::mutex>::value &&
		      !std::is_copy_assignable<rtpi::mutex>::value &&
		      !std::is_move_constructible<rtpi::mutex>::value,
	      "rtpi::mutex neither copies nor moves");
static_assert(!std::is_copy_constructible<rtpi::condition_variable>::value &&
		      !std::is_copy_assignable<rtpi::condition_variable>::value,
	      "rtpi::condition_variable does not copy");

// A global mutex, constant-initialised (constexpr constructor), used before main could run any
// dynamic initialiser.
static rtpi::mutex global_mutex;

static uint32_t futex_word(rtpi::mutex &m)
{
	return __atomic_load_n(&m.native_handle()->s.futex, __ATOMIC_ACQUIRE);
}

template <class F> static void run_in_thread(F f)
{
	std::thread t(f);
	t.join();
}

// ---- rtpi::mutex ---------------------------------------------------------------

static void test_mutex_lock_unlock(void)
{
	rtpi::mutex m;
	m.lock();
	CHECK_EQ(futex_word(m), (uint32_t)h_gettid()); // a PI-futex word: the owner's TID
	m.unlock();
	CHECK_EQ(futex_word(m), 0);
	{
		std::lock_guard<rtpi::mutex> g(global_mutex);
		CHECK_EQ(futex_word(global_mutex), (uint32_t)h_gettid());
	}
	CHECK_EQ(futex_word(global_mutex), 0);
}

static void test_mutex_relock_throws_edeadlock(void)
{
	rtpi::mutex m;
	m.lock();
	bool thrown = false;
	try {
		m.lock();
	} catch (const std::system_error &e) {
		thrown = true;
		CHECK(e.code() == std::errc::resource_deadlock_would_occur);
		CHECK_EQ(e.code().value(), EDEADLOCK);
	}
	CHECK(thrown);
	m.unlock();
}

static void test_mutex_try_lock(void)
{
	rtpi::mutex m;
	CHECK(m.try_lock());
	CHECK(!m.try_lock()); // the owner: EDEADLOCK underneath, false here
	run_in_thread([&] { CHECK(!m.try_lock()); });
	m.unlock();
	run_in_thread([&] {
		CHECK(m.try_lock());
		m.unlock();
	});
}

static void test_mutex_unlock_by_other_ignored(void)
{
	rtpi::mutex m;
	m.lock();
	run_in_thread([&] { m.unlock(); }); // EPERM underneath; unlock() does not throw
	CHECK_EQ(futex_word(m), (uint32_t)h_gettid());
	m.unlock();
}

static void test_mutex_std_lock_and_exclusion(void)
{
	rtpi::mutex a, b;
	long counter = 0;
	auto body = [&](bool reverse) {
		for (int i = 0; i < 2000; i++) {
			if (reverse)
				std::lock(b, a);
			else
				std::lock(a, b);
			std::lock_guard<rtpi::mutex> ga(a, std::adopt_lock);
			std::lock_guard<rtpi::mutex> gb(b, std::adopt_lock);
			counter++;
		}
	};
	std::thread t1(body, false), t2(body, true);
	t1.join();
	t2.join();
	CHECK_EQ(counter, 4000);
	std::scoped_lock both(a, b);
	CHECK_EQ(futex_word(a), (uint32_t)h_gettid());
	CHECK_EQ(futex_word(b), (uint32_t)h_gettid());
}

// ---- wait and notify (members/3.cc) ----------------------------------------------

static void test_cv_wait_notify_one(void)
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	int items = 0, consumed = 0;
	std::thread consumer([&] {
		for (int i = 0; i < 100; i++) {
			lock_t lk(m);
			cv.wait(lk, [&] { return items > 0; });
			items--;
			consumed++;
			cv.notify_one(lk); // librtpi's form
		}
	});
	for (int i = 0; i < 100; i++) {
		lock_t lk(m);
		cv.wait(lk, [&] { return items == 0; });
		items++;
		if (i % 2)
			cv.notify_one(lk);
		else
			cv.notify_one(); // std's form (rtsched extension)
	}
	consumer.join();
	CHECK_EQ(consumed, 100);
}

static void test_cv_notify_all(void)
{
	enum { N = 4 };
	rtpi::mutex m;
	rtpi::condition_variable cv;
	bool go = false;
	int waiting = 0, done = 0;
	std::vector<std::thread> threads;
	for (int i = 0; i < N; i++)
		threads.emplace_back([&] {
			lock_t lk(m);
			waiting++;
			cv.wait(lk, [&] { return go; });
			done++;
		});
	for (;;) {
		lock_t lk(m);
		if (waiting == N)
			break;
		lk.unlock();
		h_sleep_ms(1);
	}
	{
		lock_t lk(m);
		go = true;
		cv.notify_all(lk);
	}
	for (auto &t : threads)
		t.join();
	CHECK_EQ(done, N);
}

// ---- timed waits (members/1.cc, 2.cc, 53841.cc, 68519.cc) --------------------------

static void test_cv_wait_for_times_out(void)
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	lock_t lk(m);
	auto start = steady_clock::now();
	// Nobody notifies: timeout (no_timeout would be a spurious wake-up, allowed).
	while (cv.wait_for(lk, milliseconds(20)) == std::cv_status::no_timeout)
		start = steady_clock::now();
	CHECK_GE(duration_cast<nanoseconds>(steady_clock::now() - start).count(), 20000000);
	CHECK(lk.owns_lock());

	start = steady_clock::now();
	CHECK(!cv.wait_for(lk, milliseconds(20), [] { return false; }));
	CHECK_GE(duration_cast<nanoseconds>(steady_clock::now() - start).count(), 20000000);
	CHECK(cv.wait_for(lk, hours::max(), [] { return true; })); // no overflow, no wait
	CHECK(cv.wait_for(lk, seconds(-1)) == std::cv_status::timeout);
	CHECK(!cv.wait_for(lk, nanoseconds::min(), [] { return false; }));
}

// 68519.cc: a floating-point duration must not be rounded down to an early timeout.
static void test_cv_wait_for_odd_durations(void)
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	lock_t lk(m);
	auto start = steady_clock::now();
	CHECK(!cv.wait_for(lk, duration<float>(0.02f), [] { return false; }));
	CHECK_GE(duration_cast<nanoseconds>(steady_clock::now() - start).count(), 20000000);
	start = steady_clock::now();
	CHECK(!cv.wait_for(lk, duration<long, std::ratio<1, 50>>(1), [] { return false; }));
	CHECK_GE(duration_cast<nanoseconds>(steady_clock::now() - start).count(), 20000000);
	start = steady_clock::now();
	CHECK(!cv.wait_for(lk, duration<double, std::milli>(20.5), [] { return false; }));
	CHECK_GE(duration_cast<nanoseconds>(steady_clock::now() - start).count(), 20500000);
}

// A clock of the program's own (53841.cc): steady time counted in double milliseconds
// from an epoch of its own.
struct test_clock {
	typedef std::chrono::duration<double, std::milli> duration;
	typedef duration::rep rep;
	typedef duration::period period;
	typedef std::chrono::time_point<test_clock> time_point;
	static constexpr bool is_steady = true;
	static time_point now()
	{
		return time_point(duration(steady_clock::now().time_since_epoch()) -
				  std::chrono::duration<double>(1000.0));
	}
};

template <class Clock> static void check_wait_until_times_out(void)
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	lock_t lk(m);
	auto deadline = Clock::now() + milliseconds(20);
	CHECK(!cv.wait_until(lk, deadline, [] { return false; }));
	CHECK(Clock::now() >= deadline); // the deadline has passed on its own clock
	// Without a predicate: timeout only once it has passed; no_timeout is a spurious wake.
	deadline = Clock::now() + milliseconds(20);
	while (cv.wait_until(lk, deadline) == std::cv_status::no_timeout)
		;
	CHECK(Clock::now() >= deadline);
	CHECK(cv.wait_until(lk, Clock::now() - seconds(1)) == std::cv_status::timeout);
	CHECK(cv.wait_until(lk, Clock::time_point::max(), [] { return true; }));
	CHECK(lk.owns_lock());
}

static void test_cv_wait_until_steady_clock(void)
{
	check_wait_until_times_out<steady_clock>();
	// steady_clock maps to the condvar's CLOCK_MONOTONIC: min() is long past.
	rtpi::mutex m;
	rtpi::condition_variable cv;
	lock_t lk(m);
	CHECK(cv.wait_until(lk, steady_clock::time_point::min()) == std::cv_status::timeout);
	CHECK(cv.wait_until(lk, time_point<steady_clock, duration<double>>(
					duration<double>(0.5))) == std::cv_status::timeout);
}

static void test_cv_wait_until_system_clock(void)
{
	check_wait_until_times_out<system_clock>();
}

static void test_cv_wait_until_own_clock(void)
{
	check_wait_until_times_out<test_clock>();
}

// A notification ends a timed wait before its deadline.
static void test_cv_wait_for_notified(void)
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	bool ready = false;
	std::thread t([&] {
		h_sleep_ms(10);
		lock_t lk(m);
		ready = true;
		cv.notify_all(lk);
	});
	lock_t lk(m);
	CHECK(cv.wait_for(lk, seconds(30), [&] { return ready; }));
	lk.unlock();
	t.join();
}

// ---- the condvar deleted by the thread its wait returned to -----------------------

// As std::notify_all_at_thread_exit (libstdc++: notify_all under the lock, then unlock), from a
// thread_local object's destructor at thread exit.
struct notify_at_exit {
	rtpi::condition_variable *cv = nullptr;
	lock_t lock;
	~notify_at_exit()
	{
		if (cv) {
			cv->notify_all(lock);
			lock.unlock();
		}
	}
};
static thread_local notify_at_exit at_exit;

static void test_cv_notify_all_at_thread_exit(void)
{
	for (int round = 0; round < 50; round++) {
		rtpi::mutex m;
		auto *cv = new rtpi::condition_variable;
		bool done = false;
		lock_t lk(m);
		std::thread t([&] {
			lock_t tl(m);
			done = true;
			at_exit.cv = cv;
			at_exit.lock = std::move(tl);
		});
		cv->wait(lk, [&] { return done; });
		delete cv; // our wait has returned: nothing may touch it any more (ASan would see it)
		lk.unlock();
		t.join();
	}
}

// ---- what librtpi is for: highest priority first --------------------------------

static rtpi::mutex prio_m;
static rtpi::condition_variable prio_cv;
static int prio_tokens, prio_waiting;
static std::atomic<int> prio_order[3];
static std::atomic<int> prio_woken;

static void *prio_waiter(void *arg)
{
	int prio = (int)(intptr_t)arg;
	lock_t lk(prio_m);
	prio_waiting++;
	prio_cv.wait(lk, [] { return prio_tokens > 0; });
	prio_tokens--;
	prio_order[prio_woken.fetch_add(1)] = prio;
	return nullptr;
}

static void test_cv_notify_one_highest_priority_first(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	const int prios[3] = { 20, 10, 30 }; // arrival order
	pthread_t t[3];
	for (int i = 0; i < 3; i++) {
		h_thread_start(&t[i], prio_waiter, (void *)(intptr_t)prios[i], prios[i], rt_cpu);
		for (;;) { // one at a time, so that arrival order is known
			lock_t lk(prio_m);
			if (prio_waiting == i + 1)
				break;
			lk.unlock();
			h_sleep_ms(1);
		}
	}
	for (int i = 0; i < 3; i++) {
		{
			lock_t lk(prio_m);
			prio_tokens++;
			prio_cv.notify_one(lk);
		}
		WAIT_FOR(prio_woken.load() == i + 1, 3000);
	}
	for (int i = 0; i < 3; i++)
		h_join(t[i], 3000);
	CHECK_EQ(prio_order[0].load(), 30);
	CHECK_EQ(prio_order[1].load(), 20);
	CHECK_EQ(prio_order[2].load(), 10);
}

static const struct h_case cases[] = {
	H_CASE(test_mutex_lock_unlock, 3000),
	H_CASE(test_mutex_relock_throws_edeadlock, 3000),
	H_CASE(test_mutex_try_lock, 3000),
	H_CASE(test_mutex_unlock_by_other_ignored, 3000),
	H_CASE(test_mutex_std_lock_and_exclusion, 10000),
	H_CASE(test_cv_wait_notify_one, 5000),
	H_CASE(test_cv_notify_all, 5000),
	H_CASE(test_cv_wait_for_times_out, 5000),
	H_CASE(test_cv_wait_for_odd_durations, 5000),
	H_CASE(test_cv_wait_until_steady_clock, 5000),
	H_CASE(test_cv_wait_until_system_clock, 5000),
	H_CASE(test_cv_wait_until_own_clock, 5000),
	H_CASE(test_cv_wait_for_notified, 5000),
	H_CASE(test_cv_notify_all_at_thread_exit, 10000),
	H_CASE(test_cv_notify_one_highest_priority_first, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
