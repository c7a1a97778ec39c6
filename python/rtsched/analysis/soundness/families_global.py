"""Families for the P-FP global-locking tests (MPCP, FMLP+) that ``families.py`` does not reach.

Issue 35 found two corners the two-processor families never draw:

- :func:`three_cpus` — a *local lower-priority task holding several global
  sections* on a resource that a task on a third processor also uses. On p0
  a top task (one or two sections on ``q``, shared with p1) and one or two
  lower tasks whose jobs take ``r`` (shared with p2) two or three times;
  on p2 a user of ``r``, often of high priority so that ``r``'s global
  ceiling is above ``q``'s (a boosted section on ``r`` then preempts one on
  ``q``); on p1 one or two users of ``q``.
- ``deadlines="arbitrary"``: some deadlines beyond the period, so that
  several jobs of a task are pending at once and queue on the resource.

Behaviour comes from the explorer (the protocols' rules); nothing here
knows the tests' terms. Integer ticks; the same seed gives the same set.
"""

from __future__ import annotations

import random

from rtsched.analysis.soundness.model import EXEC, LOCK, UNLOCK, Op, SystemModel, TaskModel

__all__ = ["three_cpus"]


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


def three_cpus(rng: random.Random, *, protocol: str, deadlines: str = "constrained") -> SystemModel:
    """Three processors under P-FP: ``q`` shared by p0 and p1, ``r`` by p0 and p2 (see the module)."""
    top_body: tuple[Op, ...] = _section("q", rng.randint(1, 2))
    if rng.random() < 0.3:
        top_body += ((EXEC, 1),) + _section("q", 1)
    elif rng.random() < 0.5:
        top_body = ((EXEC, 1),) + top_body
    tasks = [_task(rng, "a1", rng.randint(8, 16), top_body, 10, "p0", deadlines)]
    if rng.random() < 0.3:
        tasks.append(_task(rng, "a0", rng.randint(10, 20), ((EXEC, 1),), 9, "p0", deadlines))
    for k in range(rng.randint(1, 2)):
        tasks.append(_task(rng, f"a{k + 2}", rng.randint(16, 30), _several(rng, "r"), 8 - k, "p0", deadlines))
    for k in range(rng.randint(1, 2)):
        body = _section("q", rng.randint(1, 2))
        if rng.random() < 0.3:
            body += ((EXEC, 1),)
        tasks.append(_task(rng, f"b{k + 1}", rng.randint(6, 14), body, rng.choice((9, 11, 12)) - k, "p1",
                           deadlines))
    for k in range(rng.randint(1, 2)):
        body = _section("r", rng.randint(1, 2))
        if rng.random() < 0.3:
            body = ((EXEC, 1),) + body
        tasks.append(_task(rng, f"c{k + 1}", rng.randint(6, 14), body, rng.choice((13, 14, 5)) - k, "p2",
                           deadlines))
    return SystemModel(tuple(tasks), "P-FP", 3, {"q": protocol, "r": protocol})
