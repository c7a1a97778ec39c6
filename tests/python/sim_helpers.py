"""Helpers of the simulator's tests: simulate a set given as a dict, read the trace back."""

from __future__ import annotations

from pathlib import Path

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

MS = 1_000_000


def sim_trace(tmp_path: Path, data: dict, duration_ns: int, **options):
    """The trace of ``data`` simulated for ``duration_ns``, and the task set."""
    taskset = taskset_from_dict(data)
    opts = SimOptions(duration_ns=duration_ns, cpus=options.pop("cpus", (0, 1, 2, 3)), **options)
    run = simulate(taskset, opts, tmp_path / "sim.rtst")
    return read_trace(run.trace_path), taskset


def events(trace, task: str, *kinds: EV) -> list[tuple]:
    """(type name, time_ns, cpu, job, arg0, arg1) of one task's events, in recording order."""
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    out = []
    for ev in trace.events_of(stream):
        if not kinds or ev["type"] in kinds:
            out.append((EV(int(ev["type"])).name, int(ev["time_ns"]), int(ev["cpu"]), int(ev["job"]),
                        int(ev["arg0"]), int(ev["arg1"])))
    return out


def first_job(trace, task: str) -> dict[str, int]:
    """Times of the first job's START and COMPLETE, and their CPUs."""
    got = {}
    for name, time, cpu, job, _a0, _a1 in events(trace, task, EV.START, EV.COMPLETE):
        if job == 1:
            got[name] = time
            got[name + "_cpu"] = cpu
    return got


def tid_of(trace, task: str) -> int:
    return next(int(s["tid"]) for s in trace.streams if s["name"] == task)
