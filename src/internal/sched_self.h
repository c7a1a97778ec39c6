/* SPDX-License-Identifier: MIT */
/*
 * How many times the library has changed the calling thread's scheduling
 * policy (rts_sched_apply_self, sched/policy.c). Caches of the thread's own
 * priority (the ceiling protocols' level, internal/ceiling.h) compare it with
 * the count they saw, instead of being told: the policy code need not know
 * who caches what.
 */
#ifndef RTS_INTERNAL_SCHED_SELF_H
#define RTS_INTERNAL_SCHED_SELF_H

#include <stdint.h>

extern __thread uint32_t rts_sched_self_changes __attribute__((tls_model("initial-exec")));

#endif
