"""RandFixedSum: sums and caps kept, the same distribution as UUniFast-discard (exactly uniform, by
rejection), and a sweep that UUniFast-discard cannot draw."""

from __future__ import annotations

import bisect
import math
import random

import pytest

from rtsched.analysis.generators import uunifast_discard
from rtsched.cli.main import main
from rtsched.analysis.randfixedsum import randfixedsum
from sweep_helpers import write


def ks_statistic(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    a, b = sorted(a), sorted(b)
    return max(abs(bisect.bisect_right(a, v) / len(a) - bisect.bisect_right(b, v) / len(b)) for v in a + b)


@pytest.mark.parametrize("n, total", [(1, 0.4), (2, 1.5), (5, 2.5), (20, 13.7), (8, 8.0), (8, 0.0)])
def test_values_are_within_the_cap_and_sum_to_the_total(n, total):
    rng = random.Random(n)
    for _ in range(200):
        us = randfixedsum(n, total, rng, cap=0.9 if total <= 0.9 * n else 1.0)
        assert len(us) == n and math.isclose(sum(us), total, abs_tol=1e-9)
        assert all(0 <= u <= 1 for u in us)


@pytest.mark.parametrize("n, total", [(3, 1.5), (5, 3.7)])
def test_the_distribution_is_uniform_like_uunifast_discard(n, total):
    draws = 3000
    assert randfixedsum(n, total, random.Random(1)) == randfixedsum(n, total, random.Random(1))
    r1, r2 = random.Random(11), random.Random(12)
    a = [randfixedsum(n, total, r1) for _ in range(draws)]
    b = [uunifast_discard(n, total, r2, max_tries=100_000) for _ in range(draws)]
    critical = 1.95 * math.sqrt(2 / draws)  # alpha = 0.001
    for statistic in (lambda v: v[0], max, min):
        assert ks_statistic([statistic(v) for v in a], [statistic(v) for v in b]) < critical


def test_bad_totals_are_refused():
    with pytest.raises(ValueError):
        randfixedsum(3, 3.5, random.Random(0))


def test_a_sweep_that_uunifast_discard_cannot_draw_fails_clearly_and_randfixedsum_runs(tmp_path, capsys):
    text = ("seed: 1\nsamples: 3\ngenerator: {scheduler: G-EDF, cpus: 32, tasks: 64, utilizations: UTIL}\n"
            "grid: {utilization: [31.5]}\ntests: [gedf-gfb]\n")
    path = write(tmp_path, text.replace("UTIL", "uunifast-discard"))
    assert main(["sweep", str(path), "-o", str(tmp_path / "a"), "-q", "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert "grid point 0 (utilization=31.5), sample 0" in err and "randfixedsum" in err
    path = write(tmp_path, text.replace("UTIL", "randfixedsum"), "b.yaml")
    assert main(["sweep", str(path), "-o", str(tmp_path / "b"), "-q", "-j", "1"]) == 0
