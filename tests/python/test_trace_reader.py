"""rtsched.trace's reader on files built here byte by byte (docs/trace-format.md):
every field, the order guarantees, and each kind of damage reported with its
offset. The C writer's side is in test_trace_roundtrip.py."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

from rtsched.trace import (
    EVENT_DTYPE,
    RELEASE_BY_SHIFT,
    RELEASE_CAUSE_MASK,
    RESERVED_FIRST,
    EventType,
    ReleaseCause,
    TraceFormatError,
    event_name,
    parse_trace,
    read_trace,
)

REPO = Path(__file__).resolve().parents[2]


def header(n_streams: int, *, magic=b"RTSTRACE", version=1, sizes=(128, 64, 32), name=b"set"):
    return struct.pack(
        "<8sIIIIIIqq64s16s", magic, version, *sizes, 1, n_streams, 111, 222, name, b""
    )


def stream(sid: int, task_id: int, name: bytes = b"", tid: int = 0, capacity: int = 1024):
    return struct.pack("<IiIIqq32s", sid, task_id, tid, capacity, 10_000, 9_000, name)


def chunk(sid: int, events: list[tuple], lost: int = 0, *, magic=0x4B4E4843, n=None):
    out = struct.pack("<IIIIQQ", magic, sid, len(events) if n is None else n, 0, lost, 0)
    for time_ns, type_, cpu, job, arg0, arg1 in events:
        out += struct.pack("<qHHIIIq", time_ns, type_, cpu, job, arg0, 0, arg1)
    return out


def two_stream_file() -> bytes:
    s0 = [(100, 1, 0, 1, 0, 1000), (300, 2, 1, 1, 0, 0)]
    s1 = [(50, 6, 1, 0, 7, 0), (300, 7, 0, 0, 7, 0)]
    s0b = [(250, 3, 0, 1, 0, -5)]  # earlier than the previous event of stream 0
    return (
        header(2)
        + stream(0, 0, b"tau0", tid=41)
        + stream(1, -1, b"main", tid=42)
        + chunk(0, s0, lost=1)
        + chunk(1, s1)
        + chunk(0, s0b, lost=3)
        + chunk(1, [], lost=0)
    )


def test_fields_header_and_streams():
    trace = parse_trace(two_stream_file())
    assert trace.header == {
        "version": 1,
        "clock": 1,
        "n_streams": 2,
        "t0_ns": 111,
        "duration_ns": 222,
        "name": "set",
    }
    assert trace.streams[0] == {
        "stream_id": 0,
        "task_id": 0,
        "tid": 41,
        "name": "tau0",
        "period_ns": 10_000,
        "deadline_ns": 9_000,
        "capacity": 1024,
        "lost": 3,
    }
    assert trace.streams[1]["task_id"] == -1 and trace.streams[1]["lost"] == 0
    assert trace.lost_total == 3
    assert not trace.truncated
    assert trace.stream_of_task(0)["name"] == "tau0"
    with pytest.raises(KeyError):
        trace.stream_of_task(5)


def test_events_sorted_by_time_stably_and_per_stream_in_recording_order():
    trace = parse_trace(two_stream_file())
    ev = trace.events
    assert ev.dtype == EVENT_DTYPE
    assert ev["time_ns"].tolist() == [50, 100, 250, 300, 300]
    # equal times keep file order: stream 0's START was drained before stream 1's ACQUIRE
    assert ev["stream"].tolist() == [1, 0, 0, 0, 1]
    assert ev["type"].tolist() == [6, 1, 3, 2, 7]
    s0 = trace.events_of(0)
    assert s0["time_ns"].tolist() == [100, 300, 250]  # recording order, not time order
    assert s0["type"].tolist() == [EventType.RELEASE, EventType.START, EventType.COMPLETE]
    assert s0["arg1"].tolist() == [1000, 0, -5]
    assert s0["cpu"].tolist() == [0, 1, 0]
    assert s0["job"].tolist() == [1, 1, 1]
    assert trace.events_of(1)["arg0"].tolist() == [7, 7]
    with pytest.raises(KeyError):
        trace.events_of(2)


def test_read_trace_from_a_file(tmp_path):
    path = tmp_path / "t.rtst"
    path.write_bytes(two_stream_file())
    trace = read_trace(path)
    assert trace.path == str(path)
    assert len(trace.events) == 5


def test_no_events_at_all():
    trace = parse_trace(header(1) + stream(0, 0) + chunk(0, []))
    assert len(trace.events) == 0 and trace.events.dtype == EVENT_DTYPE
    assert len(trace.events_of(0)) == 0
    assert not trace.truncated


def test_many_events_read_per_chunk():
    n = 50_000
    body = b"".join(struct.pack("<qHHIIIq", i, 15, 0, i, i, 0, -i) for i in range(n))
    data = header(1) + stream(0, 0) + struct.pack("<IIIIQQ", 0x4B4E4843, 0, n, 0, 0, 0) + body
    trace = parse_trace(data)
    assert len(trace.events) == n
    assert np.array_equal(trace.events["arg1"], -np.arange(n))


# ---- damage ------------------------------------------------------------------


def expect_error(data: bytes, offset: int, words: str):
    with pytest.raises(TraceFormatError) as info:
        parse_trace(data, "x.rtst")
    assert info.value.offset == offset
    assert words in info.value.reason
    assert str(info.value).startswith(f"x.rtst: offset {offset}: ")
    assert isinstance(info.value, ValueError)


def test_shorter_than_a_header():
    expect_error(b"RTSTRACE" + bytes(20), 0, "shorter than the 128-byte header")


def test_bad_magic():
    expect_error(header(0, magic=b"NOTTRACE"), 0, "bad magic")


def test_unknown_version():
    expect_error(header(0, version=2), 8, "unsupported version 2")


@pytest.mark.parametrize(
    "sizes,offset,what",
    [((64, 64, 32), 12, "header_size"), ((128, 48, 32), 16, "stream_record_size"),
     ((128, 64, 40), 20, "event_size")],
)
def test_wrong_record_sizes(sizes, offset, what):
    expect_error(header(0, sizes=sizes), offset, f"{what} is")


def test_truncated_stream_table():
    data = header(3) + stream(0, 0) + stream(1, 1)
    expect_error(data, len(data), "stream table truncated")


def test_stream_id_out_of_place():
    expect_error(header(2) + stream(0, 0) + stream(5, 1), 128 + 64, "has stream_id 5")


def test_bad_chunk_magic_names_its_offset():
    good = header(1) + stream(0, 0) + chunk(0, [(1, 1, 0, 1, 0, 0)])
    expect_error(good + chunk(0, [], magic=0xDEADBEEF), len(good), "bad chunk magic 0xdeadbeef")


def test_unknown_stream_id():
    good = header(1) + stream(0, 0)
    expect_error(good + chunk(3, []), len(good) + 4, "unknown stream 3")


def test_lost_total_must_not_decrease():
    good = header(1) + stream(0, 0) + chunk(0, [], lost=5)
    expect_error(good + chunk(0, [], lost=2), len(good) + 16, "cumulative")


def test_truncated_final_chunk_reads_what_is_whole():
    events = [(i, 1, 0, i, 0, 0) for i in range(10)]
    full = header(1) + stream(0, 0) + chunk(0, events[:4], lost=0) + chunk(0, events[4:], lost=2)
    # cut inside the 8th event: 4 + 3 whole events survive
    cut = full[: len(full) - 2 * 32 - 5]
    trace = parse_trace(cut)
    assert trace.truncated
    assert trace.events["job"].tolist() == list(range(7))
    assert trace.streams[0]["lost"] == 2  # the header of the cut chunk was whole


def test_truncated_inside_a_chunk_header():
    good = header(1) + stream(0, 0) + chunk(0, [(1, 1, 0, 1, 0, 0)])
    trace = parse_trace(good + chunk(0, [])[:10])
    assert trace.truncated and len(trace.events) == 1


def test_a_stream_without_any_chunk_means_the_run_did_not_close():
    data = header(2) + stream(0, 0) + stream(1, 1) + chunk(0, [(1, 1, 0, 1, 0, 0)])
    trace = parse_trace(data)
    assert trace.truncated and len(trace.events) == 1


# ---- event types ---------------------------------------------------------------


def test_event_types_mirror_the_c_enum():
    header_file = REPO / "include" / "rtsched" / "trace.h"
    if not header_file.exists():
        pytest.skip(f"{header_file} not found (not run from a source checkout)")
    found = dict(
        (name, int(value))
        for name, value in re.findall(r"RTS_EV_(\w+)\s*=\s*(\d+)", header_file.read_text())
    )
    assert found.pop("RESERVED_FIRST") == RESERVED_FIRST == 37
    assert found.pop("USER_FIRST") == 64
    assert found == {t.name: t.value for t in EventType}


def test_release_causes_mirror_the_c_enum():
    header_file = REPO / "include" / "rtsched" / "trace.h"
    if not header_file.exists():
        pytest.skip(f"{header_file} not found (not run from a source checkout)")
    text = header_file.read_text()
    found = {name: int(value) for name, value in re.findall(r"RTS_RELEASE_(TIMER|COMPLETION|ACTIVATION)\s*=\s*(\d+)", text)}
    assert found == {c.name: c.value for c in ReleaseCause}
    assert int(re.search(r"RTS_RELEASE_CAUSE_MASK\s+(0x[0-9a-f]+)u", text).group(1), 16) == RELEASE_CAUSE_MASK
    assert int(re.search(r"RTS_RELEASE_BY_SHIFT\s+(\d+)", text).group(1)) == RELEASE_BY_SHIFT


def test_event_names():
    assert event_name(1) == "RELEASE"
    assert event_name(19) == "RPC_CALL"
    assert event_name(60) == "reserved(60)"
    assert event_name(70) == "user(70)"
