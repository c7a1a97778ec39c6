"""A family of sets whose nested sections may take two resources in opposite orders (issue 35, class 7).

Two tasks on one processor each hold one resource while they take the other:
most of the time in opposite orders (a lock-order cycle), else in the same
order (no cycle: such sets must still be accepted and checked). Each resource
gets a protocol from ``protocols``; sometimes a task sleeps inside its outer
section (a holder that suspends lets another job run and take its first lock,
which defeats SRP, IPCP and NP), sometimes a third, plain task sits between
them. Under a protocol that does not rule the cycle out, a legal interleaving
deadlocks: the jobs involved never complete, which the harness reads as a
deadline miss (``harness.judge``: a job unfinished past its deadline).
"""

from __future__ import annotations

import random

from rtsched.analysis.soundness.model import EXEC, LOCK, SLEEP, UNLOCK, Op, SystemModel, TaskModel

__all__ = ["opposite_orders"]


def _nested_body(rng: random.Random, outer: str, inner: str, sleep: bool) -> tuple[Op, ...]:
    before = rng.randint(0, 1)
    body: list[Op] = [(EXEC, before)] if before else []
    body += [(LOCK, outer), (EXEC, rng.randint(1, 2))]
    if sleep:
        body.append((SLEEP, rng.randint(1, 2)))
    body += [(LOCK, inner), (EXEC, rng.randint(1, 2)), (UNLOCK, inner), (UNLOCK, outer)]
    if rng.random() < 0.3:
        body.append((EXEC, 1))
    return tuple(body)


def opposite_orders(rng: random.Random, *, protocols: tuple[str, ...]) -> SystemModel:
    """Two nesting tasks (opposite orders 70% of the time), maybe a plain third, FP on one processor."""
    opposite = rng.random() < 0.7
    sleeper = rng.choice((None, None, 0, 1))
    bodies = [_nested_body(rng, "A", "B", sleeper == 0),
              _nested_body(rng, "B", "A", sleeper == 1) if opposite else _nested_body(rng, "A", "B", sleeper == 1)]
    if rng.random() < 0.4:
        bodies.append(((EXEC, rng.randint(1, 2)),))
    tasks = []
    for k, body in enumerate(bodies):
        wcet = sum(v for kind, v in body if kind in (EXEC, SLEEP))
        period = rng.randint(max(4, 2 * wcet), 16)
        tasks.append(TaskModel(f"t{k + 1}", period, rng.randint(min(period, wcet + 2), period), body))
    ranked = sorted(tasks, key=lambda t: (t.deadline, t.name))  # deadline monotonic, the first name first
    prioritised = tuple(TaskModel(t.name, t.period, t.deadline, t.body, len(ranked) - k)
                        for k, t in enumerate(ranked))
    first = rng.choice(protocols)
    second = first if rng.random() < 0.6 else rng.choice(protocols)
    return SystemModel(prioritised, "FP", 1, {"A": first, "B": second})
