"""gedf-rta and gfp-rta must refuse a task whose own demand C + suspension exceeds its deadline.

A job that executes C and sleeps S responds in at least C + S whatever the other tasks do, so
C + S > D is a certain miss. Found by the soundness harness (docs/soundness.md): the RTA's first
iterate R = C + S was returned when nothing interfered, never compared with D.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test

MS = 1_000_000


def _demand_above_deadline(scheduler: str) -> AnalysisProblem:
    # s: 1 ms of execution and 4 ms of sleep per job, D = T = 4 ms; o: an idle companion.
    return AnalysisProblem(
        tasks=(
            AnalysisTask("s", 1 * MS, 4 * MS, 4 * MS, priority=2, suspension_ns=4 * MS),
            AnalysisTask("o", 1 * MS, 10 * MS, 10 * MS, priority=1),
        ),
        scheduler=scheduler, cpus=2)


@pytest.mark.parametrize("test,scheduler", [("gedf-rta", "G-EDF"), ("gfp-rta", "G-FP")])
def test_execution_plus_suspension_above_the_deadline_is_a_miss(test, scheduler):
    result = run_test(test, _demand_above_deadline(scheduler))
    s = {b.name: b for b in result.tasks}["s"]
    assert s.verdict == "miss" and s.bound_ns is None, s
    assert result.verdict != "schedulable"


@pytest.mark.parametrize("test,scheduler", [("gedf-rta", "G-EDF"), ("gfp-rta", "G-FP")])
def test_demand_equal_to_the_deadline_is_still_accepted(test, scheduler):
    # C + S = D exactly: the job alone on a processor meets its deadline; the bound is D.
    problem = AnalysisProblem(
        tasks=(
            AnalysisTask("s", 1 * MS, 4 * MS, 4 * MS, priority=2, suspension_ns=3 * MS),
            AnalysisTask("o", 1 * MS, 10 * MS, 10 * MS, priority=1),
        ),
        scheduler=scheduler, cpus=2)
    result = run_test(test, problem)
    assert result.verdict == "schedulable", result.reason
    assert {b.name: b.bound_ns for b in result.tasks}["s"] == 4 * MS
