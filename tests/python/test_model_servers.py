"""RPC servers and calls in the task-set format: the model, every error with its path,
the round trip, the analysis adapter (seed 004's bounds from a file)."""

import copy
from fractions import Fraction
from pathlib import Path

import pytest

from rtsched.analysis import bounds_for, from_taskset
from rtsched.model import Call, RpcServer, TaskSetError, load_taskset, taskset_from_dict, taskset_to_dict, validate_dict

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000

BASE = {
    "name": "rpc",
    "duration": "1s",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "servers": [{"name": "S", "priority": 10, "partition": "cpu1", "duration": "2ms"}],
    "tasks": [
        {
            "name": "hi",
            "period": "10ms",
            "priority": 30,
            "partition": "cpu1",
            "body": [{"compute": "1ms"}, {"call": "S"}],
        },
        {
            "name": "lo",
            "period": "20ms",
            "priority": 20,
            "partition": "cpu1",
            "body": [{"compute": "1ms"}, {"call": {"server": "S", "duration": "500us"}}],
        },
    ],
}


def doc(**changes):
    d = copy.deepcopy(BASE)
    d.update(changes)
    return d


def test_servers_and_calls_build_the_model():
    ts = taskset_from_dict(doc())
    assert ts.servers == (RpcServer("S", 10, "cpu1", 2 * MS, None),)
    assert ts.task("hi").calls == (Call("S", 2 * MS),)  # the server's duration
    assert ts.task("lo").calls == (Call("S", MS // 2),)  # the call's own
    assert ts.task("hi").wcet_ns == MS  # calls are not the caller's execution
    assert ts.callers_of("S") == (ts.task("hi"), ts.task("lo"))
    # the service runs on the server's partition and counts there
    assert ts.utilization_by_partition()["cpu1"] == Fraction(1, 10) + Fraction(1, 20) + Fraction(2, 10) + Fraction(
        1, 40
    )


def test_round_trip():
    ts = taskset_from_dict(doc())
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    d = doc()
    d["servers"][0]["queue"] = 4
    ts = taskset_from_dict(d)
    assert ts.servers[0].queue_capacity == 4
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d["servers"][0].update(prio=3), 'servers[0].prio: unknown key (did you mean "priority"?)'),
        (lambda d: d["servers"][0].pop("priority"), 'servers[0]: missing required key "priority"'),
        (lambda d: d["servers"][0].update(priority=0), "servers[0].priority: must be in 1..99, got 0"),
        (lambda d: d["servers"][0].update(duration="0ms"), 'servers[0].duration: must be > 0, got "0ms"'),
        (lambda d: d["servers"][0].update(duration=4), "servers[0].duration: expected a duration"),
        (lambda d: d["servers"][0].update(queue=0), "servers[0].queue: must be in 1..4096, got 0"),
        (lambda d: d["servers"][0].pop("partition"), 'servers[0]: missing required key "partition" (required under P-FP)'),
        (lambda d: d["servers"][0].update(partition="cpu7"), 'servers[0].partition: unknown partition "cpu7"'),
        (lambda d: d["servers"].append({"name": "S", "priority": 5, "partition": "cpu1"}),
         'servers[1].name: duplicate server name "S" (first at servers[0].name)'),
        (lambda d: d["servers"][0].update(name="hi") or d["tasks"][0]["body"].__setitem__(1, {"call": "hi"})
         or d["tasks"][1]["body"].pop(),
         'servers[0].name: "hi" is also a task\'s name: servers and tasks need distinct names'),
        (lambda d: d["tasks"][0]["body"].append({"call": "Nope"}),
         'tasks[0].body[2].call: unknown server "Nope" (known: "S")'),
        (lambda d: d["tasks"][0]["body"].append({"call": {"server": "S", "duration": "0us"}}),
         'tasks[0].body[2].call.duration: must be > 0, got "0us"'),
        (lambda d: d["tasks"][0]["body"].append({"call": {"server": "S", "durattion": "1ms"}}),
         'tasks[0].body[2].call.durattion: unknown key (did you mean "duration"?)'),
        (lambda d: d["tasks"][0]["body"].append({"call": {"duration": "1ms"}}),
         'tasks[0].body[2].call: missing required key "server"'),
        (lambda d: d["tasks"][0]["body"].append({"call": 5}),
         "tasks[0].body[2].call: expected a server's name or {server: NAME, duration: TIME}, got 5"),
        (lambda d: d["servers"][0].pop("duration"),
         'tasks[0].body[1].call: server "S" gives no duration: write {server: S, duration: 1ms} or give the server a duration'),
        (lambda d: d.update(platform={"scheduler": "G-FP"}) or [t.pop("partition") for t in d["tasks"]],
         "servers[0].partition: not used under G-FP"),
    ],
)
def test_errors_have_paths(change, expected):
    d = doc()
    change(d)
    errors = validate_dict(d)
    assert any(e.startswith(expected) for e in errors), errors


def test_servers_need_a_fixed_priority_scheduler():
    d = doc(platform={"scheduler": "P-EDF", "cpus": [0, 1]})
    for t in d["tasks"]:
        t.pop("priority")
    errors = validate_dict(d)
    assert any(
        e.startswith("servers: a server is a SCHED_FIFO thread with a fixed priority: it needs P-FP or G-FP, not P-EDF")
        for e in errors
    ), errors
    # the calls to the refused server are not reported again
    assert not any("unknown server" in e for e in errors), errors


def test_every_error_at_once():
    d = doc()
    d["servers"][0]["queue"] = -1
    d["tasks"][0]["body"].append({"call": "X"})
    d["tasks"][1]["body"].append({"call": {"server": "S", "duration": "-1ms"}})
    with pytest.raises(TaskSetError) as info:
        taskset_from_dict(d)
    assert len(info.value.errors) == 3


def test_the_analysis_sees_calls_as_rpcs():
    problem = from_taskset(taskset_from_dict(doc()))
    assert [r.length_ns for r in problem.task("hi").rpcs] == [2 * MS]
    assert problem.task("hi").wcet_ns == MS


def test_bounds_for_the_papers_set_are_seed_004s():
    result = bounds_for(load_taskset(ROOT / "examples" / "picv-rpc.yaml"))
    assert result.test == "picv-rpc"
    assert result.bound("Client1") == 19 * MS
    assert result.bound("Client2") == 29 * MS


def test_a_server_above_a_task_is_not_analysed():
    d = doc()
    d["servers"][0]["priority"] = 25  # above "lo": its service would preempt lo unaccounted
    result = bounds_for(taskset_from_dict(d))
    assert result.test == "picv-rpc"
    assert all(b.bound_ns is None for b in result.tasks)
    assert "not below every real-time task" in result.tasks[0].reason
