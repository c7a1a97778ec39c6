/* SPDX-License-Identifier: MIT */
/*
 * liblitmus's private "internal.h", which its release_ts.c includes. The
 * kernel interface it describes (LITMUS^RT's system calls) does not exist on
 * a stock kernel; rtsched's -llitmus has no private part to show here.
 */
#ifndef RTSCHED_LIBLITMUS_INTERNAL_H
#define RTSCHED_LIBLITMUS_INTERNAL_H
#include <litmus.h>
#endif
