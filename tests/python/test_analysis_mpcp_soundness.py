"""Issue 35, classes 1 and 2 and the wrong label: P-FP under MPCP and FMLP+ against legal schedules.

Each case is a small set the old analysis accepted (or mislabelled), the
verdict it gets now, and a legal schedule from the soundness harness's
explorer (the protocols' rules, not the bound's formula) whose response
exceeds the old bound. The old bounds are written down as numbers so the
witness keeps its meaning after the fix.

- class 1: a task that sleeps meets one boosted section of a lower-priority
  task per release, per global wait *and per sleep*; the analyses counted
  N_i + 1 (now: ``unsupported`` when a sleeping task has a lower-priority
  task with sections on its processor, the number of sleeps not being in
  the model). Also found here: a global section nested inside a local one
  was invisible to every term (now refused).
- class 2: D > T, several jobs of one task pending; the busy window held
  (q + 1)·C + B instead of (q + 1)·(C + B), and MPCP's waits counted
  ⌈W/T⌉ + 1 requests of a task that may have ⌈D/T⌉ jobs pending.
- the wrong label: a wait beyond the deadline made every task ``unknown``
  and the verdict ``unsupported``; now the task misses, "not schedulable".
"""

from __future__ import annotations

import pytest

from rtsched.analysis.registry import run_test
from rtsched.analysis.soundness.explorer import Semantics, explore
from rtsched.analysis.soundness.model import Job, Op, Scenario, SystemModel, TaskModel, check_legal
from rtsched.analysis.soundness.regressions import periodic

LOCKING_TESTS = ("p-fp-mpcp", "p-fp-mpcp-lp", "p-fp-fmlp+", "p-fp-fmlp+-lp")


def _cs(r: str, n: int) -> tuple[Op, ...]:
    return (("lock", r), ("exec", n), ("unlock", r))


def _x(n: int) -> Op:
    return ("exec", n)


def _responses(model: SystemModel, scenario: Scenario, protocol: str, until: int = 80) -> list[tuple[str, int, int]]:
    assert check_legal(model, scenario) is None
    run = explore(model, scenario, until, Semantics(protocol))
    return [(j.task, j.arrival, f - j.arrival) for j, f in zip(scenario.jobs, run.finish) if f is not None]


# ---- class 1: a sleep is one more moment for a lower-priority task to start a boosted section --------------

_A1 = (_x(1), ("sleep", 3), _x(1)) + _cs("q", 1) + (_x(1),)
_Y = (_x(1),) + _cs("r", 2) + (_x(2),) + _cs("r", 2) + (_x(2),) + _cs("r", 2)


def _sleeper(protocol: str) -> SystemModel:
    """p0: a1 (sleeps once, one section on q) above y (three sections on r); p1: b on q; p2: c1, c2 on r."""
    return SystemModel((
        TaskModel("a1", 20, 13, _A1, 10, partition="p0"),
        TaskModel("y", 100, 100, _Y, 5, partition="p0"),
        TaskModel("b", 20, 20, _cs("q", 1), 9, partition="p1"),
        TaskModel("c1", 11, 11, _cs("r", 2), 12, partition="p2"),
        TaskModel("c2", 20, 20, _cs("r", 2), 11, partition="p2"),
    ), "P-FP", 3, {"q": protocol, "r": protocol})


#: What p-fp-mpcp and p-fp-mpcp-lp said before the fix: schedulable, a1's bound 12 (1 tick on q, two
#: boosted sections of y of 2 ticks: N_i + 1 = 2).
OLD_SLEEPER_BOUND = 12


def _sleeper_witness() -> Scenario:
    """y is granted r (c1 releases it) as a1 arrives, again (c2) as a1 wakes from its sleep, and
    again (c1) while a1 waits for q: three boosted sections of 2 ticks."""
    y_short = (_x(1),) + _cs("r", 2) + (_x(2),) + _cs("r", 2) + (_x(0),) + _cs("r", 2)
    jobs = (Job("a1", 10, 0, _A1), Job("y", 8, 0, y_short), Job("c1", 8, 0, _cs("r", 2)),
            Job("c2", 14, 0, _cs("r", 2)), Job("c1", 19, 0, _cs("r", 2)), Job("b", 19, 0, _cs("q", 1)))
    return Scenario(jobs, ("c1", "c2", "b", "a1", "y"))


def test_a_sleep_lets_a_lower_task_be_boosted_once_more_mpcp_witness():
    got = dict(((t, a), r) for t, a, r in _responses(_sleeper("mpcp"), _sleeper_witness(), "mpcp"))
    assert got[("a1", 10)] == 14 > OLD_SLEEPER_BOUND
    assert got[("a1", 10)] > 13  # and past a1's deadline: a real miss of a set both tests accepted


@pytest.mark.parametrize("test", ["p-fp-mpcp", "p-fp-mpcp-lp", "p-fp-fmlp+", "p-fp-fmlp+-lp"])
def test_a_sleeping_task_above_a_task_with_sections_is_refused(test):
    protocol = "fmlp+" if "fmlp" in test else "mpcp"
    result = run_test(test, _sleeper(protocol).problem())
    assert result.verdict == "unsupported"
    assert "a1 sleeps" in result.reason and "y" in result.reason


@pytest.mark.parametrize("test", ["p-fp-mpcp", "p-fp-fmlp+"])
def test_a_sleeping_task_with_no_lower_sections_is_still_analysed(test):
    protocol = "fmlp+" if "fmlp" in test else "mpcp"
    model = SystemModel((
        TaskModel("a1", 20, 20, _A1, 10, partition="p0"),
        TaskModel("low", 40, 40, (_x(2),), 5, partition="p0"),
        TaskModel("b", 20, 20, _cs("q", 1), 9, partition="p1"),
    ), "P-FP", 2, {"q": protocol})
    result = run_test(test, model.problem())
    assert result.verdict == "schedulable"
    assert result.bound("a1") == 4 + 3 + 1  # C + sleep + one section of b on q


def test_a_global_section_nested_in_a_local_one_is_refused():
    """z holds r (global) inside its local section l: no term counted z's section on r, so c was
    given R = 1 (no one else locks r, it seemed) and waits 3 ticks behind z."""
    model = SystemModel((
        TaskModel("z", 10, 10, (("lock", "l"), ("lock", "r"), _x(3), ("unlock", "r"), ("unlock", "l")), 1,
                  partition="p0"),
        TaskModel("c", 4, 4, _cs("r", 1), 2, partition="p1"),
    ), "P-FP", 2, {"r": "mpcp", "l": "pcp"})
    got = _responses(model, periodic(model, 8, {"z": 0, "c": 1}), "mpcp")
    assert ("c", 1, 3) in got  # waits 2 behind z, then its own tick: above the old bound 1
    for test in ("p-fp-mpcp", "p-fp-fmlp+"):
        result = run_test(test, model.problem())
        assert result.verdict == "unsupported" and "r is locked inside another section" in result.reason


# ---- class 2: deadlines beyond the period --------------------------------------------------------------

def _backlog(protocol: str) -> SystemModel:
    """t1 (T = 4, D = 8) requests q once per job; x on p1 holds q for 3 ticks every 5."""
    return SystemModel((
        TaskModel("t1", 4, 8, (_x(1),) + _cs("q", 1), 2, partition="p0"),
        TaskModel("x", 5, 5, _cs("q", 3), 1, partition="p1"),
    ), "P-FP", 2, {"q": protocol})


#: Before the fix all four tests said schedulable with t1's bound 5: one job's wait (3) in a busy
#: window that holds several jobs of t1.
OLD_BACKLOG_BOUND = 5


@pytest.mark.parametrize("protocol", ["mpcp", "fmlp+"])
def test_pending_jobs_each_wait_witness(protocol):
    model = _backlog(protocol)
    got = _responses(model, periodic(model, 24, {"t1": 0, "x": 1}, ("x", "t1")), protocol)
    t1 = [r for t, _, r in got if t == "t1"]
    assert t1[:4] == [5, 6, 7, 8]  # each job waits 3 for x, behind the previous job's wait
    assert max(t1) > 8  # the backlog grows past D: a deadline miss, not only the old bound exceeded
    assert t1[1] > OLD_BACKLOG_BOUND


@pytest.mark.parametrize("test", LOCKING_TESTS)
def test_pending_jobs_each_wait_now_rejected(test):
    result = run_test(test, _backlog("fmlp+" if "fmlp" in test else "mpcp").problem())
    assert result.verdict == "not schedulable"
    t1 = next(b for b in result.tasks if b.name == "t1")
    assert t1.verdict == "miss"


@pytest.mark.parametrize("test", LOCKING_TESTS)
def test_a_deadline_beyond_the_period_is_still_analysed(test):
    """One job of t1 at a time still fits: t1's bound counts a wait per job and stays ≤ D."""
    protocol = "fmlp+" if "fmlp" in test else "mpcp"
    model = SystemModel((
        TaskModel("t1", 4, 8, (_x(1),) + _cs("q", 1), 2, partition="p0"),
        TaskModel("x", 12, 12, _cs("q", 1), 1, partition="p1"),
    ), "P-FP", 2, {"q": protocol})
    result = run_test(test, model.problem())
    assert result.verdict == "schedulable"
    assert result.bound("t1") == 3  # C = 2 plus one tick behind x
    got = _responses(model, periodic(model, 36, {"t1": 0, "x": 1}, ("x", "t1")), protocol)
    assert max(r for t, _, r in got if t == "t1") <= 3


# ---- the wrong label ----------------------------------------------------------------------------------

def _waits_too_long() -> SystemModel:
    return SystemModel((
        TaskModel("t00", 8, 8, _cs("q", 2), 1, partition="p0"),
        TaskModel("t01", 5, 5, _cs("q", 1), 2, partition="p0"),
        TaskModel("t10", 6, 6, _cs("q", 3), 3, partition="p1"),
        TaskModel("t11", 3, 3, _cs("q", 2), 3, partition="p1"),
    ), "P-FP", 2, {"q": "mpcp"})


@pytest.mark.parametrize("test", ["p-fp-mpcp", "p-fp-mpcp-lp"])
def test_a_wait_beyond_the_deadline_is_a_miss_not_unsupported(test):
    """Before: every task "unknown" (t00's and t01's waits beyond their deadlines, t10 and t11 of
    equal priority each waiting on the other's bound), so the verdict was ``unsupported``;
    p-fp-fmlp+ said "not schedulable" on the same set."""
    result = run_test(test, _waits_too_long().problem())
    assert result.verdict == "not schedulable"
    t01 = next(b for b in result.tasks if b.name == "t01")
    assert t01.verdict == "miss" and t01.reason == "waiting for q exceeds the deadline 5 ns"
    assert result.reason == "t00: waiting for q exceeds the deadline 8 ns"  # the first task that misses
    assert run_test("p-fp-fmlp+", _waits_too_long().problem()).verdict == "not schedulable"
