"""A live run of varying computes: each job's CPU time (its COMPLETE record) follows the per-job
durations in order, a recorded trace's and a drawn one's, and equals the simulation's job by job
within a margin (the job's own runner and library work on top). Needs root (SCHED_FIFO)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from rtsched.model import load_taskset
from rtsched.pipeline.run_set import RunOptions, run_taskset
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

from test_run_live import _rt_available

MS = 1_000_000
TRACE_US = (1000, 4000, 2000, 6000, 500, 3000, 250)

SET = """
name: demand-live
duration: 1s
platform: {{scheduler: P-FP, cpus: [{cpu}]}}
tasks:
  - name: replay
    period: 20ms
    priority: 20
    partition: cpu{cpu}
    body: [{{compute: {{trace: demand.csv}}}}]
  - name: drawn
    period: 25ms
    offset: 7ms
    priority: 10
    partition: cpu{cpu}
    body: [{{compute: {{uniform: [300us, 5ms], seed: 5}}}}]
"""


def job_cpu_ns(trace_path, task):
    trace = read_trace(trace_path)
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    return {int(e["job"]): int(e["arg1"]) for e in trace.events_of(stream) if e["type"] == EV.COMPLETE}


def job_windows(trace_path, task):
    """Each job's [START, COMPLETE] in the trace, by job number."""
    trace = read_trace(trace_path)
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    starts: dict[int, int] = {}
    windows: dict[int, tuple[int, int]] = {}
    for e in trace.events_of(stream):
        if e["type"] == EV.START:
            starts[int(e["job"])] = int(e["time_ns"])
        elif e["type"] == EV.COMPLETE and int(e["job"]) in starts:
            windows[int(e["job"])] = (starts[int(e["job"])], int(e["time_ns"]))
    return windows


def interrupt_ns_charged(kernel, cpu, windows):
    """Per job, the interrupt and soft-interrupt time on its CPU inside its window, from the
    kernel's schedule the run recorded (0 without one). A kernel built without
    IRQ_TIME_ACCOUNTING (this CI machine's) charges that time to the thread it interrupted: its
    CPU clock, and so the job's CPU time, includes it."""
    if kernel is None:
        return {k: 0 for k in windows}
    return {k: sum(kernel.usage((cpu,), a, b).irqs.values()) for k, (a, b) in windows.items()}


@pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))
def test_each_jobs_cpu_time_follows_its_per_job_duration_in_order(tmp_path):
    cpu = max(os.sched_getaffinity(0))
    (tmp_path / "demand.csv").write_text("# per-job CPU time of the replay task\nexec_us\n"
                                         + "".join(f"{v}\n" for v in TRACE_US))
    (tmp_path / "set.yaml").write_text(SET.format(cpu=cpu))
    taskset = load_taskset(tmp_path / "set.yaml")
    # explain: the kernel's schedule, for the interrupt time charged to each job (below)
    result = run_taskset(taskset, RunOptions(out_dir=tmp_path / "out", plots=False, progress=False))
    assert result.report is not None
    sim = simulate(taskset, SimOptions(duration_ns=1000 * MS, cpus=(cpu,)), tmp_path / "sim.rtst")
    for task in ("replay", "drawn"):
        observed = job_cpu_ns(tmp_path / "out" / "trace.rtst", task)
        simulated = job_cpu_ns(sim.trace_path, task)
        jobs = sorted(set(observed) & set(simulated))
        assert len(jobs) >= 30, (task, len(observed), len(simulated))
        if task == "replay":  # the trace cycles: job k computes row (k - 1) mod 7
            assert all(simulated[k] == TRACE_US[(k - 1) % len(TRACE_US)] * 1000 for k in jobs)
        got = np.array([observed[k] for k in jobs], dtype=float)
        want = np.array([simulated[k] for k in jobs], dtype=float)
        charged = interrupt_ns_charged(result.kernel, cpu, job_windows(tmp_path / "out" / "trace.rtst", task))
        interrupts = np.array([charged.get(k, 0) for k in jobs], dtype=float)
        # each job at least its duration, and at most 10 % + 300 us above it (the job's own work
        # around the compute: waking, tracing; CPU time, so preemption does not count), once the
        # interrupts the kernel charged to it are taken off (a CI run under load saw a 4 ms job
        # take 4.71 ms of CPU time in 4.71 ms of wall time, with no steal)
        assert np.all(got >= want), (task, [(k, observed[k], simulated[k]) for k in jobs if observed[k] < simulated[k]])
        over = got - interrupts > 1.1 * want + 300_000
        stolen = max((result.summary.get("steal_ns") or {}).values(), default=0)
        if over.any() and stolen:
            # a fresh-clone CI here: a 1.05 ms job at 1.76 ms of CPU time in a run in which the host
            # stole 10 ms (/proc/stat): not all of the steal is kept out of the thread's CPU time
            pytest.skip(f"{task}: {int(over.sum())} job(s) beyond their duration while the host stole "
                        f"{stolen / 1e6:.0f} ms of a CPU")
        assert not over.any(), (task, [(k, observed[k], simulated[k], charged.get(k, 0))
                                       for k, bad in zip(jobs, over) if bad], result.explain_note)
        # and in the same order: the per-job CPU times rank as the durations do
        assert np.corrcoef(got, want)[0, 1] > 0.99, task
