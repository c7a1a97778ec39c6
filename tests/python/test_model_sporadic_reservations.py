"""``kind: sporadic`` in the task-set format (docs/reservations.md): where a sporadic server may
sit (the top of a P-FP partition, hard, FP inside, tasks only), every other place rejected
with its path, the round trip, and the runner's input (the ult runtime runs it)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from rtsched.model import TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.sim import check_supported

BASE = {
    "name": "ss",
    "duration": "1s",
    "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
    "reservations": [
        {"name": "SS", "kind": "sporadic", "period": "10ms", "budget": "3ms", "scheduler": "FP", "priority": 30,
         "partition": "cpu0"},
        {"name": "P", "period": "20ms", "budget": "5ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"},
    ],
    "tasks": [
        {"name": "ap", "period": "50ms", "priority": 10, "partition": "cpu0", "reservation": "SS",
         "kind": "sporadic", "sporadic": {"max_extra": "50ms", "seed": 3}, "body": [{"compute": "4ms"}]},
        {"name": "p1", "period": "40ms", "priority": 10, "partition": "cpu0", "reservation": "P",
         "body": [{"compute": "2ms"}]},
        {"name": "hard", "period": "30ms", "priority": 10, "partition": "cpu0", "body": [{"compute": "5ms"}]},
    ],
}


def doc(change=None):
    d = copy.deepcopy(BASE)
    if change:
        change(d)
    return d


def test_a_sporadic_server_at_the_top_of_a_pfp_partition_loads_round_trips_and_is_simulated():
    ts = taskset_from_dict(doc())
    ss = ts.reservation("SS")
    assert (ss.kind, ss.budget_ns, ss.period_ns, ss.priority, ss.criticality) == ("sporadic", 3_000_000,
                                                                                  10_000_000, 30, "hard")
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    check_supported(ts)


def _pedf(d):
    d["platform"]["scheduler"] = "P-EDF"
    for r in d["reservations"]:
        r.pop("priority")
    d["tasks"][2].pop("priority")


def _nested(d):
    d["reservations"][0].update(parent="P")
    d["reservations"][0].pop("partition")
    d["tasks"][1]["reservation"] = "SS"
    d["reservations"][1]["budget"] = "10ms"


def _holds_a_reservation(d):
    d["reservations"].append({"name": "C", "parent": "SS", "period": "10ms", "budget": "1ms", "scheduler": "FP",
                              "priority": 5})
    d["tasks"][0]["reservation"] = "C"


@pytest.mark.parametrize("change, expected", [
    (_pedf, "reservations[0].kind: a sporadic server is scheduled by fixed priority: its platform (P-EDF) must "
            "be P-FP"),
    (_nested, "reservations[0].parent: a sporadic server sits at the top level of a P-FP partition (its rules "
              "assume it is scheduled by fixed priority with the tasks it competes with); remove the parent"),
    (lambda d: (d["reservations"][0].update(scheduler="EDF"), d["tasks"][0].pop("priority")),
     "reservations[0].scheduler: the tasks of a sporadic server are ordered by fixed priority: write FP"),
    (lambda d: d["reservations"][0].update(criticality="soft"),
     "reservations[0].criticality: a sporadic server keeps its budget (the controller adapts periodic "
     "reservations only): remove it or write hard"),
    (_holds_a_reservation, 'reservations[2].parent: "SS" is a sporadic server: it holds tasks, not reservations'),
    (lambda d: d["reservations"][0].update(kind="deferrable"),
     'reservations[0].kind: expected one of periodic, cbs, hard-cbs, sporadic, got "deferrable"'),
])
def test_a_sporadic_server_elsewhere_is_rejected_with_its_path(change, expected):
    assert expected in validate_dict(doc(change))


def test_the_runner_input_carries_a_sporadic_server_as_its_kind():
    runner = to_runner_input(taskset_from_dict(doc()), "t.rtst", cpus_online=(0,),
                             dl_period_limits=(100_000, 4 * 10**9))
    ss, periodic = runner["reservations"]
    assert (ss["name"], ss["kind"], ss["period_ns"], ss["budget_ns"], ss["order"], ss["priority"], ss["parent"]) == (
        "SS", "sporadic", 10_000_000, 3_000_000, "FP", 30, None)
    assert periodic["kind"] == "periodic"
    assert [t["reservation"] for t in runner["tasks"]] == [0, 1, None]
