/* SPDX-License-Identifier: MIT */
/* liblitmus's "asm/cycles.h": cycles_t, CYCLES_FMT and get_cycles() are in <litmus.h>. */
#ifndef RTSCHED_LIBLITMUS_ASM_CYCLES_H
#define RTSCHED_LIBLITMUS_ASM_CYCLES_H
#include <litmus.h>
#endif
