"""Best-effort tasks (policies other, batch, idle and nice) in the task-set format, the runner input and
the analysis: what is refused and where, and that a best-effort task reaching into the real-time set
through a lock or an RPC server leaves no real-time task with a bound (never a wrong "schedulable")."""

from __future__ import annotations

import pytest

from rtsched.analysis import bounds_for
from rtsched.model import TaskSetError, taskset_from_dict, to_runner_input


def best_effort_set(**extra) -> dict:
    data = {"name": "be", "duration": "1s", "platform": {"scheduler": "P-FP", "partitions": [{"name": "p0", "cpus": [0]}]},
            "resources": [{"name": "m", "protocol": "pip"}],
            "tasks": [
                {"name": "ctl", "period": "10ms", "priority": 20, "partition": "p0",
                 "body": [{"compute": "1ms"}, {"lock": "m"}, {"compute": "100us"}, {"unlock": "m"}]},
                {"name": "log", "policy": "other", "nice": 5, "period": "20ms", "body": [{"compute": "2ms"}]},
                {"name": "bulk", "policy": "batch", "nice": -3, "kind": "self-paced", "period": "5ms",
                 "body": [{"compute": "2ms"}]},
                {"name": "scrub", "policy": "idle", "period": "50ms", "body": [{"compute": "2ms"}]},
            ]}
    data.update(extra)
    return data


def errors_of(data) -> str:
    with pytest.raises(TaskSetError) as caught:
        taskset_from_dict(data)
    return str(caught.value)


def test_policies_and_nice_are_read_and_given_to_the_runner():
    ts = taskset_from_dict(best_effort_set())
    tasks = {t.name: t for t in ts.tasks}
    assert [(t.policy, t.nice, t.is_background) for t in ts.tasks] == [
        ("fifo", 0, False), ("other", 5, True), ("batch", -3, True), ("idle", 0, True)]
    assert [t.name for t in ts.rt_tasks] == ["ctl"]
    runner = {t["name"]: t for t in to_runner_input(ts, "be.trace")["tasks"]}
    assert (runner["log"]["policy"], runner["log"]["nice"], runner["bulk"]["nice"]) == ("other", 5, -3)
    assert (runner["scrub"]["policy"], runner["ctl"]["nice"], runner["ctl"]["priority"]) == ("idle", 0, 20)
    assert tasks["bulk"].kind == "self-paced"


@pytest.mark.parametrize("task, words", [
    ({"name": "x", "period": "10ms", "priority": 5, "partition": "p0", "nice": 1}, "real-time priority"),
    ({"name": "x", "period": "10ms", "policy": "idle", "nice": 1}, "least weight"),
    ({"name": "x", "period": "10ms", "policy": "other", "nice": 20}, "tasks[1].nice"),
    ({"name": "x", "period": "10ms", "policy": "batch", "priority": 3}, 'policy "batch"'),
])
def test_nice_and_priority_where_they_mean_nothing_are_refused(task, words):
    data = best_effort_set()
    data["tasks"] = [data["tasks"][0], task]
    assert words in errors_of(data)


def test_ult_refuses_batch_idle_and_nice_with_the_reason():
    data = best_effort_set()
    data["platform"] = dict(data["platform"], backend="ult")
    text = errors_of(data)
    assert "tasks[1].nice" in text and "tasks[2].policy" in text and "tasks[3].policy" in text
    assert "no kernel policy or nice of its own" in text


def test_best_effort_tasks_get_no_bound_and_leave_the_real_time_ones_bounded():
    data = best_effort_set()
    result = bounds_for(taskset_from_dict(data))
    assert result.verdict == "schedulable"
    assert [(t.name, t.bound_ns is not None) for t in result.tasks] == [("ctl", True)]


def test_a_lock_shared_with_a_best_effort_task_leaves_no_real_time_bound():
    data = best_effort_set()
    data["tasks"][1]["body"] = [{"lock": "m"}, {"compute": "5ms"}, {"unlock": "m"}]
    result = bounds_for(taskset_from_dict(data))
    assert result.verdict != "schedulable"
    assert [(t.name, t.bound_ns) for t in result.tasks] == [("ctl", None)]
    assert 'best-effort task log (policy other) locks "m"' in result.tasks[0].reason + result.reason


def test_beside_reservations_a_lock_shared_with_a_best_effort_task_is_refused():
    # the reservation analysis counts real-time critical sections only: "tick" was bounded 1 ms
    # while "bg" held its lock 20 ms
    data = {"name": "res", "duration": "1s", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
            "resources": [{"name": "t2", "protocol": "pip"}],
            "reservations": [{"name": "control", "period": "10ms", "budget": "3ms", "scheduler": "FP",
                              "priority": 20, "partition": "cpu0"}],
            "tasks": [
                {"name": "sensor", "reservation": "control", "partition": "cpu0", "period": "40ms", "priority": 30,
                 "body": [{"compute": "1ms"}]},
                {"name": "tick", "partition": "cpu0", "period": "20ms", "priority": 40,
                 "body": [{"lock": "t2"}, {"compute": "1ms"}, {"unlock": "t2"}]},
                {"name": "bg", "policy": "other", "partition": "cpu0", "period": "100ms",
                 "body": [{"lock": "t2"}, {"compute": "20ms"}, {"unlock": "t2"}]}]}
    assert 'tasks[2].body: best-effort task "bg" (policy other) locks "t2"' in errors_of(data)
