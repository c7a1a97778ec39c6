"""Locks among tasks inside reservations in the simulator (docs/reservations.md, "Locks inside
reservations"): hand-computed schedules with exact simulated times. A holder runs only in its
own reservation, on its budget; it inherits its waiters' keys inside it, whichever reservation
they are in; the ceiling protocols work per reservation, with its levels. What is not
simulated is refused with its path."""

from __future__ import annotations

import pytest

from rtsched.model import taskset_from_dict
from rtsched.model.reservation_locks import lock_homes, reservation_ceiling, reservation_levels
from rtsched.sim import SimOptions, SimUnsupported, simulate, unsupported_features
from rtsched.trace import BlockCause
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

US, MS = 1_000, 1_000_000


def _set(resources, reservations, tasks):
    return taskset_from_dict({"name": "locks", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
                              "resources": resources, "reservations": reservations, "tasks": tasks})


def _run(tmp_path, taskset, duration_ns):
    run = simulate(taskset, SimOptions(duration_ns=duration_ns), tmp_path / "trace.rtst")
    return read_trace(run.trace_path)


def _times(trace, name, kind):
    stream = next(s for s in trace.streams if s["name"] == name)
    evs = trace.events_of(stream["stream_id"])
    return [int(e["time_ns"]) for e in evs if e["type"] == kind]


def _events(trace, name, kind):
    stream = next(s for s in trace.streams if s["name"] == name)
    evs = trace.events_of(stream["stream_id"])
    return [(int(e["time_ns"]), int(e["arg0"]), int(e["arg1"])) for e in evs if e["type"] == kind]


def _task(name, reservation, priority=None, offset=None, period="100ms", body=()):
    t = {"name": name, "reservation": reservation, "partition": "cpu0", "period": period, "body": list(body)}
    if priority is not None:
        t["priority"] = priority
    if offset is not None:
        t["offset"] = offset
    return t


def _section(lock, compute):
    return [{"lock": lock}, {"compute": compute}, {"unlock": lock}]


R = {"name": "R", "period": "10ms", "budget": "5ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"}
INVERSION = [_task("low", "R", 1, body=_section("m", "3500us")),
             _task("high", "R", 3, offset="1ms", body=_section("m", "1ms")),
             _task("mid", "R", 2, offset="2ms", body=[{"compute": "2ms"}])]


def test_pip_inside_a_reservation_inherits_as_on_a_processor(tmp_path):
    """R gives 5 ms every 10. low holds m from 0; high (1 ms) blocks on it and lends low priority 3,
    so mid (2 ms) waits: low unlocks at 3.5, high runs to 4.5, mid to R's depletion at 5 and
    finishes at 10 + 1.5 ms."""
    trace = _run(tmp_path, _set([{"name": "m", "protocol": "pip"}], [R], INVERSION), 30 * MS)
    assert _times(trace, "low", EV.COMPLETE) == [3500 * US]
    assert _times(trace, "high", EV.LOCK_ACQUIRE) == [3500 * US]
    assert _times(trace, "high", EV.COMPLETE) == [4500 * US]
    assert _times(trace, "mid", EV.COMPLETE) == [11500 * US]
    assert [(t, prio) for t, prio, _ in _events(trace, "low", EV.PRIORITY)] == [(0, 1), (MS, 3), (3500 * US, 1)]
    assert _times(trace, "R", EV.RESERVATION_DEPLETE) == [5 * MS, 15 * MS, 25 * MS]


def test_without_inheritance_the_inversion_runs_into_the_next_period(tmp_path):
    """The same with protocol none: mid preempts low (2..4), low's section ends after R's
    depletion at 5, at 10.5, and high completes at 11.5 instead of 4.5."""
    trace = _run(tmp_path, _set([{"name": "m", "protocol": "none"}], [R], INVERSION), 30 * MS)
    assert _times(trace, "mid", EV.COMPLETE) == [4 * MS]
    assert _times(trace, "low", EV.COMPLETE) == [10500 * US]
    assert _times(trace, "high", EV.COMPLETE) == [11500 * US]


A = {"name": "A", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"}
B = {"name": "B", "period": "10ms", "budget": "5ms", "scheduler": "FP", "priority": 10, "partition": "cpu0"}


def test_a_holder_runs_on_its_own_budget_with_the_key_inherited_from_another_reservation(tmp_path):
    """a_low (A, priority 1) holds m for 3 ms; A gives 2 ms every 10. b (B, priority 10) asks for m
    at 2 ms, when A is depleted: a_low does not run on B's budget (no bandwidth inheritance), so B
    idles its 5 ms away and the CPU is idle to 10. At 10 a_low, lent priority 10, runs before
    a_mid (priority 5, released at 10) inside A, unlocks at 11; a_mid runs to A's depletion at
    12; then b, 12..13."""
    ts = _set([{"name": "m", "protocol": "pip"}], [A, B],
              [_task("a_low", "A", 1, body=_section("m", "3ms")),
               _task("a_mid", "A", 5, offset="10ms", body=[{"compute": "1ms"}]),
               _task("b", "B", 10, body=_section("m", "1ms"))])
    trace = _run(tmp_path, ts, 20 * MS)
    assert _times(trace, "a_low", EV.COMPLETE) == [11 * MS]
    assert [(t, prio) for t, prio, _ in _events(trace, "a_low", EV.PRIORITY)] == [(0, 1), (2 * MS, 10), (11 * MS, 1)]
    assert _times(trace, "a_mid", EV.START) == [11 * MS] and _times(trace, "a_mid", EV.COMPLETE) == [12 * MS]
    assert _times(trace, "b", EV.LOCK_REQUEST) == [2 * MS] and _times(trace, "b", EV.LOCK_ACQUIRE) == [12 * MS]
    assert _times(trace, "b", EV.COMPLETE) == [13 * MS]
    assert _times(trace, "B", EV.RESERVATION_DEPLETE) == [7 * MS, 17 * MS]  # idled away while b waited
    assert [(t, used) for t, used, _ in _events(trace, "B", EV.RESERVATION_REPLENISH)] == [(0, 0), (10 * MS, 5 * MS)]


def test_ceilings_work_per_reservation(tmp_path):
    """x (ipcp) is A's: a1 (priority 5) holds it from 0 over A's depletion at 3 ms. a3 (priority 7,
    released at 1) is held at its start by x's ceiling 7 until a1 unlocks at 12. In B (EDF) the
    tasks have their own levels and y (srp) is B's: b2 (deadline 50 ms) then b1 run 3..6, never
    held back by x, though b1's level number is below x's ceiling."""
    ts = _set([{"name": "x", "protocol": "ipcp"}, {"name": "y", "protocol": "srp"}],
              [{**A, "budget": "3ms"}, {**B, "scheduler": "EDF"}],
              [_task("a1", "A", 5, body=_section("x", "5ms")),
               _task("a3", "A", 7, offset="1ms", body=_section("x", "1ms")),
               _task("b1", "B", body=[{"compute": "2ms"}]),
               _task("b2", "B", period="50ms", body=_section("y", "1ms"))])
    assert reservation_levels(ts, "B") == {"b1": 1, "b2": 2} and reservation_ceiling(ts, "x", "A") == 7
    trace = _run(tmp_path, ts, 20 * MS)
    a1_tid = next(s["tid"] for s in trace.streams if s["name"] == "a1")
    assert _events(trace, "a3", EV.LOCK_BLOCKED) == [(MS, int(BlockCause.GATE), a1_tid)]
    assert _times(trace, "a1", EV.LOCK_RELEASE) == [12 * MS]
    assert _times(trace, "a3", EV.START) == [12 * MS] and _times(trace, "a3", EV.COMPLETE) == [13 * MS]
    assert _times(trace, "b2", EV.COMPLETE) == [4 * MS] and _times(trace, "b1", EV.COMPLETE) == [6 * MS]
    assert _events(trace, "b1", EV.LOCK_BLOCKED) == []


def test_what_is_not_simulated_is_refused_with_its_path():
    cases = [
        ([{"name": "g", "protocol": "mpcp"}], [_task("a", "A", 5, body=_section("g", "1ms"))],
         'resources[0]: "g" (mpcp) is used inside a reservation'),
        ([{"name": "x", "protocol": "srp"}], [_task("a", "A", 5, body=_section("x", "1ms")),
                                             _task("b", "B", 5, body=_section("x", "1ms"))],
         'resources[0]: "x" (srp) is used in reservation "A", reservation "B"'),
        ([{"name": "x", "protocol": "ipcp", "ceiling": 9}], [_task("a", "A", 5, body=_section("x", "1ms"))],
         'resources[0].ceiling: "x" is used inside reservation "A"'),
    ]
    for resources, tasks, message in cases:
        problems = unsupported_features(_set(resources, [A, B], tasks))
        assert any(p.startswith(message) for p in problems), problems
    edf = _set([{"name": "x", "protocol": "pcp"}], [A, {**B, "scheduler": "EDF"}],
               [_task("b", "B", body=_section("x", "1ms"))])
    assert any('"x" (pcp) is used in EDF reservation "B"' in p for p in unsupported_features(edf))
    with pytest.raises(SimUnsupported, match="condition variables or RPC servers"):
        simulate(taskset_from_dict({
            "name": "cv", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
            "resources": [{"name": "m"}], "condvars": [{"name": "c", "mutex": "m"}], "reservations": [A],
            "tasks": [_task("a", "A", 5, body=[{"lock": "m"}, {"compute": "1ms"}, {"signal": "c"}, {"unlock": "m"}])]}),
            SimOptions(duration_ns=MS), "/dev/null")


def test_pip_across_reservations_and_the_top_level_is_simulated():
    ts = _set([{"name": "m", "protocol": "pip"}], [A],
              [_task("a", "A", 5, body=_section("m", "1ms")),
               {"name": "top", "partition": "cpu0", "period": "20ms", "priority": 30, "body": _section("m", "1ms")}])
    assert lock_homes(ts) == {"m": ("A", None)} and unsupported_features(ts) == []


def test_a_waiter_of_an_fp_reservation_makes_a_holder_the_first_of_its_edf_reservation(tmp_path):
    """Keys of different orders compare as in the ult runtime: an FP key is above every deadline.
    e_low (EDF reservation E, deadline 100 ms) holds m over E's depletion at 3 ms; b (FP
    reservation B) blocks on it at 3 and lends it its FP key, so at 10 e_low runs before e2
    (deadline 40 ms), unlocks at 12, and e2 runs 12..13 (E depleted at 13)."""
    ts = _set([{"name": "m", "protocol": "pip"}],
              [{"name": "E", "period": "10ms", "budget": "3ms", "scheduler": "EDF", "priority": 20,
                "partition": "cpu0"}, B],
              [_task("e_low", "E", body=_section("m", "5ms")),
               _task("e2", "E", offset="10ms", period="30ms", body=[{"compute": "1ms"}]),
               _task("b", "B", 5, body=_section("m", "1ms"))])
    trace = _run(tmp_path, ts, 20 * MS)
    assert _times(trace, "b", EV.LOCK_REQUEST) == [3 * MS]
    assert _times(trace, "e_low", EV.LOCK_RELEASE) == [12 * MS]
    assert _times(trace, "e2", EV.START) == [12 * MS] and _times(trace, "e2", EV.COMPLETE) == [13 * MS]
    assert _times(trace, "b", EV.COMPLETE) == [14 * MS]


def test_the_example_stays_within_its_bounds(tmp_path):
    """examples/reservation-locks.yaml simulated for its 2 s: no miss, every response within
    `rtsched analyze`'s bound, and the inversion happens (sensor waits for logger's section,
    which runs lent sensor's priority 30)."""
    from pathlib import Path

    from rtsched.analysis.reservations import analyze_reservations
    from rtsched.model import load_taskset
    from sim_helpers import worst_responses

    ts = load_taskset(Path(__file__).resolve().parents[2] / "examples" / "reservation-locks.yaml")
    analysis = analyze_reservations(ts)
    assert analysis.tasks.verdict == "schedulable"
    bounds = {b.name: b.bound_ns for b in analysis.tasks.tasks}
    worst, misses = worst_responses(tmp_path / "t.rtst", ts, ts.duration_ns)
    assert misses == 0
    assert all(worst[n] <= bounds[n] for n in bounds), (worst, bounds)
    assert worst["sensor"] == 2 * MS and bounds["sensor"] == 17 * MS  # 1 ms of its own, 1 ms blocked
    trace = read_trace(tmp_path / "t.rtst")
    assert 30 in {prio for _, prio, _ in _events(trace, "logger", EV.PRIORITY)}
