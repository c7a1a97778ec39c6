/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>

#include <rtsched/mutex.h>

#include "internal/ceiling.h"
#include "internal/export.h"
#include "internal/mutex.h"

/* Set by rts_mutexattr_init; catches attributes used uninitialised. */
#define ATTR_MAGIC      0x5a000000u
#define ATTR_MAGIC_MASK 0xff000000u
#define ATTR_VALUE_MASK \
	(RTS_MUTEX_F_PROTO_MASK | RTS_MUTEX_F_PSHARED | RTS_MUTEX_F_ROBUST | RTS_MUTEX_F_EAGER)

static int attr_valid(const rts_mutexattr_t *attr)
{
	return attr && (attr->flags & ATTR_MAGIC_MASK) == ATTR_MAGIC;
}

RTS_EXPORT int rts_mutexattr_init(rts_mutexattr_t *attr)
{
	if (!attr)
		return EINVAL;
	*attr = (rts_mutexattr_t){.flags = ATTR_MAGIC | RTS_PROTO_NONE, .partition = -1};
	return 0;
}

RTS_EXPORT int rts_mutexattr_destroy(rts_mutexattr_t *attr)
{
	if (!attr_valid(attr))
		return EINVAL;
	attr->flags = 0;
	return 0;
}

static int set_bits(rts_mutexattr_t *attr, uint32_t mask, uint32_t value)
{
	if (!attr_valid(attr))
		return EINVAL;
	attr->flags = (attr->flags & ~mask) | value;
	return 0;
}

static int get_bits(const rts_mutexattr_t *attr, uint32_t mask, uint32_t *value)
{
	if (!attr_valid(attr) || !value)
		return EINVAL;
	*value = attr->flags & mask;
	return 0;
}

RTS_EXPORT int rts_mutexattr_setprotocol(rts_mutexattr_t *attr, int protocol)
{
	if (protocol < RTS_PROTO_NONE || protocol > RTS_PROTO_FIFO)
		return EINVAL;
	return set_bits(attr, RTS_MUTEX_F_PROTO_MASK, (uint32_t)protocol);
}

RTS_EXPORT int rts_mutexattr_getprotocol(const rts_mutexattr_t *attr, int *protocol)
{
	uint32_t bits;
	int ret = get_bits(attr, RTS_MUTEX_F_PROTO_MASK, &bits);
	if (ret == 0 && protocol)
		*protocol = (int)bits;
	return protocol ? ret : EINVAL;
}

RTS_EXPORT int rts_mutexattr_setpshared(rts_mutexattr_t *attr, int pshared)
{
	if (pshared != RTS_PROCESS_PRIVATE && pshared != RTS_PROCESS_SHARED)
		return EINVAL;
	return set_bits(attr, RTS_MUTEX_F_PSHARED, pshared ? RTS_MUTEX_F_PSHARED : 0);
}

RTS_EXPORT int rts_mutexattr_getpshared(const rts_mutexattr_t *attr, int *pshared)
{
	uint32_t bits;
	int ret = get_bits(attr, RTS_MUTEX_F_PSHARED, &bits);
	if (ret == 0 && pshared)
		*pshared = bits ? RTS_PROCESS_SHARED : RTS_PROCESS_PRIVATE;
	return pshared ? ret : EINVAL;
}

RTS_EXPORT int rts_mutexattr_setrobust(rts_mutexattr_t *attr, int robust)
{
	if (robust != RTS_MUTEX_STALLED && robust != RTS_MUTEX_ROBUST)
		return EINVAL;
	return set_bits(attr, RTS_MUTEX_F_ROBUST, robust ? RTS_MUTEX_F_ROBUST : 0);
}

RTS_EXPORT int rts_mutexattr_getrobust(const rts_mutexattr_t *attr, int *robust)
{
	uint32_t bits;
	int ret = get_bits(attr, RTS_MUTEX_F_ROBUST, &bits);
	if (ret == 0 && robust)
		*robust = bits ? RTS_MUTEX_ROBUST : RTS_MUTEX_STALLED;
	return robust ? ret : EINVAL;
}

RTS_EXPORT int rts_mutexattr_setceiling(rts_mutexattr_t *attr, int ceiling)
{
	if (!attr_valid(attr) || ceiling < 0 || ceiling > RTS_LOCK_MAX_LEVEL)
		return EINVAL;
	attr->ceiling = ceiling;
	return 0;
}

RTS_EXPORT int rts_mutexattr_getceiling(const rts_mutexattr_t *attr, int *ceiling)
{
	if (!attr_valid(attr) || !ceiling)
		return EINVAL;
	*ceiling = attr->ceiling;
	return 0;
}

RTS_EXPORT int rts_mutexattr_setpartition(rts_mutexattr_t *attr, int cpu)
{
	if (!attr_valid(attr) || cpu < 0 || cpu >= RTS_LOCK_MAX_PARTITIONS)
		return EINVAL;
	attr->partition = cpu;
	return 0;
}

RTS_EXPORT int rts_mutexattr_getpartition(const rts_mutexattr_t *attr, int *cpu)
{
	if (!attr_valid(attr) || !cpu)
		return EINVAL;
	*cpu = attr->partition;
	return 0;
}

RTS_EXPORT int rts_mutexattr_setvariant(rts_mutexattr_t *attr, int variant)
{
	if (variant != RTS_CEILING_DEFERRED && variant != RTS_CEILING_EAGER)
		return EINVAL;
	return set_bits(attr, RTS_MUTEX_F_EAGER, variant == RTS_CEILING_EAGER ? RTS_MUTEX_F_EAGER : 0);
}

RTS_EXPORT int rts_mutexattr_getvariant(const rts_mutexattr_t *attr, int *variant)
{
	uint32_t bits;
	int ret = get_bits(attr, RTS_MUTEX_F_EAGER, &bits);
	if (ret == 0 && variant)
		*variant = bits ? RTS_CEILING_EAGER : RTS_CEILING_DEFERRED;
	return variant ? ret : EINVAL;
}

RTS_EXPORT int rts_mutexattr_setdomain(rts_mutexattr_t *attr, const rts_lockdomain_t *domain)
{
	if (!attr_valid(attr))
		return EINVAL;
	attr->domain_id = domain ? domain->id : 0;
	return 0;
}

int rts_mutexattr_flags(const rts_mutexattr_t *attr, uint32_t *flags)
{
	if (!attr) {
		*flags = RTS_PROTO_NONE;
		return 0;
	}
	if (!attr_valid(attr))
		return EINVAL;
	*flags = attr->flags & ATTR_VALUE_MASK;
	return 0;
}
