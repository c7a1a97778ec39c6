"""Varying demand: how a ``compute`` action's CPU time changes from job to job (docs/taskset.md).

A ``Compute`` with a ``demand`` consumes, in job k of its task, the k-th value
of ``job_durations(demand, task, action_index)``: drawn from a distribution
(``Uniform``, ``Normal``, ``Empirical``) with a seeded generator, replayed
from a recorded trace (``Trace``), or stepping through a written cycle of
values (``Sequence``: rt-app's phases repeated, each its loop count). The resolver writes the run's values into
the runner input and the simulator draws the same stream, so job k of a task
computes for the same time in ``rtsched run`` and ``rtsched sim``. The
analysis sees ``Compute.ns``, the demand's maximum (its WCET).

A drawn stream depends on the seed, the task's name and the action's place
in the body (the generator is seeded with the three together): two actions
with the same distribution and seed still draw independently.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

__all__ = [
    "AT_END",
    "DEFAULT_SEED",
    "MAX_JOB_DURATIONS",
    "Demand",
    "Empirical",
    "Normal",
    "Sequence",
    "Trace",
    "Uniform",
    "job_durations",
    "normal_mass",
]

#: What a trace does after its last row: start again from its first (``cycle``), or end the
#: task (``stop``: the task releases as many jobs as the trace has rows).
AT_END: tuple[str, ...] = ("cycle", "stop")
DEFAULT_SEED = 1
#: Per-job values one compute action holds at most: rows of a trace, or values drawn for a run
#: (runner input ``per_job_ns``; tools/run/spec.h RUN_PER_JOB_MAX).
MAX_JOB_DURATIONS = 1 << 20


@dataclass(frozen=True, slots=True)
class Uniform:
    """Each job uniform in [min_ns, max_ns] (integers of ns)."""

    min_ns: int
    max_ns: int
    seed: int = DEFAULT_SEED


@dataclass(frozen=True, slots=True)
class Normal:
    """Each job normal with ``mean_ns`` and ``stddev_ns``, truncated to [min_ns, max_ns]: a draw
    outside is drawn again (so the mean is ``mean_ns`` only when the interval is symmetric)."""

    mean_ns: int
    stddev_ns: int
    min_ns: int
    max_ns: int
    seed: int = DEFAULT_SEED


@dataclass(frozen=True, slots=True)
class Empirical:
    """Each job one of ``values_ns``, each listed value equally likely (list one twice to weigh it)."""

    values_ns: tuple[int, ...]
    seed: int = DEFAULT_SEED

    @property
    def min_ns(self) -> int:
        return min(self.values_ns)

    @property
    def max_ns(self) -> int:
        return max(self.values_ns)


@dataclass(frozen=True, slots=True)
class Trace:
    """Job k computes row k of ``column`` of the CSV file ``path`` (absolute), read at load time
    into ``values_ns``; after the last row ``at_end`` (one of AT_END)."""

    path: str
    column: str
    values_ns: tuple[int, ...]
    at_end: str = "cycle"

    @property
    def min_ns(self) -> int:
        return min(self.values_ns)

    @property
    def max_ns(self) -> int:
        return max(self.values_ns)


@dataclass(frozen=True, slots=True)
class Sequence:
    """Jobs in ``steps`` of (count, ns), in order, then from the first step again: job 1 to count_1
    compute ns_1, the next count_2 jobs ns_2, ... (rt-app's phases of one thread repeated by its loop)."""

    steps: tuple[tuple[int, int], ...]

    @property
    def jobs_per_cycle(self) -> int:
        return sum(count for count, _ in self.steps)

    @property
    def min_ns(self) -> int:
        return min(ns for _, ns in self.steps)

    @property
    def max_ns(self) -> int:
        return max(ns for _, ns in self.steps)


Demand = Union[Uniform, Normal, Empirical, Trace, Sequence]


def normal_mass(mean_ns: int, stddev_ns: int, min_ns: int, max_ns: int) -> float:
    """P(min ≤ X ≤ max) for X normal(mean, stddev): the share of draws a truncated normal keeps."""
    def cdf(x: int) -> float:
        return 0.5 * (1.0 + math.erf((x - mean_ns) / (stddev_ns * math.sqrt(2.0))))
    return cdf(max_ns) - cdf(min_ns)


def _generator(seed: int, task: str, action_index: int) -> random.Random:
    # A string seed is hashed with SHA-512 (random.seed, version 2): stable across runs and machines.
    return random.Random(f"{seed}:{task}:{action_index}")


def job_durations(demand: Demand, task: str, action_index: int) -> Iterator[int]:
    """The CPU time (ns) of the action ``task.body[action_index]`` in jobs 1, 2, 3, ... in order.

    Endless for distributions and cycling traces; a ``stop`` trace ends after its rows (the task
    has no more jobs then: its ``max_jobs`` is at most the trace's length)."""
    if isinstance(demand, Trace):
        while True:
            yield from demand.values_ns
            if demand.at_end == "stop":
                return
    if isinstance(demand, Sequence):
        while True:
            for count, ns in demand.steps:
                yield from itertools.repeat(ns, count)
    rng = _generator(demand.seed, task, action_index)
    if isinstance(demand, Uniform):
        while True:
            yield rng.randint(demand.min_ns, demand.max_ns)
    elif isinstance(demand, Normal):
        while True:
            x = round(rng.gauss(demand.mean_ns, demand.stddev_ns))
            if demand.min_ns <= x <= demand.max_ns:
                yield x
    else:
        while True:
            yield rng.choice(demand.values_ns)
