/* SPDX-License-Identifier: MIT */
/*
 * Counting the system calls a thread makes: a perf counter on the tracepoint
 * raw_syscalls:sys_enter, opened for the calling thread only. No text
 * parsing, and no need for the perf tool; the tracepoint's id comes from
 * tracefs (events/raw_syscalls/sys_enter/id).
 */
#ifndef LOCKBENCH_SYSCOUNT_H
#define LOCKBENCH_SYSCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Process-wide: the tracepoint, or why syscalls cannot be counted. */
struct lb_syscount_probe {
	bool available;
	uint64_t tracepoint_id;
	char tracefs[128];  /* where the id was read */
	char note[160];     /* e.g. tracefs was mounted for the look-up */
	char reason[200];   /* when !available */
};

/* Find the tracepoint id (mounting tracefs for the look-up if needed and allowed). */
void lb_syscount_probe(struct lb_syscount_probe *probe);

/* Per thread: a counter of the calling thread's raw_syscalls:sys_enter events. */
struct lb_syscount {
	int fd;
	uint64_t overhead; /* counted around an empty region (the disabling ioctl) */
};

/*
 * Open the counter for the calling thread and measure the constant overhead.
 * 0, or -errno with a message in reason (which may already hold one).
 */
int lb_syscount_open(struct lb_syscount *sc, const struct lb_syscount_probe *probe,
		     char *reason, size_t reason_size);
void lb_syscount_close(struct lb_syscount *sc);

/* Start counting (reset + enable). */
void lb_syscount_start(struct lb_syscount *sc);
/*
 * The count since lb_syscount_start, the counter left running. The read is a
 * system call itself: the difference of two reads around a region is the
 * region's calls plus one.
 */
uint64_t lb_syscount_read(const struct lb_syscount *sc);
/* Stop; the system calls made since lb_syscount_start, the overhead subtracted. */
int64_t lb_syscount_stop(struct lb_syscount *sc);

#endif
