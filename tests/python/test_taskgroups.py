"""Taskgroups (docs/taskset.md "Taskgroups"): rt-app's cpu cgroups for best-effort threads, a task's and a
`taskgroup` action's, validated with reasons, given to the runner, simulated where a group changes no share
and refused by name elsewhere, and imported from rt-app's tutorial examples 10 and 11."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched.model import SetTaskgroup, TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input
from rtsched.sim import unsupported_features
from rtapp_helpers import errors, imported, pos, text_of

MS = 1_000_000
RTAPP = Path(__file__).resolve().parent


def taskset(*tasks: dict, **platform) -> dict:
    return {"name": "tg", "platform": {"scheduler": "P-FP", "cpus": [0], **platform}, "tasks": list(tasks)}


def bulk(name: str = "bulk", **extra) -> dict:
    return {"name": name, "policy": "other", "kind": "self-paced", "period": "10ms", "body": [{"compute": "1ms"}],
            **extra}


def test_read_dumped_and_given_to_the_runner():
    ts = taskset_from_dict(taskset(bulk(taskgroup="/tg1", body=[{"compute": "1ms"}, {"taskgroup": "/"},
                                                                {"compute": "1ms"}, {"taskgroup": "/tg1/tg11"}])))
    (task,) = ts.tasks
    assert task.taskgroup == "/tg1"
    assert [a for a in task.body if isinstance(a, SetTaskgroup)] == [SetTaskgroup("/"), SetTaskgroup("/tg1/tg11")]
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    runner = to_runner_input(ts, "t.rtst", duration_ns=100 * MS)["tasks"][0]
    assert runner["taskgroup"] == "/tg1"
    assert [a for a in runner["body"] if a["op"] == "taskgroup"] == [
        {"op": "taskgroup", "taskgroup": "/"}, {"op": "taskgroup", "taskgroup": "/tg1/tg11"}]
    plain = to_runner_input(taskset_from_dict(taskset(bulk())), "t.rtst", duration_ns=100 * MS)["tasks"][0]
    assert plain["taskgroup"] is None


@pytest.mark.parametrize(("task", "platform", "where", "words"), [
    (bulk(taskgroup="tg1"), {}, "tasks[0].taskgroup", 'expected a cpu cgroup such as "/tg1"'),
    (bulk(taskgroup="/tg1/../x"), {}, "tasks[0].taskgroup", 'expected a cpu cgroup such as "/tg1"'),
    (bulk(taskgroup="/tg1/"), {}, "tasks[0].taskgroup", 'expected a cpu cgroup such as "/tg1"'),
    ({"name": "rt", "period": "10ms", "priority": 5, "taskgroup": "/tg1", "body": [{"compute": "1ms"}]}, {},
     "tasks[0].taskgroup", "a fifo thread in one would need real-time runtime given to the group"),
    (bulk(body=[{"compute": "1ms"}, {"taskgroup": "/tg1"}]), {"backend": "ult"}, "tasks[0]",
     "has no cgroup of its own"),
    (bulk(taskgroup="/tg1", body=[{"compute": "1ms"}, {"sched": {"policy": "fifo", "priority": 3}}]), {},
     "tasks[0].body[1].sched", "is in a taskgroup"),
])
def test_refusals_say_what_and_where(task, platform, where, words):
    data = taskset(task, **platform)
    with pytest.raises(TaskSetError) as e:
        taskset_from_dict(data)
    assert any(err.startswith(where) and words in err for err in e.value.errors), e.value.errors


def test_the_simulator_takes_groups_that_change_no_share_and_refuses_the_others():
    alone = taskset(bulk("a", taskgroup="/tg1"), bulk("b", body=[{"compute": "1ms"}, {"taskgroup": "/tg2"}]), bulk("c"))
    assert unsupported_features(taskset_from_dict(alone)) == []
    shared = taskset(bulk("a", taskgroup="/tg1"), bulk("b", taskgroup="/tg1/tg11"))
    (problem,) = unsupported_features(taskset_from_dict(shared))
    assert problem.startswith('tasks[0] and tasks[1]: "a" (/tg1) and "b" (/tg1/tg11) share a taskgroup')
    niced = taskset(bulk("a", taskgroup="/tg1", nice=3))
    (problem,) = unsupported_features(taskset_from_dict(niced))
    assert problem.startswith('tasks[0]: "a" is in a taskgroup with policy other, nice 3')


def test_rtapp_tutorial_taskgroups_import_as_rt_app_runs_them():
    """tutorial/example10.json (a thread in /tg1) and example11.json (phases in /tg1/tg11, kept, then /)."""
    ts, _, warnings = imported(text_of({"global": {"default_policy": "SCHED_OTHER"}, "tasks": {"thread0": {
        "loop": -1, "run": 20000, "sleep": 80000, "taskgroup": "/tg1"}}}))
    assert ts.tasks[0].taskgroup == "/tg1"
    assert not [w for w in warnings if "taskgroup" in w]
    ts, _, _ = imported(text_of({"global": {"default_policy": "SCHED_OTHER"}, "tasks": {"thread0": {"phases": {
        "phase0": {"loop": 1, "run": 20000, "sleep": 80000, "taskgroup": "/tg1/tg11"},
        "phase1": {"loop": 1, "run": 20000, "sleep": 80000},
        "phase2": {"loop": 1, "run": 20000, "sleep": 80000, "taskgroup": "/"}}}}}))
    (task,) = ts.tasks
    assert task.taskgroup is None
    assert [a.path for a in task.body if isinstance(a, SetTaskgroup)] == ["/tg1/tg11", "/"]
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "run": 100, "timer": {"ref": "t", "period": 1000},
                                    "taskgroup": "/tg1"}}})
    (error,) = errors(text)
    assert error.startswith(f"{pos(text, 'taskgroup')}: tasks.t.taskgroup: a taskgroup with SCHED_FIFO: rt-app "
                            "refuses it too")
