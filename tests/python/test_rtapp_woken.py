"""rt-app threads without a timer whose loop waits for another thread (docs/from-rtapp.md, "Threads woken
by others"): a loop woken by ``suspend`` or ``wait`` is an event task activated by the other threads'
``resume``/``signal``/``broad`` (rt-app's lost wake-up: activation_queue 0), a loop that waits at a
``barrier`` stays self-paced with the barrier in its job; the simulator runs them with rt-app's semantics."""

from rtapp_helpers import TIMER, errors, fifo, imported, pos, simulated, text_of

from rtsched.model import Broadcast, Compute, Lock, Signal, Unlock, Wait
from rtsched.model.model import Activate
from rtsched.model.rtapp.events import SIGNAL_KEPT


def test_a_ping_pong_of_suspend_and_resume_is_two_event_tasks_that_start_by_themselves():
    """rt-app's tutorial example4: each thread runs, resumes the other, suspends; so each runs its first
    loop unasked (activated_at_start) and every later one when the other resumes it."""
    text = text_of({"tasks": {"a": fifo(loop=-1, run=1000, resume="b", suspend="a"),
                              "b": fifo(loop=-1, run=1000, resume="a", suspend="b")}})
    ts, data, warnings = imported(text)
    a, b = ts.tasks
    assert (a.kind, a.activation_queue, a.activated_at_start, a.offset_ns) == ("event", 0, True, 0)
    assert a.body == (Compute(1_000_000), Lock("b"), Activate("b"), Unlock("b"))
    assert b.body == (Compute(1_000_000), Lock("a"), Activate("a"), Unlock("a"))
    assert a.period_ns == 1_000_000  # the job's runs: two releases never come closer (one in a job is lost)
    assert f'{pos(text, "suspend")}: tasks.a.suspend: no timer, and the loop waits at this "suspend": an event ' \
           'task, each job released by a "resume": "a" from another thread' in warnings[0]
    assert "its first job at the start" in warnings[0]


def test_a_resume_that_finds_the_thread_running_is_lost(tmp_path):
    """a resumes b every 10 ms; b's job takes 15 ms, so every second resume finds it running: lost, as
    rt-app's pthread_cond_broadcast to a thread not in pthread_cond_wait."""
    doc = {"tasks": {"a": fifo(cpus=[0], priority=20, loop=-1, run=1000, resume="b",
                               timer={**TIMER, "period": 10000}),
                     "b": fifo(cpus=[1], priority=10, loop=-1, suspend="b", run=15000)}}
    ts, _, _ = imported(doc)
    b = ts.tasks[1]
    assert (b.kind, b.activated_at_start, b.body) == ("event", False, (Compute(15_000_000),))
    summary = simulated(tmp_path, doc)
    assert summary["activations"] == [{"task": "b", "kept": 10, "lost": 10}]
    jobs = {t["task"]: t["jobs"] for t in summary["tasks"]}
    assert jobs == {"a": 20, "b": 10}


def test_a_signal_to_a_waiting_thread_releases_it_and_a_later_wait_stays_in_the_job():
    """rt-app's mp3 decoder and OMXCall: the decoder signals the condition OMXCall's loop waits on (its
    only other waiter: an activation), then waits on it in its job; OMXCall's signal wakes the decoder (a
    condition wait: kept by rtsched, lost by rt-app when nobody waits, hence the warning)."""
    text = text_of({"tasks": {
        "tick": fifo(cpus=[0], priority=30, run=100, resume="dec", timer=TIMER),
        "dec": fifo(cpus=[0], priority=20, loop=-1, suspend="dec", run=100, lock="m",
                    signal="q", wait={"ref": "q", "mutex": "m"}, unlock="m"),
        "omx": fifo(cpus=[0], priority=20, loop=-1, lock="m", wait={"ref": "q", "mutex": "m"}, unlock="m",
                    run=300, signal="q")}})
    ts, _, warnings = imported(text)
    _, dec, omx = ts.tasks
    assert (dec.kind, omx.kind) == ("event", "event")
    assert dec.body == (Compute(100_000), Lock("m"), Activate("omx"), Wait("q"), Unlock("m"))
    # the wait's mutex: taken again as pthread_cond_wait returns, then the file's unlock
    assert omx.body == (Lock("m"), Unlock("m"), Compute(300_000), Lock("m"), Signal("q"), Unlock("m"))
    assert f"{pos(text, 'signal', 1)}: tasks.omx.signal: {SIGNAL_KEPT}" in warnings
    assert not any("tasks.dec.signal" in w for w in warnings)


def test_a_resume_wakes_every_thread_suspended_on_the_name():
    ts, _, _ = imported({"tasks": {"tick": fifo(run=100, resume="sub", timer=TIMER),
                                   "s1": fifo(loop=-1, suspend="sub", run=100),
                                   "s2": fifo(loop=-1, suspend="sub", run=100)}})
    assert ts.tasks[0].body == (Compute(100_000), Lock("sub"), Activate("s1"), Activate("s2"), Unlock("sub"))


def test_a_broad_also_wakes_the_threads_waiting_inside_a_job():
    ts, _, _ = imported({"tasks": {
        "tick": fifo(run=100, lock="m", broad="c", unlock="m", timer=TIMER),
        "e": fifo(loop=-1, lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", run=100),
        "w": fifo(run=100, lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", timer=TIMER)}})
    assert ts.tasks[0].body == (Compute(100_000), Lock("m"), Activate("e"), Broadcast("c"), Unlock("m"))


def test_a_signal_with_several_possible_waiters_is_refused_naming_them():
    text = text_of({"tasks": {
        "tick": fifo(run=100, lock="m", signal="c", unlock="m", timer=TIMER),
        "e1": fifo(loop=-1, lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", run=100),
        "e2": fifo(loop=-1, lock="m", wait={"ref": "c", "mutex": "m"}, unlock="m", run=100)}})
    (error,) = errors(text)
    assert error.startswith(f'{pos(text, "signal")}: tasks.tick.signal: signal of "c" wakes one of the threads '
                            "that wait on it (e1, e2)")


def test_a_barrier_of_three_holds_each_loop_until_the_last_arrives(tmp_path):
    """rt-app's tutorial example7, with three threads: each loop is a self-paced job that ends at the
    barrier, so all three run as many loops, each as long as the slowest arrival (b then c on CPU 1: 5 ms)."""
    doc = {"tasks": {"a": fifo(cpus=[0], priority=10, loop=-1, run=1000, barrier="B"),
                     "b": fifo(cpus=[1], priority=20, loop=-1, run=2000, barrier="B"),
                     "c": fifo(cpus=[1], priority=10, loop=-1, run=3000, barrier="B")}}
    ts, _, _ = imported(doc)
    assert [t.kind for t in ts.tasks] == ["self-paced"] * 3
    a = ts.tasks[0]
    assert a.body == (Compute(1_000_000), Lock("B.1"), Signal("B.1"), Unlock("B.1"), Lock("B.2"), Signal("B.2"),
                      Unlock("B.2"), Lock("B.0"), Wait("B.0"), Wait("B.0"), Unlock("B.0"))
    summary = simulated(tmp_path, doc, duration="100ms")
    tasks = {t["task"]: t for t in summary["tasks"]}
    assert [tasks[n]["jobs"] for n in "abc"] == [20, 20, 20]
    assert tasks["a"]["response_min_ns"] == 5_000_000  # its 1 ms, then the wait for c's arrival


def test_on_one_cpu_the_first_resume_finds_the_other_not_yet_waiting(tmp_path):
    """a (higher priority) runs its first loop and resumes b, which has not run its own first loop yet, so
    is not suspended: lost, as in rt-app. Then b runs, resumes a, and they alternate: 1 ms each."""
    doc = {"tasks": {"a": fifo(cpus=[0], priority=20, loop=-1, run=1000, resume="b", suspend="a"),
                     "b": fifo(cpus=[0], priority=10, loop=-1, run=1000, resume="a", suspend="b")}}
    summary = simulated(tmp_path, doc, duration="100ms")
    assert summary["activations"] == [{"task": "a", "kept": 50, "lost": 0}, {"task": "b", "kept": 49, "lost": 1}]
    assert [(t["task"], t["jobs"]) for t in summary["tasks"]] == [("a", 50), ("b", 50)]


def test_a_sync_whose_signal_wakes_a_waiting_loop_is_its_activation_then_a_wait():
    """rt-app's browser: BrowserDisplay syncs with Binder-dummy, whose loop waits on the condition: the sync's
    signal activates it, then the sync waits in the job, woken by Binder-dummy's signal."""
    text = text_of({"tasks": {
        "tick": fifo(run=100, resume="disp", timer=TIMER),
        "disp": fifo(loop=-1, suspend="disp", run=300, lock="m", sync={"ref": "q", "mutex": "m"}, unlock="m"),
        "binder": fifo(loop=-1, lock="m", wait={"ref": "q", "mutex": "m"}, unlock="m", run=200, signal="q")}})
    ts, _, warnings = imported(text)
    _, disp, binder = ts.tasks
    assert disp.body == (Compute(300_000), Lock("m"), Activate("binder"), Wait("q"), Unlock("m"))
    assert binder.body == (Lock("m"), Unlock("m"), Compute(200_000), Lock("m"), Signal("q"), Unlock("m"))
    assert f"{pos(text, 'signal')}: tasks.binder.signal: {SIGNAL_KEPT}" in warnings


def test_a_loop_with_events_on_both_sides_of_its_first_wait_is_self_paced_with_the_waits_in_its_job():
    text = text_of({"tasks": {"a": fifo(loop=3, run=100, suspend="a", run1=200),
                              "b": fifo(run=10, resume="a", timer=TIMER)}})
    ts, _, warnings = imported(text)
    a, b = ts.tasks
    assert (a.kind, a.max_jobs) == ("self-paced", 3)
    assert a.body == (Compute(100_000), Lock("a"), Wait("a"), Unlock("a"), Compute(200_000))
    assert b.body == (Compute(10_000), Lock("a"), Broadcast("a"), Unlock("a"))  # a resume: a broadcast, as rt-app's
    assert any(w.startswith(f'{pos(text, "suspend")}: tasks.a.suspend: no timer, and the loop has events both '
                            'before and after its first "suspend"') and "a self-paced task, its waits inside its job"
               in w for w in warnings)
