/* SPDX-License-Identifier: MIT */
/*
 * PREM's building blocks (docs/prem.md), shared by rtsched-run's prem
 * actions and peripherals and by the PREM benchmark (bench/prem): the
 * peripheral scheduler's gate, the memory phase's line-by-line touch and the
 * order an execution phase walks its lines in.
 */
#ifndef RTSCHED_TOOLS_PREM_OPS_H
#define RTSCHED_TOOLS_PREM_OPS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define PREM_LINE_BYTES 64
#define PREM_LINE_WORDS (PREM_LINE_BYTES / sizeof(uint64_t))
/* A peripheral looks at the gate after this many lines of work. */
#define PREM_LINES_PER_CHECK 64

/*
 * The gate between memory phases and peripherals. Invariant: a peripheral
 * works only between a successful prem_gate_enter and its prem_gate_leave,
 * and a memory phase starts only once prem_gate_close has seen `running` at 0
 * after raising `memory_phases`: both sides use sequentially consistent
 * read-modify-writes and loads (Dekker), so either the interval sees the
 * peripheral inside (and waits for it to leave) or the peripheral sees the
 * memory phase (and does not start). Zero-initialised: open, nobody inside.
 */
struct prem_gate {
	_Atomic uint32_t memory_phases; /* intervals in their memory phase now; futex word */
	_Atomic uint32_t running;       /* peripherals inside a run span */
};

/*
 * Close the gate, then wait until no peripheral is inside a run span, until
 * at most start_ns + wait_max_ns (CLOCK_MONOTONIC). True if they all left;
 * false if the wait ran out (a peripheral descheduled inside its span).
 * Always pair with prem_gate_open.
 */
bool prem_gate_close(struct prem_gate *gate, int64_t start_ns, int64_t wait_max_ns);
/* The memory phase is over: the last one to open wakes the waiting peripherals. */
void prem_gate_open(struct prem_gate *gate);

/* A peripheral begins a run span: false (and not inside) while a memory phase is on. */
bool prem_gate_enter(struct prem_gate *gate);
/* Is a memory phase waiting or on? A peripheral inside its span leaves when it is. */
bool prem_gate_wanted(struct prem_gate *gate);
void prem_gate_leave(struct prem_gate *gate);
/* Sleep (futex) while a memory phase is on; returns at once otherwise. */
void prem_gate_wait(struct prem_gate *gate);

/* The memory phase: one load per line of buffer[0, bytes); the sum, so the loads stay. */
uint64_t prem_touch_lines(const uint64_t *buffer, uint64_t bytes);

/*
 * The k-th line (0 <= k < lines) an execution phase visits: k itself
 * (linear), or k * 2654435761 mod lines (random: the multiplier is a prime
 * above any line count up to 2^31, so k -> line is a permutation).
 */
static inline uint64_t prem_line_of(uint64_t k, uint64_t lines, bool random_order)
{
	return random_order ? (k * 2654435761ull) % lines : k;
}

#endif
