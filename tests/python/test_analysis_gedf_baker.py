"""gedf-baker: Baker's G-EDF test (RTSS 2003 / IEEE TPDS 2005), known answers worked by hand."""

from __future__ import annotations

from fractions import Fraction

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.gedf_baker import baker_beta


def gedf(spec, m=2) -> AnalysisProblem:
    return AnalysisProblem(tuple(AnalysisTask(f"t{i + 1}", c, t, d) for i, (c, t, d) in enumerate(spec)),
                           scheduler="G-EDF", cpus=m)


def test_beta_both_branches():
    """k = (1, 10, 10): λ = 1/10. i = (3, 5, 4): u = 3/5 > λ, so
    β = 3/5·(1 + 1/10) + (3 − 5/10)/10 = 33/50 + 1/4 = 91/100; i = (1, 20, 20): u = 1/20 ≤ λ, β = 1/20."""
    k, i, j = gedf([(1, 10, 10), (3, 5, 4), (1, 20, 20)]).tasks
    assert baker_beta(i, k, Fraction(1, 10)) == Fraction(91, 100)
    assert baker_beta(j, k, Fraction(1, 10)) == Fraction(1, 20)


def test_three_light_tasks_pass():
    """(1, 4, 4) × 3 on m = 2: λ = u = 1/4, β = 1/4 each: 3/4 ≤ 2·3/4 + 1/4 = 7/4."""
    result = run_test("gedf-baker", gedf([(1, 4, 4)] * 3))
    assert result.schedulable and result.label == "sufficient"
    assert result.bounds() == {"t1": 4, "t2": 4, "t3": 4}


def test_dhall_effect_is_rejected():
    """(2, 20, 20) × 2 and (20, 21, 21) on m = 2: for the heavy task λ = 20/21, β = 1/10, 1/10, 20/21:
    Σ = 1.152 > 2/21 + 20/21 = 22/21."""
    result = run_test("gedf-baker", gedf([(2, 20, 20), (2, 20, 20), (20, 21, 21)]))
    assert result.task("t3").verdict == "miss" and "1.1524 > " in result.task("t3").reason


def test_refuses_deadlines_beyond_the_period():
    assert run_test("gedf-baker", gedf([(1, 5, 7), (1, 5, 5)])).verdict == "unsupported"
