/* SPDX-License-Identifier: MIT */
#ifndef RTS_INTERNAL_COND_H
#define RTS_INTERNAL_COND_H

#include <stdint.h>

#include <rtsched/cond.h>

_Static_assert(sizeof(rts_cond_t) == 64, "rts_cond_t is part of the ABI: 64 bytes");

/* The RTS_COND_F_* bits of an attribute (NULL: the defaults); EINVAL if uninitialised. */
int rts_condattr_flags(const rts_condattr_t *attr, uint32_t *flags);

#endif
