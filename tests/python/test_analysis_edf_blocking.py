"""EDF blocking (SRP and np sections): every section that can hold back a shorter-deadline job counts.

Found by the soundness harness (docs/soundness.md):

- an ``np`` section blocks every task, not only the ones that lock its resource: t2's 4 ms np
  section on b starts just before t1 (D = 4 ms, which never locks b) arrives, and t1 responds
  in about 5 ms; the EDF tests counted B = 0 (U = 0.45, no demand above t without it);
- ``edf-util`` counted only outermost sections on a shorter-deadline task's resources: a section
  on such a resource nested inside a section on another one was never counted.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test

MS = 1_000_000
EDF_TESTS = ("edf-util", "edf-dbf", "edf-qpa")


def _np_blocks_every_task(scheduler: str = "EDF", partition: str | None = None) -> AnalysisProblem:
    return AnalysisProblem(
        tasks=(
            AnalysisTask("t1", 1 * MS, 20 * MS, 4 * MS, critical_sections=(CriticalSection("a", 1 * MS),),
                         partition=partition),
            AnalysisTask("t2", 4 * MS, 20 * MS, 20 * MS, critical_sections=(CriticalSection("b", 4 * MS),),
                         partition=partition),
        ),
        scheduler=scheduler, protocols={"a": "srp", "b": "np"})


@pytest.mark.parametrize("test", EDF_TESTS)
def test_an_np_section_blocks_a_task_that_never_locks_its_resource(test):
    assert run_test(test, _np_blocks_every_task()).verdict != "schedulable"


def test_p_edf_counts_np_sections_too():
    assert run_test("p-edf", _np_blocks_every_task("P-EDF", "cpu0")).verdict != "schedulable"


@pytest.mark.parametrize("test", EDF_TESTS)
def test_a_short_np_section_is_accepted(test):
    # The same shape with a 1 ms np section: t1 waits at most 1 ms and meets D = 2 ms.
    problem = AnalysisProblem(
        tasks=(
            AnalysisTask("t1", 1 * MS, 12 * MS, 2 * MS),
            AnalysisTask("t2", 1 * MS, 6 * MS, 6 * MS, critical_sections=(CriticalSection("b", 1 * MS),)),
        ),
        scheduler="EDF", protocols={"b": "np"})
    assert run_test(test, problem).verdict == "schedulable"
