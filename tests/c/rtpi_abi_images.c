/* SPDX-License-Identifier: MIT */
/* rtsched's <rtpi.h> initialiser images (rtpi_abi_images.h). Static: every other byte zero. */
#include <rtpi.h>

#include "rtpi_abi_images.h"

static const pi_mutex_t mutex_images[2] = {
	PI_MUTEX_INIT(0),
	PI_MUTEX_INIT(RTPI_MUTEX_PSHARED),
};

static const pi_cond_t cond_images[4] = {
	PI_COND_INIT(0),
	PI_COND_INIT(RTPI_COND_PSHARED),
	PI_COND_INIT(RTPI_COND_CLOCK_REALTIME),
	PI_COND_INIT(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME),
};

void rtsched_rtpi_images(struct rtsched_rtpi_images *out)
{
	out->mutex_size = sizeof(pi_mutex_t);
	out->mutex_align = _Alignof(pi_mutex_t);
	out->cond_size = sizeof(pi_cond_t);
	out->cond_align = _Alignof(pi_cond_t);
	for (int i = 0; i < 2; i++)
		out->mutex[i] = &mutex_images[i];
	for (int i = 0; i < 4; i++)
		out->cond[i] = &cond_images[i];
}
