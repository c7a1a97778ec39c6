"""rt-app JSON import: the subset that maps, and an explicit error for the rest."""

import json
from pathlib import Path

import pytest

from rtsched.model import Compute, Lock, Signal, Sleep, TaskSetError, Unlock, Wait, taskset_from_dict
from rtsched.model.rtapp import event_kind, import_rtapp, loads_rtapp

ROOT = Path(__file__).resolve().parents[2]


def imported(doc, **kwargs):
    data, notes = loads_rtapp(json.dumps(doc), **kwargs)
    return taskset_from_dict(data), data, notes


def errors(doc):
    with pytest.raises(TaskSetError) as info:
        loads_rtapp(json.dumps(doc) if not isinstance(doc, str) else doc)
    return info.value.errors


def fifo(**events):
    return {"policy": "SCHED_FIFO", **events}


def test_small_file_gives_the_expected_model():
    ts, _, notes = import_rtapp(ROOT / "examples" / "rtapp" / "simple.json")
    assert ts.name == "simple"
    assert ts.duration_ns == 5_000_000_000
    assert ts.scheduler == "P-FP"
    assert [(r.name, r.protocol) for r in ts.resources] == [("shared", "pip")]
    assert [(c.name, c.mutex) for c in ts.condvars] == [("data_ready", "shared")]
    sensor, filt, logger = ts.tasks
    assert (sensor.name, sensor.period_ns, sensor.deadline_ns, sensor.priority, sensor.partition) == (
        "sensor", 10_000_000, 10_000_000, 20, "cpu0")
    assert sensor.body == (Compute(1_000_000), Lock("shared"), Compute(200_000), Signal("data_ready"),
                           Unlock("shared"))
    assert sensor.wcet_ns == 1_200_000
    assert filt.body == (Lock("shared"), Wait("data_ready"), Compute(500_000), Unlock("shared"),
                         Sleep(1_000_000), Compute(1_000_000))
    assert filt.max_jobs is None  # loop -1
    assert (logger.partition, logger.priority, logger.period_ns) == ("cpu1", 5, 50_000_000)
    assert any("global.calibration: ignored" in n for n in notes)


def test_unsupported_event_is_an_error_naming_it():
    doc = {"tasks": {"thread0": fifo(run=100, iorun=10, timer={"ref": "t", "period": 1000})}}
    assert errors(doc) == ['tasks.thread0.iorun: unsupported rt-app event "iorun"']


def test_every_unsupported_thing_is_reported():
    doc = {
        "global": {"duration": 2, "frobnicate": 1},
        "tasks": {
            "thread0": fifo(iodev=1, mem0=10, sync={"ref": "c", "mutex": "m"}, barrier="b", fork="x",
                            suspend="", resume="thread1", yield0="", util_min=10,
                            run=10, timer={"ref": "t", "period": 1000}),
        },
        "extra": {},
    }
    found = errors(doc)
    expected = [
        'extra: unsupported rt-app key "extra"',
        'global.frobnicate: unsupported rt-app key "frobnicate"',
        'tasks.thread0.iodev: unsupported rt-app key "iodev"',
        'tasks.thread0.mem0: unsupported rt-app event "mem"',
        'tasks.thread0.sync: unsupported rt-app event "sync"',
        'tasks.thread0.barrier: unsupported rt-app event "barrier"',
        'tasks.thread0.fork: unsupported rt-app event "fork"',
        'tasks.thread0.suspend: unsupported rt-app event "suspend"',
        'tasks.thread0.resume: unsupported rt-app event "resume"',
        'tasks.thread0.yield0: unsupported rt-app event "yield"',
        'tasks.thread0.util_min: unsupported rt-app key "util_min"',
    ]
    assert sorted(found) == sorted(expected)


def test_event_names_match_by_prefix_as_rt_app_does():
    assert event_kind("run0") == "run"
    assert event_kind("runtime2") == "runtime"
    assert event_kind("sleep1") == "sleep"
    assert event_kind("lockA") == "lock"
    assert event_kind("unlock_b") == "unlock"
    assert event_kind("broad3") == "broad"
    assert event_kind("timer0") == "timer"
    assert event_kind("priority") is None and event_kind("loop") is None


def test_numbered_events_keep_their_order_and_units():
    doc = {"tasks": {"t": fifo(run0=100, sleep0=50, runtime1=200, sleep1=25, run2=1,
                                timer0={"ref": "x", "period": 5000})}}
    ts, _, _ = imported(doc)
    assert ts.tasks[0].body == (Compute(100_000), Sleep(50_000), Compute(200_000), Sleep(25_000), Compute(1_000))
    assert ts.tasks[0].period_ns == 5_000_000


def test_duplicate_keys_are_renamed_like_workgen():
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 100, "sleep": 10, "run": 200, "sleep": 20,'
            ' "timer": {"ref": "x", "period": 1000}}}}')
    data, _ = loads_rtapp(text)
    assert data["tasks"][0]["body"] == [{"compute": "100us"}, {"sleep": "10us"}, {"compute": "200us"},
                                        {"sleep": "20us"}]


def test_a_task_without_a_timer_is_an_error():
    doc = {"tasks": {"t": fifo(run=100, sleep=100)}}
    assert errors(doc) == ["tasks.t: rtsched tasks are periodic or sporadic: add a timer event with a period "
                           "as the task's last event (it ends each job)"]


def test_the_timer_must_be_last_and_unique():
    doc = {"tasks": {"t": fifo(timer0={"ref": "a", "period": 100}, run=10, timer1={"ref": "a", "period": 100})}}
    assert errors(doc) == ["tasks.t.timer0: only one timer per task, as its last event (it ends the job)"]


def test_a_timer_shared_between_tasks_is_an_error():
    doc = {"tasks": {"a": fifo(run=10, timer={"ref": "tick", "period": 1000}),
                     "b": fifo(run=10, timer={"ref": "tick", "period": 1000})}}
    assert any('timer "tick" is shared with task "a"' in e for e in errors(doc))
    doc = {"tasks": {"a": fifo(run=10, timer={"ref": "unique", "period": 1000}),
                     "b": fifo(run=10, timer={"ref": "unique", "period": 1000})}}
    assert len(imported(doc)[0].tasks) == 2


def test_sched_deadline_parameters():
    doc = {
        "global": {"default_policy": "SCHED_DEADLINE"},
        "tasks": {
            "a": {"dl-runtime": 2000, "dl-period": 10000, "dl-deadline": 8000,
                  "run": 1000, "timer": {"ref": "a", "period": 10000}},
            "b": {"run": 500, "timer": {"ref": "b", "period": 20000}},
        },
    }
    ts, _, _ = imported(doc)
    assert ts.scheduler == "G-EDF"
    a, b = ts.tasks
    assert (a.policy, a.budget_ns, a.deadline_ns, a.period_ns, a.wcet_ns) == (
        "deadline", 2_000_000, 8_000_000, 10_000_000, 1_000_000)
    assert (b.budget_ns, b.deadline_ns, b.dl_runtime_ns) == (None, 20_000_000, 500_000)
    doc["tasks"]["a"]["dl-period"] = 12000
    assert any("dl-period 12000us differs from the timer period 10000us" in e for e in errors(doc))


def test_pinned_deadline_tasks_become_pedf():
    doc = {"tasks": {
        "a": {"policy": "SCHED_DEADLINE", "cpus": [0], "run": 100, "timer": {"ref": "a", "period": 1000}},
        "b": {"policy": "SCHED_DEADLINE", "cpus": [1], "run": 100, "timer": {"ref": "b", "period": 1000}},
    }}
    ts, _, _ = imported(doc)
    assert ts.scheduler == "P-EDF"
    assert [t.partition for t in ts.tasks] == ["cpu0", "cpu1"]


def test_affinity_mapping():
    same = {"tasks": {"a": fifo(cpus=[0, 1], run=1, timer={"ref": "a", "period": 100}),
                      "b": fifo(cpus=[1, 0], run=1, timer={"ref": "b", "period": 100})}}
    ts, _, _ = imported(same)
    assert ts.scheduler == "G-FP" and ts.platform.cpus == (0, 1)
    mixed = {"tasks": {"a": fifo(cpus=[0], run=1, timer={"ref": "a", "period": 100}),
                       "b": fifo(run=1, timer={"ref": "b", "period": 100})}}
    assert any("fit neither partitioned scheduling" in e for e in errors(mixed))


def test_fifo_and_deadline_together_is_an_error():
    doc = {"tasks": {"a": fifo(run=1, timer={"ref": "a", "period": 100}),
                     "b": {"policy": "SCHED_DEADLINE", "run": 1, "timer": {"ref": "b", "period": 100}}}}
    assert errors(doc) == ["tasks: SCHED_FIFO tasks (a) and SCHED_DEADLINE tasks (b) together: rtsched runs "
                           "one scheduler per task set"]


def test_sched_other_tasks_are_background_and_rr_is_refused():
    doc = {"tasks": {"rt": fifo(priority=50, run=10, timer={"ref": "a", "period": 1000}),
                     "bg": {"run": 100, "timer": {"ref": "b", "period": 1000}}}}
    ts, _, _ = imported(doc)
    assert ts.task("rt").priority == 50
    assert ts.task("bg").policy == "other" and ts.task("bg").priority is None
    doc["tasks"]["rt"]["policy"] = "SCHED_RR"
    assert any('tasks.rt.policy: unsupported policy "SCHED_RR"' in e for e in errors(doc))
    only_other = {"tasks": {"bg": {"run": 100, "timer": {"ref": "b", "period": 1000}}}}
    assert any("no real-time task" in e for e in errors(only_other))


def test_fifo_default_priority_delay_and_loop():
    doc = {"tasks": {"t": fifo(delay=1500, loop=20, run=100, timer={"ref": "t", "period": 1000})}}
    ts, _, _ = imported(doc)
    t = ts.tasks[0]
    assert (t.priority, t.offset_ns, t.max_jobs) == (10, 1_500_000, 20)


def test_single_phase_and_its_loop():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 3, "phases": {
        "p": {"loop": 5, "priority": 40, "run": 100, "timer": {"ref": "t", "period": 1000}}}}}}
    ts, _, _ = imported(doc)
    assert (ts.tasks[0].max_jobs, ts.tasks[0].priority) == (15, 40)
    doc["tasks"]["t"]["phases"]["q"] = {"run": 1, "timer": {"ref": "t", "period": 1000}}
    assert errors(doc) == ["tasks.t.phases: only a single phase is supported (an rtsched job is one script), got 2"]


def test_locks_and_condvars():
    doc = {
        "global": {"pi_enabled": False},
        "tasks": {
            "prod": fifo(priority=20, run=100, signal="c", timer={"ref": "p", "period": 1000}),
            "cons": fifo(priority=10, lock="m", wait={"ref": "c", "mutex": "m"}, run=50, unlock="m",
                         broad="c", timer={"ref": "q", "period": 1000}),
        },
    }
    ts, _, notes = imported(doc)
    assert [(r.name, r.protocol) for r in ts.resources] == [("m", "none")]
    assert ts.condvar("c").mutex == "m"
    # rt-app signals without the mutex; rtsched needs it: the signals are wrapped
    assert ts.task("prod").body == (Compute(100_000), Lock("m"), Signal("c"), Unlock("m"))
    assert ts.task("cons").body[-3:] == (Lock("m"), ts.task("cons").body[-2], Unlock("m"))
    assert sum("done with its mutex" in n for n in notes) == 2


def test_a_condition_with_two_mutexes_or_none_is_an_error():
    doc = {"tasks": {
        "a": fifo(lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", timer={"ref": "a", "period": 100}),
        "b": fifo(lock="n", wait={"ref": "c", "mutex": "n"}, unlock="n", timer={"ref": "b", "period": 100}),
    }}
    assert any('condition "c" is used with mutex "m"' in e for e in errors(doc))
    doc = {"tasks": {"a": fifo(run=1, signal="z", timer={"ref": "a", "period": 100})}}
    assert any('condition "z" is signalled but never waited on' in e for e in errors(doc))


def test_bad_values():
    doc = {"global": {"duration": "5"}, "tasks": {
        "t": fifo(priority=200, run="100", sleep=-1, loop=0, timer={"ref": "t", "period": 0})}}
    found = errors(doc)
    assert 'global.duration: expected seconds (an integer > 0, or -1), got "5"' in found
    assert "tasks.t.priority: SCHED_FIFO priority must be an integer in 1..99, got 200" in found
    assert 'tasks.t.run: expected an integer of microseconds, got "100"' in found
    assert "tasks.t.sleep: must be > 0 microseconds, got -1" in found
    assert "tasks.t.loop: expected a loop count (> 0, or -1 for ever), got 0" in found
    assert "tasks.t.timer.period: must be > 0 microseconds, got 0" in found


def test_json_syntax_error_has_line_and_column():
    with pytest.raises(TaskSetError, match="line 2, column"):
        loads_rtapp('{"tasks":\n ]')


def test_invalid_result_is_reported_in_rtsched_terms():
    doc = {"tasks": {"t": fifo(lock="m", run=1, timer={"ref": "t", "period": 100})}}
    found = errors(doc)
    assert found == ['the imported set is invalid: tasks[0].body: "m" (locked at tasks[0].body[0]) is still '
                     "held at the end of the job: add unlock: m"]
