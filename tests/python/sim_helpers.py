"""Helpers of the simulator's tests: simulate a set given as a dict, read the trace back."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from hypothesis import strategies as st

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

US = 1_000
MS = 1_000_000


def worst_responses(trace_path: Path, taskset, duration_ns: int, **options) -> tuple[dict, int]:
    """Simulate ``taskset`` for ``duration_ns``: the largest response of each task (None
    when no job completed) and the number of deadline misses, read back from the trace."""
    run = simulate(taskset, SimOptions(duration_ns=duration_ns, **options), trace_path)
    trace = read_trace(run.trace_path)
    worst, misses = {}, 0
    for s in trace.streams:
        evs = trace.events_of(s["stream_id"])
        released = {int(e["job"]): int(e["time_ns"]) for e in evs if e["type"] == EV.RELEASE}
        responses = [int(e["time_ns"]) - released[int(e["job"])] for e in evs if e["type"] == EV.COMPLETE]
        worst[s["name"]] = max(responses) if responses else None
        misses += int((evs["type"] == EV.DEADLINE_MISS).sum())
    return worst, misses


def problem_taskset(problem, scale_ns: int = MS):
    """The uniprocessor task set of an analysis problem (FP or EDF, independent tasks),
    its times multiplied by ``scale_ns`` so that the analysis's small integers become
    durations a task-set file accepts."""
    scheduler = "P-EDF" if problem.scheduler in ("EDF", "P-EDF") else "P-FP"
    tasks = []
    for t in problem.tasks:
        task = {"name": t.name, "period": f"{t.period_ns * scale_ns}ns", "deadline": f"{t.deadline_ns * scale_ns}ns",
                "partition": "cpu0", "body": [{"compute": f"{t.wcet_ns * scale_ns}ns"}]}
        if scheduler == "P-FP":
            task["priority"] = t.priority
        tasks.append(task)
    return taskset_from_dict({"name": "problem", "platform": {"scheduler": scheduler, "cpus": [0]}, "tasks": tasks})


def sim_trace(tmp_path: Path, data: dict, duration_ns: int, **options):
    """The trace of ``data`` simulated for ``duration_ns``, and the task set."""
    taskset = taskset_from_dict(data)
    opts = SimOptions(duration_ns=duration_ns, cpus=options.pop("cpus", (0, 1, 2, 3)), **options)
    run = simulate(taskset, opts, tmp_path / "sim.rtst")
    return read_trace(run.trace_path), taskset


def events(trace, task: str, *kinds: EV) -> list[tuple]:
    """(type name, time_ns, cpu, job, arg0, arg1) of one task's events of ``kinds``, in recording
    order; without ``kinds``, all but PRIORITY (the simulator's record of priority changes)."""
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    out = []
    for ev in trace.events_of(stream):
        if ev["type"] in kinds if kinds else ev["type"] != EV.PRIORITY:
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


def execution_intervals(trace, task: str) -> list[tuple[int, int]]:
    """The task's execution intervals in ns, from START/RESUME to PREEMPT/COMPLETE (one still open
    at the end of the run ends there)."""
    stream = next(s for s in trace.streams if s["name"] == task)
    out, since = [], None
    for e in trace.events_of(stream["stream_id"]):
        kind, t = int(e["type"]), int(e["time_ns"])
        if kind in (EV.START, EV.RESUME):
            since = t
        elif kind in (EV.PREEMPT, EV.COMPLETE) and since is not None:
            out.append((since, t))
            since = None
    end_ns = int(trace.header["duration_ns"])
    if since is not None and since < end_ns:
        out.append((since, end_ns))
    return out


@st.composite
def compute_only_sets(draw, max_cpus: int, max_tasks: int, min_compute_us: int, sporadic_seeds: Sequence[int],
                      sim_seeds: Sequence[int], exec_lows: Sequence[int | None]):
    """(TaskSet, SimOptions) of a set the compute-only loops take: P-FP and P-EDF (one-CPU
    partitions, or with 3 CPUs or more a cluster of two beside them), G-FP and G-EDF on 1 to
    ``max_cpus`` CPUs; equal priorities and deadlines, offsets, sporadic gaps, job limits, several
    computes per body, drawn execution times (``exec_lows``), overload."""
    scheduler = draw(st.sampled_from(["P-FP", "P-EDF", "G-FP", "G-EDF"]))
    cpus = list(range(draw(st.integers(1, max_cpus))))
    platform: dict = {"scheduler": scheduler, "cpus": cpus}
    partitions: list[str | None] = [None]
    if scheduler.startswith("P-"):
        partitions = [f"cpu{c}" for c in cpus]
        if len(cpus) >= 3 and draw(st.booleans()):  # clustered: a cluster of two CPUs beside the others
            platform["partitions"] = [{"name": "c01", "cpus": [0, 1]},
                                      *({"name": f"c{c}", "cpus": [c]} for c in cpus[2:])]
            partitions = [p["name"] for p in platform["partitions"]]
    tasks = []
    for i in range(draw(st.integers(1, max_tasks))):
        period = draw(st.sampled_from([2, 3, 4, 5, 6, 10])) * MS
        deadline_us = draw(st.integers(period // US // 2, period // US))
        computes = draw(st.lists(st.integers(min_compute_us, deadline_us // 3), min_size=1, max_size=3))
        task: dict = {"name": f"t{i}", "period": f"{period}ns", "deadline": f"{deadline_us}us",
                      "body": [{"compute": f"{c}us"} for c in computes]}
        partition = draw(st.sampled_from(partitions))
        if partition is not None:
            task["partition"] = partition
        if draw(st.booleans()):
            task["offset"] = f"{draw(st.integers(0, 4000))}us"
        if draw(st.integers(0, 4)) == 0:
            task["max_jobs"] = draw(st.integers(1, 20))
        if draw(st.integers(0, 3)) == 0:
            task["kind"] = "sporadic"
            task["sporadic"] = {"max_extra": f"{draw(st.integers(0, 3000))}us",
                                "seed": draw(st.sampled_from(sporadic_seeds))}
        if scheduler.endswith("FP"):
            task["priority"] = draw(st.integers(1, 4))  # often equal: FIFO among them
        tasks.append(task)
    options = SimOptions(duration_ns=draw(st.integers(5, 60)) * MS, seed=draw(st.sampled_from(sim_seeds)),
                         exec_low_ppm=draw(st.sampled_from(exec_lows)))
    return taskset_from_dict({"name": "gen", "platform": platform, "tasks": tasks}), options
