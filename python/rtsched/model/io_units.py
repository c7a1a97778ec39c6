"""Data sizes and bandwidths of an I/O file: ``"4.0MB"``, ``"786.6KB"``, ``"250MB/s"``.

As durations (``rtsched.model.durations``), a size or a bandwidth is a string
with its unit, never a bare number, and exact: a size is a whole number of
bytes (``"1.5B"`` is refused, not rounded), a bandwidth an exact ``Fraction``
of bytes per second. K, M, G are decimal (10^3, 10^6, 10^9, as the thesis's
"4.0 MB" and "250 MBps"); KiB, MiB, GiB binary.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

__all__ = ["SIZE_UNITS", "UnitError", "parse_size_bytes", "parse_bandwidth_bytes_per_s", "format_size"]

#: Size units and their length in bytes.
SIZE_UNITS: dict[str, int] = {
    "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
}

_NUMBER = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_SIZE = re.compile(rf"^\s*{_NUMBER}\s*(B|KB|MB|GB|KiB|MiB|GiB)\s*$")
_BANDWIDTH = re.compile(rf"^\s*{_NUMBER}\s*(B|KB|MB|GB|KiB|MiB|GiB)/s\s*$")


class UnitError(ValueError):
    """A value that is not a size or a bandwidth; the message says what was expected."""


def _quoted(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def parse_size_bytes(value: object) -> int:
    """``value`` (such as ``"4.0MB"``) in whole bytes; bare numbers and fractions of a byte are refused."""
    if not isinstance(value, str):
        raise UnitError(f"expected a size with a unit (4MB, 512KiB, 1500B), got {_quoted(value)}")
    match = _SIZE.match(value)
    if match is None:
        raise UnitError(f"expected a size such as 4MB, 512KiB or 1500B, got {_quoted(value)}")
    number, unit = match.groups()
    size = Decimal(number) * SIZE_UNITS[unit]
    if size != size.to_integral_value():
        raise UnitError(f"{_quoted(value)} is not a whole number of bytes")
    if size <= 0:
        raise UnitError(f"expected a positive size, got {_quoted(value)}")
    return int(size)


def parse_bandwidth_bytes_per_s(value: object) -> Fraction:
    """``value`` (such as ``"250MB/s"``) in bytes per second, exactly; it must be positive."""
    if not isinstance(value, str):
        raise UnitError(f"expected a bandwidth with a unit (250MB/s, 2.4GB/s), got {_quoted(value)}")
    match = _BANDWIDTH.match(value)
    if match is None:
        raise UnitError(f"expected a bandwidth such as 250MB/s or 2.4GB/s, got {_quoted(value)}")
    number, unit = match.groups()
    rate = Fraction(Decimal(number)) * SIZE_UNITS[unit]
    if rate <= 0:
        raise UnitError(f"expected a positive bandwidth, got {_quoted(value)}")
    return rate


def format_size(size_bytes: int | Fraction) -> str:
    """A size for a human: bytes below 10 kB, KB below 1 MB, else MB (three decimals)."""
    if size_bytes < 10_000:
        return f"{float(size_bytes):.0f}B"
    if size_bytes < 1_000_000:
        return f"{float(size_bytes) / 1e3:.3f}KB"
    return f"{float(size_bytes) / 1e6:.3f}MB"
