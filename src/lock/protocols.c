/* SPDX-License-Identifier: MIT */
/* The table of rts_mutex protocols, by enum rts_protocol. */
#include <errno.h>

#include "internal/lock_protocol.h"

const struct rts_lock_protocol *const rts_lock_protocols[RTS_LOCK_PROTOCOL_NUMBERS] = {
	[RTS_PROTO_NONE] = &rts_protocol_none,
	[RTS_PROTO_PIP] = &rts_protocol_pip,
	[RTS_PROTO_PCP] = &rts_protocol_pcp,
	[RTS_PROTO_SRP] = &rts_protocol_srp,
	[RTS_PROTO_IPCP] = &rts_protocol_ipcp,
	[RTS_PROTO_MPCP] = &rts_protocol_mpcp,
	[RTS_PROTO_FMLP] = &rts_protocol_fmlp,
	[RTS_PROTO_FIFO] = &rts_protocol_fifo,
};
_Static_assert(RTS_PROTO_FIFO + 1 == RTS_LOCK_PROTOCOL_NUMBERS, "a protocol outside the table");

static int invalid_init(rts_mutex_t *m, uint32_t flags, const rts_mutexattr_t *attr)
{
	(void)m, (void)flags, (void)attr;
	return EINVAL;
}

static int invalid_lock(rts_mutex_t *m, uint32_t flags, const struct timespec *deadline)
{
	(void)m, (void)flags, (void)deadline;
	return EINVAL;
}

static int invalid_call(rts_mutex_t *m, uint32_t flags)
{
	(void)m, (void)flags;
	return EINVAL;
}

const struct rts_lock_protocol rts_lock_protocol_invalid = {
	.name = "invalid",
	.init = invalid_init,
	.lock = invalid_lock,
	.trylock = invalid_call,
	.unlock = invalid_call,
	.timed = true, /* EINVAL, not ENOTSUP */
};
