"""The response-time fixed points of the global RTAs (``gedf-rta``, ``gfp-rta``, ``gfp-guan``).

:func:`least_bound` searches any nondecreasing f for the least R with
f(R) ≤ R: it iterates R ← f(R) from a start for at most CREEP_STEPS steps
(in integer ns the iterates can creep up by 1 ns per step), then bisects
between the last iterate and the limit.

:func:`least_response` gives exactly what ``least_bound`` gives, for the
Bertogna–Cirinei interference of one task (:class:`Interference`), with far
fewer evaluations of the sum over the other tasks. The sum is piecewise
linear in R: each term min(W_i(R), E_i, R − C_k + 1) has slope 0 or 1
between breakpoints (none at all once it reaches E_i), so :meth:`Interference.piece` returns, at R, the sum S,
its slope σ and how far (span) the line S + σ·(R' − R) stays exact. The
iterates inside one piece cost one multiplication each, and when σ = m
(the creeping case: every step adds the same δ) the steps up to the end of
the piece, the step budget or the limit are taken at once. The steps are
counted as ``least_bound`` counts them, so the bisection starts from the
same iterate and every answer is the same (checked against ``least_bound``
in tests/python/test_analysis_rta_fixpoint.py and on the generated sets of
bench/analysis/bench_global_speed.py).
"""

from __future__ import annotations

from typing import Callable, Sequence

__all__ = ["CREEP_STEPS", "NO_BOUND", "Interference", "least_bound", "least_response"]

#: Fixed-point steps before the search for a bound switches to bisection.
CREEP_STEPS = 500


def least_bound(f: Callable[[int], int], start: int, limit: int) -> int | None:
    """The least R in [start, limit] with f(R) ≤ R for a nondecreasing f, iterating from
    ``start``; after CREEP_STEPS steps (an integer iteration may creep by 1 ns per step) a
    bisection between the current value and ``limit`` finds one instead: still an R with
    f(R) ≤ R, possibly above the least. None when none is shown within ``limit``."""
    r = start
    for _ in range(CREEP_STEPS):
        new = f(r)
        if new <= r:
            return r
        if new > limit:
            return None
        r = new
    return _bisect(f, r, limit)


def _bisect(f: Callable[[int], int], lo: int, limit: int) -> int | None:
    """An R in (lo, limit] with f(R) ≤ R, by bisection (f(lo) > lo), or None when f(limit) > limit."""
    hi = limit
    if f(hi) > hi:
        return None  # not shown (the creeping iteration could still end below the limit; safe)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid) <= mid:
            hi = mid
        else:
            lo = mid
    return hi


#: E_i of a task whose interference has no such bound (G-FP), and a span without end. Invariant:
#: above every W_i(R) and cap the searches meet, which holds while R ≤ D_k and the tasks' periods
#: and bounds stay below 2^60 ns (36 years; W_i(R) ≤ R + R_i + C_i when C_i ≤ T_i).
NO_BOUND = 1 << 62

#: One other task's part of the interference: (C_i, T_i, R_i − C_i, E_i or NO_BOUND).
Term = tuple[int, int, int, int]


class Interference:
    """f(R) = c + ⌊(1/m) Σ_i min(W_i(R), E_i, R − c + 1)⌋, the Bertogna–Cirinei bound of one task.

    W_i(R) = N·C_i + min(C_i, x − N·T_i), x = R + R_i − C_i, N = ⌊x/T_i⌋ (0 when x < 0):
    the workload of τ_i (response bound R_i) in a window of R. E_i: the G-EDF bound of the
    jobs of τ_i with deadlines within τ_k's (NO_BOUND under G-FP).
    """

    __slots__ = ("c", "m", "terms")

    def __init__(self, c: int, m: int, terms: Sequence[Term]) -> None:
        self.c = c
        self.m = m
        self.terms = tuple(terms)

    def __call__(self, r: int) -> int:
        cap = r - self.c + 1
        total = 0
        for c_i, t_i, lag_i, e_i in self.terms:
            x = r + lag_i
            if x < 0:
                w = 0
            else:
                n = x // t_i
                w = n * c_i + min(c_i, x - n * t_i)
            if e_i < w:
                w = e_i
            total += w if w < cap else cap
        return self.c + total // self.m

    def piece(self, r: int) -> tuple[int, int, int]:
        """(S, σ, span): Σ_i min(W_i(r + d), E_i, r + d − c + 1) = S + σ·d for 0 ≤ d < span.

        Per term, with W_i nondecreasing (slope 1 while x mod T_i < C_i, else 0), E_i
        constant and the cap rising by 1: a term at E_i stays there (neither W_i nor the cap
        comes back below it); a term at the cap rises until it meets E_i or the value W_i has
        at r (W_i only grows); a term at W_i follows W_i's line until its slope changes or,
        rising, it meets E_i (the cap, rising as fast, stays above)."""
        cap = r - self.c + 1
        total = 0
        slope = 0
        span = NO_BOUND
        for c_i, t_i, lag_i, e_i in self.terms:
            x = r + lag_i
            if x < 0:
                w, w_rising, w_span = 0, False, 1 - x
            else:
                n, rest = divmod(x, t_i)
                if rest < c_i:
                    w, w_rising, w_span = n * c_i + rest, True, min(c_i - rest + 1, t_i - rest)
                else:
                    w, w_rising, w_span = n * c_i + c_i, False, t_i - rest
            if e_i <= w and e_i <= cap:
                total += e_i  # for good
                continue
            if cap < w:  # the cap, until it reaches E_i or W_i's present value
                total += cap
                slope += 1
                term_span = min(e_i, w) - cap + 1
            elif w_rising:
                total += w
                slope += 1
                term_span = min(w_span, e_i - w + 1)
            else:
                total += w
                term_span = w_span
            if term_span < span:
                span = term_span
        return total, slope, span


def least_response(f: Interference, limit: int) -> int | None:
    """``least_bound(f, f.c, limit)``, the same answer, stepping through f's linear pieces."""
    c, m = f.c, f.m
    r = c
    steps = 0
    while steps < CREEP_STEPS:
        total, slope, span = f.piece(r)
        base, end = r, r + span
        while True:  # iterates inside the piece [base, end)
            new = c + (total + slope * (r - base)) // m
            if new <= r:
                return r
            if slope == m:  # every step in the piece adds the same delta: take them at once
                delta = new - r
                k = min(CREEP_STEPS - steps, (end - 1 - r) // delta + 1)
                if (limit - r) // delta < k:
                    return None  # one of these steps passes the limit
                steps += k
                r += k * delta
            else:
                steps += 1
                if new > limit:
                    return None
                r = new
            if steps >= CREEP_STEPS or r >= end:
                break
    return _bisect(f, r, limit)
