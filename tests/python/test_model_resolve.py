"""Resolution into the runner's input (docs/runner-input.md), per scheduler."""

import json

import pytest

from rtsched.model import TaskSetError, loads_taskset, to_runner_input

ONLINE = (0, 1)
LIMITS = (100_000, 4_194_304_000)

TASK_KEYS = {
    "name", "kind", "period_ns", "deadline_ns", "offset_ns", "wcet_ns", "sporadic_max_extra_ns",
    "seed", "max_jobs", "policy", "priority", "dl_runtime_ns", "dl_deadline_ns", "dl_period_ns", "slice_ns", "taskgroup", "cpus", "cpuset", "budget_ns", "lock_level", "body",
    "prem_priority", "peripheral_buffer_bytes", "stack_bytes", "activation_queue", "activated_at_start", "started_by_activation", "nice", "reservation",
}
TOP_KEYS = {
    "format", "name", "duration_ns", "release_delay_ns", "scheduler", "backend", "cpus", "cpusets",
    "resources", "condvars", "picv", "servers", "reservations", "tasks", "trace",
}
SERVER_KEYS = {"name", "priority", "cpus", "queue_capacity"}


def resolve(text, **kwargs):
    kwargs.setdefault("cpus_online", ONLINE)
    kwargs.setdefault("dl_period_limits", LIMITS)
    return to_runner_input(loads_taskset(text, "yaml"), "out/trace.rtst", **kwargs)


def check_shape(runner):
    assert set(runner) == TOP_KEYS
    assert runner["format"] == "rtsched-runner/14"
    for task in runner["tasks"]:
        assert set(task) == TASK_KEYS
    for server in runner["servers"]:
        assert set(server) == SERVER_KEYS
    json.dumps(runner)  # JSON-ready


PFP = """
name: pfp
duration: 5s
platform:
  scheduler: P-FP
  cpus: [0, 1]
  partitions: [{name: left, cpus: [0]}, {name: right, cpus: [1]}]
resources: [{name: r1, protocol: pip}, {name: r2, protocol: none}]
condvars: [{name: cv, mutex: r2}]
tasks:
  - name: t1
    period: 10ms
    wcet: 2ms
    priority: 10
    partition: right
    body: [{compute: 1ms}, {lock: r2}, {compute: 200us}, {signal: cv}, {unlock: r2}, {sleep: 500us}]
  - name: t2
    kind: sporadic
    period: 20ms
    deadline: 30ms
    offset: 1ms
    priority: 5
    partition: left
    budget: 4ms
    max_jobs: 7
    sporadic: {max_extra: 3ms, seed: 9}
    body: [{lock: r1}, {lock: r2}, {wait: cv}, {unlock: r2}, {unlock: r1}, {compute: 3ms}]
"""


def test_pfp():
    runner = resolve(PFP, buffer_events=1024, ftrace_markers=True)
    check_shape(runner)
    assert runner["duration_ns"] == 5_000_000_000
    assert runner["release_delay_ns"] == 100_000_000
    assert runner["scheduler"] == "P-FP"
    assert runner["cpus"] == [0, 1]
    assert runner["cpusets"] == []
    plain = {"variant": "deferred", "ceiling": 0, "partition_cpu": None}
    assert runner["resources"] == [{"name": "r1", "protocol": "pip", **plain}, {"name": "r2", "protocol": "none", **plain}]
    assert runner["condvars"] == [{"name": "cv", "mutex": 1}]
    assert runner["trace"] == {"path": "out/trace.rtst", "buffer_events": 1024, "ftrace_markers": True}
    t1, t2 = runner["tasks"]
    assert t1 == {
        "name": "t1", "kind": "periodic", "period_ns": 10_000_000, "deadline_ns": 10_000_000,
        "offset_ns": 0, "wcet_ns": 2_000_000, "sporadic_max_extra_ns": 0, "seed": 0, "max_jobs": 0,
        "policy": "fifo", "priority": 10, "dl_runtime_ns": 0, "dl_deadline_ns": 0, "dl_period_ns": 0, "slice_ns": 0, "taskgroup": None, "cpus": [1], "cpuset": None,
        "budget_ns": 0, "lock_level": 0, "prem_priority": 0, "peripheral_buffer_bytes": 0, "stack_bytes": 0, "activation_queue": 0,
        "activated_at_start": 0, "started_by_activation": 0, "nice": 0,
        "reservation": None,
        "body": [
            {"op": "compute", "ns": 1_000_000}, {"op": "lock", "resource": 1},
            {"op": "compute", "ns": 200_000}, {"op": "signal", "condvar": 0},
            {"op": "unlock", "resource": 1}, {"op": "sleep", "ns": 500_000},
        ],
    }
    assert t2["kind"] == "sporadic" and t2["sporadic_max_extra_ns"] == 3_000_000 and t2["seed"] == 9
    assert t2["deadline_ns"] == 30_000_000 and t2["offset_ns"] == 1_000_000
    assert t2["budget_ns"] == 4_000_000 and t2["max_jobs"] == 7 and t2["cpus"] == [0]
    assert t2["wcet_ns"] == 3_000_000
    assert [a["op"] for a in t2["body"]] == ["lock", "lock", "wait", "unlock", "unlock", "compute"]


def test_gfp_uses_all_online_cpus_when_none_are_given():
    runner = resolve(
        """
name: gfp
duration: 1s
platform: {scheduler: G-FP}
tasks:
  - {name: a, period: 10ms, priority: 3, body: [{compute: 1ms}]}
""",
        cpus_online=(0, 1, 2, 3),
    )
    check_shape(runner)
    assert runner["cpus"] == [0, 1, 2, 3]
    assert runner["tasks"][0]["cpus"] == [0, 1, 2, 3]
    assert runner["tasks"][0]["policy"] == "fifo" and runner["cpusets"] == []


GEDF = """
name: gedf
duration: 1s
platform: {scheduler: G-EDF}
tasks:
  - {name: a, period: 10ms, deadline: 8ms, body: [{compute: 1ms}]}
  - {name: b, period: 20ms, budget: 3ms, body: [{compute: 2ms}]}
"""


def test_gedf():
    runner = resolve(GEDF)
    check_shape(runner)
    a, b = runner["tasks"]
    assert (a["policy"], a["priority"], a["dl_runtime_ns"], a["deadline_ns"], a["period_ns"]) == (
        "deadline", 0, 1_000_000, 8_000_000, 10_000_000)
    assert a["budget_ns"] == 1_000_000  # under EDF the budget is the runtime
    assert (b["dl_runtime_ns"], b["budget_ns"], b["wcet_ns"]) == (3_000_000, 3_000_000, 2_000_000)
    assert a["cpus"] == [0, 1] and a["cpuset"] is None and runner["cpusets"] == []


def test_gedf_on_part_of_the_cpus_is_refused_with_the_alternative():
    with pytest.raises(TaskSetError, match="G-EDF with SCHED_DEADLINE needs every online CPU .* write P-EDF"):
        resolve(GEDF.replace("{scheduler: G-EDF}", "{scheduler: G-EDF, cpus: [1]}"))


def test_pedf_one_exclusive_cpuset_per_partition():
    runner = resolve(
        """
name: pedf
duration: 1s
platform:
  scheduler: P-EDF
  partitions: [{name: p0, cpus: [0]}, {name: p1, cpus: [1]}]
tasks:
  - {name: a, period: 10ms, partition: p1, body: [{compute: 1ms}]}
  - {name: b, period: 10ms, partition: p0, body: [{compute: 1ms}]}
  - {name: bg, policy: other, period: 10ms, body: [{compute: 1ms}]}
"""
    )
    check_shape(runner)
    assert runner["cpus"] == [0, 1]  # the union of the partitions
    assert runner["cpusets"] == [
        {"name": "p0", "cpus": [0], "exclusive": True},
        {"name": "p1", "cpus": [1], "exclusive": True},
    ]
    a, b, bg = runner["tasks"]
    assert (a["cpuset"], a["cpus"], b["cpuset"], b["cpus"]) == (1, [1], 0, [0])
    assert (bg["policy"], bg["cpuset"], bg["cpus"], bg["priority"], bg["budget_ns"]) == ("other", None, [0, 1], 0, 0)


def test_pedf_default_partitions_are_one_per_online_cpu():
    runner = resolve(
        """
name: pedf
duration: 1s
platform: {scheduler: P-EDF}
tasks:
  - {name: a, period: 10ms, partition: cpu1, body: [{compute: 1ms}]}
"""
    )
    assert [c["name"] for c in runner["cpusets"]] == ["cpu0", "cpu1"]
    assert runner["tasks"][0]["cpuset"] == 1 and runner["tasks"][0]["cpus"] == [1]


def test_machine_dependent_errors():
    text = """
name: x
platform: {scheduler: P-EDF, cpus: [0, 5]}
tasks:
  - {name: a, period: 10s, partition: cpu5, body: [{compute: 1ms}]}
"""
    with pytest.raises(TaskSetError) as info:
        resolve(text)
    errors = "\n".join(info.value.errors)
    assert "duration: the task set gives none" in errors
    assert "platform.cpus: CPU 5 not online on this machine (online: 0, 1)" in errors
    assert "tasks[0].period: SCHED_DEADLINE on this kernel accepts periods from 100us to 4194304us" in errors


def test_partition_not_on_this_machine():
    text = """
name: x
duration: 1s
platform: {scheduler: P-FP}
tasks:
  - {name: a, period: 10ms, priority: 1, partition: cpu3, body: [{compute: 1ms}]}
"""
    with pytest.raises(TaskSetError, match='tasks\\[0\\].partition: "cpu3" does not exist on this machine'):
        resolve(text)


def test_duration_override_and_release_delay():
    runner = resolve(GEDF, duration_ns=42, release_delay_ns=7)
    assert runner["duration_ns"] == 42 and runner["release_delay_ns"] == 7


def test_reads_this_machine_when_not_told():
    runner = to_runner_input(loads_taskset(GEDF, "yaml"), "t.rtst", dl_period_limits=LIMITS)
    assert runner["cpus"] == sorted(runner["cpus"]) and runner["cpus"]


def test_trace_limits_of_the_runner():
    with pytest.raises(TaskSetError, match="trace path: longer than 511 bytes"):
        to_runner_input(loads_taskset(GEDF, "yaml"), "x" * 600, cpus_online=ONLINE, dl_period_limits=LIMITS)
    with pytest.raises(TaskSetError, match="trace buffer"):
        resolve(GEDF, buffer_events=1 << 27)


RPC = """
name: rpc
duration: 2s
platform: {scheduler: P-FP, cpus: [0, 1]}
servers:
  - {name: S, priority: 10, partition: cpu1, duration: 2ms}
  - {name: T, priority: 5, partition: cpu0, queue: 3}
tasks:
  - name: a
    period: 10ms
    priority: 30
    partition: cpu1
    body: [{compute: 1ms}, {call: S}, {call: {server: T, duration: 500us}}]
  - {name: b, period: 20ms, priority: 20, partition: cpu1, wcet: 1ms, body: [{call: {server: S, duration: 3ms}}]}
"""


def test_servers_and_calls():
    runner = resolve(RPC)
    check_shape(runner)
    assert runner["picv"] is True
    assert runner["servers"] == [
        {"name": "S", "priority": 10, "cpus": [1], "queue_capacity": 2},  # default: one per caller
        {"name": "T", "priority": 5, "cpus": [0], "queue_capacity": 3},
    ]
    assert runner["tasks"][0]["body"] == [
        {"op": "compute", "ns": 1_000_000},
        {"op": "call", "server": 0, "ns": 2_000_000},  # the server's duration
        {"op": "call", "server": 1, "ns": 500_000},    # the call's own
    ]
    assert runner["tasks"][1]["body"] == [{"op": "call", "server": 0, "ns": 3_000_000}]
    assert resolve(RPC, picv=False)["picv"] is False


def test_servers_under_gfp_run_on_every_platform_cpu():
    text = """
name: g
duration: 1s
platform: {scheduler: G-FP}
servers: [{name: S, priority: 3}]
tasks: [{name: a, period: 10ms, priority: 9, body: [{compute: 1ms}, {call: {server: S, duration: 1ms}}]}]
"""
    runner = resolve(text)
    assert runner["servers"] == [{"name": "S", "priority": 3, "cpus": [0, 1], "queue_capacity": 1}]


def test_sets_without_servers_have_an_empty_list():
    runner = resolve(GEDF)
    assert runner["servers"] == [] and runner["picv"] is True


def test_server_partition_not_on_this_machine():
    text = RPC.replace("partition: cpu0, queue: 3", "partition: cpu4, queue: 3").replace(", cpus: [0, 1]", "")
    with pytest.raises(TaskSetError, match='servers\\[1\\].partition: "cpu4" does not exist on this machine'):
        resolve(text)
