"""Exact order statistics of a multiset of integers kept as its distinct values and their
counts, added to a block at a time: numpy's ``percentile`` (default, linear) and ``median``
of every value added, bit for bit, without holding the values (memory: the distinct ones).

    values = Distinct()
    for block in blocks:
        values.add(block["response"])
    values.percentile(90), values.median()

numpy computes both from the two order statistics around a virtual index; here they are
found in the counts' running sum, then combined by the same float64 operations numpy uses
(``_lerp`` in numpy/lib/_function_base_impl.py; ``mean`` of the middle one or two), which
tests/python/test_report_quantiles.py checks against numpy on random arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Distinct"]

#: Values buffered before they are merged into the distinct ones (a merge costs their number).
_MERGE_AT = 1 << 16


class Distinct:
    """A multiset of int64 values: distinct values, ascending, and their counts."""

    def __init__(self) -> None:
        self._values = np.zeros(0, np.int64)
        self._counts = np.zeros(0, np.int64)
        self._pending: list[np.ndarray] = []
        self._pending_n = 0

    def add(self, values: np.ndarray) -> None:
        if not len(values):
            return
        self._pending.append(np.asarray(values, np.int64))
        self._pending_n += len(values)
        if self._pending_n >= max(_MERGE_AT, len(self._values)):
            self._merge()

    def _merge(self) -> None:
        if not self._pending:
            return
        new, counts = np.unique(np.concatenate(self._pending), return_counts=True)
        self._pending, self._pending_n = [], 0
        values = np.concatenate([self._values, new])
        merged, where = np.unique(values, return_inverse=True)
        self._counts = np.bincount(where, np.concatenate([self._counts, counts]), len(merged)).astype(np.int64)
        self._values = merged

    @property
    def n(self) -> int:
        self._merge()
        return int(self._counts.sum())

    def minimum(self) -> int:
        self._merge()
        return int(self._values[0])

    def maximum(self) -> int:
        self._merge()
        return int(self._values[-1])

    def _at(self, ranks: np.ndarray) -> np.ndarray:
        """The values at these 0-based ranks of the sorted multiset (-1: the last)."""
        self._merge()
        ends = np.cumsum(self._counts)
        ranks = np.where(ranks < 0, ends[-1] + ranks, ranks)
        return self._values[np.searchsorted(ends, ranks, "right")]

    def percentile(self, q: float) -> float:
        """``float(np.percentile(values, q))`` (linear), for 0 <= q <= 100; not empty."""
        n = self.n
        virtual = (n - 1) * np.true_divide(np.asarray(q, np.float64), 100)
        previous = int(np.floor(virtual)) if virtual < n - 1 else -1
        a, b = self._at(np.array([previous, previous + 1 if previous >= 0 else -1], np.intp))
        gamma = np.asanyarray(virtual - np.intp(previous))
        return _lerp(a, b, gamma)

    def median(self) -> float:
        """``float(np.median(values))``; the multiset must not be empty."""
        n = self.n
        middle = np.array([n // 2 - 1, n // 2] if n % 2 == 0 else [n // 2], np.intp)
        return float(np.mean(self._at(middle)))


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> float:
    """numpy's ``_lerp`` (its percentile's interpolation), operation for operation."""
    diff_b_a = b - a
    lerp_interpolation = np.asanyarray(np.add(a, diff_b_a * t))
    np.subtract(b, diff_b_a * (1 - t), out=lerp_interpolation, where=t >= 0.5, casting="unsafe",
                dtype=type(lerp_interpolation.dtype))
    return float(lerp_interpolation[()])
