/* SPDX-License-Identifier: MIT */
/*
 * Timestamps inside the ult backend's workers (src/ult/worker.c), for
 * rtsched-ult-tables (bench/ult/ult_tables.c): seed 003's §4.1 latencies
 * and overheads, which neither a job's clock nor the trace can see.
 *
 * Off unless a program attaches its counters (rts_ult_probes_attach); off,
 * each hook costs one relaxed load and an untaken branch. On, each hook
 * reads the clock (a vDSO call): every figure holds up to one clock read of
 * its own. A worker writes only the row of its CPU; its signal handler
 * writes only the worker's atomics (probe_request_ns, probe_arrival_ns),
 * recorded by the worker at its next decision. Read the counters after the
 * runtime's workers are joined (rts_taskset_destroy).
 *
 * What each kind measures (a decision: one pass of the worker's scheduler,
 * from the moment it starts looking, before the cluster lock, to its switch
 * to a ULT or its futex wait):
 */
#ifndef RTS_INTERNAL_ULT_PROBE_H
#define RTS_INTERNAL_ULT_PROBE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

enum rts_ult_probe_kind {
	/* A decision that releases a sleeper: its start minus the earliest
	 * due wake time (the release's nominal time). */
	RTS_ULT_PROBE_EVENT_LATENCY = 0,
	/* That decision's release work: moving due sleepers and timeouts to
	 * the ready queue, and handing out the cluster's next events (timers,
	 * idle workers' bounds), without its requests to other workers. */
	RTS_ULT_PROBE_RELEASE = 1,
	/* That decision's requests to other workers: kick_workers, its loop
	 * and its futex wakes (idle) and tgkills (busy). */
	RTS_ULT_PROBE_REQUEST = 2,
	/* A request (just before its futex wake or tgkill) to the told worker's
	 * signal handler or futex return. */
	RTS_ULT_PROBE_SIGNAL_LATENCY = 3,
	/* A decision that switches to a ULT, minus its release work and its
	 * requests (the switch itself not included). */
	RTS_ULT_PROBE_SCHEDULING = 4,
	RTS_ULT_PROBE_KINDS = 5,
};

struct rts_ult_probe_stat {
	int64_t count;
	int64_t sum_ns;
	int64_t max_ns;
};

/* One row per CPU number (a worker's CPU below CPU_SETSIZE). */
struct rts_ult_probes {
	struct rts_ult_probe_stat cpu[CPU_SETSIZE][RTS_ULT_PROBE_KINDS];
};

/* Start (probes) or stop (NULL) recording into probes, for runtimes whose
 * workers start from here on. */
void rts_ult_probes_attach(struct rts_ult_probes *probes);

static inline void rts_ult_probe_record(struct rts_ult_probes *probes, int cpu,
					enum rts_ult_probe_kind kind, int64_t ns)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	struct rts_ult_probe_stat *s = &probes->cpu[cpu][kind];
	s->count++;
	s->sum_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

#endif
