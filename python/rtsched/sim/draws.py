"""Random draws of the simulator, each reproducible from a seed.

- Sporadic gaps use the C runner's generator (xorshift64*, ``src/task/job.c``)
  with the task's ``sporadic.seed``, so a simulation releases a sporadic task's
  jobs at the same times as ``rtsched run`` does.
- Execution times: each ``compute`` of a job is its WCET-side figure (``wcet``)
  or drawn uniformly in [low × ns, ns] (``uniform``) from the simulation's
  seed and the task's index.
"""

from __future__ import annotations

import random

__all__ = ["SporadicGaps", "ExecutionTimes"]

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


class ExecutionTimes:
    """The CPU time of each ``compute`` of a job: ``ns`` itself, or uniform in [ceil(low·ns), ns]."""

    __slots__ = ("_rng", "_low_ppm")

    def __init__(self, seed: int, task_index: int, low_ppm: int | None) -> None:
        """``low_ppm``: None for fixed times, else the low end of the draw in millionths of ``ns``."""
        self._low_ppm = low_ppm
        self._rng = random.Random(seed * 1_000_003 + task_index) if low_ppm is not None else None

    @property
    def fixed(self) -> bool:
        return self._rng is None

    def draw(self, ns: int) -> int:
        if self._rng is None or self._low_ppm is None:
            return ns
        low = max(1, -(-ns * self._low_ppm // 1_000_000))
        return self._rng.randint(low, ns)
