"""A small reader of Perfetto protobuf traces, enough to check what rtsched writes
(rtsched.report.export_pftrace): the packets, their track descriptors and track events."""

from __future__ import annotations

from dataclasses import dataclass, field


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """(field number, value) of one message: an int for a varint, bytes for a length-delimited field.
    Any other wire type (fixed32/64, groups) is an error: rtsched writes none."""
    out: list[tuple[int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
            out.append((number, value))
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError(f"field {number}: {size} bytes past the end of its message")
            out.append((number, data[at:at + size]))
            at += size
        else:
            raise ValueError(f"field {number}: wire type {wire}")
    return out


@dataclass
class Event:
    ts: int
    type: int
    track: int
    name: str | None
    args: dict[str, int]


@dataclass
class Decoded:
    tracks: dict[int, tuple[str, int]] = field(default_factory=dict)  # uuid -> (name, parent uuid)
    events: list[Event] = field(default_factory=list)
    first_flags: int = 0


def decode(data: bytes) -> Decoded:
    """Every track descriptor and track event of a trace (names resolved through the interned data)."""
    out = Decoded()
    names: dict[int, str] = {}
    arg_names: dict[int, str] = {}
    for k, (number, packet) in enumerate(fields(data)):
        assert number == 1 and isinstance(packet, bytes), f"Trace field {number} is not a packet"
        p = dict(fields(packet))
        if k == 0:
            out.first_flags = int(p.get(13, 0))  # type: ignore[arg-type]
        if 12 in p:
            for n, entry in fields(p[12]):  # type: ignore[arg-type]
                e = dict(fields(entry))  # type: ignore[arg-type]
                (names if n == 2 else arg_names)[int(e[1])] = e[2].decode()  # type: ignore[union-attr,arg-type]
        if 60 in p:
            d = dict(fields(p[60]))  # type: ignore[arg-type]
            out.tracks[int(d[1])] = (d[2].decode(), int(d.get(5, 0)))  # type: ignore[union-attr,arg-type]
        if 11 in p:
            te = fields(p[11])  # type: ignore[arg-type]
            t = dict(te)
            args = {}
            for n, a in te:
                if n == 4:
                    ad = dict(fields(a))  # type: ignore[arg-type]
                    args[arg_names[int(ad[1])]] = int(ad[4])  # type: ignore[arg-type]
            name = names[int(t[10])] if 10 in t else None  # type: ignore[arg-type]
            out.events.append(Event(int(p[8]), int(t[9]), int(t[11]), name, args))  # type: ignore[arg-type]
    return out
