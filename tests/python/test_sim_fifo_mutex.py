"""Hand-computed schedules of the FIFO mutex in the simulator (protocol: fifo,
docs/fifo-mutex.md): the longest waiter gets the lock at unlock whatever its
priority, the holder is never boosted, and a condition variable on it moves its
waiters in the order they waited. Exact simulated times; each schedule is also
run under PIP where that shows the difference."""

from __future__ import annotations

from rtsched.trace import EventType as EV

from sim_helpers import MS, events, first_job, sim_trace


def _one_cpu(protocol: str, tasks: list[dict]) -> dict:
    return {"name": "fifo", "platform": {"scheduler": "P-FP", "cpus": [0]},
            "resources": [{"name": "m", "protocol": protocol}],
            "tasks": [{"period": "50ms", "partition": "cpu0", **t} for t in tasks]}


def _section(hold: str) -> list[dict]:
    return [{"lock": "m"}, {"compute": hold}, {"unlock": "m"}]


def _queue_before_priority(protocol: str) -> dict:
    # holder (10) holds m over [0, 3 ms) of CPU time; low (20) asks at 1 ms, high (30) at 2 ms:
    # each preempts the holder, asks, and blocks at once, so the holder unlocks at 3 ms
    return _one_cpu(protocol, [
        {"name": "holder", "priority": 10, "body": _section("3ms")},
        {"name": "low", "priority": 20, "offset": "1ms", "body": _section("1ms")},
        {"name": "high", "priority": 30, "offset": "2ms", "body": _section("1ms")},
    ])


def _lock_events(trace, task):
    return [e[:2] for e in events(trace, task, EV.LOCK_REQUEST, EV.LOCK_ACQUIRE, EV.LOCK_RELEASE)]


def test_the_longest_waiter_gets_the_mutex_before_a_higher_priority_one(tmp_path):
    trace, _ = sim_trace(tmp_path, _queue_before_priority("fifo"), 20 * MS, cpus=(0,))
    # low queued first (1 ms): it is handed m at 3 ms although high (30) waits too
    assert _lock_events(trace, "low") == [("LOCK_REQUEST", 1 * MS), ("LOCK_ACQUIRE", 3 * MS),
                                          ("LOCK_RELEASE", 4 * MS)]
    assert _lock_events(trace, "high") == [("LOCK_REQUEST", 2 * MS), ("LOCK_ACQUIRE", 4 * MS),
                                           ("LOCK_RELEASE", 5 * MS)]
    assert first_job(trace, "high")["COMPLETE"] == 5 * MS
    # a FIFO mutex waits inside the library without a LOCK_BLOCKED record (as the runner's)
    assert events(trace, "high", EV.LOCK_BLOCKED) == []


def test_under_pip_the_same_set_serves_the_higher_priority_waiter_first(tmp_path):
    trace, _ = sim_trace(tmp_path, _queue_before_priority("pip"), 20 * MS, cpus=(0,))
    assert [e for e in _lock_events(trace, "high") if e[0] == "LOCK_ACQUIRE"] == [("LOCK_ACQUIRE", 3 * MS)]
    assert [e for e in _lock_events(trace, "low") if e[0] == "LOCK_ACQUIRE"] == [("LOCK_ACQUIRE", 4 * MS)]


def _inversion(protocol: str) -> dict:
    # holder (10) locks m at 0 for 2 ms; waiter (30) asks at 1 ms; medium (20), no lock,
    # released at 1.5 ms with 2 ms of work
    return _one_cpu(protocol, [
        {"name": "holder", "priority": 10, "body": _section("2ms")},
        {"name": "waiter", "priority": 30, "offset": "1ms", "body": _section("1ms")},
        {"name": "medium", "priority": 20, "offset": "1500us", "body": [{"compute": "2ms"}]},
    ])


def test_the_holder_is_not_boosted_so_a_medium_task_delays_the_waiter(tmp_path):
    trace, _ = sim_trace(tmp_path, _inversion("fifo"), 20 * MS, cpus=(0,))
    # medium preempts the holder at 1.5 ms and runs to 3.5 ms; the holder's last 0.5 ms
    # ends at 4 ms, when the waiter is handed m: a 3 ms wait for a 2 ms section
    assert first_job(trace, "medium")["START"] == 1 * MS + 500_000
    assert first_job(trace, "medium")["COMPLETE"] == 3 * MS + 500_000
    assert _lock_events(trace, "waiter") == [("LOCK_REQUEST", 1 * MS), ("LOCK_ACQUIRE", 4 * MS),
                                             ("LOCK_RELEASE", 5 * MS)]
    # the holder keeps its own priority throughout: its only PRIORITY record is its base at t0
    assert [(e[1], e[4]) for e in events(trace, "holder", EV.PRIORITY)] == [(0, 10)]


def test_under_pip_the_boosted_holder_keeps_the_medium_task_out(tmp_path):
    trace, _ = sim_trace(tmp_path, _inversion("pip"), 20 * MS, cpus=(0,))
    assert [e for e in _lock_events(trace, "waiter") if e[0] == "LOCK_ACQUIRE"] == [("LOCK_ACQUIRE", 2 * MS)]
    assert first_job(trace, "medium")["START"] == 3 * MS


def _condvar(protocol: str) -> dict:
    # w2 (10) waits on c at 0, w1 (20) at 0.5 ms; b (5) broadcasts at 1 ms under m
    waiter = [{"lock": "m"}, {"wait": "c"}, {"compute": "1ms"}, {"unlock": "m"}]
    data = _one_cpu(protocol, [
        {"name": "w2", "priority": 10, "body": waiter},
        {"name": "w1", "priority": 20, "offset": "500us", "body": waiter},
        {"name": "b", "priority": 5, "offset": "1ms", "wcet": "1us", "body": [{"lock": "m"}, {"broadcast": "c"}, {"unlock": "m"}]},
    ])
    return data | {"condvars": [{"name": "c", "mutex": "m"}]}


def test_a_broadcast_hands_the_fifo_mutex_to_the_waiters_in_the_order_they_waited(tmp_path):
    trace, _ = sim_trace(tmp_path, _condvar("fifo"), 20 * MS, cpus=(0,))
    assert [e[1] for e in events(trace, "w2", EV.COND_WAIT, EV.COND_WAKE, EV.COMPLETE)] == [0, 1 * MS, 2 * MS]
    assert [e[1] for e in events(trace, "w1", EV.COND_WAIT, EV.COND_WAKE, EV.COMPLETE)] == [
        500_000, 2 * MS, 3 * MS]


def test_a_broadcast_on_a_pip_mutex_wakes_by_priority_instead(tmp_path):
    trace, _ = sim_trace(tmp_path, _condvar("pip"), 20 * MS, cpus=(0,))
    assert [e[1] for e in events(trace, "w1", EV.COND_WAKE, EV.COMPLETE)] == [1 * MS, 2 * MS]
    assert [e[1] for e in events(trace, "w2", EV.COND_WAKE, EV.COMPLETE)] == [2 * MS, 3 * MS]


def test_the_example_takes_the_mutex_in_request_order_every_period(tmp_path):
    from pathlib import Path

    from rtsched.model import load_taskset
    from rtsched.sim import SimOptions, simulate
    from rtsched.trace import read_trace

    from lock_order import acquisitions

    example = Path(__file__).resolve().parents[2] / "examples" / "fifo-order.yaml"
    run = simulate(load_taskset(example), SimOptions(duration_ns=100 * MS), tmp_path / "sim.rtst")
    taken = acquisitions(read_trace(run.trace_path), 0)
    # per period: holder alone, then low ahead of high, then high
    assert taken == [("holder", ["holder"]), ("low", ["low", "high"]), ("high", ["high"])] * 5
