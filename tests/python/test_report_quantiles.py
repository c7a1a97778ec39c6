"""quantiles.Distinct: numpy's percentile and median of every value added, bit for bit, from the
distinct values and their counts, whatever the blocks the values come in."""

from __future__ import annotations

import numpy as np
import pytest

from rtsched.report.quantiles import Distinct


@pytest.mark.parametrize("spread", [3, 50, 10**6, 10**12])
def test_percentiles_and_median_are_numpys(spread):
    rng = np.random.default_rng(spread)
    for _ in range(300):
        values = rng.integers(-spread, spread, int(rng.integers(1, 300)))
        kept = Distinct()
        for block in np.array_split(values, int(rng.integers(1, 6))):
            kept.add(block)
        for q in (0, 1, 33.3, 50, 90, 99, 100):
            assert kept.percentile(q) == float(np.percentile(values, q))
        assert kept.median() == float(np.median(values))
        assert (kept.minimum(), kept.maximum(), kept.n) == (values.min(), values.max(), len(values))


def test_memory_is_the_distinct_values():
    kept = Distinct()
    for _ in range(40):
        kept.add(np.tile(np.arange(100, dtype=np.int64), 1000))
    assert kept.n == 4_000_000 and len(kept._values) == 100
