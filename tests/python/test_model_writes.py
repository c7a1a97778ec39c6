"""memwrite and iowrite: validation with paths, defaults, the dump round trip, the runner input, both under
the ult backend, and one meaning for the analysis and the simulator (each write is CPU time of its wcet)."""

from __future__ import annotations

import json

import pytest
import yaml

from rtsched.analysis import bounds_for, from_taskset
from rtsched.model import IoWrite, MemWrite, loads_taskset, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model.model import IO_DEVICE_DEFAULT, WRITE_BUFFER_DEFAULT_BYTES

from sim_helpers import worst_responses

US = 1_000
MS = 1_000_000


def doc(*body, backend=None, resources=None, extra_task=None):
    platform = {"scheduler": "P-FP", "cpus": [0]}
    if backend:
        platform["backend"] = backend
    tasks = [{"name": "w", "period": "10ms", "priority": 10, "partition": "cpu0", "body": list(body)}]
    if extra_task:
        tasks.insert(0, extra_task)
    data = {"name": "writes", "duration": "1s", "platform": platform, "tasks": tasks}
    if resources:
        data["resources"] = resources
    return data


def model(data):
    return loads_taskset(json.dumps(data), "json")


def test_defaults_and_the_task_wcet():
    ts = model(doc({"compute": "1ms"}, {"memwrite": {"bytes": 1000, "wcet": "50us"}},
                   {"iowrite": {"bytes": "100KiB", "wcet": "2ms"}}))
    task = ts.tasks[0]
    assert task.body[1] == MemWrite(bytes=1000, buffer_bytes=WRITE_BUFFER_DEFAULT_BYTES, wcet_ns=50 * US)
    assert task.body[2] == IoWrite(bytes=100 * 1024, buffer_bytes=4 << 20, wcet_ns=2 * MS, device=IO_DEVICE_DEFAULT)
    assert task.wcet_ns == 1 * MS + 50 * US + 2 * MS
    assert task.writes == task.body[1:]


def test_a_body_of_writes_only_has_their_wcet():
    ts = model(doc({"memwrite": {"bytes": "1MiB", "buffer": "64KiB", "wcet": "300us"}}))
    assert ts.tasks[0].wcet_ns == 300 * US


@pytest.mark.parametrize("action, expected", [
    ({"memwrite": {"bytes": 0, "wcet": "1ms"}}, ["tasks[0].body[0].memwrite.bytes: must be 1 to 1099511627776 bytes, got 0"]),
    ({"memwrite": {"bytes": 10, "wcet": "1ms", "device": "/dev/null"}},
     ["tasks[0].body[0].memwrite.device: unknown key (keys of memwrite: buffer, bytes, wcet)"]),
    ({"memwrite": {"bytes": 10}},
     ['tasks[0].body[0].memwrite: missing required key "wcet" (a write\'s duration does not follow from its size: '
      "give the time it may take)"]),
    ({"iowrite": {"bytes": "10KB", "wcet": "1ms"}},
     ['tasks[0].body[0].iowrite.bytes: expected a number of bytes such as 4096 or 64KiB (units B, KiB, MiB, GiB, '
      'TiB), got "10KB"']),
    ({"iowrite": {"bytes": 10, "wcet": "0ms"}}, ["tasks[0].body[0].iowrite.wcet: must be > 0, got '0ms'"]),
    ({"iowrite": {"bytes": 10, "wcet": "1ms", "buffer": "512MiB"}},
     ["tasks[0].body[0].iowrite.buffer: must be 1 to 268435456 bytes, got 536870912"]),
    ({"iowrite": {"bytes": 10, "wcet": "1ms", "device": "out.log"}},
     ["tasks[0].body[0].iowrite.device: expected an absolute path such as /dev/null, got \"out.log\""]),
    ({"iowrite": 100}, ["tasks[0].body[0].iowrite: expected a mapping {buffer, bytes, device, wcet}, got 100"]),
])
def test_bad_writes_are_errors_with_their_path(action, expected):
    assert validate_dict(doc({"compute": "1ms"}, action))[:len(expected)] == [
        e.replace("body[0]", "body[1]") for e in expected]


def test_every_problem_of_one_action_is_reported():
    errors = validate_dict(doc({"iowrite": {"bytes": -1, "wcet": "fast", "colour": "red"}}))
    assert [e.split(":")[0] for e in errors] == [
        "tasks[0].body[0].iowrite.colour", "tasks[0].body[0].iowrite.bytes", "tasks[0].body[0].iowrite.wcet"]


def test_dump_round_trip_and_yaml():
    ts = model(doc({"memwrite": {"bytes": 1000, "buffer": 4096, "wcet": "20us"}},
                   {"iowrite": {"bytes": 7, "device": "/tmp/x.log", "buffer": 1, "wcet": "1ms"}}))
    dumped = taskset_to_dict(ts)
    assert dumped["tasks"][0]["body"] == [
        {"memwrite": {"bytes": 1000, "buffer": 4096, "wcet": "20us"}},
        {"iowrite": {"bytes": 7, "device": "/tmp/x.log", "buffer": 1, "wcet": "1ms"}}]
    assert loads_taskset(yaml.safe_dump(dumped), "yaml") == ts


def test_runner_input_carries_the_writes():
    ts = model(doc({"memwrite": {"bytes": 1000, "buffer": 4096, "wcet": "20us"}},
                   {"iowrite": {"bytes": 7, "device": "/tmp/x.log", "buffer": 1, "wcet": "1ms"}}))
    runner = to_runner_input(ts, "t.rtst", cpus_online=(0, 1))
    assert runner["format"] == "rtsched-runner/14"
    assert runner["tasks"][0]["body"] == [
        {"op": "memwrite", "bytes": 1000, "buffer_bytes": 4096},
        {"op": "iowrite", "bytes": 7, "buffer_bytes": 1, "device": "/tmp/x.log"}]
    assert runner["tasks"][0]["wcet_ns"] == 1020 * US


def test_iowrite_and_memwrite_run_under_ult():
    # iowrite's write(2) goes through the task's proxy thread under ult (docs/ult.md "Blocking system calls")
    assert validate_dict(doc({"compute": "1ms"}, {"iowrite": {"bytes": 7, "wcet": "1ms"}}, backend="ult")) == []
    assert validate_dict(doc({"memwrite": {"bytes": 7, "wcet": "1ms"}}, backend="ult")) == []


def test_writes_are_refused_in_a_prem_task():
    data = doc({"prem": {"buffers": [4096], "compute": "1ms", "length": "2ms"}},
               {"memwrite": {"bytes": 7, "wcet": "1ms"}})
    data["tasks"][0].pop("wcet", None)
    assert any(e.startswith("tasks[0].body[1]: a body with prem actions is made of predictable intervals only, "
                            "got memwrite") for e in validate_dict(data))


def test_a_write_inside_a_lock_is_part_of_the_critical_section():
    ts = model(doc({"lock": "r"}, {"compute": "100us"}, {"iowrite": {"bytes": 7, "wcet": "400us"}},
                   {"memwrite": {"bytes": 7, "wcet": "50us"}}, {"unlock": "r"},
                   resources=[{"name": "r", "protocol": "pip"}]))
    (section,) = from_taskset(ts).tasks[0].critical_sections
    assert (section.resource, section.length_ns) == ("r", 550 * US)


def test_analysis_and_simulation_agree_on_a_write_as_its_wcet(tmp_path):
    """Synchronous release, every job its WCET: the simulated worst response of the lower-priority task
    is exactly its response-time bound, with the writes counted at their wcet: 1 + 2 + 0.5 + 1 = 4.5 ms of
    its own and three jobs of the 1 ms task of period 3 ms (R = 4.5 + ⌈7.5/3⌉ × 1 = 7.5 ms)."""
    high = {"name": "h", "period": "3ms", "priority": 20, "partition": "cpu0", "body": [{"compute": "1ms"}]}
    ts = model(doc({"compute": "1ms"}, {"iowrite": {"bytes": 100, "wcet": "2ms"}},
                   {"memwrite": {"bytes": 100, "wcet": "500us"}}, {"compute": "1ms"}, extra_task=high))
    bounds = bounds_for(ts)
    assert bounds.task("w").bound_ns == 7500 * US
    worst, misses = worst_responses(tmp_path / "sim.rtst", ts, 30 * MS)
    assert (worst["w"], worst["h"], misses) == (7500 * US, 1 * MS, 0)
