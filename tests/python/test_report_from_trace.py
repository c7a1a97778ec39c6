"""The whole report from a trace file written here byte by byte, without running anything:
what any producer of a trace (the C runner, a simulator) gets by calling build_report."""

from __future__ import annotations

import dataclasses
import json

import pytest

from rtsched.analysis import bounds_for
from rtsched.model import taskset_from_dict
from rtsched.model.placement import place
from rtsched.report import build_report, write_report
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from rtsched.trace.events import BlockCause

from test_run_offline import MS, T0, _event, job, write_trace

US = 1000

TASKSET = {
    "name": "by-hand",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "r", "protocol": "pip"}],
    "tasks": [
        {"name": "a", "period": "10ms", "priority": 20, "partition": "cpu0",
         "body": [{"compute": "1ms"}, {"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]},
        {"name": "b", "period": "20ms", "deadline": "10ms", "priority": 10, "partition": "cpu1",
         "body": [{"compute": "3ms"}]},
    ],
}


@pytest.fixture
def report_of_hand_written_trace(tmp_path):
    # a: three jobs on CPU 0, the second waits 300 us for r (held: owner); b: a job on CPU 1
    # that takes 12 ms (2 ms past its deadline, far above its 3 ms bound), and one of 4 ms.
    blocked = [
        _event(T0 + 10 * MS + 100 * US, EV.LOCK_REQUEST, 0, 2, 0),
        _event(T0 + 10 * MS + 110 * US, EV.LOCK_BLOCKED, 0, 2, BlockCause.OWNER, 1),
        _event(T0 + 10 * MS + 400 * US, EV.LOCK_ACQUIRE, 0, 2, 0),
        _event(T0 + 10 * MS + 500 * US, EV.LOCK_RELEASE, 0, 2, 0),
    ]
    a = job(0, 0, 1, 0, 2 * MS) + job(10 * MS, 1, 2, 0, 2 * MS, extra=blocked) + job(20 * MS, 2, 3, 0, 2 * MS)
    b = job(0, 0, 1, 1, 12 * MS) + job(20 * MS, 1, 2, 1, 4 * MS)
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 10 * MS, b)],
                       duration=30 * MS)  # the run these jobs are the whole of
    taskset = taskset_from_dict(TASKSET)
    return build_report(read_trace(path), taskset, bounds_for(taskset), place(taskset, cpus_online=(0, 1)))


def test_a_hand_written_trace_gets_statistics_bounds_and_blocking(report_of_hand_written_trace):
    report = report_of_hand_written_trace
    a, b = report.stats
    assert (a.task, a.jobs, a.deadline_misses, a.response_max_ns) == ("a", 3, 0, 2 * MS)
    assert (b.task, b.jobs, b.deadline_misses, b.tardiness_max_ns) == ("b", 2, 1, 2 * MS)
    assert report.analysis.test == "fp-rta"
    assert b.bound_ns == 3 * MS and b.bound_exceeded and not a.bound_exceeded
    assert report.bounds_exceeded == ["b"] and report.deadline_misses == 1
    assert (a.lock_requests, a.blocked_owner, a.lock_wait_max_ns) == (1, 1, 300 * US)
    assert (b.lock_requests, b.lock_wait_max_ns) == (0, None)
    assert report.events_off_cpus == 0


def test_a_hand_written_trace_gets_every_file(report_of_hand_written_trace, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    files = write_report(report_of_hand_written_trace, out, perfetto_json=True)
    assert sorted(files) == ["jobs.csv", "response-cdf.png", "schedule.png", "trace.perfetto.json", "trace.pftrace"]
    assert sorted(write_report(report_of_hand_written_trace, tmp_path, plots=False)) == ["jobs.csv", "trace.pftrace"]
    csv = files["jobs.csv"].read_text().splitlines()
    assert "# task NAME=a PID=100 COST=2000000 PERIOD=10000000 CPU=0" in csv
    assert "# task NAME=b PID=101 COST=3000000 PERIOD=20000000 CPU=1" in csv
    assert len([line for line in csv if not line.startswith("#")]) == 5
    perfetto = json.loads(files["trace.perfetto.json"].read_text())
    slices = [e["name"] for e in perfetto["traceEvents"] if e["ph"] == "X" and e["pid"] == 1]
    assert slices.count("a #2") == 2 and len(slices) == 6  # a's 300 us lock wait splits its job 2
    assert all(files[name].read_bytes().startswith(b"\x89PNG") for name in ("response-cdf.png", "schedule.png"))
    summary = report_of_hand_written_trace.summary()
    assert (summary["scheduler"], summary["jobs"], summary["deadline_misses"]) == ("P-FP", 5, 1)
    assert summary["analysis"]["test"] == "fp-rta" and summary["bounds_exceeded"] == ["b"]
    json.dumps(summary)


def test_the_report_is_immutable(report_of_hand_written_trace):
    with pytest.raises(dataclasses.FrozenInstanceError):
        report_of_hand_written_trace.stats[0].bound_ns = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report_of_hand_written_trace.events_off_cpus = 1  # type: ignore[misc]
