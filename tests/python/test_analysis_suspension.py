"""Issue 22 defect 1: a suspending higher-priority task interferes with jitter R_h − C_h.

Partitioned FP with global locks: a task waiting for a global resource
suspends. Chen et al. ("Many suspensions, many problems", Real-Time Systems
2019) show that taking the suspension time as the suspending task's release
jitter is unsafe; R_h − C_h is the jitter that covers every suspension pattern.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test

MS = 1_000_000


def _issue_22_counterexample(protocol: str) -> AnalysisProblem:
    """CPU 0: τ1 (1/2, top), τ2 (1/5, all of it a section on global q), τ3 (1/5, lowest);
    CPU 1: τ4 holds q for 1. A legal schedule gives τ3 a response of 6 > 5:
    τ1 runs at [0, 1); τ2 asks for q at 1 and waits while τ4 holds it, runs its boosted section
    at [2, 3) (τ1's job of 2 is held back to [3, 4)); τ1 runs [4, 5); τ2's next job, released at 5,
    gets q at once and runs [5, 6); τ1 runs [6, 7); τ3, released at 2, gets [7, 8) only.
    The suspension pushed τ2's first job against its second: a jitter equal to the suspension
    (1) misses that; R_2 − C_2 = 2 covers it."""
    q = (CriticalSection("q", 1 * MS),)
    return AnalysisProblem(
        tasks=(
            AnalysisTask("t1", 1 * MS, 2 * MS, 2 * MS, priority=30, partition="cpu0"),
            AnalysisTask("t2", 1 * MS, 5 * MS, 5 * MS, priority=20, partition="cpu0", critical_sections=q),
            AnalysisTask("t3", 1 * MS, 5 * MS, 5 * MS, priority=10, partition="cpu0"),
            AnalysisTask("t4", 1 * MS, 5 * MS, 5 * MS, priority=10, partition="cpu1", critical_sections=q),
        ),
        scheduler="P-FP",
        protocols={"q": protocol},
    )


@pytest.mark.parametrize("test", ["p-fp-mpcp", "p-fp-fmlp+"])
def test_issue_22_counterexample_is_not_declared_schedulable(test):
    protocol = "mpcp" if test == "p-fp-mpcp" else "fmlp+"
    result = run_test(test, _issue_22_counterexample(protocol))
    assert not result.schedulable
    t3 = result.task("t3")
    assert t3.verdict != "ok"  # the legal schedule gives 6 ms > 5 ms
    # the tasks above the suspending one keep their bounds
    assert result.task("t1").verdict == "ok"


@pytest.mark.parametrize("test", ["p-fp-mpcp", "p-fp-fmlp+"])
def test_bounds_cover_the_legal_schedule(test):
    """With a looser τ3 deadline the set is schedulable, and τ3's bound covers the 6 ms schedule."""
    protocol = "mpcp" if test == "p-fp-mpcp" else "fmlp+"
    problem = _issue_22_counterexample(protocol)
    tasks = list(problem.tasks)
    tasks[2] = AnalysisTask("t3", 1 * MS, 20 * MS, 20 * MS, priority=10, partition="cpu0")
    result = run_test(test, problem.with_tasks(tasks))
    assert result.task("t3").verdict == "ok"
    assert result.bound("t3") >= 6 * MS
    assert result.bound("t2") >= 3 * MS  # waits [1, 2), its section [2, 3)
