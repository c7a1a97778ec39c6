"""A soft reservation's ``controller`` key (rtsched.model.reservation_control, docs/reservations.md):
its defaults, which reservations are adapted, the round trip, the runner input, and every bad
file rejected with its path (by the model, and by rtsched-run for a bad runner input)."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest

from rtsched.model import taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model.budget_control import BudgetControl
from rtsched.model.reservation_control import adapted, capacity_ppb, sibling_groups
from rtsched.native import NativeToolMissing, native_tool

MS = 1_000_000

BASE = {
    "name": "adaptive",
    "duration": "1s",
    "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
    "reservations": [
        {"name": "H", "period": "100ms", "budget": "39ms", "scheduler": "FP", "partition": "cpu0"},
        {"name": "S", "period": "10ms", "budget": "6ms", "scheduler": "EDF", "criticality": "soft",
         "partition": "cpu0"},
        {"name": "A", "parent": "S", "period": "20ms", "budget": "4ms", "scheduler": "EDF", "importance": 3,
         "controller": {"period": "200ms", "min_budget": "1ms", "max_budget": "10ms", "headroom": 0}},
        {"name": "B", "parent": "S", "period": "50ms", "budget": "5ms", "scheduler": "EDF"},
        {"name": "C", "parent": "S", "period": "10ms", "budget": "1ms", "scheduler": "EDF",
         "controller": {"policy": "fixed"}},
    ],
    "tasks": [
        {"name": "h1", "period": "200ms", "priority": 20, "partition": "cpu0", "reservation": "H",
         "body": [{"compute": "31ms"}]},
        {"name": "a1", "period": "40ms", "partition": "cpu0", "reservation": "A", "body": [{"compute": "4ms"}]},
        {"name": "b1", "period": "100ms", "partition": "cpu0", "reservation": "B", "body": [{"compute": "3ms"}]},
        {"name": "c1", "period": "100ms", "partition": "cpu0", "reservation": "C", "body": [{"compute": "1ms"}]},
    ],
}


def doc(change=None):
    d = copy.deepcopy(BASE)
    if change:
        change(d)
    return d


def test_soft_leaves_are_adapted_with_their_parameters_or_the_defaults():
    ts = taskset_from_dict(doc())
    assert adapted(ts, ts.reservation("A")) == BudgetControl("adhiersched", 200 * MS, MS, 10 * MS, 0)
    # no key: 10 periods, 1 % of the period, the period, 30 % headroom
    assert adapted(ts, ts.reservation("B")) == BudgetControl("adhiersched", 500 * MS, MS // 2, 50 * MS, 30)
    assert adapted(ts, ts.reservation("C")) is None  # policy fixed
    assert adapted(ts, ts.reservation("H")) is None  # hard
    assert adapted(ts, ts.reservation("S")) is None  # holds reservations: its children share it


def test_adapted_siblings_share_what_the_others_leave_of_their_parent():
    ts = taskset_from_dict(doc())
    groups = {None if p is None else p.name: [r.name for r in g] for p, g in sibling_groups(ts)}
    assert groups == {None: ["H", "S"], "S": ["A", "B", "C"]}
    s = ts.reservation("S")
    # S gives 0.6 of a CPU; C keeps its fixed 0.1
    assert capacity_ppb(ts, s, ts.child_reservations("S")) == 500_000_000


def test_round_trip_keeps_the_controller():
    ts = taskset_from_dict(doc())
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


def test_the_runner_input_has_the_controller_of_adapted_reservations_only():
    runner = to_runner_input(taskset_from_dict(doc()), "t.rtst", cpus_online=(0,),
                             dl_period_limits=(100_000, 4 * 10**9))
    assert runner["format"] == "rtsched-runner/14"
    controllers = {r["name"]: r["controller"] for r in runner["reservations"]}
    assert controllers == {
        "H": None, "S": None, "C": None,
        "A": {"period_ns": 200 * MS, "min_budget_ns": MS, "max_budget_ns": 10 * MS, "headroom_percent": 0,
              "importance": 3},
        "B": {"period_ns": 500 * MS, "min_budget_ns": MS // 2, "max_budget_ns": 50 * MS, "headroom_percent": 30,
              "importance": 1},
    }


def _set(index, **keys):
    return lambda d: d["reservations"][index].update(**keys)


def _controller(index, **keys):
    return lambda d: d["reservations"][index].setdefault("controller", {}).update(**keys)


@pytest.mark.parametrize(
    "change, expected",
    [
        (_controller(2, period="210ms"), "reservations[2].controller.period: 210ms is not a whole number of the "
                                         "reservation's periods (20ms): budgets change at replenishments"),
        (_controller(2, gain=2), "reservations[2].controller.gain: unknown key"),
        (_controller(2, policy="pid"), "reservations[2].controller.policy"),
        (_controller(2, min_budget="5ms"), "reservations[2].controller.min_budget: the first budget 4ms must lie "
                                           "in [min_budget 5ms, max_budget 10ms]"),
        (_controller(2, max_budget="3ms"), "reservations[2].controller.max_budget: the first budget 4ms must lie "
                                           "in [min_budget 1ms, max_budget 3ms]"),
        (_controller(2, max_budget="30ms"), "reservations[2].controller.max_budget: 30ms is above the period 20ms"),
        (_controller(2, period="-1ms"), "reservations[2].controller.period"),
        (_controller(2, headroom=1001), "reservations[2].controller.headroom"),
        (_controller(2, headroom="30%"), "reservations[2].controller.headroom"),
        (_set(2, controller="on"), "reservations[2].controller"),
        (_controller(0, period="100ms"), "reservations[0].controller: only for soft reservations"),
        (_controller(1, period="100ms"), "reservations[1].controller: only for a reservation that holds tasks"),
        (lambda d: (d["reservations"].append({"name": "Q", "kind": "cbs", "parent": "S", "period": "10ms",
                                              "budget": "1ms", "scheduler": "EDF", "controller": {}}),
                    d["tasks"].append({"name": "q1", "period": "10ms", "partition": "cpu0", "reservation": "Q",
                                       "body": [{"compute": "1ms"}]})),
         "reservations[5].controller: only for periodic reservations: a cbs keeps its budget"),
        (_set(4, budget="6ms"), 'reservations[1]: the least budgets of the adapted reservations in "S" with the '
                                "budgets of the others take 0.66 of a CPU, above the 0.6 there"),
    ],
)
def test_bad_controllers_are_rejected_with_their_path(change, expected):
    found = validate_dict(doc(change))
    assert any(e.startswith(expected) for e in found), found


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda c: c.update(period_ns=210 * MS), "$.reservations[2].controller: period_ns 210000000 is not a whole "
                                                 "number of the reservation's periods"),
        (lambda c: c.update(importance=0), "$.reservations[2].controller.importance: 0 is out of range"),
        (lambda c: c.update(headroom_percent=-1), "$.reservations[2].controller.headroom_percent: -1 is out of range"),
        (lambda c: c.update(gain=2), "$.reservations[2].controller"),
        (lambda c: c.update(min_budget_ns=5 * MS), "$.reservations[2].controller.min_budget_ns: 5000000 is out of "
                                                   "range [1, 4000000]"),
    ],
)
def test_the_runner_names_a_bad_controller_where_it_is(tmp_path, change, expected):
    """An input error (exit 2) before anything runs: no real-time scheduling is needed."""
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    spec = to_runner_input(taskset_from_dict(doc()), str(tmp_path / "t.rtst"), cpus_online=(0,),
                           dl_period_limits=(100_000, 4 * 10**9))
    assert spec["reservations"][2]["name"] == "A"
    change(spec["reservations"][2]["controller"])
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
