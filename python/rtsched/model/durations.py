"""Durations with units: ``"10ms"``, ``"500us"``, ``"2s"``, ``"1.5ms"``, ``"250ns"``.

A duration in a task-set file is always a string with a unit. A bare number
is refused, even an integer: ``period: 10`` could mean 10 ns, 10 µs or 10 ms
depending on who wrote it, so the file must say. Values are exact: the result
is an integer number of nanoseconds, and a value that is not a whole number
of nanoseconds (``"1.5ns"``) is refused rather than rounded.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from rtsched.model.values import describe

__all__ = ["MAX_DURATION_NS", "UNITS", "DurationError", "parse_duration", "format_duration"]

#: Accepted units and their length in nanoseconds. ``µs`` is accepted as an
#: alias of ``us``.
UNITS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
}

#: The longest duration accepted, about 36.5 years: the runner and the library keep times in
#: signed 64-bit nanoseconds and add a few of them (a release, an offset, a deadline), which
#: must not overflow (the runner refuses any time above INT64_MAX / 4 = 2^61 - 1).
MAX_DURATION_NS = 2**60

_PATTERN = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(ns|us|µs|ms|s)\s*$")

_FORMAT_UNITS = [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)]


class DurationError(ValueError):
    """A value that is not a duration; the message says what was expected."""


def parse_duration(value: object) -> int:
    """Return ``value`` (a string such as ``"1.5ms"``) in integer nanoseconds.

    Raises DurationError for anything else, including bare numbers, negative
    values and fractions of a nanosecond.
    """
    if isinstance(value, bool) or isinstance(value, (int, float)):
        raise DurationError(
            f"expected a duration with a unit (10ms, 500us, 2s), got the bare number "
            f"{describe(value)}: a number without a unit is not accepted"
        )
    if not isinstance(value, str):
        raise DurationError(f"expected a duration, got {describe(value)}")
    match = _PATTERN.match(value)
    if match is None:
        if value.strip().startswith("-"):
            raise DurationError(f"expected a non-negative duration, got {describe(value)}")
        raise DurationError(
            f"expected a duration, got {describe(value)} (write a number and a unit: "
            "ns, us, ms or s, as in 10ms or 1.5ms)"
        )
    number, unit = match.groups()
    try:
        ns = Decimal(number) * UNITS[unit]
    except InvalidOperation:  # pragma: no cover - the pattern only admits decimals
        raise DurationError(f"expected a duration, got {describe(value)}") from None
    if ns != ns.to_integral_value():
        raise DurationError(f"{describe(value)} is not a whole number of nanoseconds")
    if ns > MAX_DURATION_NS:
        raise DurationError(f"{describe(value)} is longer than the longest duration, 2^60 ns (about "
                            "36 years): times are kept in 64-bit nanoseconds")
    return int(ns)


def format_duration(ns: int) -> str:
    """Format integer nanoseconds in the largest unit not above the value, exactly.

    ``format_duration(1_500_000) == "1.5ms"``; ``parse_duration`` of the result
    gives ``ns`` back.
    """
    if isinstance(ns, bool) or not isinstance(ns, int) or ns < 0:
        raise ValueError(f"expected a non-negative integer of nanoseconds, got {ns!r}")
    if ns == 0:
        return "0ms"
    for unit, size in _FORMAT_UNITS:
        if ns >= size:
            whole, rest = divmod(ns, size)
            if rest == 0:
                return f"{whole}{unit}"
            digits = len(str(size)) - 1
            fraction = str(rest).rjust(digits, "0").rstrip("0")
            return f"{whole}.{fraction}{unit}"
    raise AssertionError("unreachable")  # pragma: no cover
