"""gedf-tardiness-lambda: Devi & Anderson's G-EDF tardiness bound with Λ = ⌈U⌉ − 1 (thesis Cor. 4.11).

A known answer worked by hand from the formula, and the dominance it gives
over gedf-tardiness (Λ ≤ m − 1 whenever U ≤ m): never a larger bound.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test

MS = 1_000_000


def implicit(spec, m):
    return AnalysisProblem(tuple(AnalysisTask(f"t{i + 1}", c * MS, t * MS, t * MS) for i, (c, t) in enumerate(spec)),
                           scheduler="G-EDF", cpus=m)


def test_light_load_on_four_processors():
    """(C, T) = (5, 10), (4, 10), (3, 10), (2, 10), (4, 20), (3, 30) ms on m = 4: U = 1.7, Λ = 1.
    x = (E(1) − C_min)/(m − 0) = (5 − 2)/4 = 0.75 ms; τ1's bound 10 + 0.75 + 5 = 15.75 ms.
    With m − 1 = 3 (gedf-tardiness): x = (5 + 4 + 4 − 2)/(4 − 0.5 − 0.4) = 11/3.1 ms."""
    problem = implicit([(5, 10), (4, 10), (3, 10), (2, 10), (4, 20), (3, 30)], 4)
    result = run_test("gedf-tardiness-lambda", problem)
    assert result.schedulable and result.label == "sufficient"
    assert result.details["lambda"] == 1 and result.details["x_ns"] == Fraction(3 * MS, 4)
    assert result.bound("t1") == 15_750_000
    old = run_test("gedf-tardiness", problem)
    assert old.details["x_ns"] == Fraction(11 * MS * 10, 31)
    assert old.bound("t1") > result.bound("t1")


def test_integral_utilization_uses_u_minus_one():
    """Four tasks (3, 4) on m = 3: U = 3 exactly, Λ = 2: x = (3 + 3 − 3)/(3 − 3/4) = 4/3 ms."""
    result = run_test("gedf-tardiness-lambda", implicit([(3, 4)] * 4, 3))
    assert result.details["lambda"] == 2 and result.details["x_ns"] == Fraction(4 * MS, 3)


def test_unbounded_and_refused():
    assert not run_test("gedf-tardiness-lambda", implicit([(3, 4)] * 5, 3)).schedulable  # U = 3.75 > 3
    problem = implicit([(1, 4), (1, 4)], 2)
    np_set = problem.with_tasks([AnalysisTask("t1", MS, 4 * MS, 4 * MS, np_segments_ns=(MS,)), problem.tasks[1]])
    assert run_test("gedf-tardiness-lambda", np_set).verdict == "unsupported"


@pytest.mark.parametrize("seed", [5, 6])
def test_never_above_gedf_tardiness(seed):
    rng = random.Random(seed)
    compared = 0
    for _ in range(200):
        m = rng.choice((2, 4, 8))
        spec = [(rng.randint(1, 50), rng.randint(50, 100)) for _ in range(rng.randint(m, 3 * m))]
        problem = implicit(spec, m)
        old, new = run_test("gedf-tardiness", problem), run_test("gedf-tardiness-lambda", problem)
        assert old.schedulable == new.schedulable
        if old.schedulable:
            compared += 1
            for a, b in zip(old.tasks, new.tasks):
                assert b.bound_ns <= a.bound_ns
    assert compared > 50
