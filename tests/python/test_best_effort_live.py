"""Best-effort tasks run by rtsched run beside a real-time one (docs/taskset.md "Best-effort tasks"):
their threads have the policy and nice the file gives, as the kernel reports them in
/proc/PID/task/TID/stat while the run goes on; their jobs are traced like the others (RELEASE,
START, COMPLETE), an event one released by the real-time task's activations."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from rtsched.model import load_taskset
from rtsched.sim import SimOptions, simulate
from rtsched.trace import RELEASE_CAUSE_MASK, EventType, ReleaseCause, read_trace
from child_threads import child_threads
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

SCHED_OTHER, SCHED_BATCH, SCHED_IDLE = 0, 3, 5

SET = {
    "name": "best-effort", "duration": "400ms",
    "platform": {"scheduler": "P-FP", "cpus": [1]},
    "tasks": [
        {"name": "tick", "period": "10ms", "priority": 30, "partition": "cpu1",
         "body": [{"compute": "1ms"}, {"activate": "scrub"}]},
        {"name": "log", "policy": "other", "nice": 5, "period": "20ms", "partition": "cpu1",
         "body": [{"compute": "1ms"}]},
        {"name": "bulk", "policy": "batch", "nice": 10, "kind": "self-paced", "period": "5ms",
         "partition": "cpu1", "body": [{"compute": "1ms"}]},
        {"name": "scrub", "policy": "idle", "kind": "event", "period": "10ms", "partition": "cpu1",
         "body": [{"compute": "500us"}]},
    ],
}


def _thread_settings(parent: int) -> set[tuple[int, int]]:
    """(policy, nice) of every thread of the children of ``parent`` (stat fields 41 and 19)."""
    seen: set[tuple[int, int]] = set()
    for task in child_threads(parent):
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            seen.add((int(fields[38]), int(fields[16])))  # fields 41 and 19, counted from 3
        except (OSError, IndexError, ValueError):
            continue
    return seen


def test_best_effort_threads_have_their_policy_and_nice_and_are_traced(tmp_path):
    path = tmp_path / "be.yaml"
    path.write_text(yaml.safe_dump(SET, sort_keys=False))
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out",
                            str(out), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: set[tuple[int, int]] = set()
    while run.poll() is None:
        seen |= _thread_settings(run.pid)
        time.sleep(0.01)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stdout + stderr
    assert {(SCHED_OTHER, 5), (SCHED_BATCH, 10)} <= seen, seen
    assert any(policy == SCHED_IDLE for policy, _ in seen), seen

    trace = read_trace(out / "trace.rtst")
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams}
    for name in ("log", "bulk", "scrub"):
        events = trace.events_of(streams[name])
        counts = [int((events["type"] == kind).sum()) for kind in
                  (EventType.RELEASE, EventType.START, EventType.COMPLETE)]
        assert min(counts) >= 5, (name, counts)
    scrub = trace.events_of(streams["scrub"])
    causes = scrub["arg0"][scrub["type"] == EventType.RELEASE] & RELEASE_CAUSE_MASK
    assert (causes == ReleaseCause.ACTIVATION).all()

    # the simulator runs the same file (docs/sim.md "Best-effort tasks"): the same jobs of the periodic
    # tasks, whose releases do not depend on the machine's other load; bulk, self-paced at nice 10, gets
    # what other work on CPU 1 leaves it (the suite runs beside other work), so at most the simulated
    # jobs, which assume a CPU of its own; scrub's lost activations depend on bulk's
    simulated = read_trace(simulate(load_taskset(path), SimOptions(), tmp_path / "sim.rtst").trace_path)
    sim_streams = {str(s["name"]): int(s["stream_id"]) for s in simulated.streams}

    def completed(of, stream: int) -> int:
        return int((of.events_of(stream)["type"] == EventType.COMPLETE).sum())

    for name in ("tick", "log"):
        ran, sim = completed(trace, streams[name]), completed(simulated, sim_streams[name])
        assert abs(ran - sim) <= 1, (name, ran, sim)
    ran, sim = completed(trace, streams["bulk"]), completed(simulated, sim_streams["bulk"])
    assert 5 <= ran <= sim + 1, ("bulk", ran, sim)
