"""Lock-order cycles (issue 35, class 7): a set whose nested locks can deadlock is never "schedulable".

Two tasks take two locks in opposite orders. Under ``none`` or ``pip`` a legal
interleaving deadlocks (the low task takes B, the high one is released, takes A
and waits for B; the low one waits for A): before the fix ``fp-rta`` called the
set schedulable with a bound of 4 ms. Every registered test now says "not
schedulable" with the cycle named; ``rtsched validate`` warns; the explorer shows
the deadlock; a set with one lock order is still accepted, and so is the cycle
under a protocol that rules the deadlock out.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from rtsched.analysis.lock_order import lock_order_cycles
from rtsched.analysis import registry
from rtsched.analysis.registry import TESTS, run_test
from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.harness import analyse, judge, search
from rtsched.analysis.soundness.model import SystemModel, TaskModel
from rtsched.analysis.soundness.regressions import periodic
from rtsched.analysis.soundness.subjects import subject
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection, from_taskset
from rtsched.model import taskset_from_dict

CYCLE = "deadlock possible: high holds A then takes B; low holds B then takes A"


def _taskset(protocol: str, low_first: str = "B", low_then: str = "A") -> dict:
    def body(first: str, then: str) -> list[dict]:
        return [{"lock": first}, {"compute": "1ms"}, {"lock": then}, {"compute": "1ms"},
                {"unlock": then}, {"unlock": first}]
    return {
        "name": "opposite-orders",
        "platform": {"scheduler": "P-FP", "cpus": [0]},
        "resources": [{"name": "A", "protocol": protocol}, {"name": "B", "protocol": protocol}],
        "tasks": [
            {"name": "high", "period": "10ms", "priority": 2, "partition": "cpu0", "body": body("A", "B")},
            {"name": "low", "period": "10ms", "priority": 1, "partition": "cpu0", "body": body(low_first, low_then)},
        ],
    }


@pytest.mark.parametrize("protocol", ["none", "pip"])
@pytest.mark.parametrize("test", ["fp-rta", "fp-rta-pip"])
def test_opposite_lock_orders_are_not_schedulable_and_the_cycle_is_named(protocol, test):
    result = run_test(test, taskset_from_dict(_taskset(protocol)))
    assert result.verdict == "not schedulable"
    assert result.reason == CYCLE
    assert result.bounds() == {"high": None, "low": None}
    assert {t.verdict for t in result.tasks} == {"miss"}


@pytest.mark.parametrize("protocol", ["none", "pip"])
def test_one_lock_order_is_still_accepted(protocol):
    result = run_test("fp-rta", taskset_from_dict(_taskset(protocol, low_first="A", low_then="B")))
    assert result.verdict == "schedulable"
    assert result.bounds() == {"high": 4_000_000, "low": 4_000_000}


@pytest.mark.parametrize("protocol", ["pcp", "srp", "ipcp", "np"])
def test_a_ceiling_or_np_protocol_rules_the_cycle_out_on_one_cpu(protocol):
    model = _ticks(protocol)
    assert analyse("fp-rta", model, {}).verdict == "schedulable"
    for high in range(4):  # and the explorer agrees: every job completes, whatever the offset
        assert None not in explore(model, periodic(model, 10, {"high": high}), 30).finish, high


def test_a_forced_ceiling_protocol_rules_the_cycle_out_and_a_forced_pip_does_not():
    problem = from_taskset(taskset_from_dict(_taskset("none")))
    assert run_test("fp-rta-pcp", problem).verdict == "schedulable"
    assert run_test("fp-rta-pip", problem).verdict == "not schedulable"
    problem = from_taskset(taskset_from_dict(_taskset("pcp")))
    assert run_test("fp-rta-pip", problem).reason == CYCLE


def _nested(first: str, then: str) -> tuple[CriticalSection, ...]:
    return (CriticalSection(then, 1, (), outermost=False), CriticalSection(first, 2, (then,), outermost=True))


def test_a_holder_that_suspends_defeats_srp_ipcp_and_np_but_not_pcp():
    tasks = (AnalysisTask("high", 2, 20, 20, 2, critical_sections=_nested("A", "B")),
             AnalysisTask("low", 2, 20, 20, 1, suspension_ns=2, critical_sections=_nested("B", "A")))
    for protocol in ("srp", "ipcp", "np"):
        problem = AnalysisProblem(tasks, "FP", 1, {"A": protocol, "B": protocol})
        assert [c.describe() for c in lock_order_cycles(problem)] == [CYCLE.removeprefix("deadlock possible: ")]
    assert lock_order_cycles(AnalysisProblem(tasks, "FP", 1, {"A": "pcp", "B": "pcp"})) == ()


def test_a_cycle_of_three_tasks_and_a_cycle_mixing_protocols():
    tasks = (AnalysisTask("t1", 2, 20, 20, 3, critical_sections=_nested("A", "B")),
             AnalysisTask("t2", 2, 20, 20, 2, critical_sections=_nested("B", "C")),
             AnalysisTask("t3", 2, 20, 20, 1, critical_sections=_nested("C", "A")))
    cycles = lock_order_cycles(AnalysisProblem(tasks, "FP", 1, {"A": "pip", "B": "pip", "C": "pip"}))
    assert [c.describe() for c in cycles] == ["t1 holds A then takes B; t2 holds B then takes C; "
                                              "t3 holds C then takes A"]
    # each protocol avoids deadlock only among its own resources: srp on A, pcp on B and C is a cycle
    mixed = AnalysisProblem(tasks, "FP", 1, {"A": "srp", "B": "pcp", "C": "pcp"})
    assert len(lock_order_cycles(mixed)) == 1


def test_one_task_taking_both_orders_cannot_deadlock_with_itself():
    task = AnalysisTask("t", 4, 20, 20, 1, critical_sections=_nested("A", "B") + _nested("B", "A"))
    assert lock_order_cycles(AnalysisProblem((task,), "FP", 1, {})) == ()


def test_partitioned_tasks_deadlock_on_global_resources_whatever_the_protocol():
    tasks = (AnalysisTask("t1", 2, 20, 20, 2, partition="p0", critical_sections=_nested("A", "B")),
             AnalysisTask("t2", 2, 20, 20, 1, partition="p1", critical_sections=_nested("B", "A")))
    for protocol in ("mpcp", "fmlp+", "pcp"):
        problem = AnalysisProblem(tasks, "P-FP", 2, {"A": protocol, "B": protocol})
        assert len(lock_order_cycles(problem)) == 1, protocol
        assert run_test("p-fp-mpcp", problem).verdict != "schedulable"


def _options(name: str) -> dict:
    return {"period_ns": 1_000_000, "budget_ns": 1_000_000} if name.startswith("prm-") else {}


#: The tests that force a protocol ruling the cycle out (fp-rta-pcp...) analyse another system.
AVOIDING = {f"fp-rta-{p}" for p in ("pcp", "srp", "ipcp", "np")}


@pytest.mark.parametrize("name", sorted(set(TESTS) - AVOIDING))
def test_no_registered_test_accepts_the_cycle(name):
    problem = from_taskset(taskset_from_dict(_taskset("pip")))
    result = run_test(name, problem, **_options(name))
    assert result.verdict == "not schedulable"
    assert result.reason == CYCLE


def _ticks(protocol: str) -> SystemModel:
    def body(first: str, then: str) -> tuple:
        return (("lock", first), ("exec", 1), ("lock", then), ("exec", 1), ("unlock", then), ("unlock", first))
    return SystemModel((TaskModel("high", 10, 10, body("A", "B"), 2), TaskModel("low", 10, 10, body("B", "A"), 1)),
                       "FP", 1, {"A": protocol, "B": protocol})


@pytest.mark.parametrize("protocol", ["none", "pip"])
def test_the_explorer_shows_the_deadlock_and_fp_rta_no_longer_accepts_the_set(protocol):
    """``low`` takes B at 0, ``high`` arrives at 1, takes A and waits for B; ``low`` waits for A.
    (Before the fix fp-rta said schedulable with bounds 4, and this failed.)"""
    model = _ticks(protocol)
    result = analyse("fp-rta", model, {})
    assert result.verdict == "not schedulable"
    run, violation = judge(model, periodic(model, 10, {"high": 1}), result)  # no bounds: the deadlines
    assert run.finish == [None, None] and run.slots["cpu0"][:2] == ["low", "high"]
    assert violation is not None and violation.kind == "deadline miss"


def test_validate_warns_with_the_cycle_named(tmp_path):
    import yaml

    path = tmp_path / "cycle.yaml"
    path.write_text(yaml.safe_dump(_taskset("pip")))
    out = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "validate", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{path}: valid (2 tasks, scheduler P-FP)\n"
    assert out.stderr == f"{path}: warning: {CYCLE}\n"
    path.write_text(yaml.safe_dump(_taskset("pip", low_first="A", low_then="B")))
    out = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "validate", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stderr == ""


@pytest.mark.parametrize("ident", ["fp-rta/lock-order", "fp-rta-pip/lock-order"])
def test_the_harness_finds_the_deadlock_when_the_analysis_ignores_cycles(monkeypatch, ident):
    """The soundness family of lock-order cycles reaches a deadlock (a job never completes) when the
    refusal is switched off: what it found on the code before the fix, at the CI seed."""
    monkeypatch.setattr(registry, "deadlock_refusal", lambda *args: None)
    report = search(subject(ident), 22, 8, 40, 64)
    assert report.counterexample is not None
    assert report.counterexample.violation.finish is None and report.counterexample.violation.kind == "deadline miss"


@pytest.mark.parametrize("protocol", ["none", "pip"])
def test_rtsched_sim_reproduces_the_deadlock(tmp_path, protocol):
    """The simulator on the issue's set with ``high`` released 0.5 ms in: ``low`` holds B, ``high``
    takes A and waits for B, ``low`` waits for A; no job of either completes in 50 ms."""
    from sim_helpers import MS, worst_responses

    data = _taskset(protocol)
    data["tasks"][0]["offset"] = "500us"
    worst, _ = worst_responses(tmp_path / "trace.rtst", taskset_from_dict(data), 50 * MS)
    assert worst == {"high": None, "low": None}
    data["tasks"][1]["body"] = _taskset(protocol, low_first="A", low_then="B")["tasks"][1]["body"]
    worst, _ = worst_responses(tmp_path / "trace2.rtst", taskset_from_dict(data), 50 * MS)
    assert worst == {"high": 4 * MS - 500_000, "low": 2 * MS}  # one order: high waits for low, both complete
