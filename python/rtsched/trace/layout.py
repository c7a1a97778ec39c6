"""The ``.rtst`` trace file's records, byte for byte (docs/trace-format.md): the Python copy of
src/internal/trace_format.h, little-endian, unpadded. The reader and the simulator's writer
take them from here; tests/python/test_trace_layout.py reads the C header and fails when a
field, its type, an offset, a size or a constant differs."""

from __future__ import annotations

import struct
import time

__all__ = [
    "MAGIC", "VERSION", "CHUNK_MAGIC", "CPU_UNKNOWN", "CLOCK_MONOTONIC",
    "HEADER_FIELDS", "STREAM_FIELDS", "CHUNK_FIELDS", "EVENT_FIELDS",
    "HEADER", "STREAM", "CHUNK", "EVENT",
    "HEADER_SIZE", "STREAM_RECORD_SIZE", "CHUNK_HEADER_SIZE", "EVENT_SIZE",
    "SET_NAME_MAX", "STREAM_NAME_MAX",
]

MAGIC = b"RTSTRACE"
VERSION = 1
CHUNK_MAGIC = 0x4B4E4843  # "CHNK" read as a little-endian u32
CPU_UNKNOWN = 0xFFFF
#: The header's clock: the runner's and the simulator's times are CLOCK_MONOTONIC's.
CLOCK_MONOTONIC = time.CLOCK_MONOTONIC

#: Each record's fields in order, (name, struct code), as the C structs declare them.
HEADER_FIELDS = (("magic", "8s"), ("version", "I"), ("header_size", "I"), ("stream_record_size", "I"),
                 ("event_size", "I"), ("clock", "I"), ("n_streams", "I"), ("t0_ns", "q"), ("duration_ns", "q"),
                 ("name", "64s"), ("reserved", "16s"))
STREAM_FIELDS = (("stream_id", "I"), ("task_id", "i"), ("tid", "I"), ("capacity", "I"), ("period_ns", "q"),
                 ("deadline_ns", "q"), ("name", "32s"))
CHUNK_FIELDS = (("magic", "I"), ("stream_id", "I"), ("n_events", "I"), ("reserved0", "I"), ("lost_total", "Q"),
                ("reserved1", "Q"))
#: An event: the same 32 bytes in the runner's rings and in the file.
EVENT_FIELDS = (("time_ns", "q"), ("type", "H"), ("cpu", "H"), ("job", "I"), ("arg0", "I"), ("reserved", "I"),
                ("arg1", "q"))


def _record(fields: tuple[tuple[str, str], ...]) -> struct.Struct:
    return struct.Struct("<" + "".join(code for _, code in fields))


HEADER = _record(HEADER_FIELDS)
STREAM = _record(STREAM_FIELDS)
CHUNK = _record(CHUNK_FIELDS)
EVENT = _record(EVENT_FIELDS)
HEADER_SIZE = HEADER.size
STREAM_RECORD_SIZE = STREAM.size
CHUNK_HEADER_SIZE = CHUNK.size
EVENT_SIZE = EVENT.size

#: Bytes of a name that fit NUL-terminated in the header's and a stream's name field.
SET_NAME_MAX = struct.calcsize(dict(HEADER_FIELDS)["name"]) - 1
STREAM_NAME_MAX = struct.calcsize(dict(STREAM_FIELDS)["name"]) - 1
