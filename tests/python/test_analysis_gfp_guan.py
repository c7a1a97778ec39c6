"""gfp-guan: global FP response-time analysis with limited carry-in (Guan, Stigge, Yi, Yu, RTSS 2009).

Known answers worked by hand from the paper's Eq. 5-12 (m = 2, integer
time), and the dominance over the Bertogna-Cirinei RTA (gfp-rta) that the
paper claims: only m − 1 tasks carry work in, so every bound is at most
gfp-rta's and every set gfp-rta accepts, this test accepts.
"""

from __future__ import annotations

import random

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.gfp_guan import guan_interference


def gfp(spec, m=2) -> AnalysisProblem:
    """(C, T, D) per task, priorities in the order given (first = highest)."""
    return AnalysisProblem(tuple(AnalysisTask(f"t{i + 1}", c, t, d, priority=100 - i)
                                 for i, (c, t, d) in enumerate(spec)), scheduler="G-FP", cpus=m)


def test_one_carry_in_task_where_the_rta_counts_three():
    """t1 (8, 9, 9) > t2 (4, 12, 12) > t3 (1, 7, 6) > t4 (1, 12, 6), m = 2.
    t1: R = 8 (nothing above). t2: x = 4, I_NC(t1) = I_CI(t1) = min(·, 4 - 4 + 1) = 1, Ω = 1, R = 4.
    t3: x = 5: I_NC = 5 (t1), 4 (t2); no difference: Ω = 9, 1 + floor(9/2) = 5 = x, R = 5.
    t4: x = 6: W_NC = 6, 4, 1; W_CI(t1) = 8 + min(max(5 - 1, 0), 7) = 12 → 6, W_CI(t2) = 4,
    W_CI(t3) = 1 (α ≤ C − 1 = 0): Ω = 11, 1 + 5 = 6 = x, R = 6 (x = 5 gives Ω = 10, 6 > 5).
    Bertogna-Cirinei counts t3's carry-in too: W(t3, 6) = 1 + min(1, 6 + 5 - 1 - 7) = 2, so
    6 + 4 + 2 = 12 and 1 + 6 = 7 > 6: t4 is not shown schedulable there."""
    problem = gfp([(8, 9, 9), (4, 12, 12), (1, 7, 6), (1, 12, 6)])
    result = run_test("gfp-guan", problem)
    assert result.schedulable and result.label == "sufficient"
    assert result.bounds() == {"t1": 8, "t2": 4, "t3": 5, "t4": 6}
    hp = [(problem.tasks[0], 8), (problem.tasks[1], 4), (problem.tasks[2], 5)]
    assert guan_interference(problem.tasks[3], hp, 2, 6) == 11
    assert guan_interference(problem.tasks[3], hp, 2, 5) == 10
    rta = run_test("gfp-rta", problem)
    assert rta.bounds()["t3"] == 5 and rta.task("t4").verdict == "miss"


def test_the_top_m_tasks_run_unhindered():
    result = run_test("gfp-guan", gfp([(5, 10, 10), (7, 10, 10), (1, 10, 10)], m=3))
    assert result.bounds() == {"t1": 5, "t2": 7, "t3": 1}


def test_a_miss_leaves_the_lower_tasks_unknown():
    """Dhall-like: two tasks (2/20) above a heavy one (20/21) on 2 CPUs: it starts at 2, ends at 22."""
    result = run_test("gfp-guan", gfp([(2, 20, 20), (2, 20, 20), (20, 21, 21), (1, 30, 30)]))
    assert [b.verdict for b in result.tasks] == ["ok", "ok", "miss", "unknown"]


def test_demand_above_the_deadline_is_a_miss():
    problem = gfp([(1, 5, 5), (1, 10, 6)])
    sleepy = problem.with_tasks([AnalysisTask("t1", 4, 5, 5, priority=100, suspension_ns=2), problem.tasks[1]])
    assert run_test("gfp-guan", sleepy).task("t1").verdict == "miss"


def test_refuses_deadlines_beyond_the_period():
    assert run_test("gfp-guan", gfp([(1, 5, 7), (1, 5, 5)])).verdict == "unsupported"


@pytest.mark.parametrize("seed", [3, 4])
def test_never_looser_than_the_bertogna_cirinei_rta(seed):
    rng = random.Random(seed)
    accepted = 0
    for _ in range(150):
        m = rng.choice((2, 4))
        spec = []
        for _ in range(rng.randint(m + 1, 3 * m)):
            t = rng.randint(10, 200)
            c = rng.randint(1, max(1, t // 3))
            spec.append((c, t, rng.randint(c, t)))
        spec.sort(key=lambda s: s[2])  # deadline-monotonic
        problem = gfp(spec, m)
        rta, guan = run_test("gfp-rta", problem), run_test("gfp-guan", problem)
        for a, b in zip(rta.tasks, guan.tasks):
            if a.verdict == "ok":
                assert b.verdict == "ok" and b.bound_ns <= a.bound_ns, (problem, a, b)
        accepted += rta.schedulable
    assert accepted >= 10
