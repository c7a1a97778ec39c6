// SPDX-License-Identifier: MIT
//
// rtpi::condition_variable: librtpi 1.0's C++ condition variable on rtsched,
// installed as <rtpi/condition_variable.hpp>. std::condition_variable's
// interface on std::unique_lock<rtpi::mutex>, holding one pi_cond_t
// (<rtpi.h>): waiters are woken highest priority first, and a woken waiter
// is moved onto the mutex's PI futex (requeue-PI), never running unboosted
// while the notifier still holds the mutex. Header-only, links with -lrtpi.
//
// As in librtpi:
//  - notify_one(lock) / notify_all(lock) take the std::unique_lock the
//    notifier holds. rtsched also accepts notify_one() / notify_all(), as
//    std::condition_variable has them (an extension: such a program does
//    not build against real librtpi);
//  - wait() ends the program (std::terminate) when the C call fails, that
//    is when lock does not own its mutex; the timed waits throw
//    std::system_error then. wait() is not noexcept, so that a thread
//    cancelled in it can unwind (pthread_cancel's forced unwinding);
//  - deadlines: a steady_clock deadline is an absolute CLOCK_MONOTONIC
//    deadline of the condvar (PI_COND_INIT(0)); wait_for measures on
//    steady_clock. A deadline on any other clock (system_clock included) is
//    converted to the steady_clock point the same distance away, and that
//    clock is read again when the sleep times out: no timeout is reported
//    before the deadline has passed on its own clock (the wait returns
//    no_timeout instead, a spurious wake-up, and the predicate forms keep
//    waiting). A step of the real-time clock during the sleep is seen only
//    when the sleep ends.
//  - durations are rounded up to whole nanoseconds (no early timeout);
//    deadlines more than 10^11 s away are no deadline at all.
#ifndef RTPI_CONDITION_VARIABLE_HPP
#define RTPI_CONDITION_VARIABLE_HPP

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <exception>
#include <mutex>
#include <system_error>
#include <utility>

#include <rtpi.h>
#include <rtpi/mutex.hpp>

namespace rtpi
{

using std::cv_status;

class condition_variable {
    public:
	typedef pi_cond_t *native_handle_type;

	constexpr condition_variable() noexcept : c_(PI_COND_INIT(0))
	{
	}

	condition_variable(const condition_variable &) = delete;
	condition_variable &operator=(const condition_variable &) = delete;

	// Allowed once every waiter has been notified, even before they return.
	~condition_variable()
	{
		pi_cond_destroy(&c_);
	}

	void notify_one(std::unique_lock<rtpi::mutex> &lock) noexcept
	{
		pi_cond_signal(&c_, lock.mutex()->native_handle());
	}

	void notify_all(std::unique_lock<rtpi::mutex> &lock) noexcept
	{
		pi_cond_broadcast(&c_, lock.mutex()->native_handle());
	}

	// rtsched extension (std::condition_variable's form).
	void notify_one() noexcept
	{
		pi_cond_signal(&c_, nullptr);
	}

	// rtsched extension (std::condition_variable's form).
	void notify_all() noexcept
	{
		pi_cond_broadcast(&c_, nullptr);
	}

	void wait(std::unique_lock<rtpi::mutex> &lock)
	{
		if (pi_cond_wait(&c_, lock.mutex()->native_handle()) != 0)
			std::terminate();
	}

	template <class Predicate> void wait(std::unique_lock<rtpi::mutex> &lock, Predicate stop_waiting)
	{
		while (!stop_waiting())
			wait(lock);
	}

	template <class Rep, class Period>
	cv_status wait_for(std::unique_lock<rtpi::mutex> &lock,
			   const std::chrono::duration<Rep, Period> &rel_time)
	{
		steady_deadline d = deadline_after(rel_time);
		return d.forever ? wait_forever(lock) : wait_steady(lock, d.at);
	}

	template <class Rep, class Period, class Predicate>
	bool wait_for(std::unique_lock<rtpi::mutex> &lock,
		      const std::chrono::duration<Rep, Period> &rel_time, Predicate stop_waiting)
	{
		steady_deadline d = deadline_after(rel_time);
		if (d.forever) {
			wait(lock, std::move(stop_waiting));
			return true;
		}
		return wait_until(lock, d.at, std::move(stop_waiting));
	}

	template <class Duration>
	cv_status wait_until(std::unique_lock<rtpi::mutex> &lock,
			     const std::chrono::time_point<std::chrono::steady_clock, Duration> &abs_time)
	{
		return wait_steady(lock, abs_time);
	}

	template <class Clock, class Duration>
	cv_status wait_until(std::unique_lock<rtpi::mutex> &lock,
			     const std::chrono::time_point<Clock, Duration> &abs_time)
	{
		// Another clock: sleep for its remaining time on steady_clock, then ask it.
		typename Clock::time_point now = Clock::now();
		if (abs_time <= now)
			return cv_status::timeout; // (and no overflow in abs_time - now)
		steady_deadline d = deadline_after(abs_time - now);
		cv_status s = d.forever ? wait_forever(lock) : wait_steady(lock, d.at);
		if (s == cv_status::timeout && Clock::now() < abs_time)
			return cv_status::no_timeout;
		return s;
	}

	template <class Clock, class Duration, class Predicate>
	bool wait_until(std::unique_lock<rtpi::mutex> &lock,
			const std::chrono::time_point<Clock, Duration> &abs_time, Predicate stop_waiting)
	{
		while (!stop_waiting())
			if (wait_until(lock, abs_time) == cv_status::timeout)
				return stop_waiting();
		return true;
	}

	native_handle_type native_handle() noexcept
	{
		return &c_;
	}

    private:
	pi_cond_t c_;

	// Beyond this many seconds a deadline is no deadline (and no overflow).
	static constexpr double forever_s()
	{
		return 1e11;
	}

	struct steady_deadline {
		bool forever;
		std::chrono::steady_clock::time_point at;
	};

	template <class ToDuration, class Rep, class Period>
	static ToDuration ceil_cast(const std::chrono::duration<Rep, Period> &d)
	{
		ToDuration t = std::chrono::duration_cast<ToDuration>(d);
		if (t < d)
			++t;
		return t;
	}

	template <class Rep, class Period>
	static steady_deadline deadline_after(const std::chrono::duration<Rep, Period> &rel_time)
	{
		using namespace std::chrono;
		steady_deadline d = { false, steady_clock::now() };
		if (rel_time <= rel_time.zero())
			return d;
		if (duration_cast<duration<double>>(rel_time).count() > forever_s()) {
			d.forever = true;
			return d;
		}
		d.at += ceil_cast<steady_clock::duration>(rel_time);
		return d;
	}

	cv_status wait_forever(std::unique_lock<rtpi::mutex> &lock)
	{
		wait(lock);
		return cv_status::no_timeout;
	}

	template <class Duration>
	cv_status wait_steady(std::unique_lock<rtpi::mutex> &lock,
			      const std::chrono::time_point<std::chrono::steady_clock, Duration> &abs_time)
	{
		using namespace std::chrono;
		Duration since = abs_time.time_since_epoch();
		struct timespec ts = {};
		if (since > Duration::zero()) {
			if (duration_cast<duration<double>>(since).count() > forever_s())
				return wait_forever(lock);
			seconds s = duration_cast<seconds>(since);
			nanoseconds ns = ceil_cast<nanoseconds>(since - s);
			if (ns >= seconds(1)) {
				++s;
				ns -= seconds(1);
			}
			ts.tv_sec = static_cast<std::time_t>(s.count());
			ts.tv_nsec = static_cast<long>(ns.count());
		}
		// steady_clock is CLOCK_MONOTONIC, the clock of a condvar made without
		// RTPI_COND_CLOCK_REALTIME.
		int e = pi_cond_timedwait(&c_, lock.mutex()->native_handle(), &ts);
		if (e == 0)
			return cv_status::no_timeout;
		if (e == ETIMEDOUT)
			return cv_status::timeout;
		throw std::system_error(std::error_code(e, std::generic_category()),
					"rtpi::condition_variable::wait_until");
	}
};

} // namespace rtpi

#endif // RTPI_CONDITION_VARIABLE_HPP
