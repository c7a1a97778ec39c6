"""Issue 22 defect 2: the global tests (and the periodic-resource ones) assume D ≤ T.

With D > T a job can wait for an earlier job of its own task, which their
interference bounds do not count: BCL and the G-FP RTA accepted sets with
U > m. Such sets are now ``unsupported``, with the task and the reason.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test

GLOBAL_TESTS = ("gedf-gfb", "gedf-bcl", "gedf-rta", "gedf-tardiness", "gfp-rta")


def _infeasible_long_deadlines(scheduler: str) -> AnalysisProblem:
    """Three tasks of C = 9, T = 10, D = 100 on two processors: U = 2.7 > 2, infeasible."""
    tasks = tuple(AnalysisTask(f"t{i}", 9, 10, 100, priority=10 - i) for i in range(3))
    return AnalysisProblem(tasks, scheduler=scheduler, cpus=2)


@pytest.mark.parametrize("test", GLOBAL_TESTS)
def test_global_tests_refuse_deadlines_beyond_the_period(test):
    scheduler = "G-FP" if test == "gfp-rta" else "G-EDF"
    result = run_test(test, _infeasible_long_deadlines(scheduler))
    assert result.verdict == "unsupported"
    assert "D ≤ T" in result.reason or "implicit deadlines" in result.reason
    assert all(b.verdict == "unknown" and b.bound_ns is None for b in result.tasks)


@pytest.mark.parametrize("test", ["gedf-bcl", "gfp-rta"])
def test_issue_22_sets_with_u_above_m_were_accepted(test):
    """The same set with D = T is refused as not schedulable: the test itself is sound there."""
    scheduler = "G-FP" if test == "gfp-rta" else "G-EDF"
    problem = _infeasible_long_deadlines(scheduler)
    implicit = problem.with_tasks(replace(t, deadline_ns=t.period_ns) for t in problem.tasks)
    assert run_test(test, implicit).verdict == "not schedulable"


@pytest.mark.parametrize("test", ["prm-fp", "prm-edf"])
def test_periodic_resource_tests_refuse_long_deadlines(test):
    problem = AnalysisProblem((AnalysisTask("a", 2, 10, 15), AnalysisTask("b", 3, 20, 20, priority=1)))
    result = run_test(test, problem, period_ns=5)
    assert result.verdict == "unsupported"
    assert "a has D > T" in result.reason


@st.composite
def arbitrary_deadline_sets(draw):
    m = draw(st.integers(1, 3))
    tasks = []
    for i in range(draw(st.integers(m + 1, m + 4))):
        t = draw(st.sampled_from([10, 20, 25, 40, 50]))
        c = draw(st.integers(1, t))
        tasks.append(AnalysisTask(f"t{i}", c, t, draw(st.integers(c, 3 * t)), priority=draw(st.integers(1, 9))))
    return m, tuple(tasks)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arbitrary_deadline_sets())
def test_no_global_test_passes_a_set_above_m(drawn):
    m, tasks = drawn
    for test in GLOBAL_TESTS:
        scheduler = "G-FP" if test == "gfp-rta" else "G-EDF"
        result = run_test(test, AnalysisProblem(tasks, scheduler=scheduler, cpus=m))
        if result.schedulable and test != "gedf-tardiness":
            assert sum(t.wcet_ns / t.period_ns for t in tasks) <= m
            assert all(t.wcet_ns <= t.deadline_ns for t in tasks)
