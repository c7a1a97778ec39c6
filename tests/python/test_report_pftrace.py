"""trace.pftrace, Perfetto's protobuf format written by hand (rtsched.report.export_pftrace),
decoded here by a small reader of the wire format (pftrace_reader): every track named, every
slice begun and ended in order on its track, a slice per job execution as in the JSON."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rtsched.model import load_taskset
from rtsched.report.export_pftrace import INSTANT, SLICE_BEGIN, SLICE_END
from rtsched.report.protobuf_wire import encode_rows, field_varint, varint
from rtsched.sim import SimOptions, SimProducer
from rtsched.pipeline import ReportSettings, run_experiment

import numpy as np
import pytest

from pftrace_reader import Decoded, decode, fields
from test_report_from_trace import report_of_hand_written_trace  # noqa: F401  (a fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _nesting_ok(decoded: Decoded) -> Counter[tuple[int, str | None]]:
    """Checks every track's begins and ends pair up in time order (a stack per track, never
    ended below zero, empty at the end); returns the slices per (track, name)."""
    open_slices: dict[int, list[tuple[int, str | None]]] = {}
    slices: Counter[tuple[int, str | None]] = Counter()
    last = 0
    for e in decoded.events:
        assert e.ts >= last, "track events out of time order"
        last = e.ts
        assert e.track in decoded.tracks, f"event on track {e.track}, which has no descriptor"
        if e.type == SLICE_BEGIN:
            open_slices.setdefault(e.track, []).append((e.ts, e.name))
            slices[(e.track, e.name)] += 1
        elif e.type == SLICE_END:
            assert open_slices.get(e.track), f"an end without a begin on track {decoded.tracks[e.track][0]}"
            open_slices[e.track].pop()
        else:
            assert e.type == INSTANT
    assert not any(open_slices.values()), "slices never ended"
    return slices


def test_varints_as_protobuf_writes_them():
    assert [varint(v) for v in (0, 1, 127, 128, 300, 2**63)] == [
        b"\x00", b"\x01", b"\x7f", b"\x80\x01", b"\xac\x02", b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"]
    values = np.array([0, 1, 127, 128, 300, 2**40, 2**63], dtype=np.uint64)
    mask = np.array([True, False, True, True, True, True, True])
    rows = encode_rows([(b"\x08", values, None), (b"\x10", values, mask)], len(values))
    assert rows == b"".join(field_varint(1, int(v)) + (field_varint(2, int(v)) if m else b"")
                            for v, m in zip(values, mask))
    assert fields(rows)[:3] == [(1, 0), (2, 0), (1, 1)]


@pytest.mark.parametrize("example", ["pfp-two-cpus.yaml", "picv-rpc.yaml", "locks.yaml", "gedf.yaml", "ceiling-pcp.yaml"])
def test_a_simulation_has_the_json_slices_on_its_task_and_cpu_tracks(tmp_path, example):
    taskset = load_taskset(EXAMPLES / example)
    result = run_experiment(taskset, SimProducer(SimOptions(duration_ns=500_000_000, cpus=(0, 1))), tmp_path,
                            settings=ReportSettings(plots=False, perfetto_json=True))
    data = result.files["trace.pftrace"].read_bytes()
    decoded = decode(data)
    assert decoded.first_flags == 1  # the first packet clears the incremental state the names are interned in
    names = {uuid: name for uuid, (name, _parent) in decoded.tracks.items()}
    parents = {name: names.get(parent) for uuid, (name, parent) in decoded.tracks.items()}
    assert all(parents[t.name] == "tasks" for t in taskset.tasks)
    cpus = {name for name, parent in parents.items() if parent == "CPUs"}
    assert cpus and all(name.startswith("CPU ") for name in cpus)
    slices = _nesting_ok(decoded)
    table = result.report.table
    doc = json.loads(result.files["trace.perfetto.json"].read_text())
    json_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
                  if e["ph"] == "M" and e["name"] == "thread_name"}
    json_slices = Counter((json_names[(e["pid"], e["tid"])], e["name"].split(" #")[0])
                          for e in doc["traceEvents"] if e["ph"] == "X")
    assert cpus == {name for (pid, _tid), name in json_names.items() if pid == 2}
    # the same slices on the same tracks: jobs' segments, services, PREM phases, CPUs
    assert Counter({(names[track], name): n for (track, name), n in slices.items()}) == json_slices
    assert Counter(e.name for e in decoded.events if e.type == INSTANT) == \
        Counter(e["name"] for e in doc["traceEvents"] if e["ph"] == "i")
    for info in table.tasks:  # every completed job has its slices, carrying its number
        track = next(u for u, n in names.items() if n == info.name)
        assert {e.args["job"] for e in decoded.events if e.track == track and e.type == SLICE_BEGIN
                and e.name == info.name} == set(table.of_task(info.index)["job"].tolist())
    assert sum(slices[(t, n)] for (t, n) in slices if names[t] in {i.name for i in table.tasks} and n == names[t]) \
        >= len(table.jobs) > 0
    assert len(data) < len(result.files["trace.perfetto.json"].read_bytes()) / 2


def test_a_lock_wait_splits_a_job_as_in_the_json(report_of_hand_written_trace, tmp_path):  # noqa: F811
    from rtsched.report import write_report

    files = write_report(report_of_hand_written_trace, tmp_path, plots=False)
    decoded = decode(files["trace.pftrace"].read_bytes())
    slices = _nesting_ok(decoded)
    on_task = {name: n for (track, name), n in slices.items() if decoded.tracks[track][1] == 1}
    assert on_task == {"a": 4, "b": 2}  # a's 300 us lock wait splits its job 2
    jobs_of_a = sorted(e.args["job"] for e in decoded.events
                       if e.type == SLICE_BEGIN and e.name == "a" and decoded.tracks[e.track][1] == 1)
    assert jobs_of_a == [1, 2, 2, 3]


@pytest.mark.parametrize("example", ["picv-rpc.yaml", "locks.yaml", "gedf.yaml"])
def test_the_file_is_the_same_whatever_the_window(tmp_path, monkeypatch, example):
    """Sorted and written one time window at a time: windows of a few events (split between
    times, so equal times stay together) give the same bytes as one window for everything."""
    from rtsched.report import export_pftrace

    result = run_experiment(load_taskset(EXAMPLES / example),
                            SimProducer(SimOptions(duration_ns=200_000_000, cpus=(0, 1))), tmp_path / "sim",
                            settings=ReportSettings(plots=False))
    report = result.report
    monkeypatch.setattr(export_pftrace, "BLOCK_ROWS", 1 << 40)
    export_pftrace.write_pftrace(report.trace, tmp_path / "one.pftrace", block_events=1 << 40)
    for rows in (1, 3, 64):
        monkeypatch.setattr(export_pftrace, "BLOCK_ROWS", rows)
        export_pftrace.write_pftrace(report.trace, tmp_path / f"{rows}.pftrace", block_events=rows)
        assert (tmp_path / f"{rows}.pftrace").read_bytes() == (tmp_path / "one.pftrace").read_bytes()
    _nesting_ok(decode((tmp_path / "one.pftrace").read_bytes()))
