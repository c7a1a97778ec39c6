"""trace.pftrace's TrackEvent packets by ``librtsched_report.so`` (tools/report/, built by CMake,
found like the native programs: ``rtsched.native.native_library``), the same bytes as the numpy
encoder in ``export_pftrace`` (tests/python/test_report_pftrace_native.py compares them), about
ten times faster: the encoder was a quarter of the writer's time.

``packets(...)`` returns None when the library is not built; the caller then encodes with numpy.
``RTSCHED_REPORT_ENGINE=python`` in the environment turns the library off (``native`` makes its
absence an error), as ``RTSCHED_ANALYSIS_ENGINE`` does for the analysis' kernels.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

from rtsched.native import native_library

__all__ = ["LIBRARY", "PACKET_MAX_BYTES", "available", "packets"]

LIBRARY = "librtsched_report.so"
PACKET_MAX_BYTES = 64  # track_event_packets.h: RTSR_PACKET_MAX_BYTES

_COLUMN_TYPES = (np.int64, np.int8, np.int32, np.int32, np.uint8, np.int64)  # ts, kind, track, name, arg_name, arg


def _load() -> Any:
    wanted = os.environ.get("RTSCHED_REPORT_ENGINE", "")
    if wanted not in ("", "native", "python"):
        raise ValueError(f"RTSCHED_REPORT_ENGINE={wanted!r}: use native or python (or leave it unset)")
    path = native_library(LIBRARY) if wanted != "python" else None
    if path is None:
        if wanted == "native":
            raise RuntimeError(f"RTSCHED_REPORT_ENGINE=native but {LIBRARY} is not built "
                               "(tools/report; RTSCHED_NATIVE_BIN: a build tree's tools folder)")
        return None
    lib = ctypes.CDLL(str(path))
    lib.rtsr_track_event_packets.argtypes = [ctypes.c_int64, *[ctypes.c_void_p] * 7]
    lib.rtsr_track_event_packets.restype = ctypes.c_int64
    return lib


_LIB: Any = _load()


def available() -> bool:
    return _LIB is not None


def packets(ts: np.ndarray, kind: np.ndarray, track: np.ndarray, name: np.ndarray, arg_name: np.ndarray,
            arg: np.ndarray) -> bytes | None:
    """The packets of these events (in this order), or None without the library."""
    if _LIB is None:
        return None
    columns = [np.ascontiguousarray(c, t) for c, t in zip((ts, kind, track, name, arg_name, arg), _COLUMN_TYPES)]
    out = np.empty(len(ts) * PACKET_MAX_BYTES, np.uint8)
    written = _LIB.rtsr_track_event_packets(len(ts), *(c.ctypes.data for c in columns), out.ctypes.data)
    if written < 0:
        raise RuntimeError(f"{LIBRARY}: rtsr_track_event_packets refused {len(ts)} events")
    return out[:written].tobytes()
