"""``rtsched run`` on an rt-app thread whose phases, repeated, differ only in their runs: one task whose
jobs cycle through them (tests/python/test_rtapp_import.py checks the import). Counts and CPU times in
order: job k's measured CPU time follows the phases, 1 ms, 1 ms, 3 ms, again. Needs root, SCHED_FIFO and
2 CPUs; skips with the reason otherwise."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
from test_rtapp_live import _rt_unavailable

from rtsched.trace import EventType, read_trace

CYCLE = {"tasks": {"t": {"policy": "SCHED_FIFO", "cpus": [1], "priority": 20, "loop": -1, "phases": {
    "light": {"loop": 2, "run": 1000, "timer": {"ref": "u", "period": 10000, "mode": "absolute"}},
    "heavy": {"loop": 1, "run": 3000, "timer": {"ref": "u", "period": 10000, "mode": "absolute"}}}}}}


@pytest.mark.skipif(_rt_unavailable() is not None, reason=str(_rt_unavailable()))
def test_the_jobs_of_repeated_phases_compute_each_phase_in_turn(tmp_path):
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps(CYCLE))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", str(path), "--duration", "300ms",
                             "--no-plots", "--out", str(out)], capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr
    rows = [r for r in csv.reader((out / "jobs.csv").read_text().splitlines()) if not r[0].startswith("#")]
    acet_ms = [int(r[8]) / 1e6 for r in rows]
    assert len(acet_ms) >= 27
    heavy = [k for k, ms in enumerate(acet_ms) if ms > 2]  # 3 ms of CPU time, the others 1 ms
    expected = list(range(2, len(acet_ms), 3))
    if heavy != expected:
        skip_if_cpu_time_was_the_hosts(out, sorted(set(heavy) ^ set(expected)), acet_ms)
    assert heavy == expected


def skip_if_cpu_time_was_the_hosts(out, odd: list[int], acet_ms: list[float]) -> None:
    """Skips when each job whose CPU time put it on the wrong side lost 0.5 ms or more of its wall
    time off the CPU, alone on it: the host took the vCPU during the job. Seen here under
    test-loaded: a 1 ms job at 1.60 ms of CPU time that lasted 3.53 ms from START to COMPLETE.
    The host's steal is kept out of a thread's CPU time (paravirtual steal accounting), but its own
    work on the vCPU (exits it handles) is not steal, and counts as the thread's."""
    trace = read_trace(out / "trace.rtst")
    (stream,) = [int(s["stream_id"]) for s in trace.streams if s["name"] == "t"]
    events = trace.events_of(stream)
    figures = []
    for k in odd:
        job = events[events["job"] == k + 1]
        start, complete = job[job["type"] == EventType.START], job[job["type"] == EventType.COMPLETE]
        if not len(start) or not len(complete):
            return
        off_ms = (int(complete["time_ns"][0]) - int(start["time_ns"][0])) / 1e6 - acet_ms[k]
        if off_ms < 0.5:
            return
        figures.append(f"job {k + 1}: {acet_ms[k]:.3f} ms of CPU time, {off_ms:.3f} ms off the CPU")
    pytest.skip(f"jobs whose CPU time the host's work inflated: {'; '.join(figures)}")
