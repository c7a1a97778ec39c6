"""rt-app threads, phases and global keys mapped onto rtsched tasks, and the errors for what does not map."""

from pathlib import Path

from rtapp_helpers import TIMER, errors, fifo, imported, pos, text_of

from rtsched.model import Compute, Lock, Signal, Sleep, Unlock, Wait
from rtsched.model.rtapp import import_rtapp
from rtsched.model.rtapp.events import SIGNAL_KEPT

ROOT = Path(__file__).resolve().parents[2]


def test_small_file_gives_the_expected_model():
    ts, _, warnings = import_rtapp(ROOT / "examples" / "rtapp" / "simple.json")
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
    assert filt.body[:4] == (Lock("shared"), Wait("data_ready"), Compute(500_000), Unlock("shared"))
    assert filt.max_jobs is None  # loop -1
    assert (logger.partition, logger.priority, logger.period_ns) == ("cpu1", 5, 50_000_000)
    assert warnings[0] == ("4:3: global: ignored calibration, logdir: rt-app's own settings (calibration: rtsched's "
                           "compute is measured CPU time, so run and runtime both become compute; logs, ftrace and "
                           "gnuplot: rtsched writes its own trace; lock_pages: the runner decides)")
    # where rt-app's semantics and rtsched's part: each relative timer, and sensor's signal (a condition
    # wait of filter's: the importer decides what a signal becomes once it knows every waiter)
    assert [w.split(": ")[1] for w in warnings[1:]] == [
        "tasks.sensor.timer", "tasks.filter.timer", "tasks.logger.timer", "tasks.sensor.signal"]
    assert warnings[4].endswith(f": tasks.sensor.signal: {SIGNAL_KEPT}")


def test_a_repeated_key_runs_its_last_value_in_its_first_place_as_rt_app_does_and_warns():
    """json-c keeps one member per key: the first key's place, the last key's value (reader.py)."""
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 100, "sleep": 10, "run": 200, "sleep": 20,'
            ' "timer": {"ref": "x", "period": 1000, "mode": "absolute"}}}}')
    ts, data, warnings = imported(text)
    assert data["tasks"][0]["body"] == [{"compute": "200us"}, {"sleep": "20us"}]
    assert warnings == [
        f'{pos(text, "run")}: tasks.t.run: repeated key: rt-app (json-c) keeps only its last value, 200 at '
        f'{pos(text, "run", 1)}, in this key\'s place, and drops 100; to keep every value, number the keys '
        '("run0", "run1", ...), as rt-app\'s workgen script does',
        f'{pos(text, "sleep")}: tasks.t.sleep: repeated key: rt-app (json-c) keeps only its last value, 20 at '
        f'{pos(text, "sleep", 1)}, in this key\'s place, and drops 10; to keep every value, number the keys '
        '("sleep0", "sleep1", ...), as rt-app\'s workgen script does']


def test_numbered_keys_keep_their_order():
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "run0": 100, "sleep0": 10, "run1": 200, "sleep1": 20,'
            ' "timer": {"ref": "x", "period": 1000, "mode": "absolute"}}}}')
    _, data, warnings = imported(text)
    assert data["tasks"][0]["body"] == [{"compute": "100us"}, {"sleep": "10us"}, {"compute": "200us"},
                                        {"sleep": "20us"}]
    assert warnings == []


def test_text_after_the_document_is_ignored_with_a_warning():
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 100,\n'
            '"timer": {"ref": "x", "period": 1000, "mode": "absolute"}}}}\n{"tasks": 1}')
    _, data, warnings = imported(text)
    assert data["tasks"][0]["body"] == [{"compute": "100us"}]
    assert warnings == ["3:1: (after the document): text after the end of the top object is ignored, as rt-app "
                        "(json-c) ignores it"]


def test_comments_and_trailing_commas_in_a_whole_file():
    text = """{
    /* a workload */
    "tasks" : {
        "t" : { // one thread
            "policy" : "SCHED_FIFO", "run" : 100,
            "timer" : { "ref" : "unique", "period" : 1000 },
        },
    },
}"""
    ts, _, _ = imported(text)
    assert ts.tasks[0].body == (Compute(100_000),)


def test_unknown_keys_are_warnings_as_rt_app_ignores_them():
    text = text_of({"global": {"frag": 1, "duration": 2},
                    "tasks": {"t": fifo(run=1, util_min=100, prioirty=3, timer=TIMER)}, "extra": {}})
    ts, _, warnings = imported(text)
    assert f"{pos(text, 'frag')}: global.frag: unknown key \"frag\" ignored, as rt-app ignores it" in warnings
    assert f"{pos(text, 'prioirty')}: tasks.t.prioirty: unknown key \"prioirty\" ignored, as rt-app ignores it" in warnings
    assert f"{pos(text, 'extra')}: extra: unknown key \"extra\" ignored, as rt-app ignores it" in warnings
    assert any(w.startswith(f"{pos(text, 'util_min')}: tasks.t.util_min: ignored: a utilization clamp")
               for w in warnings)


def test_timer_shared_between_threads_is_an_error():
    doc = {"tasks": {"a": fifo(run=10, timer={"ref": "tick", "period": 1000}),
                     "b": fifo(run=10, timer={"ref": "tick", "period": 1000})}}
    text = text_of(doc)
    assert errors(text) == [f"{pos(text, 'b')}: tasks.b: timer \"tick\" is shared with task \"a\": rtsched gives "
                            'each task its own period; give each thread its own timer ref (or one starting with '
                            '"unique")']
    doc["tasks"]["b"]["timer"]["ref"] = "other"
    assert len(imported(doc)[0].tasks) == 2
    doc["tasks"]["b"]["instance"] = 2
    text = text_of(doc)
    assert errors(text) == [f"{pos(text, 'b')}: tasks.b-1: timer \"other\" is shared with task \"b-0\": rtsched "
                            'gives each task its own period; give each thread its own timer ref (or one starting '
                            'with "unique")']
    phases = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 1, "phases": {
        "p": {"loop": 2, "run": 1, "timer": {"ref": "tick", "period": 1000}},
        "q": {"loop": 2, "run": 2, "timer": {"ref": "tick", "period": 1000}}}}}}
    assert len(imported(phases)[0].tasks) == 2  # phases of one thread share their timer, as in rt-app


def test_sched_deadline_parameters():
    doc = {"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {
        "a": {"dl-runtime": 2000, "dl-period": 10000, "dl-deadline": 8000, "run": 1000,
              "timer": {"ref": "a", "period": 10000}},
        "b": {"run": 500, "timer": {"ref": "b", "period": 20000}},
    }}
    ts, _, _ = imported(doc)
    assert ts.scheduler == "G-EDF"
    a, b = ts.tasks
    assert (a.policy, a.budget_ns, a.deadline_ns, a.period_ns, a.wcet_ns) == (
        "deadline", 2_000_000, 8_000_000, 10_000_000, 1_000_000)
    assert (b.budget_ns, b.deadline_ns) == (None, 20_000_000)
    assert (a.dl_deadline_ns, a.dl_period_ns) == (None, None)  # the timer's period: the task's own
    doc["tasks"]["a"]["dl-period"] = 12000  # apart from the timer's: a reservation of the thread's own, as rt-app's
    ts, _, _ = imported(doc)
    a = ts.tasks[0]
    assert (a.budget_ns, a.dl_deadline_ns, a.dl_period_ns, a.deadline_ns, a.period_ns) == (
        2_000_000, 8_000_000, 12_000_000, 10_000_000, 10_000_000)
    doc["tasks"]["a"]["dl-deadline"] = 13000  # above its dl-period: rt-app's sched_setattr fails (EINVAL)
    text = text_of(doc)
    (error,) = errors(text)
    assert "SCHED_DEADLINE needs runtime <= deadline <= period (the reservation's dl_deadline and dl_period" in error


def test_dl_reclaim_is_ignored_as_rt_app_master_ignores_it():
    """dl-reclaim is a key of rt-app forks: rt-app master runs the thread without reclaiming, as rtsched does."""
    text = text_of({"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 10, "timer": TIMER, "dl-runtime": 100,
                                    "dl-period": 1000, "dl-reclaim": True}}})
    ts, _, warnings = imported(text)
    assert ts.tasks[0].budget_ns == 100_000
    assert f"{pos(text, 'dl-reclaim')}: tasks.t.dl-reclaim: ignored, as rt-app master ignores it (dl-reclaim is a " \
           "key of rt-app forks): the thread runs without bandwidth reclaiming (SCHED_FLAG_RECLAIM), and an " \
           "rtsched job never runs beyond its runtime" in warnings


def test_membind_nodes_is_a_mem_event_as_in_rt_app_master():
    """rt-app renamed membind_nodes to nodes_membind because the old name starts with "mem", an event."""
    text = text_of({"tasks": {"t": fifo(run=10, membind_nodes=[0], timer=TIMER)}})
    assert errors(text)[0].startswith(f"{pos(text, 'membind_nodes')}: tasks.t.membind_nodes: ")

def test_pinned_threads_become_partitions_and_shared_cpus_global():
    doc = {"tasks": {
        "a": {"policy": "SCHED_DEADLINE", "cpus": [0], "run": 100, "timer": {"ref": "a", "period": 1000}},
        "b": {"policy": "SCHED_DEADLINE", "cpus": [1], "run": 100, "timer": {"ref": "b", "period": 1000}},
    }}
    ts, _, _ = imported(doc)
    assert ts.scheduler == "P-EDF" and [t.partition for t in ts.tasks] == ["cpu0", "cpu1"]
    same = {"tasks": {"a": fifo(cpus=[0, 1], run=1, timer=TIMER), "b": fifo(cpus=[1, 0], run=1, timer=TIMER)}}
    ts, _, _ = imported(same)
    assert ts.scheduler == "G-FP" and ts.platform.cpus == (0, 1)
    mixed = {"tasks": {"a": fifo(cpus=[0], run=1, timer=TIMER), "b": fifo(run=1, timer=TIMER)}}
    assert any("fit neither partitioned scheduling" in e for e in errors(mixed))


def test_fifo_and_deadline_together_is_an_error():
    doc = {"tasks": {"a": fifo(run=1, timer=TIMER), "b": {"policy": "SCHED_DEADLINE", "run": 1, "timer": TIMER}}}
    assert errors(doc) == ["1:1: tasks: SCHED_FIFO/SCHED_RR threads (a) and SCHED_DEADLINE threads (b) together: "
                           "rtsched runs one scheduler per task set"]


def test_policies_other_idle_rr():
    doc = {"tasks": {"rt": fifo(priority=50, run=10, timer=TIMER),
                     "bg": {"priority": -19, "run": 100, "timer": TIMER},
                     "idle": {"policy": "SCHED_IDLE", "run": 100, "timer": TIMER},
                     "rr": {"policy": "SCHED_RR", "priority": 40, "run": 10, "timer": TIMER}}}
    ts, _, warnings = imported(doc)
    assert ts.task("rt").priority == 50 and ts.task("rr").priority == 40
    assert ts.task("bg").policy == "other" and ts.task("idle").policy == "idle"
    assert ts.task("bg").nice == -19  # rt-app's priority of a SCHED_OTHER thread is its nice
    doc["tasks"]["bg"]["priority"] = -21
    text = text_of(doc)
    assert errors(text) == [f"{pos(text, 'priority', nth=1)}: tasks.bg.priority: rt-app's priority of "
                            "a SCHED_OTHER or SCHED_BATCH thread is its nice, -20..19, as rt-app requires; got -21"]
    doc["tasks"]["bg"]["priority"] = -19
    doc["tasks"]["rr"]["priority"] = 50
    text = text_of(doc)
    assert errors(text) == [f"{pos(text, 'rr')}: tasks.rr: SCHED_RR at priority 50 beside \"rt\" of the same "
                            "priority: rt-app time-slices them, rtsched's SCHED_FIFO does not; give them distinct "
                            "priorities"]
    only_other = {"tasks": {"bg": {"run": 100, "timer": TIMER}, "idle": {"policy": "SCHED_IDLE", "run": 100}}}
    ts, _, _ = imported(only_other)  # best-effort threads only: run as they are, beside nothing real-time
    assert [(t.name, t.policy, t.kind, t.priority) for t in ts.tasks] == [
        ("bg", "other", "periodic", None), ("idle", "idle", "self-paced", None)]
    ts, _, _ = imported(only_other, default_policy="SCHED_FIFO")
    assert (ts.tasks[0].policy, ts.tasks[0].priority) == ("fifo", 10)


def test_a_fair_thread_s_dl_runtime_is_its_slice_as_rt_app_sets_it():
    """rt-app's doc/examples/custom-slice.json: since Linux 6.12 rt-app asks SCHED_OTHER and SCHED_BATCH
    threads for a slice of their dl-runtime (sched_attr.sched_runtime), which the kernel clamps to
    0.1..100 ms; SCHED_IDLE has none."""
    text = text_of({"tasks": {
        "other": {"policy": "SCHED_OTHER", "priority": -5, "dl-runtime": 30000, "run": 100, "timer": TIMER},
        "batch": {"policy": "SCHED_BATCH", "dl-runtime": 500000, "run": 100, "timer": TIMER},
        "idle": {"policy": "SCHED_IDLE", "dl-runtime": 30000, "run": 100, "timer": TIMER}}})
    ts, _, warnings = imported(text)
    assert [(t.name, t.policy, t.nice, t.slice_ns) for t in ts.tasks] == [
        ("other", "other", -5, 30_000_000), ("batch", "batch", 0, 100_000_000), ("idle", "idle", 0, None)]
    assert f"{pos(text, 'dl-runtime', nth=1)}: tasks.batch.dl-runtime: a slice of 500000us: the kernel clamps it " \
           "to 100000us (0.1..100 ms)" in warnings
    assert f"{pos(text, 'dl-runtime', nth=2)}: tasks.idle.dl-runtime: ignored: only for SCHED_DEADLINE and the fair " \
           "policies' slice" in warnings


def test_default_priority_delay_loop_and_instances():
    doc = {"tasks": {"t": fifo(instance=3, delay=1500, loop=20, run=100, timer=TIMER)}}
    ts, _, _ = imported(doc)
    assert [t.name for t in ts.tasks] == ["t-0", "t-1", "t-2"]
    assert {(t.priority, t.offset_ns, t.max_jobs) for t in ts.tasks} == {(10, 1_500_000, 20)}
    doc["tasks"]["t"]["instance"] = 0
    doc["tasks"]["u"] = fifo(run=1, timer=TIMER)
    ts, _, warnings = imported(doc)
    assert [t.name for t in ts.tasks] == ["u"]
    assert any("0 instances" in w for w in warnings)


def test_a_single_phase_and_its_loop():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 3, "phases": {
        "p": {"loop": 5, "priority": 40, "run": 100, "timer": TIMER}}}}}
    ts, _, _ = imported(doc)
    assert (ts.tasks[0].name, ts.tasks[0].max_jobs, ts.tasks[0].priority) == ("t", 15, 40)


def test_phases_run_once_become_consecutive_tasks():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 1, "delay": 100, "phases": {
        "light": {"loop": 10, "run": 3000, "timer": {"ref": "unique", "period": 30000}},
        "heavy": {"loop": 4, "priority": 30, "run": 27000, "timer": {"ref": "unique", "period": 30000}}}}}}
    ts, _, warnings = imported(doc)
    light, heavy = ts.tasks
    assert (light.name, light.offset_ns, light.max_jobs, light.priority) == ("t-light", 100_000, 10, 10)
    assert (heavy.name, heavy.offset_ns, heavy.max_jobs, heavy.priority) == ("t-heavy", 300_100_000, 4, 30)
    assert any("phases become 2 tasks released one after the other" in w for w in warnings)
    doc["tasks"]["t"]["phases"]["heavy"]["loop"] = -1  # the last phase may run for ever
    assert imported(doc)[0].tasks[1].max_jobs is None
    doc["tasks"]["t"]["phases"]["light"]["loop"] = -1
    text = text_of(doc)
    assert errors(text) == [f"{pos(text, 'loop', 1)}: tasks.t.phases.light.loop: a phase followed by others must "
                            "have a finite loop"]


def test_phases_repeated_become_one_task_per_iteration_at_the_cycle_period():
    # rt-app's mp3 example: a tick that resumes the audio thread every 5th period of 6 ms (here a sleep)
    doc = {"tasks": {"tick": {"policy": "SCHED_FIFO", "priority": 50, "delay": 100, "phases": {
        "p1": {"loop": 1, "run": 10, "sleep": 1, "timer": {"ref": "tick", "period": 6000}},
        "p2": {"loop": 4, "run": 5, "timer": {"ref": "tick", "period": 6000}}}}}}
    ts, _, warnings = imported(doc)
    assert [(t.name, t.period_ns, t.deadline_ns, t.offset_ns, t.max_jobs) for t in ts.tasks] == [
        ("tick-p1", 30_000_000, 6_000_000, 100_000, None),
        ("tick-p2-0", 30_000_000, 6_000_000, 6_100_000, None),
        ("tick-p2-1", 30_000_000, 6_000_000, 12_100_000, None),
        ("tick-p2-2", 30_000_000, 6_000_000, 18_100_000, None),
        ("tick-p2-3", 30_000_000, 6_000_000, 24_100_000, None),
    ]
    assert [t.body for t in ts.tasks] == [(Compute(10_000), Sleep(1_000))] + [(Compute(5_000),)] * 4
    assert any("2 phases repeated for ever become 5 tasks, one per phase iteration" in w for w in warnings)
    doc["tasks"]["tick"]["loop"] = 3
    assert {t.max_jobs for t in imported(doc)[0].tasks} == {3}


def test_phases_repeated_that_cannot_map_are_refused():
    def refused(phases, policy="SCHED_FIFO"):
        text = text_of({"tasks": {"t": {"policy": policy, "phases": phases}}})
        (error,) = errors(text)
        assert error.startswith(f"{pos(text, 'phases')}: tasks.t.phases: 2 phases repeated for ever")
        return error

    two = {"a": {"run": 1, "timer": {"ref": "x", "period": 1000}},
           "b": {"run": 2, "sleep": 1, "timer": {"ref": "y", "period": 1000}}}  # b's sleep: not one task
    assert "with different timers (x, y)" in refused(two)
    two["b"]["timer"]["ref"] = "x"
    two["b"]["loop"] = -1
    assert "every phase needs a finite loop" in refused(two)
    two["b"]["loop"] = 64
    assert "their 65 iterations would become 65 tasks (at most 64)" in refused(two)
    two["b"]["loop"] = 2
    assert "under SCHED_DEADLINE" in refused(two, "SCHED_DEADLINE")


def test_phases_repeated_that_differ_only_in_their_runs_are_one_task_cycling_through_them():
    """rt-app's spreading-tasks.json: a light and a heavy phase on one timer, repeated: one task whose jobs
    compute 1 ms for 3 jobs, then 7 ms for 2, and again (the thread's jobs, one per timer period)."""
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 2, "delay": 100, "phases": {
        "light": {"loop": 3, "run": 1000, "lock": "m", "unlock": "m", "timer": TIMER},
        "heavy": {"loop": 2, "run": 7000, "lock": "m", "unlock": "m", "timer": TIMER}}}}})
    ts, data, warnings = imported(text)
    (task,) = ts.tasks
    assert (task.name, task.kind, task.period_ns, task.offset_ns, task.max_jobs) == ("t", "periodic", 1_000_000,
                                                                                     100_000, 10)
    assert data["tasks"][0]["body"] == [{"compute": {"sequence": [[3, "1ms"], [2, "7ms"]]}}, {"lock": "m"},
                                        {"unlock": "m"}]
    assert task.wcet_ns == 7_000_000  # the heaviest phase's
    assert any(w.startswith(f'{pos(text, "phases")}: tasks.t.phases: 2 phases repeated 2 times, the same but for '
                            'their runs, become one task "t" whose jobs cycle through them (3 x t-light, 2 x t-heavy)')
               for w in warnings)


def test_events_beside_phases_are_ignored_as_rt_app_does():
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "run": 5, "phases": {"p": {"run": 1, "timer": TIMER}}}}})
    ts, _, warnings = imported(text)
    assert ts.tasks[0].body == (Compute(1000),)
    assert f"{pos(text, 'run')}: tasks.t.run: event beside phases: ignored, as rt-app does (move it into a phase)" \
        in warnings


def test_taskgroup_is_a_best_effort_task_s_and_refused_for_real_time_as_rt_app_does():
    text = text_of({"tasks": {"rt": fifo(run=1, timer=TIMER), "bg": {"run": 1, "timer": TIMER, "taskgroup": "/tg1"}}})
    ts, _, warnings = imported(text)
    assert ts.task("bg").taskgroup == "/tg1" and not [w for w in warnings if "taskgroup" in w]
    text = text_of({"tasks": {"rt": fifo(run=1, timer=TIMER, taskgroup="/tg1")}})
    assert errors(text) == [f"{pos(text, 'taskgroup')}: tasks.rt.taskgroup: a taskgroup with SCHED_FIFO: rt-app "
                            "refuses it too (\"No taskgroup support for policy\": taskgroups are for SCHED_OTHER, "
                            "SCHED_BATCH and SCHED_IDLE threads)"]


def test_a_phase_policy_stays_for_later_phases_and_cpus_fall_back_to_the_thread():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 5, "cpus": [1], "loop": 1, "phases": {
        "a": {"loop": 2, "priority": 40, "cpus": [0], "run": 1, "timer": TIMER},
        "b": {"loop": 2, "run": 2, "timer": TIMER}}}}}
    ts, _, _ = imported(doc)
    a, b = ts.tasks
    assert (a.priority, a.partition) == (40, "cpu0")
    assert (b.priority, b.partition) == (40, "cpu1")


def test_bad_values():
    doc = {"global": {"duration": "5"}, "tasks": {"t": fifo(priority=200, loop=0, run=1, timer=TIMER)}}
    text = text_of(doc)
    assert sorted(errors(text)) == sorted([
        f'{pos(text, "duration")}: global.duration: expected seconds (an integer > 0, or -1), got "5"',
        f"{pos(text, 'priority')}: tasks.t.priority: a SCHED_FIFO priority is an integer in 1..99, got 200",
        f"{pos(text, 'loop')}: tasks.t.loop: expected a loop count (> 0, or -1 for ever), got 0",
    ])


def test_json_syntax_error_has_line_and_column():
    assert errors('{"tasks":\n ]') == ["2:2: invalid JSON: unexpected ']' where a value was expected"]


def test_invalid_result_is_reported_at_the_thread():
    text = text_of({"tasks": {"t": fifo(lock="m", run=1, timer=TIMER)}})
    assert errors(text) == [f'{pos(text, "t")}: tasks.t: the imported task is invalid: tasks[0].body: "m" (locked '
                            "at tasks[0].body[0]) is still held at the end of the job: add unlock: m"]


def test_a_fragment_without_tasks_is_refused_as_rt_app_refuses_it():
    """rt-app's doc/examples/merge/ files are pieces for its merge.py; rt-app itself stops without "tasks"."""
    from rtsched.model.rtapp import is_rtapp_text

    for text in ('{"global": {"duration": 5}}', '{\n  // a comment\n  "resources": {"m": {"type": "mutex"}}}'):
        assert is_rtapp_text(text)
        assert errors(text) == ['1:1: (top level): no "tasks" object: rt-app refuses the file too ("Error while '
                                "parsing config\"); a fragment such as rt-app's doc/examples/merge/ files is for "
                                "rt-app's doc/merge.py, which joins fragments into one file"]
    # rtsched's own documents stay rtsched's, whatever they lack
    assert not is_rtapp_text('{"name": "x", "resources": {"m": 1}}')
    assert not is_rtapp_text('{"platform": {}, "global": {}}')
    assert not is_rtapp_text('{"resources": [], "global": 1}')
