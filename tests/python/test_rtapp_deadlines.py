"""The deadline of an imported loop paced by other threads (model/rtapp/deadlines.py; docs/from-rtapp.md,
"Deadlines of loops paced by others"): an event task's is the least time between its wake-ups, so a miss
is a lost wake-up; a self-paced loop that waits gets its runs and sleeps plus a loop of each thread it
waits for, so a miss is a loop that lost its pace. The period stays the job's runs and sleeps."""

from rtapp_helpers import TIMER, fifo, imported, simulated


def _tasks(doc):
    ts, _, warnings = imported(doc)
    return {t.name: t for t in ts.tasks}, warnings


def _warning(warnings, task):
    (warning,) = [w for w in warnings if f"tasks.{task}: deadline" in w]
    return warning


def test_an_event_task_woken_by_a_timer_thread_has_its_period_as_deadline():
    tasks, warnings = _tasks({"tasks": {
        "tick": fifo(priority=20, run=100, resume="work", timer={**TIMER, "period": 10000}),
        "work": fifo(priority=10, loop=-1, suspend="work", run=3000)}})
    work = tasks["work"]
    assert (work.kind, work.period_ns, work.deadline_ns) == ("event", 3_000_000, 10_000_000)
    warning = _warning(warnings, "work")
    assert 'deadline 10ms, the least time between its wake-ups: woken once per job of "tick", released ' \
           "every 10ms by its timer; a job still running at its next wake-up loses it" in warning
    assert "period 3ms (its runs and sleeps) for the analysis" in warning


def test_an_event_task_down_a_chain_gets_the_first_timer_or_a_slower_link():
    """tick (10 ms) -> a -> b: b's wake-ups come once per job of a, which come once per tick; c, woken
    by b whose job (12 ms) is longer than the tick, no closer than b's runs."""
    tasks, warnings = _tasks({"tasks": {
        "tick": fifo(priority=30, run=100, resume="a", timer={**TIMER, "period": 10000}),
        "a": fifo(priority=20, loop=-1, suspend="a", run=1000, resume="b"),
        "b": fifo(priority=10, loop=-1, suspend="b", run=12000, resume="c"),
        "c": fifo(priority=5, loop=-1, suspend="c", run=500)}})
    assert [tasks[n].deadline_ns for n in "abc"] == [10_000_000, 10_000_000, 12_000_000]
    assert [tasks[n].period_ns for n in "abc"] == [1_000_000, 12_000_000, 500_000]
    assert 'woken once per job of event task "a", whose jobs come no closer than its wake-ups nor than its ' \
           'runs and sleeps; "a" is woken once per job of "tick", released every 10ms' in _warning(warnings, "b")
    assert 'the last of "a" -> "b", each woken by the one before' in _warning(warnings, "c")


def test_two_threads_that_resume_each_other_get_the_round_trip():
    """rt-app's tutorial example4: a wake-up goes from a to b and back, 1 ms + 2 ms; of the two loops
    running at the start, the first to resume the other finds it running, so one wake-up goes round."""
    tasks, warnings = _tasks({"tasks": {"a": fifo(loop=-1, run=1000, resume="b", suspend="a"),
                                        "b": fifo(loop=-1, run=2000, resume="a", suspend="b")}})
    assert [(tasks[n].deadline_ns, tasks[n].period_ns) for n in "ab"] == [(3_000_000, 1_000_000),
                                                                        (3_000_000, 2_000_000)]
    assert 'woken in a ring ("a" -> "b" -> "a")' in _warning(warnings, "a")


def test_a_ring_of_three_with_two_running_at_the_start_is_not_in_the_file():
    """Two wake-ups can go round three threads at once, at any distance from one another."""
    tasks, warnings = _tasks({"tasks": {"a": fifo(loop=-1, run=1000, resume="b", suspend="a"),
                                        "b": fifo(loop=-1, run=1000, resume="c", suspend="b"),
                                        "c": fifo(loop=-1, suspend="c", run=1000, resume="a")}})
    assert [(tasks[n].deadline_ns, tasks[n].activated_at_start) for n in "abc"] == [
        (1_000_000, True), (1_000_000, True), (1_000_000, False)]
    assert 'woken in a ring ("a" -> "b" -> "c" -> "a") in which 2 run at the start' in _warning(warnings, "c")


def test_several_wake_ups_in_a_job_are_as_far_apart_as_the_runs_between_them():
    tasks, _ = _tasks({"tasks": {
        "main": fifo(priority=20, loop=-1, run0=2000, resume0="sub", run1=3000, resume1="sub", sleep=10000),
        "sub": fifo(priority=10, loop=-1, suspend="sub", run=500)}})
    assert tasks["sub"].deadline_ns == 3_000_000  # 3 ms between the two; 15 - 3 from the second to the next


def test_an_event_task_woken_by_two_threads_keeps_its_runs_and_sleeps_and_says_why():
    tasks, warnings = _tasks({"tasks": {
        "t1": fifo(priority=20, run=100, resume="work", timer={**TIMER, "period": 10000}),
        "t2": fifo(priority=20, run=100, resume="work", timer={"ref": "other", "period": 7000, "mode": "absolute"}),
        "work": fifo(priority=10, loop=-1, suspend="work", run=3000)}})
    assert tasks["work"].deadline_ns == 3_000_000
    assert "deadline 3ms, its job's runs and sleeps: the least time between its wake-ups is not in the file " \
           "(woken by several tasks (t1, t2), whose wake-ups may come at any distance" in _warning(warnings, "work")


def test_a_barrier_loop_gets_its_runs_and_sleeps_plus_a_loop_of_its_partner():
    """rt-app's tutorial example7: the two loops go in step, 9 ms a loop; each one's deadline is its own
    runs and sleeps and the other's (8 + 7 ms), the most its waits at the barriers can take."""
    tasks, warnings = _tasks({"tasks": {
        "task0": fifo(loop=-1, runtime1=1000, sleep1=2000, barrier1="FIRST", runtime2=2000, barrier2="SECOND",
                      runtime3=1000, sleep3=2000, barrier3="THIRD"),
        "task1": fifo(loop=-1, runtime1=2000, barrier1="FIRST", runtime2=1000, sleep2=2000, barrier2="SECOND",
                      runtime3=2000, barrier3="THIRD")}})
    assert [(tasks[n].kind, tasks[n].period_ns, tasks[n].deadline_ns) for n in ("task0", "task1")] == [
        ("self-paced", 8_000_000, 15_000_000), ("self-paced", 7_000_000, 15_000_000)]
    assert "deadline 15ms: its job waits for task1 7ms" in _warning(warnings, "task0")


def test_a_loop_waiting_for_an_event_task_keeps_its_runs_and_sleeps_and_says_why():
    tasks, warnings = _tasks({"tasks": {
        "main": fifo(priority=20, loop=-1, run=1000, resume="helper", suspend="main", run1=500),
        "helper": fifo(priority=10, loop=-1, suspend="helper", run=200, resume="main")}})
    assert (tasks["main"].kind, tasks["main"].deadline_ns) == ("self-paced", 1_500_000)
    assert 'waits for event task "helper", whose loops come only when it is woken' in _warning(warnings, "main")


def test_simulated_misses_are_the_lost_wake_ups(tmp_path):
    """b's 3 ms job keeps up with the 10 ms tick: no miss, no loss; c's 15 ms job loses every second
    wake-up, and each of its jobs misses (its next wake-up came while it ran)."""
    doc = {"tasks": {"tick": fifo(cpus=[0], priority=30, loop=-1, run=100, resume0="b", resume1="c",
                                  timer={**TIMER, "period": 10000}),
                     "b": fifo(cpus=[0], priority=20, loop=-1, suspend="b", run=3000),
                     "c": fifo(cpus=[1], priority=10, loop=-1, suspend="c", run=15000)}}
    summary = simulated(tmp_path, doc, duration="200ms")
    assert summary["activations"] == [{"task": "b", "kept": 20, "lost": 0}, {"task": "c", "kept": 10, "lost": 10}]
    misses = {t["task"]: (t["jobs"], t["deadline_misses"]) for t in summary["tasks"]}
    assert misses == {"tick": (20, 0), "b": (20, 0), "c": (10, 10)}


def test_simulated_barrier_loops_keep_their_pace(tmp_path):
    doc = {"tasks": {
        "task0": fifo(cpus=[0], loop=-1, runtime1=1000, sleep1=2000, barrier1="FIRST", runtime2=2000,
                      barrier2="SECOND", runtime3=1000, sleep3=2000, barrier3="THIRD"),
        "task1": fifo(cpus=[1], loop=-1, runtime1=2000, barrier1="FIRST", runtime2=1000, sleep2=2000,
                      barrier2="SECOND", runtime3=2000, barrier3="THIRD")}}
    summary = simulated(tmp_path, doc, duration="90ms")
    assert {t["task"]: (t["jobs"], t["deadline_misses"]) for t in summary["tasks"]} == {"task0": (10, 0),
                                                                                       "task1": (10, 0)}
