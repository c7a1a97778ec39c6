"""Budget used per reservation from its stream's RESERVATION_REPLENISH / _DEPLETE / _BUDGET events
(rtsched.report.reservations; docs/reservations.md, docs/trace-format.md), on a synthetic
trace: the numbers are the events', nothing is timed."""

from __future__ import annotations

import struct

from rtsched.model import taskset_from_dict
from rtsched.report.reservations import plot_reservation_budgets, reservation_budgets, reservation_line
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

from test_run_offline import MS, T0, _event, write_trace

SET = {
    "name": "two",
    "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
    "reservations": [
        {"name": "A", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"},
        {"name": "B", "period": "20ms", "budget": "5ms", "scheduler": "EDF", "priority": 10, "partition": "cpu0"},
    ],
    "tasks": [
        {"name": "a", "reservation": "A", "partition": "cpu0", "period": "10ms", "priority": 5,
         "body": [{"compute": "3ms"}]},
        {"name": "b", "reservation": "B", "partition": "cpu0", "period": "20ms", "body": [{"compute": "1ms"}]},
    ],
}


def reservation_stream(period_ns, budget_ns, used, depleted):
    """REPLENISH at each period start (arg0: the period before's use), DEPLETE where depleted."""
    events = []
    for k in range(len(used) + 1):
        start = T0 + k * period_ns
        events.append(_event(start, EV.RESERVATION_REPLENISH, 0, k + 1, used[k - 1] if k else 0, budget_ns))
        if k < len(used) and depleted[k]:
            events.append(_event(start + used[k], EV.RESERVATION_DEPLETE, 0, k + 1, 0, budget_ns))
    return events


def test_budget_used_per_period_comes_from_the_next_replenishment(tmp_path):
    path = write_trace(tmp_path / "t.rtst", [
        ("A", 10 * MS, 10 * MS, reservation_stream(10 * MS, 2 * MS, [2 * MS, 2 * MS, 2 * MS], [1, 1, 1])),
        ("B", 20 * MS, 20 * MS, reservation_stream(20 * MS, 5 * MS, [5 * MS, 1 * MS], [1, 0])),
        ("a", 10 * MS, 10 * MS, []),
    ])
    data = bytearray(path.read_bytes())
    for i in (0, 1):  # reservation streams have task_id -1 (write_trace gives each its index)
        struct.pack_into("<i", data, 128 + 64 * i + 4, -1)
    path.write_bytes(bytes(data))
    a, b = reservation_budgets(read_trace(path), taskset_from_dict(SET))
    assert (a.name, a.periods, a.depletions, a.used_ns) == ("A", 4, 3, (2 * MS,) * 3)
    assert a.used_share == 1.0 and a.replenish_times_ns == (0, 10 * MS, 20 * MS, 30 * MS)
    assert (b.name, b.periods, b.depletions, b.used_ns, b.budgets_ns) == ("B", 3, 1, (5 * MS, MS), (5 * MS,) * 2)
    assert b.used_max_ns == 5 * MS and b.used_mean_ns == 3 * MS and b.used_share == 0.6
    assert b.as_dict()["used_ns"] == [5 * MS, MS]
    plot_reservation_budgets((a, b), tmp_path / "budget.png", "two")
    assert (tmp_path / "budget.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_trace_without_reservation_streams_has_none(tmp_path):
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, []), ("b", 20 * MS, 20 * MS, [])])
    assert reservation_budgets(read_trace(path), taskset_from_dict(SET)) == ()


def test_budget_changes_and_the_miss_ratio_come_from_the_events(tmp_path):
    """RESERVATION_BUDGET events are the controller's changes (time since t0, new budget); the miss
    ratio is the reservation's tasks' DEADLINE_MISS over COMPLETE."""
    a_events = reservation_stream(10 * MS, 2 * MS, [2 * MS, 2 * MS], [1, 1])
    a_events.insert(2, _event(T0 + 10 * MS, EV.RESERVATION_BUDGET, 0, 2, 3 * MS, 3 * MS))
    task_events = [_event(T0 + k * 10 * MS + 3 * MS, EV.COMPLETE, 0, k + 1, 0, 3 * MS) for k in range(4)]
    task_events.insert(2, _event(T0 + 13 * MS, EV.DEADLINE_MISS, 0, 2, 0, MS))
    path = write_trace(tmp_path / "t.rtst", [
        ("A", 10 * MS, 10 * MS, a_events),
        ("B", 20 * MS, 20 * MS, reservation_stream(20 * MS, 5 * MS, [MS], [0])),
        ("a", 10 * MS, 10 * MS, task_events),
    ])
    data = bytearray(path.read_bytes())
    for i in (0, 1):
        struct.pack_into("<i", data, 128 + 64 * i + 4, -1)
    path.write_bytes(bytes(data))
    a, b = reservation_budgets(read_trace(path), taskset_from_dict(SET))
    assert a.budget_changes == ((10 * MS, 3 * MS),) and b.budget_changes == ()
    assert (a.jobs, a.misses, a.miss_ratio) == (4, 1, 0.25) and (b.jobs, b.miss_ratio) == (0, 0.0)
    assert a.as_dict()["budget_changes"] == [{"time_ns": 10 * MS, "budget_ns": 3 * MS}]
    assert reservation_line(a).endswith("budget changed 1 time(s), 3..3 ms, last 3 ms; 1 of 4 job(s) missed (25.00%)")
    plot_reservation_budgets((a, b), tmp_path / "budget.png", "two")
