/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>

#include <rtsched/cond.h>

#include "internal/cond_object.h"
#include "internal/export.h"

#define ATTR_MAGIC      0xc0000000u
#define ATTR_MAGIC_MASK 0xff000000u
#define ATTR_VALUE_MASK (RTS_COND_F_PSHARED | RTS_COND_F_REALTIME)

static int attr_valid(const rts_condattr_t *attr)
{
	return attr && (attr->flags & ATTR_MAGIC_MASK) == ATTR_MAGIC;
}

RTS_EXPORT int rts_condattr_init(rts_condattr_t *attr)
{
	if (!attr)
		return EINVAL;
	attr->flags = ATTR_MAGIC;
	return 0;
}

RTS_EXPORT int rts_condattr_destroy(rts_condattr_t *attr)
{
	if (!attr_valid(attr))
		return EINVAL;
	attr->flags = 0;
	return 0;
}

RTS_EXPORT int rts_condattr_setpshared(rts_condattr_t *attr, int pshared)
{
	if (!attr_valid(attr) || (pshared != RTS_PROCESS_PRIVATE && pshared != RTS_PROCESS_SHARED))
		return EINVAL;
	attr->flags = (attr->flags & ~RTS_COND_F_PSHARED) | (pshared ? RTS_COND_F_PSHARED : 0);
	return 0;
}

RTS_EXPORT int rts_condattr_getpshared(const rts_condattr_t *attr, int *pshared)
{
	if (!attr_valid(attr) || !pshared)
		return EINVAL;
	*pshared = (attr->flags & RTS_COND_F_PSHARED) ? RTS_PROCESS_SHARED : RTS_PROCESS_PRIVATE;
	return 0;
}

RTS_EXPORT int rts_condattr_setclock(rts_condattr_t *attr, clockid_t clock)
{
	if (!attr_valid(attr) || (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME))
		return EINVAL;
	attr->flags = (attr->flags & ~RTS_COND_F_REALTIME) |
		      (clock == CLOCK_REALTIME ? RTS_COND_F_REALTIME : 0);
	return 0;
}

RTS_EXPORT int rts_condattr_getclock(const rts_condattr_t *attr, clockid_t *clock)
{
	if (!attr_valid(attr) || !clock)
		return EINVAL;
	*clock = (attr->flags & RTS_COND_F_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	return 0;
}

int rts_condattr_flags(const rts_condattr_t *attr, uint32_t *flags)
{
	if (!attr) {
		*flags = 0;
		return 0;
	}
	if (!attr_valid(attr))
		return EINVAL;
	*flags = attr->flags & ATTR_VALUE_MASK;
	return 0;
}
