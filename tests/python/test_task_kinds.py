"""Self-paced and event tasks in the task-set format (docs/taskset.md "Task kinds"): what is
refused and where, what the runner is given, and the simulator running them as the runner does
(test_task_kinds_live.py checks the same on real runs, under both backends)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from rtsched.model import TaskSetError, taskset_from_dict, to_runner_input
from rtsched.sim.dvfs_run import dvfs_problems
from task_kinds_sets import check_kinds_output, events_set


def errors_of(data) -> str:
    with pytest.raises(TaskSetError) as caught:
        taskset_from_dict(data)
    return str(caught.value)


def test_the_kinds_and_the_queue_are_read():
    tasks = {t.name: t for t in taskset_from_dict(events_set()).tasks}
    assert (tasks["tick"].kind, tasks["handler"].kind, tasks["loop"].kind) == ("periodic", "event", "self-paced")
    assert (tasks["handler"].activation_queue, tasks["tick"].activation_queue) == (1, 0)
    assert [a.op for a in tasks["tick"].body] == ["compute", "activate", "activate"]


@pytest.mark.parametrize("changes, where, words", [
    ({"handler": {"kind": "periodic"}}, "tasks[0].body[1].activate", '"handler" is not an event task'),
    ({"tick": {"body": [{"compute": "1ms"}, {"activate": "nobody"}]}}, "tasks[0].body[1].activate",
     'no task "nobody" in this set (event tasks: handler)'),
    ({"loop": {"activation_queue": 2}}, "tasks[2].activation_queue", "only for kind: event"),
    ({"handler": {"offset": "1ms"}}, "tasks[1].offset", "it has no offset"),
    ({"handler": {"sporadic": {"max_extra": "1ms"}}}, "tasks[1].sporadic", "only for kind: sporadic"),
    ({"handler": {"activation_queue": 4097}}, "tasks[1].activation_queue", "4096"),
    ({"loop": {"kind": "timer"}}, "tasks[2].kind", "self-paced"),
])
def test_misuse_is_refused_where_it_is(changes, where, words):
    text = errors_of(events_set(**changes))
    assert where in text and words in text, text


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
