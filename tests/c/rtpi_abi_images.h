/* SPDX-License-Identifier: MIT */
/*
 * The static-initialiser images of rtsched's <rtpi.h>, for test_rtpi_abi.c,
 * which is built against librtpi 1.0's layout (librtpi10/rtpi.h) and cannot
 * include rtsched's header in the same file. Built in its own translation
 * unit (rtpi_abi_images.c) with rtsched's header.
 */
#ifndef RTSCHED_TESTS_RTPI_ABI_IMAGES_H
#define RTSCHED_TESTS_RTPI_ABI_IMAGES_H

#include <stddef.h>
#include <stdint.h>

struct rtsched_rtpi_images {
	size_t mutex_size, mutex_align, cond_size, cond_align;
	const void *mutex[2]; /* PI_MUTEX_INIT(0), PI_MUTEX_INIT(RTPI_MUTEX_PSHARED) */
	const void *cond[4];  /* PI_COND_INIT(f), f = 0 .. PSHARED | CLOCK_REALTIME */
};

void rtsched_rtpi_images(struct rtsched_rtpi_images *out);

#endif
