"""CPU demand per reservation over time (rtsched.report.reservation_demand; seed 000's Fig. 5):
the CPU time of the jobs of its tasks released in each window, from the trace's RELEASE and
COMPLETE records only. On a synthetic trace (the numbers are the events') and on a simulated
one (another producer of the same trace, its demand known from the task set)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtsched.model import load_taskset, taskset_from_dict
from rtsched.report.reservation_demand import demand_line, plot_reservation_demand, reservation_demand
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

from test_report_reservations import reservation_stream
from test_run_offline import MS, T0, _event, job, write_trace

ROOT = Path(__file__).resolve().parents[2]

SET = {
    "name": "two",
    "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
    "reservations": [
        {"name": "A", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"},
        {"name": "B", "period": "20ms", "budget": "5ms", "scheduler": "EDF", "priority": 10, "partition": "cpu0",
         "criticality": "soft", "controller": {"period": "40ms"}},
    ],
    "tasks": [
        {"name": "a", "reservation": "A", "partition": "cpu0", "period": "10ms", "priority": 5,
         "body": [{"compute": "3ms"}]},
        {"name": "b", "reservation": "B", "partition": "cpu0", "period": "20ms", "body": [{"compute": "1ms"}]},
    ],
}


def _trace(tmp_path):
    a = job(0, 0, 1, 0, 2 * MS, cpu_time=1 * MS) + job(10 * MS, 1, 2, 0, 3 * MS, cpu_time=2 * MS)
    a += job(20 * MS, 2, 3, 0, 30 * MS, cpu_time=3 * MS, deadline=10 * MS)  # late, completes at 50 ms
    a += [_event(T0 + 75 * MS, EV.RELEASE, 0, 4, 0, T0 + 85 * MS)]  # still running at the end (80 ms)
    b = []
    for k, cpu_time in enumerate((1 * MS, 1 * MS, 2 * MS, 2 * MS)):
        b += job(k * 20 * MS, k, k + 1, 0, 5 * MS, cpu_time=cpu_time, deadline=20 * MS)
    b_stream = reservation_stream(20 * MS, 5 * MS, [5 * MS, 5 * MS, 5 * MS], [0, 0, 0])
    b_stream.insert(4, _event(T0 + 40 * MS, EV.RESERVATION_BUDGET, 0, 3, 4 * MS, 4 * MS))
    path = write_trace(tmp_path / "t.rtst", [
        ("A", 10 * MS, 10 * MS, reservation_stream(10 * MS, 2 * MS, [2 * MS] * 7, [1] * 7)),
        ("B", 20 * MS, 20 * MS, b_stream),
        ("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 20 * MS, b),
    ], duration=80 * MS)
    data = bytearray(path.read_bytes())
    for i in (0, 1):  # reservation streams have task_id -1
        struct.pack_into("<i", data, 128 + 64 * i + 4, -1)
    path.write_bytes(bytes(data))
    return read_trace(path)


def test_demand_is_the_cpu_time_of_the_jobs_released_in_each_window(tmp_path):
    a, b = reservation_demand(_trace(tmp_path), taskset_from_dict(SET))
    # A (hard): windows of its period (its task's period is no longer); job 3 counts in the window it
    # was released in though it ran later; job 4 had not completed: unknown, counted as unfinished
    assert (a.name, a.window_ns) == ("A", 10 * MS)
    assert a.demand_ns == (MS, 2 * MS, 3 * MS, 0, 0, 0, 0, 0) and a.unfinished == (0,) * 7 + (1,)
    assert a.bandwidth == (0.2,) * 8
    # B (adapted): windows of its control period (40 ms); the bandwidth follows the controller's change
    assert (b.name, b.window_ns, b.demand_ns, b.unfinished) == ("B", 40 * MS, (2 * MS, 4 * MS), (0, 0))
    assert b.bandwidth == (0.25, 0.2)
    assert b.shares == (0.05, 0.1) and b.share_mean == pytest.approx(0.075) and b.share_max == 0.1
    assert b.as_dict()["demand_ns"] == [2 * MS, 4 * MS]
    assert demand_line(a) == ("demand of A: 7.50% of the CPU on average, at most 30.00% (per 10 ms window, "
                              "8 whole windows); 1 job(s) unfinished at the end, not counted")
    plot_reservation_demand((a, b), tmp_path / "demand.png", "two")
    assert (tmp_path / "demand.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_parent_sums_the_demand_of_the_leaves_below_it(tmp_path):
    nested = {**SET, "reservations": [
        {"name": "P", "period": "10ms", "budget": "8ms", "scheduler": "EDF", "priority": 20, "partition": "cpu0"},
        {"name": "A", "parent": "P", "period": "10ms", "budget": "2ms", "scheduler": "FP"},
        {"name": "B", "parent": "P", "period": "20ms", "budget": "5ms", "scheduler": "EDF"}]}
    trace = _trace(tmp_path)
    p, a, b = reservation_demand(trace, taskset_from_dict(nested))
    assert (p.name, p.window_ns) == ("P", 20 * MS)  # the least multiple of 10 ms ≥ b's 20 ms period
    assert p.demand_ns == (MS + 2 * MS + MS, 3 * MS + MS, 2 * MS, 2 * MS)
    assert b.window_ns == 20 * MS and b.demand_ns == (MS, MS, 2 * MS, 2 * MS)


def test_a_trace_without_reservations_has_no_demand(tmp_path):
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, job(0, 0, 1, 0, MS))])
    assert reservation_demand(read_trace(path), taskset_from_dict(SET)) == ()


def test_a_simulated_run_gets_the_demand_its_tasks_ask_for(tmp_path):
    """examples/budget-controller.yaml, simulated: video's frames ask 6 ms every 40 ms (15 % of the
    CPU), logger's 0.5 ms every 20 ms (2.5 %), in every 200 ms control period; t1 and t2 in the
    hard "control" reservation 8 ms every 200 ms and 400 ms (window 400 ms: 16 + 8 = 24 ms, 6 %)."""
    ts = load_taskset(ROOT / "examples" / "budget-controller.yaml")
    run = simulate(ts, SimOptions(duration_ns=2_000_000_000), tmp_path / "trace.rtst")
    by_name = {d.name: d for d in reservation_demand(read_trace(run.trace_path), ts)}
    assert set(by_name) == {"control", "soft", "video", "logger"}
    video, logger, control = by_name["video"], by_name["logger"], by_name["control"]
    assert video.window_ns == logger.window_ns == 200 * MS and len(video.demand_ns) == 10
    assert set(video.demand_ns[:-1]) == {30 * MS} and set(logger.demand_ns[:-1]) == {5 * MS}
    assert control.window_ns == 400 * MS and set(control.demand_ns[:-1]) == {24 * MS}
    assert video.share_mean <= 0.15 and video.shares[0] == 0.15
