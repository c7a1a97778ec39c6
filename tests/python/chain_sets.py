"""Generated task sets with cause-effect chains, shared by test_chains_soundness.py and
bench/chains/pessimism.py: seeded, reproducible (``random.Random(seed)``).

One set: P-FP or P-EDF on one CPU or two (one-CPU partitions), a chain of 3..8 tasks plus 0..3
other tasks, each on a random CPU, utilizations by UUniFast summing to 0.2..``load`` per CPU, periods from
{5, 10, 20, 25, 40, 50, 100, 200} ms (hyperperiod 200 ms) with random offsets, random distinct
rate-monotonic FP priorities (ties broken at random; links go with and against the priority order
as the periods fall) or EDF deadlines in [0.6 T, T]. Each link after the first task becomes an
event link with probability ``p_event``: the next task turns into an event task (least gap a
quarter of its activator's period, activation_queue 0..2) that the previous activates once per
job, at the start or the end of its body; then, against the analysis, each event task's least gap
is shortened to what its activator guarantees (period minus bound) and its queue lengthened to
what its bound needs, as a designer would dimension them (up to four rounds). A few chain tasks
are sporadic (up to a quarter period later).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.analysis import bounds_for
from rtsched.analysis.chains import chain_bounds
from rtsched.analysis.results import AnalysisResult, ChainBound
from rtsched.model import TaskSet, taskset_from_dict
from rtsched.report.chains import ChainLatency, chain_latencies
from rtsched.report.jobs import build_job_table
from rtsched.report.report import release_paces
from rtsched.sim import SimOptions, simulate
from rtsched.trace import read_trace

MS = 1_000_000
US = 1_000
PERIODS_MS = (5, 10, 20, 25, 40, 50, 100, 200)


def _uunifast(rng: random.Random, n: int, total: float) -> list[float]:
    out, left = [], total
    for i in range(1, n):
        nxt = left * rng.random() ** (1 / (n - i))
        out.append(left - nxt)
        left = nxt
    return out + [left]


def chain_set(seed: int, *, p_event: float = 0.35, load: float = 0.5) -> dict[str, Any]:
    """The task-set document of generated set ``seed`` (one chain, named "chain")."""
    rng = random.Random(seed)
    edf = rng.random() < 0.5
    cpus = rng.choice((1, 2))
    length = rng.randint(3, 8)
    others = rng.randint(0, 3)
    n = length + others
    placement = [rng.randrange(cpus) for _ in range(n)]
    shares = {cpu: _uunifast(rng, placement.count(cpu), rng.uniform(0.2, load)) for cpu in range(cpus)}
    tasks: list[dict[str, Any]] = []
    for i in range(n):
        cpu = placement[i]
        share = shares[cpu].pop()
        period_ms = rng.choice(PERIODS_MS)
        wcet_us = max(10, int(share * period_ms * 1000) // 10 * 10)
        task: dict[str, Any] = {"name": f"t{i}" if i < length else f"x{i - length}", "period": f"{period_ms}ms",
                                "partition": f"cpu{cpu}", "offset": f"{rng.randrange(period_ms)}ms",
                                "body": [{"compute": f"{wcet_us}us"}]}
        if edf:
            task["deadline"] = f"{rng.randint(max(6 * period_ms * 100, wcet_us), period_ms * 1000)}us"
        if i < length and rng.random() < 0.15:
            task["kind"] = "sporadic"
            task["sporadic"] = {"max_extra": f"{period_ms * 250}us", "seed": rng.randrange(1 << 30)}
        tasks.append(task)
    for i in range(length - 1):
        if rng.random() >= p_event:
            continue
        before, after = tasks[i], tasks[i + 1]
        after.update(kind="event", activation_queue=rng.randint(0, 2))
        after.pop("offset", None)
        after.pop("sporadic", None)
        _pace(after, _us(before["period"]) // 4, edf)
        before["body"].insert(rng.choice((0, len(before["body"]))), {"activate": after["name"]})
    doc = {"name": f"chains-{seed}", "platform": {"scheduler": "P-EDF" if edf else "P-FP", "cpus": list(range(cpus))},
           "tasks": tasks, "chains": [{"name": "chain", "tasks": [f"t{i}" for i in range(length)]}]}
    ties = {t["name"]: rng.random() for t in tasks}
    for _round in range(4):  # dimension the event tasks as a designer would, against the analysis
        if not edf:
            ranked = sorted(tasks, key=lambda t: (-_us(t["period"]), ties[t["name"]]))
            for priority, task in enumerate(ranked, start=1):  # rate-monotonic
                task["priority"] = priority
        if not _dimensioned(doc, edf):
            break
    return doc


def _pace(task: dict[str, Any], gap_us: int, edf: bool) -> None:
    """Give event task ``task`` the least gap ``gap_us`` (its period; its deadline under EDF) and a compute that fits."""
    gap_us = max(40, gap_us // 10 * 10)
    task["period"] = f"{gap_us}us"
    if edf:
        task["deadline"] = f"{gap_us}us"
    at = next(i for i, action in enumerate(task["body"]) if "compute" in action)
    compute_us = _us(task["body"][at]["compute"])
    task["body"][at] = {"compute": f"{max(10, min(compute_us, gap_us // 8) // 10 * 10)}us"}


def _dimensioned(doc: dict[str, Any], edf: bool) -> bool:
    """Shorten event tasks' least gaps to what their activators guarantee, and lengthen their queues to
    what their bounds need; whether anything changed."""
    taskset = taskset_from_dict(doc)
    analysis = bounds_for(taskset)
    changed = False
    for task in doc["tasks"]:
        if task.get("kind") != "event":
            continue
        activator = next(t for t in doc["tasks"] if {"activate": task["name"]} in t["body"])
        r_a, r_b = analysis.bound(activator["name"]), analysis.bound(task["name"])
        if r_a is not None and _us(activator["period"]) - r_a // US < _us(task["period"]):
            _pace(task, _us(activator["period"]) - r_a // US - 10, edf)
            changed = True
        elif r_b is not None and r_b // (_us(task["period"]) * US) > max(task["activation_queue"] - 1, 0):
            task["activation_queue"] = r_b // (_us(task["period"]) * US) + 1
            changed = True
    return changed


def _us(text: str) -> int:
    """A generated duration (``5ms``, ``250us``) in µs."""
    return int(text.removesuffix("ms")) * 1000 if text.endswith("ms") else int(text.removesuffix("us"))


@dataclass(frozen=True)
class Outcome:
    """One generated set simulated: its chain's bound and what the simulation showed."""

    seed: int
    taskset: TaskSet
    analysis: AnalysisResult
    bound: ChainBound
    observed: ChainLatency | None  # None: not simulated (no bound to check)
    responses_above: tuple[str, ...] = ()  # tasks whose observed response passed their own bound


def simulate_chain_set(seed: int, trace_dir: Path, *, duration_ns: int = 4_000 * MS, **generate: Any) -> Outcome:
    """Generate set ``seed``, bound its chain and, when it has a bound, simulate it (execution times
    drawn in [0.3, 1] × WCET for odd seeds, the WCET for even ones) and observe the chain."""
    taskset = taskset_from_dict(chain_set(seed, **generate))
    analysis = bounds_for(taskset)
    (bound,) = chain_bounds(taskset, analysis)
    if bound.reaction_ns is None and bound.data_age_ns is None:
        return Outcome(seed, taskset, analysis, bound, None)
    options = SimOptions(duration_ns=duration_ns, seed=seed, exec_low_ppm=300_000 if seed % 2 else None)
    run = simulate(taskset, options, trace_dir / f"chains-{seed}.rtst")
    trace = read_trace(run.trace_path)
    table = build_job_table(trace, release_paces(taskset))
    (observed,) = chain_latencies(table, trace, taskset, (bound,))
    above = []
    for i, task in enumerate(taskset.tasks):
        rows = table.of_task(i)
        limit = analysis.bound(task.name) if task.name in analysis.bounds() else None
        if len(rows) and limit is not None and int(np.max(rows["response"])) > limit:
            above.append(task.name)
    return Outcome(seed, taskset, analysis, bound, observed, tuple(above))
