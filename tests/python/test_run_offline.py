"""``rtsched run`` without running anything: input errors, and the job table,
statistics and exports on a trace written here byte by byte (docs/trace-format.md)."""

from __future__ import annotations

import json
from fractions import Fraction
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from rtsched.report import build_job_table, summary_dict, task_stats
from rtsched.report.export_csv import CSV_HEADER, write_job_csv
from rtsched.report.export_perfetto import job_segments, perfetto_trace
from rtsched.trace import EVENT_DTYPE, read_trace
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace as load_trace

MS = 1_000_000
T0 = 1_000 * MS


def rtsched(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtsched.cli.main", *args], capture_output=True, text=True,
                          timeout=60)


def test_unknown_key_is_an_error_with_its_path(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "name: bad\nplatform: {scheduler: P-FP, cpus: [0]}\n"
        "tasks:\n  - {name: t, period: 10ms, priority: 10, partition: cpu0, perod: 5ms, body: [{compute: 1ms}]}\n"
    )
    done = rtsched("run", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2  # an invalid input
    assert "tasks[0]" in done.stderr and "perod" in done.stderr
    assert not (tmp_path / "out" / "trace.rtst").exists()


def test_a_missing_file_exits_2_and_bad_options_exit_1(tmp_path):
    assert rtsched("run", str(tmp_path / "nope.yaml")).returncode == 2  # an invalid input
    spec = tmp_path / "ok.yaml"
    spec.write_text("name: ok\nplatform: {scheduler: P-FP, cpus: [0]}\n"
                    "tasks:\n  - {name: t, period: 10ms, priority: 10, partition: cpu0, body: [{compute: 1ms}]}\n")
    window = rtsched("run", str(spec), "--plot-window", "200ms:100ms")
    assert window.returncode == 1 and "--plot-window" in window.stderr
    duration = rtsched("run", str(spec), "--duration", "ten")
    assert duration.returncode == 1 and "--duration" in duration.stderr


# ---------------------------------------------------------------- a synthetic trace

def _event(t, kind, cpu, job, arg0=0, arg1=0):
    return struct.pack("<qHHIIIq", t, kind, cpu, job, arg0, 0, arg1)


def write_trace(path: Path, streams: list[tuple[str, int, int, list[bytes]]], lost=(), duration=55 * MS) -> Path:
    """streams: (name, period_ns, deadline_ns, events); each stream in two chunks."""
    header = bytearray(128)
    struct.pack_into("<8s6Iqq", header, 0, b"RTSTRACE", 1, 128, 64, 32, 1, len(streams), T0, duration)
    header[48:48 + 8] = b"synthetc"
    table = b""
    for i, (name, period, deadline, _events) in enumerate(streams):
        table += struct.pack("<IiIIqq32s", i, i, 100 + i, 1024, period, deadline, name.encode())
    chunks = b""
    for i, (_name, _p, _d, events) in enumerate(streams):
        half = len(events) // 2
        lost_i = lost[i] if i < len(lost) else 0
        for part, lost_so_far in ((events[:half], 0), (events[half:], lost_i)):
            chunks += struct.pack("<4IQQ", 0x4B4E4843, i, len(part), 0, lost_so_far, 0) + b"".join(part)
    path.write_bytes(bytes(header) + table + chunks)
    return path


def job(t_rel, period_idx, number, cpu, response, start_delay=10_000, cpu_time=None, deadline=10 * MS, extra=()):
    release = T0 + t_rel
    done = release + response
    events = [
        _event(release, EV.RELEASE, cpu, number, 0, release + deadline),
        _event(release + start_delay, EV.START, cpu, number),
        *extra,
        _event(done, EV.COMPLETE, cpu, number, 0, cpu_time if cpu_time is not None else response - start_delay),
    ]
    if done > release + deadline:
        events.append(_event(done, EV.DEADLINE_MISS, cpu, number, 0, done - release - deadline))
    return events


@pytest.fixture
def synthetic(tmp_path):
    a = []
    for k in range(5):
        a += job(k * 10 * MS, k, k + 1, 0, 2 * MS)
    a += [_event(T0 + 50 * MS, EV.RELEASE, 0, 6, 0, T0 + 60 * MS), _event(T0 + 50 * MS + 5000, EV.START, 0, 6)]
    b = job(0, 0, 1, 1, 12 * MS)  # misses by 2 ms
    sleep_at = T0 + 20 * MS + 1 * MS
    b += job(20 * MS, 1, 2, 1, 4 * MS, extra=[_event(sleep_at, EV.SLEEP, 1, 2, 0, 1 * MS)])
    return write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 10 * MS, b)], lost=(0, 3))


def test_reader_keeps_streams_lost_counts_and_time_order(synthetic):
    trace = read_trace(synthetic)
    assert trace.header["t0_ns"] == T0 and trace.header["name"] == "synthetc"
    assert [s["name"] for s in trace.streams] == ["a", "b"]
    assert [s["lost"] for s in trace.streams] == [0, 3] and trace.lost_total == 3
    assert trace.events.dtype == EVENT_DTYPE
    assert list(trace.events["time_ns"]) == sorted(trace.events["time_ns"])


def test_job_table_and_stats(synthetic):
    table = build_job_table(load_trace(synthetic))
    a, b = table.tasks
    assert (a.censored, a.incomplete, len(table.of_task(0))) == (1, 0, 5)
    assert len(table.of_task(1)) == 2
    stats = task_stats(table)
    assert stats[0].jobs == 5 and stats[0].deadline_misses == 0 and stats[0].response_max_ns == 2 * MS
    assert stats[0].release_latency_median_ns == 10_000
    assert stats[1].deadline_misses == 1 and stats[1].tardiness_max_ns == 2 * MS
    assert stats[1].lost_events == 3
    summary = summary_dict(table, stats)
    assert summary["censored_jobs"] == 1 and summary["lost_events"] == 3 and summary["jobs"] == 7
    json.dumps(summary)


def test_csv_and_perfetto_of_the_synthetic_trace(synthetic, tmp_path):
    trace = load_trace(synthetic)
    table = build_job_table(trace)
    assert write_job_csv(table, tmp_path / "jobs.csv", wcet_ns=[1, 2], task_cpus=[[0], [1]]) == 7
    lines = (tmp_path / "jobs.csv").read_text().splitlines()
    assert lines[0] == CSV_HEADER
    assert lines[1] == "# task NAME=a PID=100 COST=1 PERIOD=10000000 CPU=0"
    miss = [l for l in lines if not l.startswith("#") and l.split(",")[0].strip() == "101"][0]
    assert [int(v) for v in miss.split(",")] == [101, 1, 20 * MS, 12 * MS, 1, 2 * MS, 2 * MS, 0, 12 * MS - 10_000]
    doc = perfetto_trace(table, trace)
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == 1]
    assert len([e for e in slices if e["tid"] == 1]) == 5       # censored job 6 has none
    assert len([e for e in slices if e["tid"] == 2]) == 3       # job 2 of b sleeps once
    assert any(e["ph"] == "i" and e["name"] == "deadline miss" for e in doc["traceEvents"])


def test_csv_is_the_same_whatever_the_block(synthetic, tmp_path, monkeypatch):
    """Formatted and written BLOCK_ROWS rows at a time: blocks of one or two rows (a task's rows
    split across blocks) give the bytes of one block for everything."""
    from rtsched.report import export_csv

    table = build_job_table(load_trace(synthetic))
    write_job_csv(table, tmp_path / "whole.csv", wcet_ns=[1, 2], task_cpus=[[0], [1]])
    for rows in (1, 2):
        monkeypatch.setattr(export_csv, "BLOCK_ROWS", rows)
        write_job_csv(table, tmp_path / f"{rows}.csv", wcet_ns=[1, 2], task_cpus=[[0], [1]])
        assert (tmp_path / f"{rows}.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_csv_cells_are_printf_right_aligned():
    """The columnar formatter writes what "%*d" writes, at every number of digits and sign."""
    from rtsched.report.export_csv import _right_aligned

    for width in (5, 7, 8, 10, 20):
        top = 10 ** min(width, 18) - 1
        values = np.array([0, 1, -1, 9, -9, 10, top, -(top // 10), *(10 ** k + 7 for k in range(min(width, 18)))],
                          np.int64)
        cells = np.zeros((len(values), width), np.uint8)
        _right_aligned(values, width, cells)
        assert [bytes(c).decode() for c in cells] == ["%*d" % (width, v) for v in values.tolist()]


def test_csv_rows_with_values_wider_than_their_columns_are_as_printf_writes_them():
    """Job 100000 onwards (a 10 ms task after 1000 s) and a lateness of more than 10 digits widen
    their cells, as %5u and %10d do, in runs of rows of the same widths."""
    from rtsched.report.export_csv import ROW_FORMAT, _task_rows
    from rtsched.report.job_stream import JOB_DTYPE

    jobs = np.zeros(7, JOB_DTYPE)
    jobs["job"] = [99_998, 99_999, 100_000, 100_001, 1_234_567, 1_234_568, 1_234_569]
    jobs["response"] = [5, 10**11, 5, 5, 5, 5, 5]
    jobs["lateness"] = [-5, 10**11, -12_345_678_901, 0, -1, -1, 3]
    jobs["tardiness"] = np.maximum(jobs["lateness"], 0)
    jobs["missed"] = jobs["lateness"] > 0
    jobs["cpu_time"] = [1, 2, 3, 4, 5, 6, 7]
    expected = "".join(ROW_FORMAT % (42, int(j["job"]), 10**7, int(j["response"]), int(j["missed"]),
                                     int(j["lateness"]), int(j["tardiness"]), 0, int(j["cpu_time"])) + "\n"
                       for j in jobs)
    assert _task_rows(42, 10**7, jobs).decode() == expected


def test_segments_split_at_sleeps_and_long_lock_waits():
    events = [
        _event(0, EV.RELEASE, 0, 1), _event(10, EV.START, 0, 1),
        _event(100, EV.LOCK_REQUEST, 0, 1), _event(200, EV.LOCK_ACQUIRE, 0, 1),       # short: no split
        _event(1000, EV.LOCK_REQUEST, 0, 1), _event(9000, EV.LOCK_ACQUIRE, 1, 1),     # blocked 8 us
        _event(10_000, EV.SLEEP, 1, 1, 0, 5000), _event(20_000, EV.COMPLETE, 1, 1),
    ]
    raw_dtype = np.dtype([(n, EVENT_DTYPE[n]) for n in EVENT_DTYPE.names if n != "stream"])
    raw = np.frombuffer(b"".join(events), dtype=raw_dtype)
    assert job_segments(raw) == [(10, 1000, 0, 0), (9000, 10_000, 1, 1), (15_000, 20_000, 1, 1)]


def test_bounds_stand_beside_observed_maxima_and_excess_is_flagged(synthetic):
    from rtsched.analysis.results import AnalysisResult, TaskBound

    table = build_job_table(load_trace(synthetic))
    by_name = {s.task: s for s in task_stats(table)}
    a_max, b_max = by_name["a"].response_max_ns, by_name["b"].response_max_ns
    analysis = AnalysisResult(
        test="fp-rta",
        verdict="schedulable",
        tasks=(
            TaskBound(name="a", bound_ns=Fraction(a_max) + Fraction(1, 3), verdict="ok", reason=""),
            TaskBound(name="b", bound_ns=b_max - 1, verdict="ok", reason=""),
        ),
        reason="",
    )
    stats = task_stats(table, analysis)
    by_name = {s.task: s for s in stats}
    assert by_name["a"].bound_ns == a_max + 1  # rounded up, never down
    assert not by_name["a"].bound_exceeded
    assert by_name["b"].bound_ns == b_max - 1 and by_name["b"].bound_exceeded
    summary = summary_dict(build_job_table(load_trace(synthetic)), stats)
    assert summary["bounds_exceeded"] == ["b"]

    stats = task_stats(table, AnalysisResult(test="fp-rta", verdict="unsupported", tasks=(), reason="no test"))
    assert all(s.bound_ns is None and not s.bound_exceeded for s in stats)


def test_ult_switch_events_make_exact_segments_one_per_cpu():
    # ult backend: PREEMPT on CPU 0 (arg0 = the CPU left), MIGRATE 0 -> 1, RESUME on CPU 1
    events = [
        _event(0, EV.RELEASE, 0, 1), _event(10, EV.START, 0, 1),
        _event(400, EV.PREEMPT, 0, 1, 0), _event(900, EV.MIGRATE, 1, 1, 0, 1),
        _event(900, EV.RESUME, 1, 1, 1), _event(1500, EV.COMPLETE, 1, 1),
    ]
    raw_dtype = np.dtype([(n, EVENT_DTYPE[n]) for n in EVENT_DTYPE.names if n != "stream"])
    raw = np.frombuffer(b"".join(events), dtype=raw_dtype)
    assert job_segments(raw) == [(10, 400, 0, 0), (900, 1500, 1, 1)]


# ---------------------------------------------------------------- servers, calls, the end of the run

def test_a_call_suspends_the_callers_job_slice():
    events = [
        _event(0, EV.RELEASE, 1, 1), _event(10, EV.START, 1, 1),
        _event(1000, EV.RPC_CALL, 1, 1, 0, 4000), _event(6000, EV.RPC_REPLY, 1, 1),
        _event(6500, EV.COMPLETE, 1, 1),
    ]
    raw_dtype = np.dtype([(n, EVENT_DTYPE[n]) for n in EVENT_DTYPE.names if n != "stream"])
    raw = np.frombuffer(b"".join(events), dtype=raw_dtype)
    assert job_segments(raw) == [(10, 1000, 1, 1), (6000, 6500, 1, 1)]


def test_a_job_completing_after_the_end_of_the_run_is_censored(tmp_path):
    # duration 100 ms: job 2 completes at 104 ms, cut short or not, it is after the end
    a = job(0, 0, 1, 1, 2 * MS) + job(90 * MS, 1, 2, 1, 14 * MS, deadline=20 * MS)
    table = build_job_table(load_trace(write_trace(tmp_path / "t.rtst", [("a", 90 * MS, 20 * MS, a)], duration=100 * MS)))
    assert len(table.of_task(0)) == 1 and table.tasks[0].censored == 1


def test_jobs_released_after_the_end_of_the_run_are_not_the_runs(tmp_path):
    # duration 100 ms; starved until 150 ms, the thread started its backlog before it saw the
    # stop: jobs released at 0..80 ms are the run's (all missed), those at 100 and 120 ms are not
    backlog = [job(k * 20 * MS, k, k + 1, 1, 150 * MS - k * 20 * MS + k * MS, deadline=20 * MS) for k in range(7)]
    table = build_job_table(load_trace(write_trace(tmp_path / "t.rtst", [("low", 20 * MS, 20 * MS, sum(backlog, []))],
                                                   duration=100 * MS)))
    low = table.tasks[0]
    # due at 20..80 ms and done after the end: missed unfinished; due at 100 ms (the end): censored
    assert (low.released, low.unfinished_missed, low.censored, len(table.of_task(0))) == (5, 4, 1, 0), low


def test_events_off_the_tasks_cpus_are_counted(synthetic):
    from rtsched.model.placement import Placement
    from rtsched.report import events_off_cpus

    trace = load_trace(synthetic)  # a records on CPU 0, b on CPU 1
    placement = Placement(cpus=(0, 1), partitions=(), threads={"a": (0,), "b": (1,)})
    assert events_off_cpus(trace, placement) == 0
    moved = Placement(cpus=(0, 1), partitions=(), threads={"a": (0,), "b": (0,)})
    assert events_off_cpus(trace, moved) == len(trace.events_of(1))


def test_picv_switches_need_servers_and_exclude_each_other(tmp_path):
    examples = Path(__file__).resolve().parents[2] / "examples"
    for flag in ("--no-picv", "--compare-picv"):
        done = rtsched("run", str(examples / "pfp-two-cpus.yaml"), flag, "--out", str(tmp_path / "out"))
        assert done.returncode == 1
        assert f"{flag}: " in done.stderr and "has no servers, so PI-CV changes nothing" in done.stderr
    both = rtsched("run", str(examples / "picv-rpc.yaml"), "--no-picv", "--compare-picv")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    assert not (tmp_path / "out").exists()


def test_steal_time_is_read_per_cpu_from_proc_stat():
    import os

    from rtsched.measure.steal import read_steal_ns, steal_during

    tick = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    stat = "cpu  1 2 3 4 5 6 7 80 0 0\ncpu0 1 2 3 4 5 6 7 30 0 0\ncpu1 1 2 3 4 5 6 7 50 0 0\nintr 0\n"
    assert read_steal_ns([1], stat) == {1: 50 * tick}
    assert read_steal_ns([0, 1], stat) == {0: 30 * tick, 1: 50 * tick}
    assert read_steal_ns([2], stat) is None  # no such CPU line
    later = stat.replace("7 50", "7 53")
    assert steal_during(read_steal_ns([0, 1], stat), read_steal_ns([0, 1], later)) == {"0": 0, "1": 3 * tick}
    assert steal_during(None, {1: 0}) is None
    assert read_steal_ns([0]) is not None  # this machine's /proc/stat


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=40), st.lists(st.integers(0, 60), max_size=40))
def test_sorted_member_is_isin_for_a_pool_in_order(values, pool):
    """report.job_stream.sorted_member, the report's membership test on job numbers in stream order."""
    from rtsched.report.job_stream import sorted_member

    values_array, pool_array = np.array(values, np.int64), np.array(sorted(pool), np.int64)
    assert sorted_member(values_array, pool_array).tolist() == np.isin(values_array, pool_array).tolist()
