"""Legal scenarios of a model within a bounded horizon: the search space of the harness.

- :func:`synchronous` — every task released at 0 and then periodically, full
  bodies, no delay (the critical instant of the classic uniprocessor tests).
- :func:`offset_scenarios` — every combination of first-release offsets in
  [0, T_i) with periodic releases and full bodies, when there are at most
  ``limit`` of them (exhaustive over offsets for small sets).
- :func:`random_scenario` — sporadic releases (first release at 0, near 0
  or anywhere in [0, T_i), then gaps of T_i or, now and then, longer), release delays in
  [0, J_i], bodies with some amounts shorter than the maxima (the tests are
  for upper bounds: less must never hurt them), a random tie-break order,
  and for a periodic resource a random supply (each server period's Θ ticks
  early, late or anywhere).

Every scenario returned is legal (``check_legal``); all take
``horizon``: the last arrival is before it.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Iterator

from rtsched.analysis.soundness.model import CALL, TIMED, Job, Op, Scenario, SystemModel, TaskModel

__all__ = ["horizon_of", "synchronous", "offset_scenarios", "random_scenario"]

#: The longest horizon the harness explores (ticks): small sets, short schedules.
MAX_HORIZON = 60


def horizon_of(model: SystemModel, cap: int = MAX_HORIZON) -> int:
    """Arrivals fall before this: a hyperperiod and a period, at least three periods, at most ``cap``."""
    periods = [t.period for t in model.tasks]
    hyper = math.lcm(*periods)
    return min(cap, max(hyper + max(periods), 3 * max(periods)))


def _periodic(task: TaskModel, offset: int, horizon: int) -> list[Job]:
    return [Job(task.name, a, 0, task.body) for a in range(offset, horizon, task.period)]


def synchronous(model: SystemModel, horizon: int) -> Scenario:
    jobs = [j for t in model.tasks for j in _periodic(t, 0, horizon)]
    return Scenario(tuple(jobs), tuple(t.name for t in model.tasks))


def offset_scenarios(model: SystemModel, horizon: int, limit: int) -> Iterator[Scenario]:
    """Every offset vector (periodic, full bodies), or nothing when there are more than ``limit``."""
    ranges = [range(t.period) for t in model.tasks]
    if math.prod(len(r) for r in ranges) > limit:
        return
    for offsets in itertools.product(*ranges):
        jobs = [j for t, o in zip(model.tasks, offsets) for j in _periodic(t, o, horizon)]
        yield Scenario(tuple(jobs), tuple(t.name for t in model.tasks))


def _shorter(body: tuple[Op, ...], rng: random.Random, p: float) -> tuple[Op, ...]:
    out: list[Op] = []
    for k, v in body:
        if k in TIMED and v > 0 and rng.random() < p:
            v = rng.randint(0, v)
        elif k == CALL and v[1] > 0 and rng.random() < p:
            v = (v[0], rng.randint(0, v[1]))
        out.append((k, v))
    return tuple(out)


def random_scenario(model: SystemModel, horizon: int, rng: random.Random,
                    supply: tuple[int, int] | None = None, until: int | None = None) -> Scenario:
    """A random legal scenario. ``supply``: (Π, Θ) of a periodic resource; ``until``: how far to supply."""
    p_sporadic = rng.choice((0.0, 0.2, 0.5))
    p_short = rng.choice((0.0, 0.0, 0.2, 0.5))
    p_delay = rng.choice((0.0, 0.5, 1.0))
    jobs: list[Job] = []
    for task in model.tasks:
        style = rng.random()  # first release: synchronous, clustered near 0, or anywhere in a period
        a = 0 if style < 0.3 else rng.randint(0, min(3, task.period - 1)) if style < 0.7 else rng.randrange(task.period)
        while a < horizon:
            delay = rng.randint(0, task.jitter) if rng.random() < p_delay else 0
            if rng.random() < 0.5 and rng.random() < p_delay:
                delay = task.jitter
            jobs.append(Job(task.name, a, delay, _shorter(task.body, rng, p_short)))
            gap = task.period
            if rng.random() < p_sporadic:
                gap += rng.randint(1, task.period)
            a += gap
    order = [t.name for t in model.tasks]
    rng.shuffle(order)
    if supply is None:
        return Scenario(tuple(jobs), tuple(order))
    period, budget = supply
    periods = -(-(until or horizon) // period) + 1
    pattern = []
    for _ in range(periods):
        style = rng.random()
        if style < 0.35:
            pattern.append(tuple(range(budget)))
        elif style < 0.7:
            pattern.append(tuple(range(period - budget, period)))
        else:
            pattern.append(tuple(sorted(rng.sample(range(period), budget))))
    return Scenario(tuple(jobs), tuple(order), period, budget, tuple(pattern))
