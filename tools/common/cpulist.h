/* SPDX-License-Identifier: MIT */
/* CPU lists in the kernel's syntax ("0-2,5"), parsed into a bit set. */
#ifndef RTS_TOOLS_CPULIST_H
#define RTS_TOOLS_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#define RTS_CPULIST_MAX 1024 /* CPUs a list may name: 0 .. RTS_CPULIST_MAX-1 */

struct rts_cpulist {
	unsigned long bits[RTS_CPULIST_MAX / (8 * sizeof(unsigned long))];
};

/*
 * Parse text ("0", "0-3", "0,2-3"; blanks and a trailing newline allowed)
 * into set. Returns 0, or EINVAL with a one-line reason in err (a reversed
 * range "5-3", a non-number, an empty item, a CPU >= RTS_CPULIST_MAX).
 */
int rts_cpulist_parse(const char *text, struct rts_cpulist *set, char *err, size_t err_size);

bool rts_cpulist_has(const struct rts_cpulist *set, int cpu);
void rts_cpulist_add(struct rts_cpulist *set, int cpu);
int rts_cpulist_count(const struct rts_cpulist *set);
/* The CPUs in increasing order into cpus[0 .. max-1]; returns how many there are. */
int rts_cpulist_to_array(const struct rts_cpulist *set, int *cpus, int max);

#endif
