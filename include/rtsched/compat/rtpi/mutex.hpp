// SPDX-License-Identifier: MIT
//
// rtpi::mutex: librtpi 1.0's C++ mutex on rtsched, installed as
// <rtpi/mutex.hpp>. A priority-inheritance mutex with std::mutex's interface
// (the Mutex requirements: std::lock_guard, std::unique_lock, std::lock),
// holding one pi_mutex_t (<rtpi.h>); header-only, links with -lrtpi.
//
// As in librtpi: constexpr-constructible (a global one needs no dynamic
// initialisation), neither copyable nor movable; lock() throws
// std::system_error (EDEADLOCK when the caller already owns it); try_lock()
// is false when another thread owns it and when the caller does; unlock()
// never throws (an unlock by a non-owner is ignored); native_handle() is the
// pi_mutex_t, for the C API.
#ifndef RTPI_MUTEX_HPP
#define RTPI_MUTEX_HPP

#include <mutex>
#include <system_error>

#include <rtpi.h>

namespace rtpi
{

class mutex {
    public:
	typedef pi_mutex *native_handle_type;

	constexpr mutex() noexcept : m_(PI_MUTEX_INIT(0))
	{
	}

	mutex(const mutex &) = delete;
	mutex &operator=(const mutex &) = delete;

	// Destroying a locked mutex is undefined, as for std::mutex.
	~mutex()
	{
		pi_mutex_destroy(&m_);
	}

	void lock()
	{
		int e = pi_mutex_lock(&m_);
		if (e)
			throw std::system_error(std::error_code(e, std::generic_category()),
						"rtpi::mutex::lock");
	}

	bool try_lock() noexcept
	{
		return pi_mutex_trylock(&m_) == 0;
	}

	void unlock() noexcept
	{
		(void)pi_mutex_unlock(&m_);
	}

	native_handle_type native_handle() noexcept
	{
		return &m_;
	}

    private:
	pi_mutex m_;
};

} // namespace rtpi

#endif // RTPI_MUTEX_HPP
