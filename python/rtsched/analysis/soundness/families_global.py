"""Families for the P-FP global-locking tests (MPCP, FMLP+) that ``families.py`` does not reach.

Issue 35's corners, which the two-processor families never draw:

- :func:`sleep_over_boosts` — a top task that sleeps (or waits on ``q``)
  above a task whose sections on ``r`` queue behind another processor's and
  are granted at its unlocks: one boosted section each time the top task
  arrives, wakes or resumes (class 1: the sleep was not counted).
- :func:`pending_jobs` — deadlines beyond the period where a job often
  outlasts its period, so that several jobs of a task wait in turn (class 2).
- :func:`three_cpus` — a *local lower-priority task holding several global
  sections* on a resource that a task on a third processor also uses. On p0
  a top task (one or two sections on ``q``, shared with p1, maybe a sleep)
  and one or two lower tasks whose jobs take ``r`` (shared with p2) two or
  three times; on p2 a user of ``r``, often of high priority so that ``r``'s
  global ceiling is above ``q``'s (a boosted section on ``r`` then preempts
  one on ``q``); on p1 one or two users of ``q``. ``deadlines="arbitrary"``
  puts some deadlines beyond the period.
- :func:`longer_deadlines` — any family with some deadlines stretched into (T, 2T].

Behaviour comes from the explorer (the protocols' rules); nothing here
knows the tests' terms. Integer ticks; the same seed gives the same set.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Callable

from rtsched.analysis.soundness.model import EXEC, LOCK, SLEEP, UNLOCK, Op, SystemModel, TaskModel

__all__ = ["three_cpus", "longer_deadlines", "sleep_over_boosts", "pending_jobs"]


def _section(r: str, n: int) -> tuple[Op, ...]:
    return ((LOCK, r), (EXEC, n), (UNLOCK, r))


def _deadline(rng: random.Random, period: int, wcet: int, deadlines: str) -> int:
    if deadlines == "arbitrary" and rng.random() < 0.6:
        return rng.randint(period + 1, 2 * period)
    return period if rng.random() < 0.6 else rng.randint(min(period, wcet + 2), period)


def _task(rng: random.Random, name: str, period: int, body: tuple[Op, ...], priority: int, partition: str,
          deadlines: str) -> TaskModel:
    wcet = sum(v for k, v in body if k == EXEC)
    return TaskModel(name, period, _deadline(rng, period, wcet, deadlines), body, priority, partition=partition)


def _several(rng: random.Random, r: str) -> tuple[Op, ...]:
    """Two or three sections on ``r`` of one tick each, sometimes with execution between them, and
    sometimes a section on ``q`` too."""
    pieces: list[tuple[Op, ...]] = []
    for k in range(rng.randint(2, 3)):
        if k and rng.random() < 0.4:
            pieces.append(((EXEC, 1),))
        pieces.append(_section(r, 1))
    if rng.random() < 0.3:
        pieces.insert(rng.randint(0, len(pieces)), _section("q", 1))
    if rng.random() < 0.3:
        pieces.insert(0, ((EXEC, 1),))
    return tuple(op for piece in pieces for op in piece)


def three_cpus(rng: random.Random, *, protocol: str, deadlines: str = "constrained",
               sleep: float = 0.3) -> SystemModel:
    """Three processors under P-FP: ``q`` shared by p0 and p1, ``r`` by p0 and p2 (see the module).
    With probability ``sleep`` the top task of p0 sleeps once (1–3 ticks) before its first section."""
    top_body: tuple[Op, ...] = _section("q", rng.randint(1, 2))
    if rng.random() < 0.3:
        top_body += ((EXEC, 1),) + _section("q", 1)
    if rng.random() < sleep:
        top_body = ((EXEC, 1), (SLEEP, rng.randint(1, 3)), (EXEC, 1)) + top_body
    elif rng.random() < 0.5:
        top_body = ((EXEC, 1),) + top_body
    tasks = [_task(rng, "a1", rng.randint(10, 20), top_body, 10, "p0", deadlines)]
    if rng.random() < 0.3:
        tasks.append(_task(rng, "a0", rng.randint(10, 20), ((EXEC, 1),), 9, "p0", deadlines))
    for k in range(1 if rng.random() < 0.7 else 2):
        tasks.append(_task(rng, f"a{k + 2}", rng.randint(24, 40), _several(rng, "r"), 8 - k, "p0", deadlines))
    for k in range(1 if rng.random() < 0.7 else 2):
        body = _section("q", 1)
        if rng.random() < 0.3:
            body += ((EXEC, 1),)
        tasks.append(_task(rng, f"b{k + 1}", rng.randint(8, 20), body, rng.choice((9, 11, 12)) - k, "p1",
                           deadlines))
    for k in range(1 if rng.random() < 0.6 else 2):
        body = _section("r", rng.randint(1, 2))
        if rng.random() < 0.3:
            body = ((EXEC, 1),) + body
        tasks.append(_task(rng, f"c{k + 1}", rng.randint(6, 16), body, rng.choice((13, 14, 5)) - k, "p2",
                           deadlines))
    return SystemModel(tuple(tasks), "P-FP", 3, {"q": protocol, "r": protocol})


def longer_deadlines(make: Callable[[random.Random], SystemModel], rng: random.Random) -> SystemModel:
    """A set of ``make`` with some deadlines beyond the period (each task with probability 1/2: D in
    (T, 2T]), priorities kept: several jobs of a task may be pending and queue on a resource."""
    model = make(rng)
    tasks = tuple(replace(t, deadline=rng.randint(t.period + 1, 2 * t.period)) if rng.random() < 0.5 else t
                  for t in model.tasks)
    return replace(model, tasks=tasks)


def sleep_over_boosts(rng: random.Random, *, protocol: str) -> SystemModel:
    """Two processors: on p0 a top task that sleeps once (and maybe takes ``q``), or takes ``q`` once
    or twice without sleeping, above a task whose
    job is three short sections on ``r``; on p1 a task that keeps ``r`` busy most of the time (and
    maybe a user of ``q``). The lower task's requests queue behind p1's and are granted at p1's
    unlocks, which often fall when the top task arrives, wakes or resumes: each time one more
    boosted section in its way (issue 35, class 1)."""
    if rng.random() < 0.5:
        top: tuple[Op, ...] = ((EXEC, 1), (SLEEP, rng.randint(1, 2)), (EXEC, 1))
        if rng.random() < 0.4:
            top += _section("q", 1)
    else:  # no sleep: the same pattern with global waits only (the N_i + 1 the analyses count)
        top = ((EXEC, 1),) + _section("q", 1) + ((EXEC, 1),) + (_section("q", 1) if rng.random() < 0.5 else ())
    low: list[Op] = []
    for k in range(3):
        if k and rng.random() < 0.5:
            low.append((EXEC, 1))
        low += _section("r", 1)
    sleeps = any(op[0] == SLEEP for op in top)
    period = rng.randint(8, 12) if sleeps else rng.randint(12, 16)  # without a sleep it waits on q: more room
    tasks = [TaskModel("a1", period, rng.randint(6, 8) if sleeps else period, top, 3, partition="p0"),
             TaskModel("a2", 36, 36, tuple(low), 1, partition="p0")]
    c_period = rng.randint(2, 3) if sleeps else rng.randint(5, 6)
    c_deadline = c_period if sleeps else 2 * c_period  # room for c's own wait when a1 takes q
    tasks.append(TaskModel("c", c_period, c_deadline, _section("r", 1), 2, partition="p1"))
    if any(op == (LOCK, "q") for op in top):
        tasks.append(TaskModel("b", 12, 12, _section("q", 1), 1, partition="p1"))
    return SystemModel(tuple(tasks), "P-FP", 2, {"q": protocol, "r": protocol})


def pending_jobs(rng: random.Random, *, protocol: str) -> SystemModel:
    """Two processors, deadlines beyond the period where it matters: on p0 a task whose job (one
    section on ``q``, maybe a tick of execution around it) often takes longer than its period, so
    that its next job is pending behind it; on p1 one or two users of ``q`` with long sections,
    their deadlines sometimes beyond their periods too (issue 35, class 2)."""
    period = rng.randint(3, 6)
    body: tuple[Op, ...] = _section("q", 1)
    if rng.random() < 0.6:
        body = ((EXEC, 1),) + body
    tasks = [TaskModel("t1", period, rng.randint(period + 1, 2 * period), body, 3, partition="p0")]
    if rng.random() < 0.3:
        tasks.append(TaskModel("t2", 12, 12, ((EXEC, 1),), 1, partition="p0"))
    for k in range(1 if rng.random() < 0.7 else 2):
        x_period = rng.randint(4, 8)
        x_deadline = x_period if rng.random() < 0.6 else rng.randint(x_period + 1, 2 * x_period)
        tasks.append(TaskModel(f"x{k + 1}", x_period, x_deadline, _section("q", rng.randint(1, 3)),
                               rng.choice((2, 4)) - k, partition="p1"))
    return SystemModel(tuple(tasks), "P-FP", 2, {"q": protocol})
