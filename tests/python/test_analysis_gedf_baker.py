"""gedf-baker: Baker's G-EDF test (RTSS 2003 / IEEE TPDS 2005), known answers worked by hand."""

from __future__ import annotations

from fractions import Fraction
from math import lcm

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.gedf_baker import baker_beta, baker_sum
from rtsched.analysis.generators import generate_problem


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


def test_integer_sum_is_the_rational_sum():
    """``baker_sum`` (what the test computes) equals Σ min(1, baker_beta) in rationals, for every task of
    generated sets where both β branches and the min(1, ·) cap occur (checked to occur)."""
    branches = set()
    for seed in range(60):
        p = generate_problem(3 + seed % 8, 0.3 + 0.1 * (seed % 15), seed, scheduler="G-EDF", cpus=2 + seed % 3,
                             deadlines="constrained", utilizations="uunifast-discard",
                             period_range_ns=(10, 1000) if seed % 2 else (10_000, 1_000_000))
        common = lcm(*(t.period_ns for t in p.tasks))
        for k in p.tasks:
            lam = Fraction(k.exec_ns, k.deadline_ns)
            betas = [baker_beta(i, k, lam) for i in p.tasks]
            branches |= {("heavy" if lam < Fraction(i.exec_ns, i.period_ns) else "light") for i in p.tasks}
            branches |= {"capped" for b in betas if b > 1}
            num, den = baker_sum(p.tasks, k, common)
            assert Fraction(num, den) == sum(min(Fraction(1), b) for b in betas)
    assert branches == {"heavy", "light", "capped"}
