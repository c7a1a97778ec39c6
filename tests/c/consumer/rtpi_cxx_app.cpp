// SPDX-License-Identifier: MIT
// A C++ program written for librtpi, unchanged: <rtpi/mutex.hpp>, <rtpi/condition_variable.hpp>, -lrtpi.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

static rtpi::mutex lock;
static rtpi::condition_variable cond;
static bool ready;

int main()
{
	std::thread waiter([] {
		std::unique_lock<rtpi::mutex> lk(lock);
		cond.wait(lk, [] { return ready; });
	});
	{
		std::unique_lock<rtpi::mutex> lk(lock);
		ready = true;
		cond.notify_all(lk);
	}
	waiter.join();
	std::unique_lock<rtpi::mutex> lk(lock);
	if (cond.wait_for(lk, std::chrono::milliseconds(1), [] { return false; }))
		return 1;
	std::printf("librtpi C++ consumer ok\n");
	return 0;
}
