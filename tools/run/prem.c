/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/trace.h>

#include "clock_ns.h"
#include "prem.h"

#define LINE_BYTES 64
#define LINE_WORDS (LINE_BYTES / sizeof(uint64_t))
/* Lines between two looks at the CPU clock (execution phase) or at the gate (peripheral). */
#define LINES_PER_CHECK 64
/* How long an interval waits for the peripherals to leave their run spans. */
#define GATE_WAIT_MAX_NS 100000
/* A prime above any buffer's line count (256 MiB / 64 B = 2^22): k -> k * P mod n is a permutation. */
#define RANDOM_STRIDE 2654435761ull

static void trace_at(rts_task_t *task, int64_t time_ns, uint16_t type, uint32_t arg0, int64_t arg1)
{
	struct rts_trace_stream *stream = rts_task_trace_stream(task);
	if (stream)
		rts_trace_event_at(stream, time_ns, type, rts_task_job_number(task), arg0, arg1);
}

int run_prem_memory_init(struct run_prem_memory *memory, const struct run_task *task)
{
	memset(memory, 0, sizeof(*memory));
	size_t count = task->peripheral_buffer_bytes ? 1 : 0;
	for (size_t a = 0; a < task->body_len; a++)
		if (task->body[a].op == RUN_OP_PREM)
			count += task->body[a].n_buffers;
	if (count == 0)
		return 0;
	memory->buffers = calloc(count, sizeof(*memory->buffers));
	if (!memory->buffers)
		return ENOMEM;
	for (size_t a = 0; a < task->body_len; a++) {
		const struct run_action *action = &task->body[a];
		for (uint32_t b = 0; action->op == RUN_OP_PREM && b < action->n_buffers; b++) {
			memory->buffers[memory->n_buffers] = aligned_alloc(LINE_BYTES, action->buffer_bytes[b]);
			if (!memory->buffers[memory->n_buffers])
				return ENOMEM;
			memset(memory->buffers[memory->n_buffers++], 1, action->buffer_bytes[b]);
		}
	}
	if (task->peripheral_buffer_bytes) {
		memory->buffers[0] = aligned_alloc(LINE_BYTES, task->peripheral_buffer_bytes);
		if (!memory->buffers[0])
			return ENOMEM;
		memset(memory->buffers[0], 1, task->peripheral_buffer_bytes);
		memory->n_buffers = 1;
		memory->peripheral_lines = task->peripheral_buffer_bytes / LINE_BYTES;
	}
	return 0;
}

void run_prem_memory_destroy(struct run_prem_memory *memory)
{
	for (size_t i = 0; memory->buffers && i < memory->n_buffers; i++)
		free(memory->buffers[i]);
	free(memory->buffers);
	memset(memory, 0, sizeof(*memory));
}

static void futex_wait(_Atomic uint32_t *word, uint32_t value)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * Close the gate, then wait until no peripheral is inside a run span, for at
 * most GATE_WAIT_MAX_NS: a running peripheral leaves within LINES_PER_CHECK
 * lines, so a longer wait means it was descheduled inside its span (it does
 * not touch memory then, but would write up to LINES_PER_CHECK lines when it
 * resumes). True if it left; false if the interval went on without it.
 */
static bool gate_close(struct run_gate *gate, int64_t start)
{
	atomic_fetch_add(&gate->memory_phases, 1);
	while (atomic_load(&gate->running) != 0)
		if (clock_ns(CLOCK_MONOTONIC) - start > GATE_WAIT_MAX_NS)
			return false;
	return true;
}

static void gate_open(struct run_gate *gate)
{
	if (atomic_fetch_sub(&gate->memory_phases, 1) == 1)
		futex_wake_all(&gate->memory_phases);
}

/* Enter a run span: false (and not inside) while a memory phase is on. */
static bool gate_enter(struct run_gate *gate)
{
	atomic_fetch_add(&gate->running, 1);
	if (atomic_load(&gate->memory_phases) == 0)
		return true;
	atomic_fetch_sub(&gate->running, 1);
	return false;
}

static void gate_leave(struct run_gate *gate)
{
	atomic_fetch_sub(&gate->running, 1);
}

static long involuntary_switches(void)
{
	struct rusage usage;
	return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : 0;
}

static int set_priority(int priority)
{
	struct sched_param param = { .sched_priority = priority };
	return sched_setparam(0, &param) == 0 ? 0 : errno;
}

/* The memory phase: load every line of every buffer of the interval. */
static uint64_t touch_lines(uint64_t *const *buffers, const struct run_action *action)
{
	uint64_t sum = 0;
	for (uint32_t b = 0; b < action->n_buffers; b++) {
		const volatile uint64_t *words = buffers[b];
		for (uint64_t w = 0; w < action->buffer_bytes[b] / sizeof(uint64_t); w += LINE_WORDS)
			sum += words[w];
	}
	return sum;
}

/* The execution phase: `compute_ns` of CPU time updating the buffers' lines in the action's order. */
static void work_over(uint64_t *const *buffers, const struct run_action *action)
{
	int64_t end = rts_task_cputime_ns() + action->ns;
	uint32_t b = 0;
	uint64_t k = 0;
	for (;;) {
		for (int i = 0; i < LINES_PER_CHECK; i++) {
			uint64_t lines = action->buffer_bytes[b] / LINE_BYTES;
			uint64_t line = action->random_access ? (k * RANDOM_STRIDE) % lines : k;
			buffers[b][line * LINE_WORDS] += k;
			if (++k == lines) {
				k = 0;
				b = (b + 1) % action->n_buffers;
			}
		}
		if (rts_task_cputime_ns() >= end)
			return;
	}
}

bool run_prem_interval(rts_task_t *task, const struct run_task *spec, size_t index,
		       const struct run_prem_memory *memory, size_t first_buffer, struct run_gate *gate)
{
	const struct run_action *action = &spec->body[index];
	uint64_t *const *buffers = memory->buffers + first_buffer;
	/* Non-preemptive: no task of the partition is above prem_priority (FIFO among equals). */
	if (set_priority(spec->prem_priority) != 0)
		return false;
	long switches = involuntary_switches();
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	bool closed = gate_close(gate, start);
	int64_t memory_start = clock_ns(CLOCK_MONOTONIC);
	trace_at(task, memory_start, RTS_EV_PREM_MEMORY, (uint32_t)index, memory_start - start);
	volatile uint64_t sink = touch_lines(buffers, action);
	(void)sink;
	int64_t exec_start = clock_ns(CLOCK_MONOTONIC);
	trace_at(task, exec_start, RTS_EV_PREM_EXEC, closed ? 0 : 1, exec_start - start);
	gate_open(gate);
	work_over(buffers, action);
	int64_t worked = clock_ns(CLOCK_MONOTONIC);
	int64_t end = start + action->length_ns;
	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	trace_at(task, now, RTS_EV_PREM_END, (uint32_t)(involuntary_switches() - switches), end - worked);
	return set_priority(spec->params.priority) == 0;
}

void run_peripheral_compute(rts_task_t *task, const struct run_prem_memory *memory, int64_t ns,
			    struct run_gate *gate, const _Atomic bool *stopping)
{
	uint64_t *buffer = memory->buffers[0];
	int64_t end = rts_task_cputime_ns() + ns;
	uint64_t k = 0;
	while (!atomic_load_explicit(stopping, memory_order_relaxed)) {
		if (!gate_enter(gate)) {
			uint32_t phases = atomic_load(&gate->memory_phases);
			if (phases != 0)
				futex_wait(&gate->memory_phases, phases);
			continue;
		}
		trace_at(task, clock_ns(CLOCK_MONOTONIC), RTS_EV_GATE_RUN, 0, 0);
		bool done = false;
		while (atomic_load(&gate->memory_phases) == 0 && !(done = rts_task_cputime_ns() >= end)) {
			for (int i = 0; i < LINES_PER_CHECK; i++) {
				buffer[k * LINE_WORDS] = k;
				k = (k + 1) % memory->peripheral_lines;
			}
		}
		/* Stamped while still inside: the span ends before any memory phase that it held off. */
		int64_t held = clock_ns(CLOCK_MONOTONIC);
		gate_leave(gate);
		trace_at(task, held, RTS_EV_GATE_HOLD, done ? 0 : 1, 0);
		if (done)
			return;
	}
}
