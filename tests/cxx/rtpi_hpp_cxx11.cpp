// SPDX-License-Identifier: MIT
// <rtpi/mutex.hpp> and <rtpi/condition_variable.hpp> build as C++11 with
// -Wpedantic, and every member template instantiates (compile-only).
#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

void rtpi_hpp_cxx11_instantiate(rtpi::condition_variable &cv, std::unique_lock<rtpi::mutex> &lk);

void rtpi_hpp_cxx11_instantiate(rtpi::condition_variable &cv, std::unique_lock<rtpi::mutex> &lk)
{
	using namespace std::chrono;
	auto no = [] { return false; };
	cv.wait(lk);
	cv.wait(lk, no);
	(void)cv.wait_for(lk, milliseconds(1));
	(void)cv.wait_for(lk, duration<double>(0.001), no);
	(void)cv.wait_until(lk, steady_clock::now());
	(void)cv.wait_until(lk, system_clock::now(), no);
	(void)cv.wait_until(lk, high_resolution_clock::now());
	cv.notify_one(lk);
	cv.notify_all(lk);
	cv.notify_one();
	cv.notify_all();
	static DEFINE_PI_MUTEX(m, RTPI_MUTEX_PSHARED);
	static DEFINE_PI_COND(c, RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME);
	(void)m;
	(void)c;
}
