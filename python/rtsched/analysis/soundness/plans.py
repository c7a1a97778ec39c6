"""A scenario as the adversary edits it: a :class:`Plan` that survives changes of the task set.

A :class:`~.model.Scenario` lists every job with its body, so it no longer
fits once the task set's bodies or periods change. A plan says the same in
terms that do: per task the first arrival and the extra gap after each job
(beyond the period: sporadic), per job the release delay and which amounts
run shorter, and the tie-break order. :func:`realize` turns it into a legal
scenario of any model, clipping what no longer fits (a delay above the
task's jitter, a cut of an operation the body no longer has or that is no
longer timed, a task that is gone).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from rtsched.analysis.soundness.model import CALL, SLEEP, TIMED, Job, Op, Scenario, SystemModel, TaskModel

__all__ = ["Plan", "realize", "mutate_plan", "first_lock_at"]

#: (task, job number, operation index) → the amount that job runs of that operation.
Cuts = dict[tuple[str, int, int], int]


@dataclass(frozen=True)
class Plan:
    offsets: dict[str, int] = field(default_factory=dict)  # first arrival (default 0)
    gaps: dict[tuple[str, int], int] = field(default_factory=dict)  # (task, job) → extra gap after that job
    delays: dict[tuple[str, int], int] = field(default_factory=dict)  # (task, job) → release delay
    cuts: Cuts = field(default_factory=dict)
    order: tuple[str, ...] = ()  # tie-break order, first wins (tasks not listed come after, in set order)


def _body(task: TaskModel, k: int, cuts: Cuts) -> tuple[Op, ...]:
    out: list[Op] = []
    for i, (kind, value) in enumerate(task.body):
        amount = cuts.get((task.name, k, i))
        if amount is not None and kind in TIMED:
            value = min(value, amount)
        elif amount is not None and kind == CALL:
            value = (value[0], min(value[1], amount))
        out.append((kind, value))
    return tuple(out)


def realize(model: SystemModel, plan: Plan, horizon: int, supply: tuple[int, int] | None = None) -> Scenario:
    """The plan's scenario of ``model``: arrivals before ``horizon``. ``supply``: (Π, Θ) of a periodic
    resource, its Θ ticks at the end of every period (the latest supply the model allows)."""
    jobs: list[Job] = []
    for task in model.tasks:
        a = plan.offsets.get(task.name, 0)
        k = 0
        while a < horizon:
            delay = min(plan.delays.get((task.name, k), 0), task.jitter)
            jobs.append(Job(task.name, a, delay, _body(task, k, plan.cuts)))
            a += task.period + plan.gaps.get((task.name, k), 0)
            k += 1
    names = [t.name for t in model.tasks]
    order = tuple(n for n in plan.order if n in names) + tuple(n for n in names if n not in plan.order)
    if supply is None:
        return Scenario(tuple(jobs), order)
    period, budget = supply
    return Scenario(tuple(jobs), order, period, budget, ())


def first_lock_at(task: TaskModel, resource: str | None = None) -> int | None:
    """Ticks of the job's own work (execution, sleep, calls) before its first lock (of ``resource``)."""
    before = 0
    for kind, value in task.body:
        if kind == "lock" and (resource is None or value == resource):
            return before
        if kind in TIMED:
            before += value
        elif kind == CALL:
            before += value[1]
    return None


def mutate_plan(model: SystemModel, plan: Plan, rng: random.Random) -> Plan:
    """One random change of the plan: an offset, a gap, a delay, a cut, the tie-break order, or a task
    released one tick after another task takes a lock (the instant the blocking patterns are about)."""
    task = rng.choice(model.tasks)
    jobs = max(1, 60 // task.period)
    move = rng.random()
    if move < 0.3:
        offset = plan.offsets.get(task.name, 0)
        offset = rng.randrange(task.period) if rng.random() < 0.3 else max(0, offset + rng.choice((-2, -1, 1, 2)))
        return replace(plan, offsets={**plan.offsets, task.name: offset})
    if move < 0.45:
        key = (task.name, rng.randrange(jobs))
        return replace(plan, gaps={**plan.gaps, key: rng.choice((0, 0, 1, 2, rng.randint(1, task.period)))})
    if move < 0.55:
        key = (task.name, rng.randrange(jobs))
        return replace(plan, delays={**plan.delays, key: rng.choice((0, task.jitter, rng.randint(0, task.jitter)))})
    if move < 0.7:
        timed = [i for i, (kind, _) in enumerate(task.body) if kind in TIMED or kind == CALL]
        if not timed:
            return plan
        i = rng.choice(timed)
        kind, value = task.body[i]
        most = value[1] if kind == CALL else value
        cuts = dict(plan.cuts)
        cut = (task.name, rng.randrange(jobs), i)
        if cut in cuts and rng.random() < 0.5:
            del cuts[cut]
        else:  # execution and calls keep a tick: an emptied section would show a false excess (mutations.py)
            cuts[cut] = rng.randint(0 if kind == SLEEP else min(1, most), most)
        return replace(plan, cuts=cuts)
    if move < 0.8:
        order = list(plan.order) or [t.name for t in model.tasks]
        a, b = rng.randrange(len(order)), rng.randrange(len(order))
        order[a], order[b] = order[b], order[a]
        return replace(plan, order=tuple(order))
    other = rng.choice(model.tasks)
    lock = first_lock_at(other)
    if lock is None or other is task:
        return plan
    return replace(plan, offsets={**plan.offsets, task.name: plan.offsets.get(other.name, 0) + lock + 1})
