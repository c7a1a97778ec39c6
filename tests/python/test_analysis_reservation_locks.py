"""Locks in the reservation hierarchy's analysis (rtsched.analysis.reservation_locks;
docs/reservations.md, "Locks inside reservations"): the bounds of a periodic FP reservation
whose tasks share their own resources, computed by hand; no bound (with the reason) where a
resource crosses reservations or the top level, or sits in an EDF reservation; and, on
generated sets, simulated responses never above the bounds."""

from __future__ import annotations

import math
import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rtsched.analysis.reservations import analyze_reservations
from rtsched.model import taskset_from_dict
from sim_helpers import worst_responses

US, MS = 1_000, 1_000_000


def _set(resources, reservations, tasks):
    return taskset_from_dict({"name": "locks", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
                              "resources": resources, "reservations": reservations, "tasks": tasks})


def _task(name, reservation, priority=None, period="100ms", body=(), offset=None):
    t = {"name": name, "partition": "cpu0", "period": period, "body": list(body)}
    if reservation is not None:
        t["reservation"] = reservation
    if priority is not None:
        t["priority"] = priority
    if offset is not None:
        t["offset"] = offset
    return t


def _section(lock, compute):
    return [{"lock": lock}, {"compute": compute}, {"unlock": lock}]


R = {"name": "R", "period": "10ms", "budget": "5ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"}
A = {"name": "A", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 30, "partition": "cpu0"}
B = {"name": "B", "period": "20ms", "budget": "4ms", "scheduler": "FP", "priority": 10, "partition": "cpu0"}
INVERSION = [_task("low", "R", 1, body=_section("m", "3ms")), _task("high", "R", 3, body=_section("m", "1ms")),
             _task("mid", "R", 2, body=[{"compute": "2ms"}])]


def _bounds(taskset):
    result = analyze_reservations(taskset)
    return result, {b.name: b for b in result.tasks.tasks}


def test_local_sections_in_an_fp_reservation_add_their_blocking_term():
    """Γ(10, 5): tbf(x) = x + 5·(⌈x/5⌉ + 1). high: C 1 + B 3 (low's section) = 4 → 14 ms; mid: 2 +
    3 (push-through) + high's 1 = 6 → 21 ms; low: 3 + 1 + 2 = 6 → 21 ms. Without the section
    high's would be tbf(1) = 11 ms."""
    for protocol in ("pip", "pcp", "srp", "ipcp"):
        result, bounds = _bounds(_set([{"name": "m", "protocol": protocol}], [R], INVERSION))
        assert result.tasks.verdict == "schedulable", protocol
        assert {n: (b.bound_ns, b.blocking_ns) for n, b in bounds.items()} == {
            "low": (21 * MS, 0), "high": (14 * MS, 3 * MS), "mid": (21 * MS, 3 * MS)}, protocol
        leaf = result.outcome("R").result
        assert leaf is not None and leaf.label == "sufficient"
    free = _set([], [R], [_task("high", "R", 3, body=[{"compute": "1ms"}])])
    assert _bounds(free)[1]["high"].bound_ns == 11 * MS


def test_a_resource_across_reservations_leaves_their_tasks_without_a_bound():
    """m shared by A and B: every task of both has no bound (and the whole is not shown
    schedulable); R, not involved, keeps its bounds."""
    ts = _set([{"name": "m", "protocol": "pip"}], [A, B, {**R, "budget": "3ms", "priority": 5}],
              [_task("a", "A", 5, body=_section("m", "1ms")), _task("a2", "A", 9, body=[{"compute": "1ms"}]),
               _task("b", "B", 5, body=_section("m", "1ms")), _task("r", "R", 5, body=[{"compute": "1ms"}])])
    result, bounds = _bounds(ts)
    for name in ("a", "a2", "b"):
        assert bounds[name].verdict == "unknown" and bounds[name].bound_ns is None
        assert '"m" is shared by reservation "A", reservation "B"' in bounds[name].reason
    assert bounds["r"].verdict == "ok" and bounds["r"].bound_ns is not None
    assert result.tasks.verdict == "unsupported" and result.tasks.reason.startswith("no bound for A: ")


def test_a_resource_shared_with_the_top_level_leaves_the_whole_partition_without_a_bound():
    ts = _set([{"name": "m", "protocol": "pip"}], [A, B],
              [_task("a", "A", 5, body=_section("m", "1ms")), _task("b", "B", 5, body=[{"compute": "1ms"}]),
               _task("top", None, 40, body=_section("m", "1ms"))])
    result, bounds = _bounds(ts)
    assert all(b.verdict == "unknown" for b in bounds.values()), bounds
    assert "a holder at the top level" in bounds["b"].reason and "a holder at the top level" in bounds["top"].reason
    assert result.tasks.verdict == "unsupported"


def test_no_bound_inside_an_edf_reservation_or_past_an_unbounded_inversion():
    edf = _set([{"name": "y", "protocol": "srp"}], [{**R, "scheduler": "EDF"}],
               [_task("e1", "R", body=_section("y", "1ms")), _task("e2", "R", period="50ms", body=_section("y", "1ms"))])
    _, bounds = _bounds(edf)
    assert bounds["e1"].verdict == "unknown" and "inside a periodic EDF reservation" in bounds["e1"].reason
    none = _set([{"name": "m", "protocol": "none"}], [R], INVERSION)
    result, bounds = _bounds(none)
    assert bounds["high"].verdict == "unknown" and "unbounded priority inversion" in bounds["high"].reason
    assert result.tasks.verdict == "unsupported"
    given_ceiling = _set([{"name": "m", "protocol": "ipcp", "ceiling": 9}], [R], INVERSION)
    assert "is given in the file" in _bounds(given_ceiling)[1]["low"].reason


PERIODS_MS = (10, 12, 15, 20, 24, 30, 40)
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "40"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def sets(draw):
    """An FP reservation R (below a hard one, H, that takes the CPU first) whose 2..4 tasks share one
    or two resources of one protocol, with offsets so that a lower task may hold one when a higher
    one arrives."""
    protocol = draw(st.sampled_from(("pip", "pcp", "srp", "ipcp")))
    period = draw(st.sampled_from((5, 8, 10))) * MS
    budget = draw(st.integers(period // (2 * 100 * US), period * 8 // (10 * 100 * US))) * 100 * US
    h_period = draw(st.sampled_from((10, 20))) * MS
    h_budget = draw(st.integers(1, h_period // (10 * 100 * US))) * 100 * US
    tasks, periods = [], [period, h_period, 100 * MS]
    for i in range(draw(st.integers(2, 4))):
        p = draw(st.sampled_from(PERIODS_MS)) * MS
        periods.append(p)
        unit = max(1, p // (40 * 100 * US)) * 100 * US
        before, inside, after = (draw(st.integers(0, 2)) * unit, draw(st.integers(1, 3)) * unit,
                                 draw(st.integers(0, 2)) * unit)
        lock = f"m{draw(st.integers(0, 1))}"
        body = ([{"compute": f"{before}ns"}] if before else []) + _section(lock, f"{inside}ns") + (
            [{"compute": f"{after}ns"}] if after else [])
        tasks.append(_task(f"t{i}", "R", 10 + i, period=f"{p}ns", body=body,
                           offset=f"{draw(st.integers(0, p // MS - 1)) * MS}ns"))
    tasks.append(_task("h", "H", 5, period="100ms", body=[{"compute": f"{h_budget}ns"}]))
    used = sorted({a["lock"] for t in tasks for a in t["body"] if "lock" in a})
    reservations = [{"name": "H", "period": f"{h_period}ns", "budget": f"{h_budget}ns", "scheduler": "FP",
                     "priority": 30, "partition": "cpu0"},
                    {"name": "R", "period": f"{period}ns", "budget": f"{budget}ns", "scheduler": "FP",
                     "priority": 20, "partition": "cpu0"}]
    return _set([{"name": n, "protocol": protocol} for n in used], reservations, tasks), periods


@FAST
@given(sets(), st.integers(1, 1000))
def test_simulated_responses_stay_within_the_bounds_with_local_sections(tmp_path, generated, seed):
    taskset, periods = generated
    result, bounds = _bounds(taskset)
    inside = [t.name for t in taskset.tasks if t.reservation == "R"]
    if not all(bounds[n].verdict == "ok" for n in inside) or not result.tasks.schedulable:
        event("not shown schedulable")
        return
    event("blocked" if any(bounds[n].blocking_ns for n in inside) else "no blocking term")
    worst, _ = worst_responses(tmp_path / "t.rtst", taskset, 3 * math.lcm(*periods), seed=seed)
    for name in inside:
        assert worst[name] is not None and worst[name] <= bounds[name].bound_ns, (name, worst[name], bounds[name])
