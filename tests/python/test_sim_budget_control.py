"""The budget controller in the simulator (sim/reservation_control.py): a soft reservation's
budget follows its tasks' demand, each change a RESERVATION_BUDGET event (exact simulated times);
in overload the more important sibling keeps its budget; the report reads the changes and the
miss ratio per reservation."""

from __future__ import annotations

from rtsched.model import taskset_from_dict
from rtsched.report.reservations import reservation_budgets, reservation_line
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

MS = 1_000_000


def _set(reservations, tasks):
    return taskset_from_dict({"name": "adaptive", "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
                              "reservations": reservations, "tasks": tasks})


def _budget_events(trace, name):
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == name)
    events = trace.events_of(stream)
    return [(int(e["time_ns"]), int(e["arg0"]), int(e["arg1"])) for e in events
            if int(e["type"]) == EV.RESERVATION_BUDGET]


def _replenished_budgets(trace, name):
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == name)
    return [int(e["arg1"]) for e in trace.events_of(stream) if int(e["type"]) == EV.RESERVATION_REPLENISH]


BURST = {"name": "burst", "period": "10ms", "partition": "cpu0", "reservation": "R", "max_jobs": 20,
         "body": [{"compute": "5ms"}]}
STEADY = {"name": "steady", "period": "10ms", "partition": "cpu0", "reservation": "R", "body": [{"compute": "1ms"}]}


def test_the_budget_follows_the_demand(tmp_path):
    """2 ms / 10 ms, control every 50 ms, no headroom: 6 ms a period are asked (burst 5 + steady 1) for the first
    200 ms, then 1 ms. The budget rises (late jobs add to the request), serves the backlog at the
    largest budget, settles at the demand, 6 ms, and falls to 1 ms once the burst is over."""
    ts = _set([{"name": "R", "period": "10ms", "budget": "2ms", "scheduler": "EDF", "criticality": "soft",
                "partition": "cpu0", "controller": {"period": "50ms", "headroom": 0}}], [BURST, STEADY])
    trace = read_trace(simulate(ts, SimOptions(duration_ns=600 * MS), tmp_path / "t.rtst").trace_path)
    changes = _budget_events(trace, "R")
    assert [(t, b) for t, _request, b in changes] == [(50 * MS, 7_720_000), (100 * MS, 10 * MS), (200 * MS, 6 * MS),
                                                      (250 * MS, MS)]
    assert all(request == b for _t, request, b in changes)  # alone: it gets what it asks
    # each period's REPLENISH carries the budget in force: 2 ms for 5 periods, then the changes
    budgets = _replenished_budgets(trace, "R")
    assert budgets[:6] == [2 * MS] * 5 + [7_720_000] and budgets[-1] == MS
    (r,) = reservation_budgets(trace, ts)
    assert r.budget_changes == tuple((t, b) for t, _request, b in changes)
    assert r.jobs == 20 + 60 and 0 < r.misses < r.jobs and r.miss_ratio == r.misses / r.jobs
    assert "budget changed 4 time(s), 1..10 ms, last 1 ms" in reservation_line(r)
    assert r.as_dict()["miss_ratio"] == r.miss_ratio


def test_in_overload_the_more_important_keeps_what_it_needs(tmp_path):
    """Two soft reservations at the top of one CPU each ask for 6 ms / 10 ms: the important one gets
    its 6 ms, the other what is left: its least budget (0.1 ms) and 0.39 of the CPU above it, 4 ms."""
    hogs = [{"name": n, "period": "10ms", "partition": "cpu0", "reservation": n.upper(),
             "body": [{"compute": "6ms"}]} for n in ("low", "high")]
    ts = _set([{"name": "LOW", "period": "10ms", "budget": "5ms", "scheduler": "EDF", "criticality": "soft",
                "partition": "cpu0", "importance": 1, "controller": {"period": "50ms", "headroom": 0}},
               {"name": "HIGH", "period": "10ms", "budget": "5ms", "scheduler": "EDF", "criticality": "soft",
                "partition": "cpu0", "importance": 2, "controller": {"period": "50ms", "headroom": 0}}], hogs)
    trace = read_trace(simulate(ts, SimOptions(duration_ns=400 * MS), tmp_path / "t.rtst").trace_path)
    assert _replenished_budgets(trace, "HIGH")[-1] == 6 * MS
    assert _replenished_budgets(trace, "LOW")[-1] == 4 * MS
    (low, high) = reservation_budgets(trace, ts)
    assert high.miss_ratio < low.miss_ratio


def test_a_fixed_policy_keeps_the_budget(tmp_path):
    ts = _set([{"name": "R", "period": "10ms", "budget": "2ms", "scheduler": "EDF", "criticality": "soft",
                "partition": "cpu0", "controller": {"policy": "fixed"}}], [BURST, STEADY])
    trace = read_trace(simulate(ts, SimOptions(duration_ns=300 * MS), tmp_path / "t.rtst").trace_path)
    assert _budget_events(trace, "R") == []
    assert set(_replenished_budgets(trace, "R")) == {2 * MS}
