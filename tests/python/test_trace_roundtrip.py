"""Trace round trip: librtsched's C writer (through ctypes) writes a known trace,
rtsched.trace reads it back, every field and the lost-event counter.

The library is the one installed in the package (rtsched/_native/lib), or the
one RTSCHED_NATIVE_LIB names (a librtsched.so file, or a build tree's src/
folder)."""

from __future__ import annotations

import ctypes
import os
import threading
import time
from pathlib import Path

import pytest

import rtsched
from rtsched.trace import EventType, read_trace


def find_library() -> Path | None:
    override = os.environ.get("RTSCHED_NATIVE_LIB")
    folders = []
    if override:
        p = Path(override)
        if p.is_file():
            return p
        folders.append(p)
    folders.append(Path(rtsched.__file__).resolve().parent / "_native" / "lib")
    for folder in folders:
        for candidate in sorted(folder.glob("librtsched.so*")):
            if candidate.is_file():
                return candidate
    return None


class Config(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("buffer_events", ctypes.c_uint32),
        ("drain_period_ns", ctypes.c_int64),
        ("ftrace_markers", ctypes.c_bool),
        ("error_buf", ctypes.c_char_p),
        ("error_buf_size", ctypes.c_size_t),
    ]


@pytest.fixture(scope="module")
def lib():
    path = find_library()
    if path is None:
        pytest.skip("librtsched.so not found: install the package (pip install .) "
                    "or set RTSCHED_NATIVE_LIB")
    lib = ctypes.CDLL(str(path))
    vp = ctypes.c_void_p
    lib.rts_trace_open.argtypes = [ctypes.POINTER(vp), ctypes.POINTER(Config)]
    lib.rts_trace_stream_add.argtypes = [vp, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int64,
                                         ctypes.c_int64, ctypes.POINTER(vp)]
    lib.rts_trace_stream_bind.argtypes = [vp]
    lib.rts_trace_stream_bind.restype = None
    lib.rts_trace_start.argtypes = [vp, ctypes.c_int64, ctypes.c_int64]
    lib.rts_trace_event.argtypes = [vp, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint32,
                                    ctypes.c_int64]
    lib.rts_trace_event.restype = None
    lib.rts_trace_event_at.argtypes = [vp, ctypes.c_int64, ctypes.c_uint16, ctypes.c_uint32,
                                       ctypes.c_uint32, ctypes.c_int64]
    lib.rts_trace_event_at.restype = None
    lib.rts_trace_emit.argtypes = [ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint32,
                                   ctypes.c_int64]
    lib.rts_trace_emit.restype = None
    lib.rts_trace_close.argtypes = [vp]
    lib.rts_trace_lost_events.argtypes = [vp]
    lib.rts_trace_lost_events.restype = ctypes.c_uint64
    return lib


def open_trace(lib, path: Path, buffer_events: int, drain_period_ns: int, name: bytes):
    err_buf = ctypes.create_string_buffer(256)
    cfg = Config(str(path).encode(), name, buffer_events, drain_period_ns, False,
                 ctypes.cast(err_buf, ctypes.c_char_p), 256)
    handle = ctypes.c_void_p()
    err = lib.rts_trace_open(ctypes.byref(handle), ctypes.byref(cfg))
    assert err == 0, err_buf.value.decode()
    return handle, err_buf


def add_stream(lib, trace, task_id, name, period_ns, deadline_ns):
    stream = ctypes.c_void_p()
    assert lib.rts_trace_stream_add(trace, task_id, name, period_ns, deadline_ns,
                                    ctypes.byref(stream)) == 0
    return stream


def test_c_writes_python_reads(lib, tmp_path):
    path = tmp_path / "roundtrip.rtst"
    # 16-event rings and a drain period far longer than the test: what the
    # main stream records before the start overflows its ring by 4.
    trace, _ = open_trace(lib, path, 16, 10_000_000_000, b"roundtrip-set")
    main = add_stream(lib, trace, -1, b"main", 0, 0)
    tau = [add_stream(lib, trace, 0, b"tau0", 10_000_000, 9_000_000),
           add_stream(lib, trace, 1, b"tau1", 20_000_000, 20_000_000)]

    lib.rts_trace_stream_bind(main)
    for i in range(20):
        lib.rts_trace_event_at(main, 5_000 + i, EventType.MARKER, 0, i, -i)
    assert lib.rts_trace_lost_events(trace) == 4
    assert lib.rts_trace_start(trace, 1_000, 60_000_000_000) == 0

    tids = {}
    bounds = {}

    def task(k: int) -> None:
        tids[k] = threading.get_native_id()
        lib.rts_trace_stream_bind(tau[k])
        period = 10_000_000 * (k + 1)
        for job in range(1, 4):
            release = 1_000 + (job - 1) * period
            # a RELEASE at the nominal time, after the previous job's events
            lib.rts_trace_event_at(tau[k], release, EventType.RELEASE, job, 0, release + period)
            lib.rts_trace_event_at(tau[k], release + 10, EventType.START, job, 0, 0)
            lib.rts_trace_event_at(tau[k], release + 30, EventType.LOCK_ACQUIRE, job, 7 + k, 0)
            lib.rts_trace_event_at(tau[k], release + 20, EventType.COMPLETE, job, 0, 500 * job)
        before = time.monotonic_ns()
        lib.rts_trace_event(tau[k], EventType.SLEEP, 0, 0, 123)
        lib.rts_trace_emit(EventType.TASK_EXIT, 0, 0, 3)  # through the bound stream
        bounds[k] = (before, time.monotonic_ns())

    threads = [threading.Thread(target=task, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert lib.rts_trace_close(trace) == 0

    got = read_trace(path)
    assert not got.truncated
    assert got.header == {"version": 1, "clock": 1, "n_streams": 3, "t0_ns": 1_000,
                          "duration_ns": 60_000_000_000, "name": "roundtrip-set"}
    assert [s["name"] for s in got.streams] == ["main", "tau0", "tau1"]
    assert [s["task_id"] for s in got.streams] == [-1, 0, 1]
    assert [s["period_ns"] for s in got.streams] == [0, 10_000_000, 20_000_000]
    assert [s["deadline_ns"] for s in got.streams] == [0, 9_000_000, 20_000_000]
    assert [s["capacity"] for s in got.streams] == [16, 16, 16]
    assert [s["tid"] for s in got.streams] == [threading.get_native_id(), tids[0], tids[1]]
    assert [s["lost"] for s in got.streams] == [4, 0, 0]
    assert got.lost_total == 4

    main_ev = got.events_of(0)
    assert main_ev["time_ns"].tolist() == [5_000 + i for i in range(16)]
    assert set(main_ev["type"].tolist()) == {EventType.MARKER}
    assert main_ev["arg0"].tolist() == list(range(16))
    assert main_ev["arg1"].tolist() == [-i for i in range(16)]
    assert set(main_ev["job"].tolist()) == {0}
    assert set(main_ev["reserved"].tolist()) == {0}

    ncpu = os.cpu_count() or 1
    for k in range(2):
        ev = got.events_of(1 + k)
        assert len(ev) == 14
        period = 10_000_000 * (k + 1)
        expected = []
        for job in range(1, 4):
            release = 1_000 + (job - 1) * period
            expected += [
                (release, EventType.RELEASE, job, 0, release + period),
                (release + 10, EventType.START, job, 0, 0),
                (release + 30, EventType.LOCK_ACQUIRE, job, 7 + k, 0),
                (release + 20, EventType.COMPLETE, job, 0, 500 * job),
            ]
        got_rows = [(int(e["time_ns"]), int(e["type"]), int(e["job"]), int(e["arg0"]),
                     int(e["arg1"])) for e in ev[:12]]
        assert got_rows == expected  # recording order, not time order
        assert ev["type"][12] == EventType.SLEEP and ev["arg1"][12] == 123
        assert ev["type"][13] == EventType.TASK_EXIT and ev["arg1"][13] == 3
        before, after = bounds[k]
        assert before <= ev["time_ns"][12] <= ev["time_ns"][13] <= after
        assert all(0 <= c < ncpu for c in ev["cpu"].tolist())
        assert set(ev["stream"].tolist()) == {1 + k}

    # all events, sorted by time, stably
    times = got.events["time_ns"]
    assert len(times) == 16 + 28
    assert (times[1:] >= times[:-1]).all()


def test_file_error_at_open_has_a_reason(lib, tmp_path):
    err_buf = ctypes.create_string_buffer(256)
    cfg = Config(str(tmp_path / "no" / "such" / "dir.rtst").encode(), b"", 0, 0, False,
                 ctypes.cast(err_buf, ctypes.c_char_p), 256)
    handle = ctypes.c_void_p()
    assert lib.rts_trace_open(ctypes.byref(handle), ctypes.byref(cfg)) == 2  # ENOENT
    assert "cannot create trace file" in err_buf.value.decode()
    assert not handle.value
