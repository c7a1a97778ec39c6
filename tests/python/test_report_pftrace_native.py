"""librtsched_report.so's TrackEvent packets (tools/report/track_event_packets.c) are the bytes of
the numpy encoder (export_pftrace.numpy_packets) on every kind of event and every varint length,
and trace.pftrace is the same file with either."""

from __future__ import annotations

import numpy as np
import pytest

from rtsched.report import pftrace_native
from rtsched.report.export_pftrace import INSTANT, SLICE_BEGIN, SLICE_END, numpy_packets

pytestmark = pytest.mark.skipif(not pftrace_native.available(),
                                reason=f"{pftrace_native.LIBRARY} is not built (RTSCHED_NATIVE_BIN)")


def _columns(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    widths = rng.integers(0, 63, n)  # values of every varint length, 1 to 9 bytes (and 0)
    ts = (rng.integers(0, 1 << 62, n) >> (62 - widths)).astype(np.int64)
    kind = rng.choice(np.array([SLICE_BEGIN, SLICE_END, INSTANT], np.int8), n)
    track = rng.integers(0, 1 << 20, n).astype(np.int32)
    name = rng.integers(1, 1 << 16, n).astype(np.int32)
    arg_name = rng.integers(1, 3, n).astype(np.uint8)
    arg = (rng.integers(0, 1 << 62, n) >> rng.integers(0, 63, n)).astype(np.int64)
    return ts, kind, track, name, arg_name, arg


@pytest.mark.parametrize("seed", range(5))
def test_native_packets_are_the_numpy_encoders_bytes(seed):
    columns = _columns(5000, seed)
    assert pftrace_native.packets(*columns) == numpy_packets(*columns)


def test_no_events_make_no_bytes():
    columns = _columns(0, 0)
    assert pftrace_native.packets(*columns) == b"" == numpy_packets(*columns)


def test_the_file_is_the_same_with_either_encoder(tmp_path, monkeypatch):
    from rtsched.model import load_taskset
    from rtsched.pipeline import ReportSettings, run_experiment
    from rtsched.sim import SimOptions, SimProducer
    from test_report_chunked import EXAMPLES

    taskset = load_taskset(EXAMPLES / "picv-rpc.yaml")
    sim = SimProducer(SimOptions(duration_ns=200_000_000, cpus=(0, 1, 2, 3)))
    run_experiment(taskset, sim, tmp_path / "native", settings=ReportSettings(plots=False))
    monkeypatch.setattr(pftrace_native, "_LIB", None)
    run_experiment(taskset, sim, tmp_path / "numpy", settings=ReportSettings(plots=False))
    assert (tmp_path / "native" / "trace.pftrace").read_bytes() == (tmp_path / "numpy" / "trace.pftrace").read_bytes()
