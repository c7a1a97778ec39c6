"""The `sched` action (docs/taskset.md "Changing policy"): validated with reasons, given to the runner,
no bound for real-time tasks beside a task that changes its priority, refused by the simulator, and
rt-app's per-phase policy and priority in a loop of phases imported as one at each phase's start."""

from __future__ import annotations

import pytest

from rtsched.analysis import run_test
from rtsched.model import SetSched, TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input
from rtsched.sim import unsupported_features
from rtapp_helpers import errors, imported, pos, text_of

MS = 1_000_000


def taskset(*tasks: dict, **platform) -> dict:
    return {"name": "s", "platform": {"scheduler": "G-FP", "cpus": [0, 1], **platform}, "tasks": list(tasks)}


def burst(*changes: dict, **extra) -> dict:
    body = [{"compute": "1ms"}] + [step for change in changes for step in ({"sched": change}, {"compute": "1ms"})]
    return {"name": "burst", "kind": "self-paced", "period": "10ms", "priority": 20, "body": body, **extra}


def test_read_dumped_and_given_to_the_runner():
    ts = taskset_from_dict(taskset(burst({"policy": "fifo", "priority": 50}, {"policy": "other", "nice": 5},
                                         {"policy": "idle"})))
    (task,) = ts.tasks
    assert [a for a in task.body if isinstance(a, SetSched)] == [
        SetSched("fifo", 50), SetSched("other", None, 5), SetSched("idle")]
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    ops = [a for a in to_runner_input(ts, "t.rtst", duration_ns=100 * MS)["tasks"][0]["body"] if a["op"] == "sched"]
    assert ops == [{"op": "sched", "policy": "fifo", "priority": 50, "nice": 0},
                   {"op": "sched", "policy": "other", "priority": 0, "nice": 5},
                   {"op": "sched", "policy": "idle", "priority": 0, "nice": 0}]


@pytest.mark.parametrize(("change", "extra", "platform", "words"), [
    ({"policy": "deadline"}, {}, {}, "a task keeps the SCHED_DEADLINE reservation it starts with"),
    ({"policy": "fifo"}, {}, {}, "SCHED_FIFO needs a priority in 1..99; got null"),
    ({"policy": "fifo", "priority": 100}, {}, {}, "SCHED_FIFO needs a priority in 1..99; got 100"),
    ({"policy": "other", "priority": 3}, {}, {}, "policy other has no real-time priority"),
    ({"policy": "idle", "nice": 3}, {}, {}, "nice is -20..19, for policies other and batch only"),
    ({"policy": "fifo", "priority": 3, "slice": "1ms"}, {}, {}, "unknown key (keys: policy, priority, nice)"),
    ({"policy": "fifo", "priority": 30}, {}, {"backend": "ult"}, "not under backend ult"),
    ({"policy": "fifo", "priority": 30}, {"priority": None}, {"scheduler": "G-EDF"},
     "is SCHED_DEADLINE: it would lose its reservation"),
])
def test_refusals_say_what_and_where(change, extra, platform, words):
    task = {k: v for k, v in {**burst(change), **extra}.items() if v is not None}
    data = taskset(task, **platform)
    with pytest.raises(TaskSetError) as e:
        taskset_from_dict(data)
    assert any(words in err and err.startswith("tasks[0].body[1].sched") for err in e.value.errors), e.value.errors


def test_no_bound_for_real_time_tasks_beside_a_priority_change():
    other = {"name": "other", "period": "20ms", "priority": 30, "body": [{"compute": "1ms"}]}
    result = run_test("gfp-guan", taskset_from_dict(taskset(
        burst({"policy": "fifo", "priority": 50}), other)))
    burst_bound, other_bound = result.task("burst"), result.task("other")
    assert burst_bound.bound_ns is None and "changes its policy or priority (sched fifo 50)" in burst_bound.reason
    assert other_bound.bound_ns is None and "task burst changes its policy or priority" in other_bound.reason
    # a best-effort task that only changes its nice leaves the real-time tasks their bounds
    be = {"name": "be", "policy": "other", "period": "10ms", "body": [{"compute": "1ms"}, {"sched": {
        "policy": "batch", "nice": 3}}]}
    result = run_test("gfp-guan", taskset_from_dict(taskset(be, other)))
    assert result.task("other").bound_ns is not None


def test_the_simulator_refuses_it_by_name():
    (problem,) = unsupported_features(taskset_from_dict(taskset(burst({"policy": "fifo", "priority": 50}))))
    assert problem.startswith('tasks[0].body[1].sched: "burst" changes its policy or priority, which is not simulated')


def test_rtapp_phases_of_one_loop_change_policy_and_priority_at_their_start():
    """rt-app's set_thread_param at each phase start: a phase's own priority (policy: the current one), a
    phase's own policy (priority: rt-app's default for it, nice 0), kept by the phases after it."""
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 20, "phases": {
        "p0": {"loop": 2, "run": 1000, "sleep": 9000, "priority": 30},
        "p1": {"loop": 1, "run": 2000, "sleep": 8000},
        "p2": {"loop": 1, "run": 3000, "sleep": 7000, "policy": "SCHED_OTHER", "priority": -3},
        "p3": {"loop": 1, "run": 500, "sleep": 500, "policy": "SCHED_RR"}}}}})
    ts, _, _ = imported(text)
    (task,) = ts.tasks
    assert (task.policy, task.priority) == ("fifo", 20)  # the thread's, for its first job's start
    changes = [(i, a) for i, a in enumerate(task.body) if isinstance(a, SetSched)]
    assert changes == [(0, SetSched("fifo", 30)), (7, SetSched("other", None, -3)), (10, SetSched("fifo", 10))]


def test_rtapp_phases_cannot_switch_sched_deadline_in_one_loop():
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
        "p0": {"loop": 1, "run": 1000, "sleep": 9000},
        "p1": {"loop": 1, "run": 1000, "sleep": 9000, "policy": "SCHED_DEADLINE", "dl-runtime": 2000}}}}})
    errs = errors(text)
    assert any(e.startswith(f"{pos(text, 'dl-runtime')}: tasks.t.phases.p1.dl-runtime: the phases of a thread "
                            "without a timer become one task (one loop): a phase cannot set its own dl-runtime")
               for e in errs), errs
    assert any("cannot switch to or from SCHED_DEADLINE" in e for e in errs), errs
