"""The soundness harness on servers (analysis/soundness/families_servers.py, docs/soundness.md,
"Servers: wake-up rules and controllers"): the hierarchy analysis against schedules built from
the CBS and controller rules. On the code before issue 35's fixes the CI search finds both
defects (cbs-beside-edf at seed 2, adapted-above-hard at seed 0; the witnesses are kept below);
after them it finds nothing."""

import random

import pytest

from rtsched.analysis.reservations import analyze_reservations
from rtsched.analysis.soundness.families_servers import (
    SERVER_SUBJECTS, as_taskset, judge_servers, scenarios, search_servers)
from rtsched.analysis.soundness.server_explorer import (
    Cbs, Periodic, Plain, ServerScenario, ServerSystem, check_legal, explore_servers)

#: CI budget: per subject and seed, 8 accepted sets, 30 random scenarios each (plus the adversarial ones)
SEEDS = range(4)


@pytest.mark.parametrize("subject", SERVER_SUBJECTS, ids=lambda s: s.id)
def test_the_search_finds_nothing(subject):
    for seed in SEEDS:
        report = search_servers(subject, seed, sets=8, scenarios_per_set=30)
        assert report.accepted >= 4, (seed, report)  # the family still fits what the analysis accepts
        assert report.violation is None, report.violation.describe()


def test_cbs_rules_by_hand():
    # S (2 every 5): s0 runs 1 at 0 (deadline 5) and S idles with 1 left; s1 wakes it at 2:
    # 1·5 < (5 − 2)·2, so S keeps (1, 5). p arrives at 2 too.
    cbs = Cbs("S", 2, 5, hard=False, inner=(("s0", 2, 20), ("s1", 2, 20)))
    scenario = ServerScenario((("p", 2, 2),), (("S", "s0", 0, 1), ("S", "s1", 2, 2)))
    tie = ServerSystem("EDF", (Plain("p", 2, 3, 20),), (cbs,))  # p's deadline 5: a tie, the plain job first
    assert check_legal(tie, scenario) is None
    assert explore_servers(tie, scenario, 10) == {0: 4}
    late = ServerSystem("EDF", (Plain("p", 2, 4, 20),), (cbs,))  # p's deadline 6: S's kept chunk [2, 3) first
    assert explore_servers(late, scenario, 10) == {0: 5}
    # at zero budget with work queued a hard CBS waits for its deadline, a soft one postpones it at once
    hog = ServerScenario((("p", 0, 2),), (("S", "s0", 0, 2), ("S", "s1", 2, 2)))
    inner = (("s0", 2, 20), ("s1", 2, 20))
    hard = ServerSystem("EDF", (Plain("p", 2, 12, 20),), (Cbs("S", 2, 4, True, inner),))
    assert explore_servers(hard, hog, 20) == {0: 4}  # S [0, 2), p [2, 4) while S is throttled until 4
    soft = ServerSystem("EDF", (Plain("p", 2, 12, 20),), (Cbs("S", 2, 4, False, inner),))
    assert explore_servers(soft, hog, 20) == {0: 6}  # S takes (2, 8) at 2 and runs before p (deadline 12)
    assert check_legal(tie, ServerScenario((("p", 0, 3),))) is not None  # more than its WCET


def test_controller_rules_by_hand():
    server = Periodic("A", 1, 4, priority=20, control_periods=1, min_budget=1, max_budget=3)
    system = ServerSystem("FP", (Plain("h", 2, 4, 4, priority=10),), (server,))
    fixed = ServerScenario((("h", 0, 2), ("h", 4, 2)), budgets={"A": (1, 1)})
    raised = ServerScenario((("h", 0, 2), ("h", 4, 2)), budgets={"A": (1, 3)})
    assert explore_servers(system, fixed, 12) == {0: 3, 1: 7}
    assert explore_servers(system, raised, 13) == {0: 3, 1: 12}  # A idles its 3 away first: h gets 1 a period
    assert check_legal(system, ServerScenario((), budgets={"A": (2, 3)})) is not None  # not its first budget
    assert check_legal(system, ServerScenario((), budgets={"A": (1, 4)})) is not None  # above max_budget


#: The witnesses the CI search printed on the code before the fixes (issue 35, classes 6 and 8).
KEPT_CHUNK = (ServerSystem("EDF", (Plain("p0", 6, 6, 12),), (Cbs("S", 5, 12, True, (("s0", 5, 72), ("s1", 2, 48))),)),
              ServerScenario((("p0", 7, 6),), (("S", "s0", 0, 3), ("S", "s1", 7, 2))))
RAISED = (ServerSystem("FP", (Plain("p0", 2, 4, 8, priority=10),),
                       (Periodic("A", 1, 3, priority=20, control_periods=2, min_budget=1, max_budget=3),)),
          ServerScenario((("p0", 8, 2),), budgets={"A": (1, 3, 3, 3, 3, 3)}))


@pytest.mark.parametrize("witness", [KEPT_CHUNK, RAISED], ids=["cbs-kept-chunk", "controller-raised-budget"])
def test_the_witnesses_of_before_are_rejected_now(witness):
    system, scenario = witness
    finish = explore_servers(system, scenario, 60)
    assert finish[0] is None or finish[0] - scenario.jobs[0][1] > system.plain[0].deadline  # a miss
    result = analyze_reservations(as_taskset(system)).tasks
    assert not result.schedulable  # before: schedulable, p0's bound 6 ticks (kept chunk: response 8), 3 ticks
    # (raised: unfinished at 21)


def test_adversarial_scenarios_are_legal():
    rng = random.Random(5)
    for subject in SERVER_SUBJECTS:
        for _ in range(5):
            system = subject.make(rng)
            for scenario in scenarios(system, rng, 5):
                assert check_legal(system, scenario) is None
            result = analyze_reservations(as_taskset(system)).tasks
            if result.schedulable:
                for scenario in scenarios(system, rng, 3):
                    assert judge_servers(system, scenario, result) is None
