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
from rtsched.analysis.edf_uni import srp_blocking_at

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


def _nested() -> AnalysisProblem:
    # long holds a (only its own) for 5 ms and, from 1 ms in, b (short's) for 4 ms.
    long_sections = (CriticalSection("a", 5 * MS, ("b",)), CriticalSection("b", 4 * MS, outermost=False))
    return AnalysisProblem(
        tasks=(
            AnalysisTask("short", 1 * MS, 6 * MS, 3 * MS, critical_sections=(CriticalSection("b", 1 * MS),)),
            AnalysisTask("long", 5 * MS, 12 * MS, 12 * MS, critical_sections=long_sections),
        ),
        scheduler="EDF", protocols={"a": "srp", "b": "srp"})


@pytest.mark.parametrize("test", EDF_TESTS)
def test_a_section_nested_inside_another_blocks_the_users_of_its_resource(test):
    # short arrives just after long locked b: it waits 4 ms and responds in 5 ms > D = 3 ms.
    assert run_test(test, _nested()).verdict != "schedulable"


def test_blocking_is_the_nested_section_not_the_outer_one():
    # While long holds only a (ceiling: long's own level) short preempts it; the time short can be
    # held back is from lock(b) to unlock(b), 4 ms, not the 5 ms of a.
    assert srp_blocking_at(_nested().tasks, 3 * MS) == 4 * MS


def test_np_resources_block_at_any_depth():
    sections = (CriticalSection("a", 5 * MS, ("b",)), CriticalSection("b", 2 * MS, outermost=False))
    tasks = (AnalysisTask("short", 1 * MS, 6 * MS, 3 * MS),
             AnalysisTask("long", 5 * MS, 12 * MS, 12 * MS, critical_sections=sections))
    assert srp_blocking_at(tasks, 3 * MS, frozenset({"b"})) == 2 * MS
    assert srp_blocking_at(tasks, 3 * MS) == 0


def _pip_two_blockers() -> AnalysisProblem:
    # s locks r1 then r2; l1 holds r1 and l2 holds r2 for 3 ms each (found by hand, docs/soundness.md).
    return AnalysisProblem(
        tasks=(
            AnalysisTask("s", 2 * MS, 40 * MS, 5 * MS,
                         critical_sections=(CriticalSection("r1", 1 * MS), CriticalSection("r2", 1 * MS))),
            AnalysisTask("l1", 3 * MS, 30 * MS, 30 * MS, critical_sections=(CriticalSection("r1", 3 * MS),)),
            AnalysisTask("l2", 3 * MS, 20 * MS, 20 * MS, critical_sections=(CriticalSection("r2", 3 * MS),)),
        ),
        scheduler="EDF", protocols={"r1": "pip", "r2": "pip"})


@pytest.mark.parametrize("test", EDF_TESTS)
def test_under_pip_every_longer_deadline_job_can_block_once(test):
    # l1 locks r1, l2 (earlier deadline) preempts it and locks r2, then s arrives: s waits for both
    # sections, about 2 + 6 = 8 ms > D = 5 ms. One section (B = 3 ms) called it schedulable.
    assert run_test(test, _pip_two_blockers()).verdict != "schedulable"


def test_pip_blocking_adds_one_section_per_longer_task():
    tasks = _pip_two_blockers().tasks
    pip = frozenset({"r1", "r2"})
    assert srp_blocking_at(tasks, 5 * MS, pip_resources=pip) == 6 * MS
    assert srp_blocking_at(tasks, 5 * MS) == 3 * MS  # SRP: one section
    # one longer task alone: PIP and SRP agree
    assert srp_blocking_at(tasks[:2], 5 * MS, pip_resources=pip) == 3 * MS


def test_pip_blocking_follows_a_chain_through_nested_sections():
    # l1 holds r1 (s's) and inside it waits for q, which l2 holds: l2 inherits through l1.
    tasks = (
        AnalysisTask("s", 1 * MS, 40 * MS, 5 * MS, critical_sections=(CriticalSection("r1", 1 * MS),)),
        AnalysisTask("l1", 3 * MS, 30 * MS, 30 * MS,
                     critical_sections=(CriticalSection("r1", 3 * MS, ("q",)),
                                        CriticalSection("q", 1 * MS, outermost=False))),
        AnalysisTask("l2", 2 * MS, 20 * MS, 20 * MS, critical_sections=(CriticalSection("q", 2 * MS),)),
    )
    assert srp_blocking_at(tasks, 5 * MS, pip_resources=frozenset({"r1", "q"})) == 5 * MS
