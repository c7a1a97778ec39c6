"""The affinity action (docs/taskset.md "Changing CPUs"): validation with paths, the dump round trip, the
runner input, a CPU the machine does not have (refused as rt-app refuses it), the analysis' refusal for a
real-time task that moves, and the simulator moving a best-effort job."""

from __future__ import annotations

import json

import pytest

from rtsched.analysis import from_taskset
from rtsched.model import Affinity, Compute, loads_taskset, place, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model.placement import placement_problems
from rtsched.sim import SimOptions, SimUnsupported, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

HOP = {"name": "hop", "policy": "other", "kind": "self-paced", "period": "10ms", "max_jobs": 3,
       "body": [{"affinity": [0]}, {"compute": "1ms"}, {"affinity": [1]}, {"compute": "1ms"}]}


def doc(*tasks, platform=None):
    return {"name": "moves", "duration": "100ms", "platform": platform or {"scheduler": "P-FP"},
            "tasks": list(tasks) or [HOP]}


def model(data):
    return loads_taskset(json.dumps(data), "json")


def test_the_action_reads_as_its_sorted_cpus_and_round_trips():
    task = {**HOP, "body": [{"affinity": [1, 0]}, {"compute": "1ms"}]}
    ts = model(doc(task))
    assert ts.tasks[0].body == (Affinity((0, 1)), Compute(1_000_000))
    assert taskset_to_dict(ts)["tasks"][0]["body"][0] == {"affinity": [0, 1]}
    assert model(taskset_to_dict(ts)) == ts


@pytest.mark.parametrize("cpus, expected", [
    ([], "affinity: expected a non-empty list of CPU numbers, such as [0] or [0, 1]; got []"),
    ("0", 'affinity: expected a non-empty list of CPU numbers, such as [0] or [0, 1]; got "0"'),
    ([0, -1], "affinity[1]: expected a CPU number (an integer >= 0), got -1"),
    ([True], "affinity[0]: expected a CPU number (an integer >= 0), got true"),
    ([1, 1], "affinity: CPU 1 is listed twice"),
])
def test_a_bad_list_is_an_error_at_the_action(cpus, expected):
    task = {**HOP, "body": [{"compute": "1ms"}, {"affinity": cpus}]}
    assert validate_dict(doc(task)) == [f"tasks[0].body[1].{expected}"]


def test_a_cpu_outside_the_platforms_given_cpus_names_the_task_and_the_action():
    assert validate_dict(doc(platform={"scheduler": "P-FP", "cpus": [0]})) == [
        'tasks[0].body[2].affinity: task "hop": CPU 1 is not one of the platform\'s CPUs (0)']


def test_refused_under_the_ult_backend():
    errors = validate_dict(doc(platform={"scheduler": "P-FP", "backend": "ult"}))
    assert errors[0].startswith('tasks[0].body[0].affinity: task "hop" changes its CPUs: not under backend ult')


def test_a_cpu_the_machine_does_not_have_is_refused_when_placed_as_rt_app_refuses_it():
    ts = model(doc({**HOP, "body": [{"affinity": [2]}, {"compute": "1ms"}]}))
    assert placement_problems(ts, place(ts, cpus_online=(0, 1))) == [
        'tasks[0].body[0].affinity: task "hop": CPU 2 does not exist on this machine (the set\'s CPUs: 0, 1)']
    assert placement_problems(ts, place(ts, cpus_online=(0, 1, 2))) == []


def test_the_placement_keeps_the_start_cpus_and_lists_those_visited():
    ts = model(doc({**HOP, "partition": "cpu1", "body": [{"affinity": [0]}, {"compute": "1ms"}]}))
    placement = place(ts, cpus_online=(0, 1))
    assert placement.cpus_of("hop") == (1,)  # where its thread starts
    assert placement.cpus_visited("hop") == (0, 1)  # where its events may be recorded


def test_the_runner_input_carries_the_op():
    spec = to_runner_input(model(doc()), "t.rtst", cpus_online=(0, 1), dl_period_limits=(100_000, 4_194_304_000))
    assert spec["format"] == "rtsched-runner/14"
    assert spec["tasks"][0]["body"][0] == {"op": "affinity", "cpus": [0]}


def test_a_real_time_task_that_moves_leaves_every_real_time_task_without_a_bound():
    mover = {"name": "mover", "period": "10ms", "priority": 20, "partition": "cpu0",
             "body": [{"compute": "1ms"}, {"affinity": [1]}, {"compute": "1ms"}]}
    other = {"name": "other", "period": "10ms", "priority": 10, "partition": "cpu1", "body": [{"compute": "1ms"}]}
    problem = from_taskset(model(doc(mover, other, HOP)))
    assert problem.unanalysable == {
        "mover": "no bound: the task changes its CPUs (affinity [1]): no test here models a task that moves "
                 "between CPUs",
        "other": "no bound: real-time task mover changes its CPUs (affinity): its interference on the CPUs it "
                 "moves to is in no test here"}


def test_a_best_effort_task_that_moves_does_not_touch_the_bounds():
    rt = {"name": "rt", "period": "10ms", "priority": 10, "partition": "cpu0", "body": [{"compute": "1ms"}]}
    assert from_taskset(model(doc(rt, HOP))).unanalysable == {}


def test_the_simulated_job_moves_and_its_events_carry_the_new_cpu(tmp_path):
    """A real-time task holds CPU 0 for 5 ms of each 10 ms: hop's compute after affinity [0] waits for it
    there (it may not take the idle CPU 1), and after affinity [1] runs on CPU 1 at once."""
    rt = {"name": "rt", "period": "10ms", "priority": 10, "partition": "cpu0", "body": [{"compute": "5ms"}]}
    ts = model(doc(rt, {**HOP, "partition": "cpu1"}))
    trace = read_trace(simulate(ts, SimOptions(cpus=(0, 1)), tmp_path / "sim.rtst").trace_path)
    hop = int(next(s["stream_id"] for s in trace.streams if s["name"] == "hop"))
    events = trace.events_of(hop)
    kinds = [(int(e["type"]), int(e["cpu"])) for e in events if int(e["job"]) == 1 and int(e["type"]) != EV.PRIORITY]
    # released and started on CPU 1 (its partition), moved to CPU 0 (PREEMPT there on 1, RESUME on 0
    # after rt's 5 ms), then to CPU 1 again: the job completes there
    assert kinds == [(EV.RELEASE, 1), (EV.START, 1), (EV.PREEMPT, 1), (EV.RESUME, 0), (EV.PREEMPT, 0),
                     (EV.RESUME, 1), (EV.COMPLETE, 1)]
    resumed_on_0 = next(int(e["time_ns"]) for e in events if int(e["type"]) == EV.RESUME and int(e["cpu"]) == 0)
    rt_stream = int(next(s["stream_id"] for s in trace.streams if s["name"] == "rt"))
    rt_done = next(int(e["time_ns"]) for e in trace.events_of(rt_stream) if int(e["type"]) == EV.COMPLETE)
    assert resumed_on_0 >= rt_done  # it waited for CPU 0, not the idle CPU 1
    assert int((events["type"] == EV.COMPLETE).sum()) == 3


def test_a_real_time_task_that_moves_is_not_simulated():
    mover = {"name": "mover", "period": "10ms", "priority": 20, "partition": "cpu0",
             "body": [{"compute": "1ms"}, {"affinity": [1]}, {"compute": "1ms"}]}
    with pytest.raises(SimUnsupported, match=r'tasks\[0\]\.body\[1\]\.affinity: real-time task "mover" changes '
                                             "its CPUs, which is not simulated yet"):
        simulate(model(doc(mover)), SimOptions(cpus=(0, 1)))
