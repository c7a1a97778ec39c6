"""Global EDF sets with non-preemptive intervals, for ``gedf-np-tardiness`` (docs/gedf-np-tardiness.md).

Implicit deadlines, independent tasks, no sleeps, 2–3 processors, U drawn
near m (tardiness bounds are for U ≤ m; the closer, the more carry-in). Two
shapes, drawn at random:

- *mixed*: m + 1 to m + 3 tasks; each job cut into 1–3 pieces, each piece
  non-preemptive with probability ``np_share`` (some tasks wholly so, some
  not at all);
- *blocking* (the shape that broke SchedCAT's transcription of Devi's
  non-preemptive bound): m long jobs (periods 8–12, one long
  non-preemptive interval each) that can take every processor just before
  one or two short-period tasks release; their jobs then wait for an
  interval to end.

Behaviours come from the scheduler's rules alone (the explorer's G-EDF with
``("np", n)`` steps: a begun interval keeps its processor, the m most
urgent ready jobs run otherwise), never from the bound's terms.
"""

from __future__ import annotations

import random

from rtsched.analysis.generators import uunifast
from rtsched.analysis.soundness.model import EXEC, NP, Op, SystemModel, TaskModel

__all__ = ["np_gedf"]

_PERIODS = (2, 3, 4, 5, 6, 8, 10, 12)


def _body(wcet: int, rng: random.Random, np_share: float) -> tuple[Op, ...]:
    cuts = sorted(rng.sample(range(1, wcet), min(wcet - 1, rng.randint(0, 2)))) if wcet > 1 else []
    edges = [0] + cuts + [wcet]
    return tuple((NP if rng.random() < np_share else EXEC, b - a) for a, b in zip(edges, edges[1:]))


def _mixed(rng: random.Random, cpus: int, total_u: float) -> list[TaskModel]:
    n = rng.randint(cpus + 1, cpus + 3)
    out = []
    for k, u in enumerate(uunifast(n, total_u, rng)):
        period = rng.choice(_PERIODS)
        wcet = max(1, min(period, round(u * period)))
        share = rng.choice((0.0, 0.5, 1.0))
        out.append(TaskModel(f"t{k + 1}", period, period, _body(wcet, rng, share)))
    return out


def _blocking(rng: random.Random, cpus: int) -> list[TaskModel]:
    """m long jobs (often alike, so that they can start together and end late together) and 1–2 short
    tasks; an interval as long as the short tasks' periods is what makes them late."""
    longs: list[TaskModel] = []
    for k in range(cpus):
        if longs and rng.random() < 0.5:
            longs.append(TaskModel(f"L{k + 1}", longs[0].period, longs[0].period, longs[0].body))
            continue
        period = rng.choice((8, 10, 12))
        wcet = rng.randint(period // 2, 3 * period // 4)
        np_len = wcet if rng.random() < 0.7 else rng.randint(max(1, wcet // 2), wcet)
        body: tuple[Op, ...] = ((NP, np_len),) + (((EXEC, wcet - np_len),) if wcet > np_len else ())
        longs.append(TaskModel(f"L{k + 1}", period, period, body))
    shorts = []
    for k in range(1 if rng.random() < 0.7 else 2):
        period = rng.choice((2, 2, 3, 4))
        wcet = 1 if rng.random() < 0.8 else rng.randint(1, period // 2)
        shorts.append(TaskModel(f"s{k + 1}", period, period, ((NP if rng.random() < 0.5 else EXEC, wcet),)))
    return longs + shorts


def np_gedf(rng: random.Random, *, cpus: int = 2, u_range: tuple[float, float] = (0.7, 1.0)) -> SystemModel:
    """A G-EDF set on ``cpus`` processors with non-preemptive intervals; U/m drawn in ``u_range`` for the
    mixed shape (rounding may leave U a little above m: the test then says tardiness is unbounded)."""
    while True:
        if rng.random() < 0.5:
            tasks = _blocking(rng, cpus)
        else:
            tasks = _mixed(rng, cpus, rng.uniform(*u_range) * cpus)
        if any(op[0] == NP for t in tasks for op in t.body):
            return SystemModel(tuple(tasks), "G-EDF", cpus, {})
