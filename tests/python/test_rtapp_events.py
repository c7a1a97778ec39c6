"""Each rt-app event: what it becomes in the job body, or its error with the key's position."""

import pytest
from rtapp_helpers import TIMER, errors, fifo, imported, pos, text_of

from rtsched.model import Broadcast, Compute, Lock, Signal, Sleep, Unlock, Wait
from rtsched.model.rtapp import event_kind
from rtsched.model.rtapp.events import SIGNAL_KEPT


def one_task_body(**events):
    ts, _, warnings = imported({"tasks": {"t": fifo(**events, timer=TIMER)}})
    return ts.tasks[0].body, warnings


def test_event_names_match_by_prefix_as_rt_app_does():
    assert event_kind("run0") == "run"
    assert event_kind("run_end") == "run"  # rt-app's own example2.json uses run_end and runend
    assert event_kind("runtime2") == "runtime"
    assert event_kind("sleep1") == "sleep"
    assert event_kind("lockA") == "lock"
    assert event_kind("unlock_b") == "unlock"
    assert event_kind("broad3") == "broad"
    assert event_kind("sync0") == "sync"
    assert event_kind("timer0") == "timer"
    assert event_kind("yield") == "yield"
    assert event_kind("memrun_a") == "memrun" and event_kind("mem1") == "mem"  # memrun is tested first
    assert event_kind("sem_post0") == "sem_post" and event_kind("sem_wait") == "sem_wait"
    assert event_kind("priority") is None and event_kind("loop") is None and event_kind("instance") is None


def test_run_runtime_and_sleep_in_microseconds():
    body, _ = one_task_body(run0=100, sleep0=50, runtime1=200, sleep1=25, run_end=1)
    assert body == (Compute(100_000), Sleep(50_000), Compute(200_000), Sleep(25_000), Compute(1_000))


def test_zero_run_or_sleep_is_left_out_with_a_warning():
    text = text_of({"tasks": {"t": fifo(run=10, sleep=0, timer=TIMER)}})
    ts, _, warnings = imported(text)
    assert ts.tasks[0].body == (Compute(10_000),)
    assert warnings == [f"{pos(text, 'sleep')}: tasks.t.sleep: sleep of 0 us does nothing: left out"]


def test_lock_unlock_and_condition_events():
    doc = {"global": {"pi_enabled": True}, "tasks": {
        "prod": fifo(priority=20, run=100, lock="m", signal="c", broad="c", unlock="m", timer=TIMER),
        "cons": fifo(priority=10, lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", timer=TIMER),
    }}
    ts, _, _ = imported(doc)
    assert [(r.name, r.protocol) for r in ts.resources] == [("m", "pip")]
    assert ts.condvar("c").mutex == "m"
    assert ts.task("prod").body == (Compute(100_000), Lock("m"), Signal("c"), Broadcast("c"), Unlock("m"))
    assert ts.task("cons").body == (Lock("m"), Wait("c"), Unlock("m"))


def test_signal_and_wait_without_the_mutex_are_wrapped():
    doc = {"tasks": {"prod": fifo(priority=20, run=100, signal="c", timer=TIMER),
                     "cons": fifo(priority=10, wait={"ref": "c", "mutex": "m"}, timer=TIMER)}}
    ts, _, warnings = imported(doc)
    assert ts.task("prod").body == (Compute(100_000), Lock("m"), Signal("c"), Unlock("m"))
    assert ts.task("cons").body == (Lock("m"), Wait("c"), Unlock("m"))
    assert sum("done with the condition's mutex held" in w for w in warnings) == 2


def test_suspend_and_resume_use_a_condition_named_after_the_thread():
    text = ('{"tasks": {"a": {"policy": "SCHED_FIFO", "priority": 20, "run": 10, "resume": "b",'
            ' "timer": {"ref": "ta", "period": 1000}},'
            ' "b": {"policy": "SCHED_FIFO", "suspend": "", "run": 20, "timer": {"ref": "tb", "period": 1000}}}}')
    ts, _, _ = imported(text)
    assert ts.task("a").body == (Compute(10_000), Lock("b"), Broadcast("b"), Unlock("b"))
    # an empty suspend names the thread itself, as workgen fills it in
    assert ts.task("b").body == (Lock("b"), Wait("b"), Unlock("b"), Compute(20_000))
    assert ts.condvar("b").mutex == "b"


def test_barrier_between_two_threads():
    doc = {"tasks": {"a": fifo(priority=20, run=10, barrier="B", timer=TIMER),
                     "b": fifo(priority=10, barrier="B", run=20, timer=TIMER)}}
    ts, _, _ = imported(doc)
    assert [c.name for c in ts.condvars] == ["B.0", "B.1"]
    assert ts.task("a").body == (Compute(10_000), Lock("B.1"), Signal("B.1"), Unlock("B.1"),
                                 Lock("B.0"), Wait("B.0"), Unlock("B.0"))
    assert ts.task("b").body == (Lock("B.0"), Signal("B.0"), Unlock("B.0"),
                                 Lock("B.1"), Wait("B.1"), Unlock("B.1"), Compute(20_000))


def test_barrier_of_three_waits_for_both_others():
    doc = {"tasks": {n: fifo(priority=p, barrier="X", timer=TIMER) for n, p in (("a", 3), ("b", 2), ("c", 1))}}
    ts, _, _ = imported(doc)
    body = ts.task("c").body
    assert body.count(Signal("X.0")) == 1 and body.count(Signal("X.1")) == 1 and Signal("X.2") not in body
    assert body.count(Wait("X.2")) == 2


def test_barrier_with_one_user_is_an_error():
    text = text_of({"tasks": {"a": fifo(barrier="alone", timer=TIMER), "b": fifo(run=1, timer=TIMER)}})
    assert errors(text) == [f"{pos(text, 'barrier')}: tasks.a: barrier \"alone\" has one user: rt-app "
                            "needs at least two threads at a barrier"]


def test_yield_is_left_out_under_fifo_and_refused_under_deadline():
    text = text_of({"tasks": {"t": fifo(run=10, yield0="", timer=TIMER)}})
    ts, _, warnings = imported(text)
    assert ts.tasks[0].body == (Compute(10_000),)
    assert warnings == [f"{pos(text, 'yield0')}: tasks.t.yield0: yield left out: rtsched has no yield "
                        "action (it only lets a thread of the same priority on the same CPU run first)"]
    text = text_of({"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 10, "yield": "", "timer": TIMER}}})
    assert errors(text) == [f"{pos(text, 'yield')}: tasks.t.yield: yield of a SCHED_DEADLINE thread gives "
                            "up the rest of its runtime until the next period: rtsched has no such action"]


@pytest.mark.parametrize(("key", "value", "reason"), [
    ("sync", {"ref": "c", "mutex": "m"}, "rtsched's condition signals are counted, so the thread would take its own "
                                         "signal and not wait: a sync maps only when its signal wakes a thread whose "
                                         "loop waits on the condition"),
    ("memrun0", {"type": "chase", "size": 4096}, "take as long as the caches make them"),
])
def test_refused_events_name_the_event_its_position_and_why(key, value, reason):
    text = text_of({"tasks": {"t": fifo(run=10, **{key: value}, timer=TIMER)}})
    kind = event_kind(key)
    (error,) = errors(text)
    assert error.startswith(f'{pos(text, key)}: tasks.t.{key}: rt-app event "{kind}" is not supported: ')
    assert reason in error


def test_timer_gives_the_period_and_must_end_the_job():
    ts, _, _ = imported({"tasks": {"t": fifo(run=10, timer={"ref": "x", "period": 5000, "mode": "absolute"})}})
    assert ts.tasks[0].period_ns == 5_000_000
    text = text_of({"tasks": {"t": fifo(run0=10, timer=TIMER, run1=10)}})
    assert errors(text) == [f"{pos(text, 'timer')}: tasks.t.timer: the timer must be the last event of "
                            "the job (it ends the job; events after it would start the next one)"]
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "timer0": {"ref": "a", "period": 100}, "run": 1,'
            ' "timer1": {"ref": "a", "period": 100}}}}')
    assert errors(text) == [f"{pos(text, 'timer0')}: tasks.t.timer0: only one timer per job, as its last "
                            "event (it ends the job)"]


def test_a_phase_without_timer_beside_phases_with_one_is_refused_with_the_reason():
    doc = {"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 1, "phases": {
        "a": {"loop": 2, "run": 100, "timer": TIMER}, "b": {"run": 100, "sleep": 100}}}}}
    text = text_of(doc)
    (error,) = errors(text)
    assert error.startswith(f"{pos(text, 'b')}: tasks.t.phases.b: no timer, while other phases of the thread "
                            "have one")


def test_bad_event_values():
    text = text_of({"tasks": {"t": fifo(run="100", sleep=-1, lock=3, timer={"ref": "t", "period": 0})}})
    assert sorted(errors(text)) == sorted([
        f"{pos(text, 'run')}: tasks.t.run: expected an integer of microseconds, got \"100\"",
        f"{pos(text, 'sleep')}: tasks.t.sleep: must be >= 0 microseconds, got -1",
        f"{pos(text, 'lock')}: tasks.t.lock: expected a name, got 3",
        f"{pos(text, 'period')}: tasks.t.timer.period: expected a period > 0 microseconds, got 0",
    ])


def test_sem_post_and_sem_wait_are_a_condition_whose_signals_are_counted_as_the_semaphore_counts():
    """rt-app's sem_post/sem_wait are a POSIX semaphore (count 0 at the start): a post nobody waits for is
    kept, as rtsched's counted signal is; the semaphore's name is apart from mutexes of the same name."""
    ts, _, warnings = imported({"tasks": {
        "producer": fifo(cpus=[0], run=10, lock="q", sem_post="q", unlock="q", timer=TIMER),
        "consumer": fifo(cpus=[0], sem_wait="q", run=20, timer={**TIMER, "period": 2000})}})
    producer, consumer = ts.tasks
    assert producer.body == (Compute(10_000), Lock("q"), Lock("sem.q"), Signal("sem.q"), Unlock("sem.q"),
                             Unlock("q"))
    assert consumer.body == (Lock("sem.q"), Wait("sem.q"), Unlock("sem.q"), Compute(20_000))
    assert [(c.name, c.mutex) for c in ts.condvars] == [("sem.q", "sem.q")]
    assert warnings == []  # a semaphore keeps its posts in rt-app too


def test_a_self_paced_loop_on_sem_wait_waits_in_its_job():
    """A semaphore keeps its posts in both: the wait is exact inside a self-paced job (a loop without timer)."""
    ts, _, _ = imported({"tasks": {"t": fifo(sem_wait="q", run=10, sleep=100),
                                   "u": fifo(run=10, sem_post="q", timer=TIMER)}})
    t, _ = ts.tasks
    assert t.kind == "self-paced"
    assert t.body == (Lock("sem.q"), Wait("sem.q"), Unlock("sem.q"), Compute(10_000))


def test_a_signal_warns_that_rt_app_loses_it_when_nobody_waits():
    text = text_of({"tasks": {"a": fifo(lock="m", signal="c", unlock="m", run=10, timer=TIMER),
                              "b": fifo(lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", run=10, timer=TIMER)}})
    _, _, warnings = imported(text)
    assert warnings == [f"{pos(text, 'signal')}: tasks.a.signal: {SIGNAL_KEPT}"]


@pytest.mark.parametrize("mode", [None, "relative"])
def test_a_relative_timer_warns_that_rt_app_moves_its_releases_after_a_late_job(mode):
    timer = {"ref": "x", "period": 1000, **({"mode": mode} if mode else {})}
    text = text_of({"tasks": {"t": fifo(run=10, timer=timer)}})
    _, _, warnings = imported(text)
    key = "mode" if mode else "timer"
    assert warnings == [f"{pos(text, key)}: tasks.t.timer{'.mode' if mode else ''}: rt-app's \"relative\" timer "
                        "(its default mode): a job that ends after its next release starts the next job at once "
                        "and moves every later release that late; rtsched keeps them on the grid, as rt-app's "
                        "\"absolute\" mode does (they agree while every job ends before its next release)"]


def test_a_loop_that_starts_on_its_timer_releases_its_first_job_one_period_after_the_start():
    """rt-app's first timer fires at delay + period: the events after the timer are each job."""
    text = text_of({"tasks": {"t": fifo(loop=5, delay=300, timer={**TIMER, "period": 2000}, run=10)}})
    ts, _, warnings = imported(text)
    (task,) = ts.tasks
    assert (task.period_ns, task.offset_ns, task.max_jobs, task.body) == (2_000_000, 2_300_000, 5, (Compute(10_000),))
    assert warnings == [f"{pos(text, 'timer')}: tasks.t.timer: the loop starts on its timer: each job is the events "
                        "after it, the first released one period (2ms) after the thread starts, as rt-app's first "
                        "timer fires"]


def test_phases_that_start_on_their_only_timer_are_one_loop():
    """rt-app's cpufreq_governor_efficiency/dvfs.json: a phase of the timer alone, then a phase that runs."""
    ts, _, _ = imported({"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 10, "phases": {
        "sleeping": {"loop": 1, "timer": {**TIMER, "period": 12000}}, "running": {"loop": 2, "run": 900}}}}})
    (task,) = ts.tasks
    assert (task.name, task.period_ns, task.offset_ns, task.max_jobs) == ("t", 12_000_000, 12_000_000, 10)
    assert task.body == (Compute(900_000), Compute(900_000))
    text = text_of({"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
        "sleeping": {"timer": TIMER}, "running": {"priority": 5, "run": 900, "dl-runtime": 100}}}}})
    assert errors(text) == [f"{pos(text, 'dl-runtime')}: tasks.t.phases.running.dl-runtime: the phases of a thread "
                            "that start on their only timer become one task (one loop): a phase cannot set its own "
                            "dl-runtime (a task keeps the SCHED_DEADLINE reservation it starts with); set it on "
                            "the thread"]
