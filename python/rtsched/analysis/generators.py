"""Task-set generators for experiments: seeded, reproducible (``random.Random(seed)``).

- :func:`uunifast` — Bini & Buttazzo 2005: n utilizations summing to U.
- :func:`uunifast_discard` — Davis & Burns 2009: UUniFast, drawing again
  while any utilization exceeds 1 (for U > 1, multiprocessors).
- :func:`draw_utilizations` — one of those, or RandFixedSum
  (:mod:`rtsched.analysis.randfixedsum`: uniform over the same capped set,
  drawn directly, where UUniFast-discard stalls), by name.
- :data:`DISTRIBUTIONS` and :func:`utilizations_by_distribution` — the
  per-task utilization distributions of Baker / Brandenburg used by seed 003
  §4.2 ("light uniform, light bimodal, light exponential, medium uniform,
  medium bimodal"): uniform on [0.001, 0.1] / [0.1, 0.4] / [0.5, 0.9];
  bimodal uniform on [0.001, 0.5) or [0.5, 0.9] with probability 8/9, 6/9,
  4/9 of the light part; exponential with mean 0.10 / 0.25 / 0.50 (drawn
  again above 1). Tasks are added while the total stays ≤ a cap (seed 003:
  "groups wherein utilization is close to but not more than one").
- :func:`uniform_periods`, :func:`log_uniform_periods` — integer ns,
  multiples of ``granularity_ns`` (seed 003: uniform in [10 ms, 100 ms]).
- :func:`add_critical_sections` — resource sharing: each task uses each
  resource with probability ``p_access``, sections uniform in [cs_min, cs_max]
  (never longer than the WCET allows).
- :func:`generate_problem` — all of the above in one call.

Utilizations are drawn as floats (they are random numbers, not results);
every WCET, period and section is then an exact integer of ns.
"""

from __future__ import annotations

import math
import random
from typing import Callable, Sequence

from rtsched.analysis.randfixedsum import randfixedsum
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection

__all__ = [
    "DISTRIBUTIONS",
    "uunifast",
    "uunifast_discard",
    "UTILIZATION_METHODS",
    "draw_utilizations",
    "utilizations_by_distribution",
    "uniform_periods",
    "log_uniform_periods",
    "add_critical_sections",
    "make_tasks",
    "generate_problem",
]

MS = 1_000_000


def uunifast(n: int, utilization: float, rng: random.Random) -> list[float]:
    """n utilizations summing to ``utilization``, uniformly distributed on the simplex."""
    out = []
    remaining = utilization
    for i in range(1, n):
        nxt = remaining * rng.random() ** (1.0 / (n - i))
        out.append(remaining - nxt)
        remaining = nxt
    out.append(remaining)
    return out


def uunifast_discard(n: int, utilization: float, rng: random.Random, limit: float = 1.0,
                     max_tries: int = 1000) -> list[float]:
    """UUniFast, discarding vectors with a utilization above ``limit``."""
    if utilization > n * limit:
        raise ValueError(f"U = {utilization} cannot be split into {n} tasks of at most {limit}")
    for _ in range(max_tries):
        us = uunifast(n, utilization, rng)
        if all(u <= limit for u in us):
            return us
    raise ValueError(f"no vector within {max_tries} tries (U = {utilization}, n = {n})")


#: The ways to split a total utilization among n tasks (``draw_utilizations``).
UTILIZATION_METHODS = ("uunifast", "uunifast-discard", "randfixedsum")


def draw_utilizations(n: int, total: float, rng: random.Random, method: str = "uunifast") -> list[float]:
    """n utilizations summing to ``total``: ``uunifast`` (-discard above a total of 1, so that no
    task needs more than one processor), ``uunifast-discard``, or ``randfixedsum`` (each in [0, 1],
    uniform over that set like -discard, drawn directly). ValueError when they cannot be drawn."""
    if method == "randfixedsum":
        return randfixedsum(n, total, rng)
    if method not in UTILIZATION_METHODS:
        raise ValueError(f"utilizations: {method!r} is not one of {', '.join(UTILIZATION_METHODS)}")
    if method == "uunifast-discard" or total > 1:
        return uunifast_discard(n, total, rng)
    return uunifast(n, total, rng)


#: Draws one task utilization.
UtilizationDraw = Callable[[random.Random], float]


def _uniform(lo: float, hi: float) -> UtilizationDraw:
    return lambda rng: rng.uniform(lo, hi)


def _bimodal(light_p: float) -> UtilizationDraw:
    return lambda rng: rng.uniform(0.001, 0.5) if rng.random() < light_p else rng.uniform(0.5, 0.9)


def _exponential(mean: float) -> UtilizationDraw:
    def draw(rng: random.Random) -> float:
        while True:
            u = rng.expovariate(1.0 / mean)
            if 0 < u <= 1:
                return u
    return draw


#: Name → draw(rng) of one task utilization.
DISTRIBUTIONS: dict[str, UtilizationDraw] = {
    "uni-light": _uniform(0.001, 0.1),
    "uni-medium": _uniform(0.1, 0.4),
    "uni-heavy": _uniform(0.5, 0.9),
    "bimo-light": _bimodal(8 / 9),
    "bimo-medium": _bimodal(6 / 9),
    "bimo-heavy": _bimodal(4 / 9),
    "exp-light": _exponential(0.10),
    "exp-medium": _exponential(0.25),
    "exp-heavy": _exponential(0.50),
}


def utilizations_by_distribution(name: str, cap: float, rng: random.Random, max_tasks: int = 10_000) -> list[float]:
    """Draw from ``DISTRIBUTIONS[name]`` while the total stays ≤ cap (stops at the first that would not fit)."""
    draw = DISTRIBUTIONS[name]
    out: list[float] = []
    total = 0.0
    while len(out) < max_tasks:
        u = draw(rng)
        if total + u > cap:
            break
        out.append(u)
        total += u
    return out


def uniform_periods(n: int, lo_ns: int, hi_ns: int, rng: random.Random, granularity_ns: int = 1000) -> list[int]:
    """Periods uniform in [lo, hi], rounded to the granularity (never below it)."""
    return [max(granularity_ns, round(rng.uniform(lo_ns, hi_ns) / granularity_ns) * granularity_ns) for _ in range(n)]


def log_uniform_periods(n: int, lo_ns: int, hi_ns: int, rng: random.Random, granularity_ns: int = 1000) -> list[int]:
    """Periods whose logarithm is uniform in [log lo, log hi] (Emberson, Stafford, Davis 2010)."""
    a, b = math.log(lo_ns), math.log(hi_ns)
    return [max(granularity_ns, round(math.exp(rng.uniform(a, b)) / granularity_ns) * granularity_ns)
            for _ in range(n)]


def make_tasks(utilizations: Sequence[float], periods: Sequence[int], priorities: str = "rm",
               deadlines: str = "implicit", rng: random.Random | None = None) -> list[AnalysisTask]:
    """Tasks τ0, τ1, ... with WCET = ⌈U·T⌉ (at least 1 ns); rate- or deadline-monotonic priorities.

    ``deadlines``: ``implicit`` (D = T) or ``constrained`` (D uniform in [C, T], needs ``rng``).
    """
    tasks = []
    for i, (u, t) in enumerate(zip(utilizations, periods)):
        c = max(1, math.ceil(u * t))
        d = t if deadlines == "implicit" else (rng or random.Random(i)).randint(min(c, t), t)
        tasks.append(AnalysisTask(f"t{i}", c, t, d))
    key = (lambda x: (x.period_ns, x.name)) if priorities == "rm" else (lambda x: (x.deadline_ns, x.name))
    ordered = sorted(tasks, key=key)
    prio = {t.name: len(ordered) - k for k, t in enumerate(ordered)}
    return [AnalysisTask(t.name, t.wcet_ns, t.period_ns, t.deadline_ns, priority=prio[t.name]) for t in tasks]


def add_critical_sections(tasks: Sequence[AnalysisTask], resources: int, p_access: float, cs_min_ns: int,
                          cs_max_ns: int, rng: random.Random, requests: int = 1) -> list[AnalysisTask]:
    """Each task uses each of ``resources`` resources with probability ``p_access`` (``requests`` sections each)."""
    out = []
    for t in tasks:
        sections = []
        room = t.wcet_ns
        for r in range(resources):
            if rng.random() >= p_access:
                continue
            for _ in range(requests):
                length = min(rng.randint(cs_min_ns, cs_max_ns), room)
                if length <= 0:
                    break
                room -= length
                sections.append(CriticalSection(f"r{r}", length))
        out.append(AnalysisTask(t.name, t.wcet_ns, t.period_ns, t.deadline_ns, priority=t.priority,
                                critical_sections=tuple(sections)))
    return out


def generate_problem(n: int, utilization: float, seed: int, *, periods: str = "log-uniform",
                     period_range_ns: tuple[int, int] = (10 * MS, 1000 * MS), resources: int = 0,
                     p_access: float = 0.3, cs_range_ns: tuple[int, int] = (1000, 100_000),
                     protocol: str = "pcp", scheduler: str = "FP", cpus: int = 1,
                     deadlines: str = "implicit", utilizations: str = "uunifast",
                     period_granularity_ns: int = 1000) -> AnalysisProblem:
    """A reproducible random problem: utilizations by ``utilizations`` (``draw_utilizations``),
    periods (multiples of ``period_granularity_ns``), optional resources."""
    rng = random.Random(seed)
    us = draw_utilizations(n, utilization, rng, utilizations)
    lo, hi = period_range_ns
    ts = (log_uniform_periods if periods == "log-uniform" else uniform_periods)(n, lo, hi, rng, period_granularity_ns)
    tasks = make_tasks(us, ts, "rm" if deadlines == "implicit" else "dm", deadlines, rng)
    if resources:
        tasks = add_critical_sections(tasks, resources, p_access, cs_range_ns[0], cs_range_ns[1], rng)
    return AnalysisProblem(tuple(tasks), scheduler=scheduler, cpus=cpus,
                           protocols={f"r{r}": protocol for r in range(resources)},
                           name=f"generated-{seed}")
