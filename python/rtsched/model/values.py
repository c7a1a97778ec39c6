"""How a value from a file is shown in an error message: short, whatever the file holds.

A 5 MB name or a 400-digit number is quoted by its start and its length, so
that an error stays one readable line.
"""

from __future__ import annotations

__all__ = ["MAX_SHOWN", "describe"]

#: The most characters of a value an error message quotes.
MAX_SHOWN = 60


def describe(value: object) -> str:
    """A short, user-facing rendering of a value for an error message."""
    if isinstance(value, str):
        if len(value) > MAX_SHOWN:
            return f'"{value[:MAX_SHOWN]}..." ({len(value):,} characters)'
        return f'"{value}"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "a list" if len(value) <= 8 else f"a list of {len(value):,} items"
    if isinstance(value, int) and abs(value) >= 10**MAX_SHOWN:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)
