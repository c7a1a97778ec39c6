"""``kind: sporadic`` in the task-set format (docs/reservations.md): where a sporadic server may
sit (the top of a P-FP partition, hard, FP inside, tasks only), every other place rejected
with its path, the round trip, and the runner's refusal (it is simulated only)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from rtsched.cli.main import main
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
     'reservations[0].kind: expected one of periodic, cbs, sporadic, got "deferrable"'),
])
def test_a_sporadic_server_elsewhere_is_rejected_with_its_path(change, expected):
    assert expected in validate_dict(doc(change))


def test_the_runner_refuses_a_sporadic_server_it_is_simulated_only():
    with pytest.raises(TaskSetError) as err:
        to_runner_input(taskset_from_dict(doc()), "t.rtst", cpus_online=(0,), dl_period_limits=(100_000, 4 * 10**9))
    assert ('reservations[0].kind: "SS" is a sporadic server, which is simulated only for now (rtsched sim); '
            "the ult runtime runs periodic and cbs reservations") in str(err.value)


def test_rtsched_run_refuses_the_example_before_running_anything(capsys):
    example = Path(__file__).resolve().parents[2] / "examples" / "sporadic-server.yaml"
    assert main(["run", str(example)]) == 1
    assert 'reservations[0].kind: "SS" is a sporadic server, which is simulated only' in capsys.readouterr().err
