"""RandFixedSum (Stafford 2006; Emberson, Stafford and Davis, WATERS 2010): n utilizations,
each in [0, cap], summing to a total, uniformly distributed over that set of vectors.

Beside it the analysis's generators have UUniFast, uniform over the simplex
only (a task may get more than one processor), and UUniFast-discard, uniform
over the capped part by drawing again, which becomes hopeless when the total is near
half of n x cap and n is large. RandFixedSum draws from the capped set
directly: the set (the cube [0, 1]^n cut by the plane sum = s) is a union of
simplices; a table of their relative volumes (:func:`_tables`, depending on n
and s only, cached) steers a walk that picks one simplex with the right
probability and a point uniformly inside it; a random permutation of the
coordinates ends it. Every number drawn comes from the ``random.Random``
given, so a set stays a pure function of its seed.
"""

from __future__ import annotations

import math
import random
import sys
from functools import lru_cache

__all__ = ["randfixedsum"]

_HUGE = sys.float_info.max  # the volumes are scaled to start at the largest float; they only shrink
_TINY = math.ulp(0.0)


@lru_cache(maxsize=1024)
def _tables(n: int, s: float) -> tuple[tuple[tuple[float, ...], ...], int]:
    """The walk's probabilities ``t[i][c]`` (step i, current simplex index c) and the start index k."""
    k = max(min(math.floor(s), n - 1), 0)
    low = [s - k + i for i in range(n)]        # s - k, s - k + 1, ..., s - k + n - 1
    high = [k + n - i - s for i in range(n)]   # k + n - s, ..., k + 1 - s
    w = [[0.0] * (n + 1) for _ in range(n)]   # w[i][c]: scaled volume, i + 1 coordinates, simplex c
    w[0][1] = _HUGE
    t = [[0.0] * n for _ in range(n - 1)]
    for i in range(2, n + 1):
        for c in range(1, i + 1):
            from_above = w[i - 2][c] * low[c - 1] / i
            from_below = w[i - 2][c - 1] * high[n - i + c - 1] / i
            w[i - 1][c] = from_above + from_below  # a convex combination of the row above: no overflow
            total = w[i - 1][c] + _TINY
            if high[n - i + c - 1] > low[c - 1]:
                t[i - 2][c - 1] = from_below / total
            else:
                t[i - 2][c - 1] = 1 - from_above / total
    return tuple(tuple(row) for row in t), k


def randfixedsum(n: int, total: float, rng: random.Random, cap: float = 1.0) -> list[float]:
    """n values in [0, cap] summing to ``total`` (up to rounding), uniform over all such vectors."""
    if n < 1 or cap <= 0 or not 0 <= total <= n * cap:
        raise ValueError(f"cannot split {total} into {n} values in [0, {cap}]")
    s = total / cap
    if n == 1:
        return [total]
    t, k = _tables(n, s)
    x = [0.0] * n
    remaining, simplex = s, k + 1
    base, scale = 0.0, 1.0
    for i in range(n - 1, 0, -1):
        step_down = 1 if rng.random() <= t[i - 1][simplex - 1] else 0
        shrink = rng.random() ** (1 / i)
        base += (1 - shrink) * scale * remaining / (i + 1)
        scale *= shrink
        x[n - i - 1] = base + scale * step_down
        remaining -= step_down
        simplex -= step_down
    x[n - 1] = base + scale * remaining
    rng.shuffle(x)
    return [min(cap, max(0.0, v * cap)) for v in x]
