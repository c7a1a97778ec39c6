"""rt-app threads without a timer (self-paced loops of run and sleep): the self-paced task each
becomes, and the loops refused because their pace is not in the file (loops woken by other threads:
test_rtapp_woken.py)."""

from rtapp_helpers import errors, fifo, imported, pos, text_of

from rtsched.model import Compute, Lock, Signal, Sleep, Unlock


def test_run_then_sleep_becomes_a_self_paced_task_of_least_gap_run_plus_sleep():
    ts, _, warnings = imported({"tasks": {"t": fifo(loop=-1, run=2000, sleep=8000)}})
    (task,) = ts.tasks
    assert (task.kind, task.period_ns, task.deadline_ns, task.offset_ns) == ("self-paced", 10_000_000, 10_000_000, 0)
    assert task.body == (Compute(2_000_000),)  # the trailing sleep is the gap before the next release
    assert task.max_jobs is None
    (warning,) = [w for w in warnings if "no timer" in w]
    assert "becomes a self-paced task (next job at the last one's end) of least gap 10ms" in warning
    assert "rt-app sleeps 8ms after its end" in warning


def test_a_leading_sleep_is_the_offset_and_a_middle_sleep_stays_in_the_job():
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 3, "delay": 500, "sleep": 1000, "run0": 300,'
            ' "sleep1": 200, "run1": 100}}}')
    ts, _, warnings = imported(text)
    (task,) = ts.tasks
    assert task.offset_ns == 1_500_000  # delay + the leading sleep
    assert task.period_ns == 1_600_000  # 1000 + 300 + 200 + 100
    assert task.body == (Compute(300_000), Sleep(200_000), Compute(100_000))
    assert task.max_jobs == 3
    assert any("offset by its first sleep 1ms" in w for w in warnings)


def test_locks_and_signals_stay_in_a_self_paced_job():
    doc = {"tasks": {
        "prod": fifo(priority=20, run=100, lock="m", signal="c", unlock="m", resume="other", sleep=900),
        "other": fifo(priority=10, suspend="", lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", run=50,
                      timer={"ref": "o", "period": 1000})}}
    ts, _, _ = imported(doc)
    prod = next(t for t in ts.tasks if t.name == "prod")
    assert prod.period_ns == 1_000_000
    assert prod.body[:4] == (Compute(100_000), Lock("m"), Signal("c"), Unlock("m"))


def test_phases_without_timer_become_one_loop_in_order():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 4, "phases": {
        "warm": {"loop": 2, "run": 100, "sleep": 400},
        "busy": {"run": 300, "sleep": 200}}}}}
    ts, _, _ = imported(doc)
    (task,) = ts.tasks
    assert task.name == "t" and task.max_jobs == 4
    assert task.period_ns == 2 * 500_000 + 500_000
    assert task.body == (Compute(100_000), Sleep(400_000), Compute(100_000), Sleep(400_000), Compute(300_000))


def test_instances_of_a_self_paced_thread():
    ts, _, _ = imported({"tasks": {"t": fifo(instance=3, run=100, sleep=900)}})
    assert [t.name for t in ts.tasks] == ["t-0", "t-1", "t-2"]
    assert {t.period_ns for t in ts.tasks} == {1_000_000}


def test_sched_deadline_self_paced_with_its_loops_period_or_a_reservation_of_its_own():
    ok, _, _ = imported({"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 1000, "sleep": 9000,
                                         "dl-runtime": 1500, "dl-period": 10000}}})
    assert ok.tasks[0].period_ns == 10_000_000 and ok.tasks[0].budget_ns == 1_500_000
    assert not ok.tasks[0].has_own_dl_reservation
    other, _, _ = imported({"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 1000, "sleep": 9000,
                                            "dl-runtime": 1500, "dl-period": 20000}}})
    (t,) = other.tasks
    assert (t.period_ns, t.budget_ns, t.dl_deadline_ns, t.dl_period_ns) == (10_000_000, 1_500_000, 20_000_000,
                                                                            20_000_000)


def test_a_loop_with_no_sleep_at_either_end_is_exact_and_one_of_sleeps_only_is_refused():
    ts, _, warnings = imported({"tasks": {"t": fifo(run=100)}})
    (task,) = ts.tasks
    assert (task.kind, task.period_ns, task.body) == ("self-paced", 100_000, (Compute(100_000),))
    (warning,) = [w for w in warnings if "no timer" in w]
    assert "matches rt-app while" not in warning  # next loop at the last one's end in both
    (only_sleep,) = errors(text_of({"tasks": {"t": fifo(sleep=100)}}))
    assert "nothing to run" in only_sleep


def test_phases_of_a_self_paced_thread_change_its_priority_at_their_start():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
        "a": {"run": 100, "sleep": 100}, "b": {"priority": 30, "run": 100, "sleep": 100}}}}}
    ts, _, _ = imported(text_of(doc))
    assert [a.op for a in ts.tasks[0].body] == ["compute", "sleep", "sched", "compute"]  # the last sleep: its gap
    forever = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
        "a": {"loop": -1, "run": 100, "sleep": 100}, "b": {"run": 100, "sleep": 100}}}}})
    assert "needs a finite loop" in errors(forever)[0]


def test_tutorial_style_sched_other_file_imports_with_a_default_policy():
    # rt-app's first tutorial in its own syntax, written here: SCHED_OTHER by default
    text = """{
        /* a thread that runs 2 ms, then sleeps 8 ms, until stopped */
        "tasks" : { "thread0" : { "loop" : -1, "run" : 20000, "sleep" : 80000 } },
        "global" : { "duration" : 2, "default_policy" : "SCHED_OTHER", "calibration" : "CPU0", }
    }"""
    ts, _, _ = imported(text)  # a SCHED_OTHER self-paced task, as rt-app runs it
    assert (ts.tasks[0].policy, ts.tasks[0].kind, ts.tasks[0].period_ns) == ("other", "self-paced", 100_000_000)
    ts, _, _ = imported(text, default_policy="SCHED_FIFO")
    assert ts.tasks[0].period_ns == 100_000_000 and ts.tasks[0].body == (Compute(20_000_000),)


def test_a_phase_of_sleeps_only_delays_the_phases_after_it():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 1, "delay": 100, "phases": {
        "settle": {"loop": 2, "sleep": 5000},
        "work": {"loop": 8, "run": 1000, "timer": {"ref": "tick", "period": 20000}}}}}}
    text = text_of(doc)
    ts, _, warnings = imported(text)
    (task,) = ts.tasks
    assert task.name == "t-work" and task.offset_ns == 10_100_000 and task.max_jobs == 8
    assert f"{pos(text, 'settle')}: tasks.t.phases.settle: a phase of sleeps only: no task; the phases after " \
           "it start 10ms later" in warnings


def test_a_dl_runtime_above_the_loops_length_is_its_own_reservation_as_rt_app_makes_it():
    """Shaped like rt-app's doc/examples/custom-slice.json: a 20 ms run loop with dl-runtime 200 ms and no
    dl-period: rt-app makes the period and the deadline the runtime (a full CPU while the thread runs)."""
    text = text_of({"tasks": {"t": {"loop": -1, "run": 20000, "policy": "SCHED_DEADLINE", "dl-runtime": 200000}}})
    ts, _, warnings = imported(text)
    (t,) = ts.tasks
    assert (t.kind, t.period_ns, t.deadline_ns, t.budget_ns, t.dl_deadline_ns, t.dl_period_ns) == (
        "self-paced", 20_000_000, 20_000_000, 200_000_000, 200_000_000, 200_000_000)
    assert f"{pos(text, 'dl-runtime')}: tasks.t.dl-runtime: no dl-period: the reservation's period is the runtime, " \
           "as rt-app makes it (a full CPU while the thread runs), apart from the loop's length (its runs and " \
           "sleeps: it has no timer)" in warnings
