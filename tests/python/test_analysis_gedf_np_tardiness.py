"""``gedf-np-tardiness`` (docs/gedf-np-tardiness.md), and the unsound transcription it replaces.

Devi & Anderson (RTSS 2005 / Real-Time Systems 2008; Devi's thesis, UNC
2006) give a tardiness bound for non-preemptive G-EDF too; the only
transcription found is SchedCAT's (``schedcat/sched/edf/da.py``,
``np_tardiness_x``, citing the thesis's Corollary 4.3):

    Λ = ⌈U⌉ − 1,   x = (E(Λ) + E(m − Λ − 1) − C_min) / (m − Σ of the Λ − 1 largest u),

E(n) the sum of the n largest C, tardiness ≤ x + C_k. The explorer builds a
legal non-preemptive G-EDF schedule that exceeds it: these tests keep that
witness, check that rtsched's own bound (proved in docs/) holds on it, and
that the soundness harness's family for the test finds the transcription
exceeded on its own.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil

import pytest

from rtsched.analysis import TESTS, run_test
from rtsched.analysis.gedf import _finish
from rtsched.analysis.gedf_np_tardiness import np_tardiness_x
from rtsched.analysis.results import AnalysisResult, TaskBound
from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.families_np_gedf import np_gedf
from rtsched.analysis.soundness.harness import judge, search
from rtsched.analysis.soundness.model import EXEC, NP, SLEEP, Job, Scenario, SystemModel, TaskModel
from rtsched.analysis.soundness.subjects import Subject
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask


def schedcat_np_x(m: int, costs: list[int], utils: list[Fraction]) -> Fraction:
    """SchedCAT's transcription of Devi's Corollary 4.3 (not rtsched's: kept only as the claim refuted)."""
    lam = ceil(sum(utils, Fraction(0))) - 1
    by_c = sorted(costs, reverse=True)
    by_u = sorted(utils, reverse=True)
    top = sum(by_c[:lam]) + sum(by_c[:max(0, m - lam - 1)])
    return Fraction(top - min(costs)) / (m - sum(by_u[:max(0, lam - 1)], Fraction(0)))


# m = 2, fully non-preemptive jobs: τ1 (C = 1, T = D = 2), τ2 and τ3 (C = 10, T = D = 20); U = 1.5 ≤ m.
MODEL = SystemModel((TaskModel("t1", 2, 2, ((NP, 1),)), TaskModel("t2", 20, 20, ((NP, 10),)),
                     TaskModel("t3", 20, 20, ((NP, 10),))), scheduler="G-EDF", cpus=2)
#: τ2 and τ3 arrive at 0 and, nothing more urgent being ready, start on both processors; τ1 arrives
#: at 1 (deadline 3) and cannot preempt them: it runs at [10, 11), tardiness 8.
WITNESS = Scenario(tuple(Job(t.name, a, 0, t.body) for t, a in
                         ((MODEL.tasks[1], 0), (MODEL.tasks[2], 0), (MODEL.tasks[0], 1))))
WITNESS_T1 = 2  # index of τ1's job in WITNESS


def _witness_tardiness() -> int:
    run = explore(MODEL, WITNESS, 40)
    assert run.slots["cpu0"][:10].count(None) == 0 and run.slots["cpu1"][:10].count(None) == 0
    response = run.response(WITNESS, WITNESS_T1)
    assert response is not None
    return response - MODEL.tasks[0].deadline


def test_the_explorers_gedf_keeps_a_begun_interval_and_runs_the_most_urgent_otherwise():
    """m = 2. A: two 3-tick intervals, B: 6 preemptive ticks (both D = 20); C (D = 4, 3 ticks) arrives
    at 1, D (D = 4, 2 ticks) at 2. At 1 C preempts B, not A (inside its interval); at 2 D waits (A
    still inside, C more urgent); at 3, the boundary between A's intervals is a preemption point: D
    takes A's processor; at 4 (C done) A resumes before B (ties: the scenario's order)."""
    model = SystemModel((TaskModel("A", 20, 20, ((NP, 3), (NP, 3))), TaskModel("B", 20, 20, ((EXEC, 6),)),
                         TaskModel("C", 4, 4, ((EXEC, 3),)), TaskModel("D", 4, 4, ((EXEC, 2),))),
                        scheduler="G-EDF", cpus=2)
    scenario = Scenario(tuple(Job(t.name, a, 0, t.body) for t, a in zip(model.tasks, (0, 0, 1, 2))),
                        ("A", "B", "C", "D"))
    run = explore(model, scenario, 30)
    assert run.slots["cpu0"] == ["A", "A", "A", "D", "D", "B", "B", "B", "B", "B"]
    assert run.slots["cpu1"] == ["B", "C", "C", "C", "A", "A", "A", None, None, None]
    assert run.finish == [7, 10, 4, 5]


def test_witness_exceeds_the_transcribed_bound():
    """By hand: x = (E(1) + E(0) − 1)/(2 − 0) = (10 − 1)/2 = 4.5, so τ1's tardiness bound is 4.5 + 1 = 5.5."""
    x = schedcat_np_x(2, [1, 10, 10], [Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)])
    assert x == Fraction(9, 2)
    assert _witness_tardiness() == 8 > x + 1


def test_witness_stays_within_gedf_np_tardiness():
    """By hand: x = (E(1) + B_max − C_min)/(m − U(1)) = (10 + 10 − 1)/(2 − 1/2) = 38/3; τ1's tardiness
    bound ⌈38/3 + 1⌉ = 14, so its response bound is 2 + 14 = 16 (the witness: 10)."""
    result = run_test("gedf-np-tardiness", MODEL.problem())
    assert result.verdict == "schedulable"
    assert result.details["x_ns"] == Fraction(38, 3)
    assert [result.bound(t) for t in ("t1", "t2", "t3")] == [16, 20 + 23, 20 + 23]
    assert _witness_tardiness() <= result.bound("t1") - 2
    _, violation = judge(MODEL, WITNESS, result, check_deadlines=False)
    assert violation is None


def test_the_blocking_term_is_needed_on_the_witness():
    """Without B_max (the preemptive form of the same bound) x = (10 − 1)/1.5 = 6: tardiness ≤ 7 < 8."""
    utils = [Fraction(1, 2)] * 3
    assert np_tardiness_x(2, [1, 10, 10], utils, 0) == 6
    assert _witness_tardiness() > 6 + 1
    assert np_tardiness_x(2, [1, 10, 10], utils, 10) == Fraction(38, 3)


def test_three_processors_by_hand():
    """m = 3: C = 4, 3, 2, 1 over T = 8, 6, 4, 2 (u = 1/2 each, U = 2), longest interval 3 (τ2's).
    E(2) = 7, U(2) = 1: x = (7 + 3 − 1)/(3 − 1) = 9/2; bounds T + ⌈9/2 + C⌉ = 8 + 9, 6 + 8, 4 + 7, 2 + 6."""
    model = SystemModel((TaskModel("a", 8, 8, ((EXEC, 2), (NP, 2))), TaskModel("b", 6, 6, ((NP, 3),)),
                         TaskModel("c", 4, 4, ((EXEC, 2),)), TaskModel("d", 2, 2, ((NP, 1),))),
                        scheduler="G-EDF", cpus=3)
    result = run_test("gedf-np-tardiness", model.problem())
    assert result.details["x_ns"] == Fraction(9, 2) and result.details["longest_np_ns"] == 3
    assert [result.bound(t) for t in "abcd"] == [17, 14, 11, 8]


def test_preemptive_sets_get_a_bound_not_below_gedf_tardiness():
    """B_max = 0: the same proof's preemptive bound, with U(m − 1) where Devi & Anderson have U(m − 2)."""
    problem = AnalysisProblem(tuple(AnalysisTask(n, c, t, t) for n, c, t in
                                    (("a", 3, 4), ("b", 2, 5), ("c", 3, 10), ("d", 1, 2))), scheduler="G-EDF", cpus=2)
    ours = run_test("gedf-np-tardiness", problem)
    theirs = run_test("gedf-tardiness", problem)
    assert ours.verdict == theirs.verdict == "schedulable"
    assert all(ours.bound(n) >= theirs.bound(n) for n in "abcd")
    assert ours.details["x_ns"] == Fraction(3 - 1) / (2 - Fraction(3, 4))  # U = 1.95: E(1) = 3, U(1) = 3/4


@pytest.mark.parametrize("change, words", [
    (dict(deadline_ns=15), "implicit deadlines"),
    (dict(suspension_ns=1), "suspends itself"),
    (dict(jitter_ns=1), "jitter"),
    (dict(extra_blocking_ns=1), "blocking term given by hand"),
    (dict(np_segments_ns=(3, 3)), "add up to 6 ns, more than its WCET 5 ns"),
])
def test_refused_outside_the_proof(change, words):
    base = dict(name="a", wcet_ns=5, period_ns=20, deadline_ns=20, np_segments_ns=(5,))
    problem = AnalysisProblem((AnalysisTask(**{**base, **change}), AnalysisTask("b", 2, 4, 4)), scheduler="G-EDF",
                              cpus=2)
    result = run_test("gedf-np-tardiness", problem)
    assert result.verdict == "unsupported" and words in result.reason, result.reason


def test_overload_is_unbounded():
    problem = AnalysisProblem((AnalysisTask("a", 3, 4, 4, np_segments_ns=(3,)), AnalysisTask("b", 3, 4, 4),
                               AnalysisTask("c", 3, 4, 4)), scheduler="G-EDF", cpus=2)
    result = run_test("gedf-np-tardiness", problem)
    assert result.verdict != "schedulable" and "U = 2.2500 > m = 2" in result.reason


def test_registered_preemptive_tardiness_tests_refuse_non_preemptive_jobs():
    problem = MODEL.problem()
    for name in ("gedf-tardiness", "gedf-tardiness-lambda"):
        assert run_test(name, problem).verdict == "unsupported", name


def _schedcat_test(problem: AnalysisProblem) -> AnalysisResult:
    """The transcription as a registered test would answer (bounds T + ⌈x + C⌉)."""
    utils = [Fraction(t.wcet_ns, t.period_ns) for t in problem.tasks]
    x = max(Fraction(0), schedcat_np_x(problem.cpus, [t.wcet_ns for t in problem.tasks], utils))
    ok = sum(utils, Fraction(0)) <= problem.cpus
    return _finish(problem, "schedcat-np", [TaskBound(t.name, t.period_ns + ceil(x + t.wcet_ns) if ok else None,
                                                      "ok" if ok else "miss", "") for t in problem.tasks], False, "")


def test_the_harness_family_finds_the_transcription_exceeded(monkeypatch):
    """The family the harness checks gedf-np-tardiness on reaches the defect by itself (the set it finds:
    two 9-tick intervals of period 12 and a task of C = 1, T = 2), at the CI budget (seed 3)."""
    monkeypatch.setitem(TESTS, "schedcat-np", _schedcat_test)
    report = search(Subject("schedcat-np", "np-2cpus", np_gedf, check_deadlines=False), 3, 8, 40, 64)
    assert report.counterexample is not None
    assert report.counterexample.violation.kind == "bound exceeded"
