"""Random draws of the simulator, each reproducible from a seed.

- Sporadic gaps use the C runner's generator (xorshift64*, ``src/task/job.c``)
  with the task's ``sporadic.seed``, so a simulation releases a sporadic task's
  jobs at the same times as ``rtsched run`` does.
- Execution times: each ``compute`` of a job is its WCET-side figure (``wcet``)
  or drawn uniformly in [low × ns, ns] (``uniform``) from the simulation's
  seed and the task's index. A compute with a varying demand (docs/taskset.md)
  takes instead its own per-job stream (``rtsched.model.demand.job_durations``),
  the one the runner input carries: job k computes the same time in the
  simulation and in ``rtsched run``, whatever ``--exec-low`` says.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from rtsched.model import Compute, Task
from rtsched.model.demand import job_durations

__all__ = ["SporadicGaps", "ExecutionTimes", "demand_streams"]

_MASK64 = (1 << 64) - 1
#: The C runner's seed for a task whose seed is 0.
_DEFAULT_STATE = 0x9E3779B97F4A7C15


class SporadicGaps:
    """Extra gaps of a sporadic task: uniform in [0, max_extra_ns], as the C runner draws them."""

    __slots__ = ("_state", "_modulo")

    def __init__(self, seed: int, max_extra_ns: int) -> None:
        self._state = (seed & _MASK64) or _DEFAULT_STATE
        self._modulo = max_extra_ns + 1

    def next_extra_ns(self) -> int:
        x = self._state
        x ^= x >> 12
        x ^= (x << 25) & _MASK64
        x ^= x >> 27
        self._state = x
        return ((x * 0x2545F4914F6CDD1D) & _MASK64) % self._modulo


def demand_streams(task: Task) -> tuple[Iterator[int] | None, ...]:
    """Per compute action of ``task``'s body, in order: its per-job stream, or None for a fixed one."""
    return tuple(job_durations(a.demand, task.name, j) if a.demand is not None else None
                 for j, a in enumerate(task.body) if isinstance(a, Compute))


class ExecutionTimes:
    """The CPU time of each ``compute`` of a job: ``ns`` itself, or uniform in [ceil(low·ns), ns],
    or a varying compute's value for the job (its stream)."""

    __slots__ = ("_rng", "_low_ppm", "_streams", "_next")

    def __init__(self, seed: int, task_index: int, low_ppm: int | None,
                 streams: tuple[Iterator[int] | None, ...] = ()) -> None:
        """``low_ppm``: None for fixed times, else the low end of the draw in millionths of ``ns``.
        ``streams``: ``demand_streams(task)``, or () when no compute varies."""
        self._low_ppm = low_ppm
        self._rng = random.Random(seed * 1_000_003 + task_index) if low_ppm is not None else None
        self._streams = streams if any(s is not None for s in streams) else ()
        self._next = 0

    @property
    def fixed(self) -> bool:
        """Every job takes the same time (the sum of its computes' ``ns``)."""
        return self._rng is None and not self._streams

    def draw(self, ns: int) -> int:
        """The next compute's CPU time. Called once per compute of every job, in body order (the
        interpreter, the compute-only path and the DVFS engine all do): the k-th call for a given
        compute of the body is job k's."""
        if self._streams:
            stream = self._streams[self._next]
            self._next = (self._next + 1) % len(self._streams)
            if stream is not None:
                return next(stream)  # a stop trace never ends early: the task's max_jobs is its length
        if self._rng is None or self._low_ppm is None:
            return ns
        low = max(1, -(-ns * self._low_ppm // 1_000_000))
        return self._rng.randint(low, ns)
