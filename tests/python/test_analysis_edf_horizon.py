"""Issue 22 defect 3: the EDF demand tests check every deadline up to a true horizon.

The old horizon was min(L_a, the busy-period iterate after 10 million steps):
a busy period still growing at the cut gave a horizon below a miss, and the
answer was a silent "schedulable". The busy period is now used only once
converged (L_a, or the hyperperiod when U = 1, otherwise), and the demand test
says ``unknown`` when it gives up at its point budget.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis import edf_uni


def _miss_at_16() -> AnalysisProblem:
    """a: 1/2, b: C = 9, T = 100, D = 16: dbf(16) = 8 + 9 = 17 > 16. The busy period iterates
    10, 14, 16, 17, 18, 18: cut after one step, the old horizon was 14 and the miss unseen."""
    return AnalysisProblem((AnalysisTask("a", 1, 2, 2), AnalysisTask("b", 9, 100, 16)), scheduler="EDF")


@pytest.mark.parametrize("test", ["edf-qpa", "edf-dbf", "p-edf"])
@pytest.mark.parametrize("steps", [1, 2, edf_uni.BUSY_PERIOD_STEPS])
def test_miss_beyond_an_unconverged_busy_period_is_found(monkeypatch, test, steps):
    monkeypatch.setattr(edf_uni, "BUSY_PERIOD_STEPS", steps)
    problem = _miss_at_16()
    if test == "p-edf":
        problem = replace(problem, scheduler="P-EDF", tasks=tuple(replace(t, partition="cpu0") for t in problem.tasks))
    result = run_test(test, problem)
    assert result.verdict == "not schedulable"
    assert result.exact
    assert "16 ns" in result.reason


def test_full_utilization_falls_back_to_the_hyperperiod(monkeypatch):
    """U = 1 has no L_a; with the busy period cut, the hyperperiod (a true L_b bound) is the horizon."""
    monkeypatch.setattr(edf_uni, "BUSY_PERIOD_STEPS", 1)
    ok = AnalysisProblem((AnalysisTask("a", 3, 6, 6), AnalysisTask("b", 4, 8, 8)), scheduler="EDF")
    for test in ("edf-qpa", "edf-dbf"):
        result = run_test(test, ok)
        assert result.verdict == "schedulable", result.reason
    # a: 3/12, b: 15/20 with D = 18: first miss at t = 38 (dbf = 9 + 30 = 39); the busy period's
    # first iterate is 21
    late = AnalysisProblem((AnalysisTask("a", 3, 12, 12), AnalysisTask("b", 15, 20, 18)), scheduler="EDF")
    for test in ("edf-qpa", "edf-dbf"):
        result = run_test(test, late)
        assert result.verdict == "not schedulable"
        assert "38 ns" in result.reason


def test_demand_test_gives_up_with_unknown_never_a_yes_or_a_no(monkeypatch):
    monkeypatch.setattr(edf_uni, "MAX_DEMAND_POINTS", 3)
    problem = AnalysisProblem((AnalysisTask("a", 1, 4, 4), AnalysisTask("b", 10, 100, 100)), scheduler="EDF")
    result = run_test("edf-dbf", problem)
    assert result.verdict == "unknown"
    assert not result.schedulable
    assert all(b.verdict == "unknown" and b.bound_ns is None for b in result.tasks)
    assert "more than 3 deadlines" in result.reason
    assert run_test("edf-qpa", problem).verdict == "schedulable"  # QPA needs no point budget
