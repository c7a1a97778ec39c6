/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock_ns.h"
#include "prem_ops.h"

bool prem_gate_close(struct prem_gate *gate, int64_t start_ns, int64_t wait_max_ns)
{
	atomic_fetch_add(&gate->memory_phases, 1);
	while (atomic_load(&gate->running) != 0)
		if (clock_ns(CLOCK_MONOTONIC) - start_ns > wait_max_ns)
			return false;
	return true;
}

void prem_gate_open(struct prem_gate *gate)
{
	if (atomic_fetch_sub(&gate->memory_phases, 1) == 1)
		syscall(SYS_futex, &gate->memory_phases, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

bool prem_gate_enter(struct prem_gate *gate)
{
	atomic_fetch_add(&gate->running, 1);
	if (atomic_load(&gate->memory_phases) == 0)
		return true;
	atomic_fetch_sub(&gate->running, 1);
	return false;
}

bool prem_gate_wanted(struct prem_gate *gate)
{
	return atomic_load(&gate->memory_phases) != 0;
}

void prem_gate_leave(struct prem_gate *gate)
{
	atomic_fetch_sub(&gate->running, 1);
}

void prem_gate_wait(struct prem_gate *gate)
{
	uint32_t phases = atomic_load(&gate->memory_phases);
	if (phases != 0)
		syscall(SYS_futex, &gate->memory_phases, FUTEX_WAIT_PRIVATE, phases, NULL, NULL, 0);
}

uint64_t prem_touch_lines(const uint64_t *buffer, uint64_t bytes)
{
	const volatile uint64_t *words = buffer;
	uint64_t sum = 0;
	for (uint64_t w = 0; w < bytes / sizeof(uint64_t); w += PREM_LINE_WORDS)
		sum += words[w];
	return sum;
}
