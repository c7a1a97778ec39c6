"""gedf-baruah (Baruah, RTSS 2007) and gedf-ffdbf (Baruah, Bonifaci, Marchetti-Spaccamela, Stiller 2010).

Known answers worked by hand from the papers' definitions (m = 2, integer
time), the Dhall effect (Dhall & Liu 1978) that both must reject, and the two
claims the implementation rests on, checked against brute force: Baruah's
condition evaluated only at the breakpoints fails exactly when it fails at
some integer A in range, and FF-DBF's condition checked at t = qT + D fails
exactly when it fails somewhere on a fine grid of t.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.gedf_demand import _baruah_holds, _baruah_points, _params

TESTS = ("gedf-baruah", "gedf-ffdbf")


def gedf(spec, m=2) -> AnalysisProblem:
    """(C, T, D) per task, names t1, t2, ..."""
    return AnalysisProblem(tuple(AnalysisTask(f"t{i + 1}", c, t, d) for i, (c, t, d) in enumerate(spec)),
                           scheduler="G-EDF", cpus=m)


def test_dhall_effect_is_rejected_by_both():
    """Two light tasks (2/20) and a heavy one (20/21) on 2 CPUs: the heavy job misses at 21.
    Baruah, k = heavy, A = 0: t = 21, x = 21 - 20 + 1 = 2; each light task has DBF(21) = 2, so
    I1 = I2 = 2; the heavy one's own term min(DBF - C, A) = 0: 4 < m x = 4 fails."""
    problem = gedf([(2, 20, 20), (2, 20, 20), (20, 21, 21)])
    baruah = run_test("gedf-baruah", problem)
    assert not baruah.schedulable
    assert baruah.task("t3").reason == "condition fails at A = 0 ns"
    assert not run_test("gedf-ffdbf", problem).schedulable  # δ_max = 20/21 > (m − U)/(m − 1) = 0.848


def test_baruah_accepts_where_the_window_tests_do_not():
    """t1 (1, 7, 4), t2 (2, 5, 5), t3 (2, 3, 3), t4 (1, 6, 6), m = 2, U = 1.376: only Baruah's
    test (at most m − 1 = 1 carry-in job) shows it; GFB (Σδ = 1.483 > 1.333), BCL, its iteration,
    the RTA and FF-DBF (δ_max = 2/3 > (m − U)/(m − 1) = 0.624) do not."""
    problem = gedf([(1, 7, 4), (2, 5, 5), (2, 3, 3), (1, 6, 6)])
    result = run_test("gedf-baruah", problem)
    assert result.schedulable and result.label == "sufficient"
    assert result.bounds() == {"t1": 4, "t2": 5, "t3": 3, "t4": 6}  # the deadlines: a demand test
    for other in ("gedf-gfb", "gedf-bcl", "gedf-bcl-iterative", "gedf-rta", "gedf-ffdbf"):
        assert not run_test(other, problem).schedulable, other


def test_ffdbf_witness_sigma_hand_computed():
    """t1 (2, 4, 4), t2 (3, 10, 9), t3 (3, 11, 4), m = 2. σ = δ_max = 3/4 passes, tightly at t = 4:
    FF-DBF(t1, 4) = 1·2 + 0 (r = 0 < D − C/σ = 4/3), FF-DBF(t2, 4) = 0 (r = 4 < 9 − 4),
    FF-DBF(t3, 4) = 3 (r = D): 5 = (2 − 1·3/4)·4. GFB, BCL and Baruah reject the set."""
    problem = gedf([(2, 4, 4), (3, 10, 9), (3, 11, 4)])
    result = run_test("gedf-ffdbf", problem)
    assert result.schedulable and result.details["sigma"] == Fraction(3, 4)
    assert _ffdbf_scalar(problem.tasks, 4, Fraction(3, 4)) == 5 == (2 - Fraction(3, 4)) * 4
    for other in ("gedf-gfb", "gedf-bcl", "gedf-baruah"):
        assert not run_test(other, problem).schedulable, other


def test_ffdbf_needs_two_processors():
    assert run_test("gedf-ffdbf", gedf([(1, 4, 4)], m=1)).verdict == "unsupported"


@pytest.mark.parametrize("test", TESTS)
def test_refuses_deadlines_beyond_the_period(test):
    assert run_test(test, gedf([(1, 5, 7), (1, 5, 5)])).verdict == "unsupported"


@pytest.mark.parametrize("test", TESTS)
def test_demand_above_the_deadline_is_a_miss(test):
    problem = gedf([(1, 5, 5), (1, 10, 6)])
    sleepy = problem.with_tasks([AnalysisTask("t1", 4, 5, 5, suspension_ns=2), problem.tasks[1]])
    assert not run_test(test, sleepy).schedulable


def _small_sets(seed: int, count: int, m: int = 2):
    rng = random.Random(seed)
    for _ in range(count):
        spec = []
        for _ in range(rng.randint(m + 1, m + 3)):
            t = rng.randint(2, 12)
            c = rng.randint(1, t)
            spec.append((c, t, rng.randint(c, t)))
        yield gedf(spec, m)


@pytest.mark.parametrize("m", [2, 3])
def test_baruah_breakpoints_decide_like_every_integer_a(m):
    """The test evaluates its condition at breakpoints only; here it is evaluated at every integer A."""
    compared = 0
    for problem in _small_sets(m, 200, m):
        u = problem.utilization()
        if u >= m:
            continue
        c, p, d = _params(problem.tasks)
        c_sigma = int(np.sort(c)[::-1][: m - 1].sum())
        y = sum((Fraction(int(ci) * int(pi - di), int(pi)) for ci, pi, di in zip(c, p, d)), Fraction(0))
        for k in range(len(c)):
            t_max = int((y + c_sigma + (m - 1) * int(c[k])) / (m - u))
            if t_max < d[k]:
                continue
            every = np.arange(int(d[k]), t_max + 1, dtype=np.int64)
            points = _baruah_points(k, c, p, d, t_max)
            assert points is not None
            assert _baruah_holds(k, c, p, d, every, m).all() == _baruah_holds(k, c, p, d, points, m).all()
            compared += 1
    assert compared > 100


def _ffdbf_scalar(tasks, t, sigma: Fraction) -> Fraction:
    total = Fraction(0)
    for task in tasks:
        q, r = divmod(t, task.period_ns)
        total += q * task.exec_ns
        if r >= task.deadline_ns:
            total += task.exec_ns
        elif r >= task.deadline_ns - Fraction(task.exec_ns) / sigma:
            total += task.exec_ns - (task.deadline_ns - r) * sigma
    return total


def test_ffdbf_accepted_sets_hold_on_a_fine_grid():
    """For the σ the test reports, the condition holds at every t in steps of 1/8 up to the bound."""
    checked = 0
    for problem in _small_sets(7, 600):
        result = run_test("gedf-ffdbf", problem)
        if not result.schedulable:
            continue
        sigma, m = result.details["sigma"], problem.cpus
        c_sum = sum(t.exec_ns for t in problem.tasks)
        t_max = c_sum / (m - (m - 1) * sigma - problem.utilization())
        for eighths in range(1, int(t_max * 8) + 1):
            t = Fraction(eighths, 8)
            assert _ffdbf_scalar(problem.tasks, t, sigma) <= (m - (m - 1) * sigma) * t, (problem, t)
        checked += 1
    assert checked >= 10
