"""The protobuf wire format, written without a protobuf library: varints and length-delimited
fields, one message at a time (``field_varint``, ``field_bytes``) or a whole column of
messages of one layout at once (``encode_rows``).

``encode_rows`` is what keeps large exports fast: every row is a flat sequence of fields, each
a tag followed by a varint, present in the rows its mask selects. A length-delimited field is
written the same way, its varint being the length of the fields that follow it (the caller
computes it with ``field_sizes``), so nested messages need no recursion:

    sizes = field_sizes(inner_fields)            # per row, bytes of each field
    rows = [(tag(1, LEN), total_of(sizes), None), *inner_fields]
    data = encode_rows(rows, n)

Only unsigned varints are written: a negative int64 would be its 10-byte two's complement,
which no caller here needs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["LEN", "VARINT", "Field", "encode_rows", "field_bytes", "field_sizes", "field_varint", "tag",
           "varint", "varint_sizes"]

VARINT = 0  # wire type of a varint
LEN = 2  # wire type of a length-delimited field (string, bytes, message)

#: One field of a row layout: its tag's bytes, each row's value, the rows that have it (None: all).
Field = tuple[bytes, np.ndarray, np.ndarray | None]


def varint(value: int) -> bytes:
    """``value`` (>= 0) as a protobuf varint."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def field_varint(number: int, value: int) -> bytes:
    return tag(number, VARINT) + varint(value)


def field_bytes(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return tag(number, LEN) + varint(len(data)) + data


def varint_sizes(values: np.ndarray) -> np.ndarray:
    """Bytes of each value's varint (1 to 10)."""
    v = values.astype(np.uint64)
    sizes = np.ones(len(v), np.int64)
    top = int(v.max()) if len(v) else 0
    for k in range(1, 10):
        if top < 1 << (7 * k):
            break
        sizes += v >= np.uint64(1 << (7 * k))
    return sizes


def field_sizes(fields: Sequence[Field]) -> list[np.ndarray]:
    """Per field, each row's bytes for it (0 where its mask leaves it out)."""
    out = []
    for tag_bytes, values, mask in fields:
        size = len(tag_bytes) + varint_sizes(values)
        out.append(size if mask is None else np.where(mask, size, 0))
    return out


def encode_rows(fields: Sequence[Field], n: int, sizes: list[np.ndarray] | None = None) -> bytes:
    """``n`` rows of ``fields``, one after the other: each row its fields in order. ``sizes``:
    ``field_sizes(fields)``, when the caller has it already."""
    sizes = field_sizes(fields) if sizes is None else sizes
    row_sizes = np.sum(sizes, axis=0) if sizes else np.zeros(n, np.int64)
    cursor = np.zeros(n, np.int64)
    cursor[1:] = np.cumsum(row_sizes)[:-1]
    out = np.zeros(int(row_sizes.sum()), np.uint8)
    for (tag_bytes, values, mask), size in zip(fields, sizes):
        rows = np.flatnonzero(mask) if mask is not None else None
        at = cursor if rows is None else cursor[rows]
        v = values.astype(np.uint64) if rows is None else values[rows].astype(np.uint64)
        length = size if rows is None else size[rows]
        for j, byte in enumerate(tag_bytes):
            out[at + j] = byte
        at = at + len(tag_bytes)
        length = length - len(tag_bytes)
        uniform = bool(len(length) == 0 or length.min() == length.max())
        for k in range(int(length.max()) if len(length) else 0):  # seven bits a byte, high bit: more follow
            byte_k = ((v >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8) | ((k < length - 1).astype(np.uint8) << 7)
            if uniform:
                out[at + k] = byte_k
            else:
                here = k < length
                out[at[here] + k] = byte_k[here]
        cursor += size
    return out.tobytes()
