/* SPDX-License-Identifier: MIT */
#ifndef RTS_INTERNAL_EXPORT_H
#define RTS_INTERNAL_EXPORT_H

/* The library is built with -fvisibility=hidden; this marks the public API. */
#define RTS_EXPORT __attribute__((visibility("default")))

#define rts_likely(x)   __builtin_expect(!!(x), 1)
#define rts_unlikely(x) __builtin_expect(!!(x), 0)

#endif
