"""Non-preemptive intervals (``np_segments_ns``, PREM / limited preemption) are analysed by fp-lp only.

Every other registered test treated a job's non-preemptive intervals as preemptible execution, so
a lower-priority (or longer-deadline) task's 4 ns interval that a task with D = 2 waits out went
uncounted: fp-rta, edf-dbf, edf-qpa and p-edf called such a set schedulable. They now refuse it as
``unsupported``, naming the task and pointing to fp-lp.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import TESTS, AnalysisProblem, AnalysisTask, run_test


def _blocked_by_an_interval(scheduler: str) -> AnalysisProblem:
    return AnalysisProblem(
        tasks=(
            AnalysisTask("hi", 1, 12, 2, priority=2),
            AnalysisTask("lo", 4, 6, 6, priority=1, np_segments_ns=(4,)),
        ),
        scheduler=scheduler, cpus=2 if scheduler.startswith("G-") else 1)


@pytest.mark.parametrize("test", sorted(set(TESTS) - {"fp-lp", "gedf-np-tardiness"}))
def test_tests_without_an_interval_model_refuse_intervals(test):
    scheduler = {"e": "EDF", "p": "P-EDF", "g": "G-EDF"}.get(test[0], "FP")
    scheduler = "G-FP" if test == "gfp-rta" else "P-FP" if test.startswith("p-fp") else scheduler
    result = run_test(test, _blocked_by_an_interval(scheduler))
    assert result.verdict == "unsupported", (test, result.verdict, result.reason)
    assert "lo has non-preemptive intervals" in result.reason and "fp-lp" in result.reason


def test_fp_lp_still_analyses_intervals():
    result = run_test("fp-lp", _blocked_by_an_interval("FP"))
    assert result.verdict == "not schedulable"
    assert {b.name: b.blocking_ns for b in result.tasks}["hi"] == 3  # the interval − 1 ns


def test_gedf_np_tardiness_analyses_intervals():
    """Implicit deadlines (its model): hi (1, 2), lo (4, 6) with one 4 ns interval, m = 2:
    x = (E(1) + B_max − C_min)/(2 − U(1)) = (4 + 4 − 1)/(2 − 2/3) = 21/4; bounds T + ⌈x + C⌉."""
    problem = AnalysisProblem((AnalysisTask("hi", 1, 2, 2), AnalysisTask("lo", 4, 6, 6, np_segments_ns=(4,))),
                              scheduler="G-EDF", cpus=2)
    result = run_test("gedf-np-tardiness", problem)
    assert result.verdict == "schedulable"
    assert (result.bound("hi"), result.bound("lo")) == (2 + 7, 6 + 10)
