"""rt-app's fork: a launcher thread of sleeps and forks maps (each fork a copy of the forked thread's tasks,
released at the fork's time); a thread that runs once and forks maps (each fork an activation of a copy
started by it); every other fork is refused with the reason, at the key's position."""

from rtapp_helpers import errors, fifo, imported, pos, text_of

MS = 1_000_000
WORKER = fifo(instance=0, loop=10, run=1000, timer={"ref": "unique", "period": 10000, "mode": "absolute"})


def test_a_launcher_forks_copies_at_its_sleeps_times():
    text = text_of({"tasks": {"launcher": {"loop": 2, "delay": 1000, "sleep": 5000, "fork": "worker"},
                              "worker": {**WORKER, "delay": 500}}})
    ts, _, warnings = imported(text)
    assert [(t.name, t.offset_ns, t.max_jobs) for t in ts.tasks] == [
        ("worker-f0", 6500_000, 10), ("worker-f1", 11500_000, 10)]  # delay + sleeps, then the worker's delay
    assert warnings == [f"{pos(text, 'launcher')}: tasks.launcher: a launcher of sleeps and forks: no task of its "
                        "own; each fork is a copy of the forked thread's tasks, released at the fork's time"]


def test_forks_of_a_thread_that_also_starts_at_t0_and_several_launcher_instances():
    ts, _, _ = imported({"tasks": {"go": {"instance": 2, "loop": 1, "sleep": 3000, "fork": "w", "sleep1": 1000,
                                          "fork1": "w"},
                                   "w": {**WORKER, "instance": 1}}})
    assert [(t.name, t.offset_ns) for t in ts.tasks] == [
        ("w", 0), ("w-f0", 3 * MS), ("w-f1", 4 * MS), ("w-f2", 3 * MS), ("w-f3", 4 * MS)]


def test_a_fork_in_a_thread_that_runs_once_starts_a_copy_where_the_thread_gets_to_it():
    """rt-app's tutorial example9: thread3's phases fork thread1, run, sleep, fork thread2, run, sleep; its
    forks happen when it gets there, so each is the activation of a copy started by it."""
    ts, data, _ = imported({"tasks": {
        "t": fifo(loop=1, phases={"p1": {"fork": "w", "run": 10, "sleep": 10}, "p2": {"fork": "v", "run": 20}}),
        "w": WORKER, "v": {**WORKER, "instance": 1}}})
    assert [(t.name, t.kind, t.started_by_activation, t.max_jobs) for t in ts.tasks] == [
        ("t", "self-paced", False, 1), ("w-f0", "periodic", True, 10), ("v", "periodic", False, 10),
        ("v-f0", "periodic", True, 10)]
    assert data["tasks"][0]["body"] == [{"activate": "w-f0"}, {"compute": "10us"}, {"sleep": "10us"},
                                        {"activate": "v-f0"}, {"compute": "20us"}]


def test_a_thread_that_runs_and_forks_must_run_once():
    text = text_of({"tasks": {"t": fifo(run=10, fork="w"), "w": WORKER}})
    assert errors(text) == [
        f"{pos(text, 't')}: tasks.t.loop: a thread that runs and forks must run its loop once (loop 1, one "
        "instance), got loop none (rt-app's default, -1): its one job then reaches each fork once, and each fork "
        "starts a copy of the forked thread's task when it gets there"]
    text = text_of({"tasks": {"t": fifo(loop=1, phases={"p": {"loop": 2, "fork": "w", "run": 10}}), "w": WORKER}})
    (error,) = errors(text)
    assert error.startswith(f"{pos(text, 'fork')}: tasks.t.phases.p.fork: this fork is reached in each of the "
                            "thread's 2 jobs (its phase's loop): each would start a thread of its own")


def test_refused_launchers_say_why():
    text = text_of({"tasks": {"l": {"sleep": 10, "fork": "w"}, "w": WORKER}})
    assert errors(text) == [f"{pos(text, 'l')}: tasks.l.loop: a launcher needs a finite loop (> 0), got none "
                            "(rt-app's default, -1): rt-app would fork until its fork limit and then exit"]
    text = text_of({"tasks": {"l": {"loop": 1, "fork": "nobody"}, "w": WORKER}})
    assert errors(text) == [f'{pos(text, "fork")}: tasks.l.fork: fork of "nobody": no such thread in tasks']
    text = text_of({"tasks": {"l": {"phases": {"p": {"fork": "w"}}}, "w": WORKER}})
    assert errors(text)[0].startswith(f"{pos(text, 'l')}: tasks.l.loop: a thread that runs and forks must run its "
                                      "loop once")


def test_nested_forks_and_forked_barriers_are_refused():
    text = text_of({"tasks": {"a": {"loop": 1, "fork": "b"}, "b": {"loop": 1, "fork": "w"}, "w": WORKER}})
    assert errors(text) == [f"{pos(text, 'a')}: tasks.a: fork of \"b\", which forks itself: only one level of forks "
                            "maps (a launcher's forks are its own threads' copies)"]
    text = text_of({"tasks": {"a": {"loop": 1, "fork": "w"},
                              "w": fifo(instance=0, loop=1, barrier="x", run=10, timer={"ref": "w", "period": 1000}),
                              "v": fifo(barrier="x", run=5, timer={"ref": "v", "period": 1000})}})
    assert errors(text) == [f"{pos(text, 'barrier')}: tasks.w: a forked thread cannot use a barrier (rt-app refuses "
                            "it too: a barrier's number of users must be known)"]
