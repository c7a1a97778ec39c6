"""Start jobs of event tasks (``activated_at_start``) that share their first release: the simulator starts
them one after another in the set's order (sim/engine.py ``_threads``), as rt-app's threads and a live run's
never start at one instant. Regression: rt-app's tutorial example4 (two loops that wake each other as the
last thing their jobs do), started together after the same OS interference window, lost both wake-ups
(each found the other in its unlock's cost) and ran one job each, where rt-app and `rtsched run` alternate."""

from sim_helpers import events, sim_trace

from rtsched.sim.options import SimOverheads
from rtsched.trace import EventType as EV

MS = 1_000_000
OVERHEADS = SimOverheads(context_switch_ns=2_000, release_latency_ns=20_000, unlock_ns={"none": 500},
                         trace_event_ns=100, interference_ns=1 * MS)


def _ping_pong(offset: str = "0ms") -> dict:
    def loop(name: str, other: str) -> dict:
        return {"name": name, "kind": "event", "activated_at_start": True, "offset": offset, "period": "1ms",
                "priority": 10,
                "body": [{"compute": "1ms"}, {"lock": other}, {"activate": other}, {"unlock": other}]}
    return {"name": "ping-pong", "platform": {"scheduler": "G-FP"},
            "resources": [{"name": "a", "protocol": "none"}, {"name": "b", "protocol": "none"}],
            "tasks": [loop("a", "b"), loop("b", "a")]}


def test_two_loops_that_wake_each_other_alternate_after_one_lost_wake_up(tmp_path):
    trace, _ = sim_trace(tmp_path, _ping_pong(), 100 * MS, cpus=(0, 1), overheads=OVERHEADS)
    jobs = {task: len(events(trace, task, EV.COMPLETE)) for task in "ab"}
    assert jobs["a"] >= 45 and jobs["b"] >= 45, jobs  # a job each per 2 ms round, from 1 ms
    lost = {task: [e for e in events(trace, task, EV.ACTIVATE) if e[5] == 0] for task in "ab"}
    # a starts first; its first wake-up finds b still in its first job: lost; b's goes round
    assert (len(lost["a"]), len(lost["b"])) == (1, 0), lost


def test_the_later_start_job_keeps_the_shared_release_as_its_origin(tmp_path):
    trace, _ = sim_trace(tmp_path, _ping_pong("3ms"), 10 * MS, cpus=(0, 1), overheads=OVERHEADS)
    (a_release,) = [e[1] for e in events(trace, "a", EV.RELEASE) if e[3] == 1]
    (b_release,) = [e[1] for e in events(trace, "b", EV.RELEASE) if e[3] == 1]
    (a_start,) = [e[1] for e in events(trace, "a", EV.START) if e[3] == 1]
    (b_start,) = [e[1] for e in events(trace, "b", EV.START) if e[3] == 1]
    assert a_release == b_release == 3 * MS
    assert a_start < b_start  # b released when a started: ready a release latency after it
