"""Self-paced and event tasks in the task-set format (docs/taskset.md "Task kinds"): what is
refused and where, what the runner is given, and the simulator running them as the runner does
(test_task_kinds_live.py checks the same on real runs, under both backends)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from rtsched.model import TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input
from rtsched.sim.dvfs_run import dvfs_problems
from rtsched.trace import RELEASE_CAUSE_MASK, EventType, ReleaseCause, read_trace
from task_kinds_sets import MS, check_kinds_output, events_set


def errors_of(data) -> str:
    with pytest.raises(TaskSetError) as caught:
        taskset_from_dict(data)
    return str(caught.value)


def test_the_kinds_and_the_queue_are_read():
    tasks = {t.name: t for t in taskset_from_dict(events_set()).tasks}
    assert (tasks["tick"].kind, tasks["handler"].kind, tasks["loop"].kind) == ("periodic", "event", "self-paced")
    assert (tasks["handler"].activation_queue, tasks["tick"].activation_queue) == (1, 0)
    assert [a.op for a in tasks["tick"].body] == ["compute", "activate", "activate"]


def test_a_dumped_set_of_every_kind_reads_back_the_same():
    taskset = taskset_from_dict(events_set())
    assert taskset_from_dict(taskset_to_dict(taskset)) == taskset


@pytest.mark.parametrize("changes, where, words", [
    ({"handler": {"kind": "periodic"}}, "tasks[0].body[1].activate", '"handler" is not an event task'),
    ({"tick": {"body": [{"compute": "1ms"}, {"activate": "nobody"}]}}, "tasks[0].body[1].activate",
     'no task "nobody" in this set (event tasks: handler)'),
    ({"loop": {"activation_queue": 2}}, "tasks[2].activation_queue", "only for kind: event"),
    ({"handler": {"offset": "1ms"}}, "tasks[1].offset", "it has no offset"),
    ({"handler": {"sporadic": {"max_extra": "1ms"}}}, "tasks[1].sporadic", "only for kind: sporadic"),
    ({"handler": {"activation_queue": 4097}}, "tasks[1].activation_queue", "4096"),
    ({"loop": {"kind": "timer"}}, "tasks[2].kind", "self-paced"),
    ({"loop": {"activated_at_start": True}}, "tasks[2].activated_at_start", "only for kind: event"),
    ({"handler": {"activated_at_start": True}}, "tasks[1].activated_at_start", "only with activation_queue 0"),
    ({"handler": {"activation_queue": None, "activated_at_start": 1}}, "tasks[1].activated_at_start",
     "expected true or false"),
    ({"handler": {"started_by_activation": True}}, "tasks[1].started_by_activation", "only for periodic"),
    ({"loop": {"started_by_activation": True, "offset": "1ms"}}, "tasks[2].started_by_activation",
     "without an offset"),
])
def test_misuse_is_refused_where_it_is(changes, where, words):
    text = errors_of(events_set(**changes))
    assert where in text and words in text, text


def test_an_event_task_activated_at_start_keeps_its_offset_through_a_dump_and_to_the_runner():
    data = events_set(handler={"activation_queue": None, "activated_at_start": True, "offset": "2ms"})
    taskset = taskset_from_dict(data)
    handler = taskset.tasks[1]
    assert (handler.activated_at_start, handler.offset_ns) == (True, 2_000_000)
    assert taskset_from_dict(taskset_to_dict(taskset)) == taskset
    runner = to_runner_input(taskset, "t.rtst", cpus_online=(0, 1))
    assert (runner["tasks"][1]["activated_at_start"], runner["tasks"][1]["offset_ns"]) == (1, 2_000_000)
    assert runner["tasks"][0]["activated_at_start"] == 0


def test_a_task_started_by_an_activation_runs_from_it_on_its_own_timer(tmp_path):
    """tick (offset 5 ms) computes 1 ms and starts "started" (period 4 ms): its job 1 comes with the
    activation at 6 ms, the later ones every 4 ms from there; every later activation is lost."""
    data = {"name": "started", "duration": "30ms", "platform": {"scheduler": "P-FP", "cpus": [1]},
            "tasks": [{"name": "tick", "period": "20ms", "offset": "5ms", "priority": 30, "partition": "cpu1",
                       "body": [{"compute": "1ms"}, {"activate": "started"}, {"activate": "started"}]},
                      {"name": "started", "period": "4ms", "priority": 20, "partition": "cpu1",
                       "started_by_activation": True, "body": [{"compute": "1ms"}]}]}
    taskset = taskset_from_dict(data)
    assert taskset_from_dict(taskset_to_dict(taskset)) == taskset
    runner = to_runner_input(taskset, "t.rtst", cpus_online=(0, 1))
    assert [t["started_by_activation"] for t in runner["tasks"]] == [0, 1]
    path = tmp_path / "started.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "sim", "--no-plots", "--ideal", "--out",
                           str(out), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    trace = read_trace(out / "trace.rtst")
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams}
    started = trace.events_of(streams["started"])
    releases = started[started["type"] == EventType.RELEASE]
    assert releases["time_ns"].tolist() == [6 * MS + k * 4 * MS for k in range(len(releases))]
    assert len(releases) == 6  # 6, 10, ..., 26 ms (30 ms: the end)
    assert (releases["arg0"] & RELEASE_CAUSE_MASK).tolist() == [ReleaseCause.ACTIVATION] + [ReleaseCause.TIMER] * 5
    tick = trace.events_of(streams["tick"])
    assert tick[tick["type"] == EventType.ACTIVATE]["arg1"].tolist() == [1, 0, 0, 0]  # its start kept, the rest lost


def test_the_runner_is_given_the_kinds_the_queue_and_the_activated_task():
    runner = to_runner_input(taskset_from_dict(events_set()), "t.rtst", cpus_online=(0, 1))
    tasks = {t["name"]: t for t in runner["tasks"]}
    assert [tasks[n]["kind"] for n in ("tick", "handler", "loop")] == ["periodic", "event", "self-paced"]
    assert (tasks["handler"]["activation_queue"], tasks["loop"]["activation_queue"]) == (1, 0)
    assert tasks["tick"]["body"][1:] == [{"op": "activate", "task": 1}] * 2


def test_the_simulator_runs_them_as_the_runner_does(tmp_path):
    path = tmp_path / "events.yaml"
    path.write_text(yaml.safe_dump(events_set(), sort_keys=False))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "sim", "--no-plots", "--ideal", "--out",
                           str(out), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    check_kinds_output(out, done.stdout)


def test_dvfs_policies_refuse_them_by_name():
    problems = dvfs_problems(taskset_from_dict(events_set()), "static")
    assert [p for p in problems if ".kind" in p] == [
        'tasks[1].kind: task "handler" is event: DVFS policies release jobs from timers only (periodic, sporadic)',
        'tasks[2].kind: task "loop" is self-paced: DVFS policies release jobs from timers only (periodic, sporadic)',
    ]
