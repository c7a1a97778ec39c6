"""Why there is no ``gedf-np-tardiness`` yet (issue 22 item 5): the formula at hand is unsound.

Devi & Anderson (RTSS 2005 / Real-Time Systems 2008; Devi's thesis, UNC
2006) give a tardiness bound for non-preemptive G-EDF too, but neither the
paper nor the thesis was reachable when this was written; the only
transcription found is SchedCAT's (``schedcat/sched/edf/da.py``,
``np_tardiness_x``, citing the thesis's Corollary 4.3):

    Λ = ⌈U⌉ − 1,   x = (E(Λ) + E(m − Λ − 1) − C_min) / (m − Σ of the Λ − 1 largest u),

E(n) the sum of the n largest C, tardiness ≤ x + C_k. The explorer builds a
legal non-preemptive G-EDF schedule that exceeds it, so it is not
registered: these tests keep the witness, and check that every registered
G-EDF tardiness test refuses a set with non-preemptive jobs instead of
answering for it.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil

from rtsched.analysis import run_test
from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.model import NP, Job, Scenario, SystemModel, TaskModel


def schedcat_np_x(m: int, costs: list[int], utils: list[Fraction]) -> Fraction:
    """SchedCAT's transcription of Devi's Corollary 4.3 (not rtsched's: kept only as the claim refuted)."""
    lam = ceil(sum(utils, Fraction(0))) - 1
    by_c = sorted(costs, reverse=True)
    by_u = sorted(utils, reverse=True)
    return Fraction(sum(by_c[:lam]) + sum(by_c[:max(0, m - lam - 1)]) - min(costs)) / (m - sum(by_u[:max(0, lam - 1)]))


# m = 2, fully non-preemptive jobs: τ1 (C = 1, T = D = 2), τ2 and τ3 (C = 10, T = D = 20); U = 1.5 ≤ m.
MODEL = SystemModel((TaskModel("t1", 2, 2, ((NP, 1),)), TaskModel("t2", 20, 20, ((NP, 10),)),
                     TaskModel("t3", 20, 20, ((NP, 10),))), scheduler="G-EDF", cpus=2)


def test_witness_exceeds_the_transcribed_bound():
    """By hand: x = (E(1) + E(0) − 1)/(2 − 0) = (10 − 1)/2 = 4.5, so τ1's tardiness bound is 4.5 + 1 = 5.5.
    The schedule: τ2 and τ3 arrive at 0 and, nothing more urgent being ready, start on both
    processors; τ1 arrives at 1 (deadline 3) and cannot preempt them, runs at [10, 11): tardiness 8."""
    x = schedcat_np_x(2, [1, 10, 10], [Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)])
    assert x == Fraction(9, 2)
    claimed = x + 1
    scenario = Scenario(tuple(Job(t.name, a, 0, t.body) for t, a in
                              ((MODEL.tasks[1], 0), (MODEL.tasks[2], 0), (MODEL.tasks[0], 1))))
    run = explore(MODEL, scenario, 40)
    assert run.slots["cpu0"][:10].count(None) == 0 and run.slots["cpu1"][:10].count(None) == 0
    tardiness = run.response(scenario, 2) - MODEL.tasks[0].deadline
    assert tardiness == 8 > claimed


def test_registered_tardiness_tests_refuse_non_preemptive_jobs():
    problem = MODEL.problem()
    for name in ("gedf-tardiness", "gedf-tardiness-lambda"):
        assert run_test(name, problem).verdict == "unsupported", name
