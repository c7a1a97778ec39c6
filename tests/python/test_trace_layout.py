"""The trace file's layout is one (issue 36, item 4): the records of src/internal/trace_format.h,
read here from the header, are rtsched.trace.layout's, field by field (name, type, offset,
size) and constant by constant, and the reader and the simulator's writer use that module.
(The event types: test_trace_reader.py's test_event_types_mirror_the_c_enum.)"""

from __future__ import annotations

import re
import struct
import time
from pathlib import Path

import pytest

from rtsched.sim import trace_writer
from rtsched.trace import layout, reader

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "src" / "internal" / "trace_format.h"
if not HEADER.exists():
    pytest.skip(f"{HEADER} not found (not run from a source checkout)", allow_module_level=True)
TEXT = HEADER.read_text()

#: C field types -> struct codes (arrays of char or uint8_t are byte strings).
C_CODES = {"uint16_t": "H", "int32_t": "i", "uint32_t": "I", "int64_t": "q", "uint64_t": "Q"}

RECORDS = {
    "rts_trace_file_header": layout.HEADER_FIELDS,
    "rts_trace_stream_record": layout.STREAM_FIELDS,
    "rts_trace_chunk_header": layout.CHUNK_FIELDS,
    "rts_trace_event_rec": layout.EVENT_FIELDS,
}


def c_fields(struct_name: str) -> tuple[tuple[str, str], ...]:
    """A struct's fields in order as (name, struct code), read from the C header."""
    body = re.search(rf"struct {struct_name} {{(.*?)}};", TEXT, re.S)
    assert body, f"struct {struct_name} not found in {HEADER}"
    fields = []
    for ctype, name, count in re.findall(r"(\w+)\s+(\w+)(?:\[(\d+)\])?;", body.group(1)):
        fields.append((name, f"{count}s" if count else C_CODES[ctype]))
        assert not count or ctype in ("char", "uint8_t"), f"{struct_name}.{name}: an array of {ctype}"
    return tuple(fields)


def offsets(fields: tuple[tuple[str, str], ...]) -> dict[str, int]:
    """Each field's offset in the unpadded little-endian record."""
    result, at = {}, 0
    for name, code in fields:
        result[name] = at
        at += struct.calcsize("<" + code)
    return result


def c_define(name: str) -> str:
    found = re.search(rf"#define {name}\s+(\S+)", TEXT)
    assert found, f"{name} not found in {HEADER}"
    return found.group(1)


@pytest.mark.parametrize("struct_name", RECORDS)
def test_each_record_has_the_c_structs_fields_in_order(struct_name):
    assert RECORDS[struct_name] == c_fields(struct_name)


@pytest.mark.parametrize("struct_name", RECORDS)
def test_the_c_static_asserts_hold_for_the_python_record(struct_name):
    fields = RECORDS[struct_name]
    sizes = re.findall(rf"sizeof\(struct {struct_name}\) == (\d+)", TEXT)
    assert sizes and struct.calcsize("<" + "".join(code for _, code in fields)) == int(sizes[0])
    at = offsets(fields)
    asserted = re.findall(rf"offsetof\(struct {struct_name}, (\w+)\) == (\d+)", TEXT)
    assert {name: at[name] for name, _ in asserted} == {name: int(offset) for name, offset in asserted}


def test_the_python_records_have_no_padding_the_c_ones_would_add():
    for fields in RECORDS.values():
        for name, at in offsets(fields).items():
            code = dict(fields)[name]
            alignment = 1 if code.endswith("s") else struct.calcsize(code)
            assert at % alignment == 0, f"{name} at {at}: C would pad before it"


def test_the_constants_are_the_c_headers():
    assert c_define("RTS_TRACE_MAGIC") == f'"{layout.MAGIC.decode()}"'
    assert int(c_define("RTS_TRACE_VERSION").rstrip("u")) == layout.VERSION
    assert int(c_define("RTS_TRACE_CHUNK_MAGIC").rstrip("u"), 16) == layout.CHUNK_MAGIC
    assert int(c_define("RTS_TRACE_CPU_UNKNOWN").rstrip("u"), 16) == layout.CPU_UNKNOWN
    assert struct.pack("<I", layout.CHUNK_MAGIC) == b"CHNK"
    writer = (ROOT / "src" / "trace" / "trace.c").read_text()
    assert re.search(r"h->clock = CLOCK_MONOTONIC;", writer)
    assert layout.CLOCK_MONOTONIC == time.CLOCK_MONOTONIC


def test_the_name_limits_are_the_public_headers():
    public = (ROOT / "include" / "rtsched" / "trace.h").read_text()
    limits = dict(re.findall(r"#define (RTS_TRACE_(?:STREAM_)?NAME_MAX)\s+(\d+)", public))
    assert int(limits["RTS_TRACE_NAME_MAX"]) == layout.SET_NAME_MAX
    assert int(limits["RTS_TRACE_STREAM_NAME_MAX"]) == layout.STREAM_NAME_MAX


def test_the_readers_file_event_is_the_record():
    dtype = reader.FILE_EVENT_DTYPE
    assert dtype.names == tuple(name for name, _ in layout.EVENT_FIELDS)
    assert {name: dtype.fields[name][1] for name in dtype.names} == offsets(layout.EVENT_FIELDS)
    assert [dtype[name].str for name in dtype.names] == [
        "<" + {"q": "i8", "H": "u2", "I": "u4"}[code] for _, code in layout.EVENT_FIELDS]
    assert reader.EVENT_DTYPE.descr[:-1] == dtype.descr


def test_the_reader_and_the_simulators_writer_take_the_layout_from_one_module():
    for name in ("MAGIC", "VERSION", "HEADER_SIZE", "STREAM_RECORD_SIZE", "CHUNK_HEADER_SIZE", "EVENT_SIZE",
                 "CHUNK_MAGIC", "CPU_UNKNOWN"):
        assert getattr(reader, name) is getattr(layout, name), name
    assert trace_writer.HEADER is layout.HEADER and trace_writer.EVENT is layout.EVENT
