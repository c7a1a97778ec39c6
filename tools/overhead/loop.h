/* SPDX-License-Identifier: MIT */
/* The measured work: integer arithmetic in registers, no memory traffic (as in seed 002). */
#ifndef OVERHEAD_LOOP_H
#define OVERHEAD_LOOP_H

#include <stdint.h>

/* n steps of a 64-bit LCG kept in a register; returns the state so it is not optimised away. */
uint64_t ovh_loop(uint64_t n);

#endif
