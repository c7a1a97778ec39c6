/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rtsched/trace.h>

#include "clock_ns.h"
#include "prem.h"

/*
 * How long an interval waits for the peripherals to leave their run spans. A
 * running peripheral leaves within PREM_LINES_PER_CHECK lines (a few µs), so
 * a longer wait means one was descheduled inside its span: it touches no
 * memory then, and would write at most PREM_LINES_PER_CHECK lines on resuming.
 */
#define GATE_WAIT_MAX_NS 100000

static void trace_at(rts_task_t *task, int64_t time_ns, uint16_t type, uint32_t arg0, int64_t arg1)
{
	struct rts_trace_stream *stream = rts_task_trace_stream(task);
	if (stream)
		rts_trace_event_at(stream, time_ns, type, rts_task_job_number(task), arg0, arg1);
}

static uint64_t *new_buffer(uint64_t bytes)
{
	uint64_t *buffer = aligned_alloc(PREM_LINE_BYTES, bytes);
	if (buffer)
		memset(buffer, 1, bytes); /* the pages exist (and mlockall keeps them) */
	return buffer;
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
		for (uint32_t b = 0; action->op == RUN_OP_PREM && b < action->n_buffers; b++)
			if (!(memory->buffers[memory->n_buffers++] = new_buffer(action->buffer_bytes[b])))
				return ENOMEM;
	}
	if (task->peripheral_buffer_bytes) {
		if (!(memory->buffers[memory->n_buffers++] = new_buffer(task->peripheral_buffer_bytes)))
			return ENOMEM;
		memory->peripheral_lines = task->peripheral_buffer_bytes / PREM_LINE_BYTES;
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

/* The execution phase: `ns` of CPU time updating one word per line of the buffers, in the action's order. */
static void work_over(uint64_t *const *buffers, const struct run_action *action)
{
	int64_t end = rts_task_cputime_ns() + action->ns;
	uint32_t b = 0;
	uint64_t k = 0;
	do {
		for (int i = 0; i < PREM_LINES_PER_CHECK; i++) {
			uint64_t lines = action->buffer_bytes[b] / PREM_LINE_BYTES;
			buffers[b][prem_line_of(k, lines, action->random_access) * PREM_LINE_WORDS] += k;
			if (++k == lines) {
				k = 0;
				b = (b + 1) % action->n_buffers;
			}
		}
	} while (rts_task_cputime_ns() < end);
}

bool run_prem_interval(rts_task_t *task, const struct run_task *spec, size_t index,
		       const struct run_prem_memory *memory, size_t first_buffer,
		       struct prem_gate *gate)
{
	const struct run_action *action = &spec->body[index];
	uint64_t *const *buffers = memory->buffers + first_buffer;
	/* Non-preemptive: no thread sharing its CPUs is above prem_priority (FIFO among equals). */
	if (set_priority(spec->prem_priority) != 0)
		return false;
	long switches = involuntary_switches();
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	bool closed = prem_gate_close(gate, start, GATE_WAIT_MAX_NS);
	int64_t memory_start = clock_ns(CLOCK_MONOTONIC);
	trace_at(task, memory_start, RTS_EV_PREM_MEMORY, (uint32_t)index, memory_start - start);
	volatile uint64_t sink = 0;
	for (uint32_t b = 0; b < action->n_buffers; b++)
		sink += prem_touch_lines(buffers[b], action->buffer_bytes[b]);
	int64_t exec_start = clock_ns(CLOCK_MONOTONIC);
	trace_at(task, exec_start, RTS_EV_PREM_EXEC, closed ? 0 : 1, exec_start - start);
	prem_gate_open(gate);
	work_over(buffers, action);
	int64_t worked = clock_ns(CLOCK_MONOTONIC);
	int64_t end = start + action->length_ns;
	int64_t now;
	while ((now = clock_ns(CLOCK_MONOTONIC)) < end)
		;
	trace_at(task, now, RTS_EV_PREM_END, (uint32_t)(involuntary_switches() - switches), end - worked);
	return set_priority(spec->params.priority) == 0;
}

void run_peripheral_compute(rts_task_t *task, const struct run_prem_memory *memory, int64_t ns,
			    struct prem_gate *gate, const _Atomic bool *stopping)
{
	uint64_t *buffer = memory->buffers[0];
	int64_t end = rts_task_cputime_ns() + ns;
	uint64_t k = 0;
	while (!atomic_load_explicit(stopping, memory_order_relaxed)) {
		if (!prem_gate_enter(gate)) {
			prem_gate_wait(gate);
			continue;
		}
		trace_at(task, clock_ns(CLOCK_MONOTONIC), RTS_EV_GATE_RUN, 0, 0);
		bool done = false;
		while (!prem_gate_wanted(gate) && !(done = rts_task_cputime_ns() >= end)) {
			for (int i = 0; i < PREM_LINES_PER_CHECK; i++) {
				buffer[k * PREM_LINE_WORDS] = k;
				k = (k + 1) % memory->peripheral_lines;
			}
		}
		/* Stamped while still inside: the span ends before any memory phase it gave way to. */
		int64_t held = clock_ns(CLOCK_MONOTONIC);
		prem_gate_leave(gate);
		trace_at(task, held, RTS_EV_GATE_HOLD, done ? 0 : 1, 0);
		if (done)
			return;
	}
}
