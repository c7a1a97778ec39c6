"""gedf-bcl-iterative: the slack iteration of Bertogna, Cirinei & Lipari (TPDS 2009, Eq. 17-18).

Known answers worked by hand from the paper's equations (integer time, m = 2),
the Dhall effect (Dhall & Liu 1978) that every G-EDF test must reject, and
the dominance the theory gives: every set gedf-bcl accepts, this test accepts.
"""

from __future__ import annotations

import random

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.gedf_bcl_iterative import bcl_slack


def gedf(spec, m=2) -> AnalysisProblem:
    """(C, T, D) per task, names t1, t2, ..."""
    return AnalysisProblem(tuple(AnalysisTask(f"t{i + 1}", c, t, d) for i, (c, t, d) in enumerate(spec)),
                           scheduler="G-EDF", cpus=m)


def test_slack_of_one_task_frees_the_others():
    """t1 (2, 11, 2), t2 (1, 3, 1), t3 (1, 12, 8) on 2 CPUs. With every slack 0, t1's window of 2
    holds t2's job (1) and t3's carry-in (1): S1 = 0 - floor(2/2) = -1. t3: N = 1 job of t1 (2) and
    N = 3 of t2 (3), S3 = 8 - 1 - floor(5/2) = 5; then t3's carry-in into t1's window is
    min(1, max(0, 2 - 5)) = 0, so S1 = 0 - floor(1/2) = 0, and S2 = 0 likewise. Bounds D - S."""
    problem = gedf([(2, 11, 2), (1, 3, 1), (1, 12, 8)])
    tasks = problem.tasks
    assert [bcl_slack(tasks, k, [0, 0, 0], 2) for k in range(3)] == [-1, -1, 5]
    assert bcl_slack(tasks, 0, [0, 0, 5], 2) == 0
    result = run_test("gedf-bcl-iterative", problem)
    assert result.schedulable and result.label == "sufficient"
    assert result.bounds() == {"t1": 2, "t2": 1, "t3": 3}
    assert result.details["rounds"] == 2
    assert not run_test("gedf-bcl", problem).schedulable


def test_three_rounds_hand_computed():
    """t1 (3, 10, 10), t2 (3, 8, 7), t3 (1, 5, 1). Round 1: S1 = 7 - floor((5 + 2)/2) = 4,
    S2 = 4 - floor((3 + 2)/2) = 2 (t1's carry-in min(3, 7 - 4) = 3), S3 = 0. Round 2: t2's carry-in
    into t1's window is min(3, 10 - 8 - 2) = 0, so S1 = 7 - floor((3 + 2)/2) = 5; round 3 changes
    nothing. BCL (one shot, continuous) rejects t3 (C = D: 0 < 0 fails)."""
    problem = gedf([(3, 10, 10), (3, 8, 7), (1, 5, 1)])
    result = run_test("gedf-bcl-iterative", problem)
    assert result.bounds() == {"t1": 5, "t2": 5, "t3": 1}
    assert result.details["rounds"] == 3
    assert not run_test("gedf-bcl", problem).schedulable


def test_dhall_effect_is_rejected():
    """Dhall & Liu 1978: two light tasks (2/20) and a heavy one (20/21) on 2 CPUs, U = 1.15: the
    heavy job starts at 2 and misses at 21. Its slack: 21 - 20 - floor((2 + 2)/2) = -1."""
    problem = gedf([(2, 20, 20), (2, 20, 20), (20, 21, 21)])
    result = run_test("gedf-bcl-iterative", problem)
    assert not result.schedulable
    assert result.task("t3").verdict == "miss" and "-1" in result.task("t3").reason
    assert {result.task("t1").verdict, result.task("t2").verdict} == {"unknown"}


def test_demand_above_the_deadline_is_a_miss():
    """C (with sleeps) > D: the caps would go negative and hide it (found by the soundness harness)."""
    problem = gedf([(1, 5, 5), (1, 10, 6)])
    sleepy = problem.with_tasks([problem.tasks[0].__class__("t1", 4, 5, 5, suspension_ns=2), problem.tasks[1]])
    assert not run_test("gedf-bcl-iterative", sleepy).schedulable


def test_refuses_deadlines_beyond_the_period():
    assert run_test("gedf-bcl-iterative", gedf([(1, 5, 7), (1, 5, 5)])).verdict == "unsupported"


def _corpus(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        m = rng.choice((2, 4))
        tasks = []
        for i in range(rng.randint(m + 1, 3 * m)):
            t = rng.randint(10, 200)
            c = rng.randint(1, max(1, t // 3))
            tasks.append((c, t, rng.randint(c, t)))
        yield gedf(tasks, m)


@pytest.mark.parametrize("seed", [1, 2])
def test_accepts_every_set_that_bcl_accepts(seed):
    accepted = 0
    for problem in _corpus(seed, 150):
        if run_test("gedf-bcl", problem).schedulable:
            accepted += 1
            assert run_test("gedf-bcl-iterative", problem).schedulable, problem
    assert accepted >= 10
