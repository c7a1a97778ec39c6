"""The task-set key of the distributed protocols: ``resources[i].sync_partition`` (dpcp, dflp).

Accepted with dpcp and dflp under P-FP, naming a partition of the platform
(an unknown one is a path error); refused with any other protocol; the
default (key absent) is the partition of the resource's first user; the
key survives a dump and reload; the analysis adapter carries it.
"""

from __future__ import annotations

import copy

import pytest

from rtsched.analysis import from_taskset
from rtsched.model import taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model.validate import TaskSetError

DOC = {
    "name": "dist",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "q", "protocol": "dpcp", "sync_partition": "cpu1"}],
    "tasks": [
        {"name": "a", "period": "10ms", "priority": 2, "partition": "cpu0",
         "body": [{"compute": "1ms"}, {"lock": "q"}, {"compute": "1ms"}, {"unlock": "q"}]},
        {"name": "b", "period": "10ms", "priority": 1, "partition": "cpu1",
         "body": [{"lock": "q"}, {"compute": "1ms"}, {"unlock": "q"}]},
    ],
}


def _doc(**resource):
    doc = copy.deepcopy(DOC)
    doc["resources"][0] = {"name": "q", **resource}
    return doc


def test_given_and_carried_to_the_analysis():
    for protocol in ("dpcp", "dflp"):
        ts = taskset_from_dict(_doc(protocol=protocol, sync_partition="cpu1"))
        assert ts.resources[0].sync_partition == "cpu1"
        assert from_taskset(ts).sync_partition("q") == "cpu1"
        again = taskset_from_dict(taskset_to_dict(ts))
        assert again.resources[0].sync_partition == "cpu1"


def test_default_is_the_first_users_partition():
    ts = taskset_from_dict(_doc(protocol="dflp"))
    assert ts.resources[0].sync_partition is None
    assert from_taskset(ts).sync_partition("q") == "cpu0"


def test_errors_have_their_paths():
    assert validate_dict(_doc(protocol="dpcp", sync_partition="cpu7")) == [
        'resources[0].sync_partition: unknown partition "cpu7" (did you mean "cpu1"?) (known: "cpu0", "cpu1")']
    assert validate_dict(_doc(protocol="mpcp", sync_partition="cpu1")) == [
        'resources[0].sync_partition: only for dpcp and dflp, not "mpcp"']
    doc = _doc(protocol="dpcp")
    doc["platform"] = {"scheduler": "P-FP", "cpus": [0, 1], "partitions": [{"name": "left", "cpus": [0]},
                                                                           {"name": "right", "cpus": [1]}]}
    doc["resources"][0]["sync_partition"] = "cpu1"
    for t, part in zip(doc["tasks"], ("left", "right")):
        t["partition"] = part
    assert any(e.startswith('resources[0].sync_partition: ') and "cpu1" in e for e in validate_dict(doc))
    doc = _doc(protocol="dpcp")
    doc["platform"] = {"scheduler": "G-FP", "cpus": [0, 1]}
    for t in doc["tasks"]:
        del t["partition"]
    assert 'resources[0].protocol: "dpcp" needs scheduler P-FP, not G-FP (its agents run on a partition\'s ' \
           "processor above every task there)" in validate_dict(doc)


def test_the_runner_input_refuses_distributed_protocols_by_path():
    """Analysed only: `rtsched run` must say so before the runner starts, naming the resource."""
    for protocol in ("dpcp", "dflp"):
        with pytest.raises(TaskSetError, match=rf'resources\[0\]\.protocol: "q" uses {protocol}, which rtsched '
                                               "analyses only"):
            to_runner_input(taskset_from_dict(_doc(protocol=protocol)), "/tmp/unused.rtst")
