"""Read a demand trace: a CSV file of per-job execution times (docs/taskset.md, "Varying demand").

The file: lines starting with ``#`` are comments and blank lines are skipped;
the first other line is the header, one name per column, each ending in its
unit (``_ns``, ``_us``, ``_ms`` or ``_s``: ``tau31_us``); every later line
is one job, a number >= 0 per column (decimals allowed when they make whole
nanoseconds). Every problem names the file and its line.
"""

from __future__ import annotations

import csv
from decimal import Decimal, InvalidOperation
from pathlib import Path

from rtsched.model.demand import MAX_JOB_DURATIONS

__all__ = ["COLUMN_UNITS", "TraceError", "read_trace_column"]

#: Column-name suffixes and their unit in ns.
COLUMN_UNITS: dict[str, int] = {"_ns": 1, "_us": 1_000, "_ms": 1_000_000, "_s": 1_000_000_000}


class TraceError(ValueError):
    """A trace that cannot be used; the message names the file (as the task set wrote it) and line."""


def _unit_ns(column: str) -> int | None:
    for suffix, ns in COLUMN_UNITS.items():
        if column.endswith(suffix) and len(column) > len(suffix):
            return ns
    return None


def _cell_ns(text: str, unit_ns: int) -> int | None:
    try:
        value = Decimal(text.strip()) * unit_ns
    except InvalidOperation:
        return None
    if not value.is_finite() or value < 0 or value != value.to_integral_value():
        return None
    return int(value)


def read_trace_column(path: Path, shown: str, column: str | None) -> tuple[str, tuple[int, ...]]:
    """(column name, its values in ns, one per job in file order) of the trace at ``path``.

    ``shown``: the file as the task set names it, for messages. ``column`` None: the file must
    have exactly one column. Raises TraceError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"cannot read {shown}: no such file ({path})") from None
    except IsADirectoryError:
        raise TraceError(f"cannot read {shown}: is a directory") from None
    except OSError as e:
        raise TraceError(f"cannot read {shown}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise TraceError(f"cannot read {shown}: not UTF-8 text (byte {e.start})") from None
    rows = [(n, cells) for n, cells in enumerate(csv.reader(text.splitlines()), start=1)
            if cells and not cells[0].lstrip().startswith("#") and any(c.strip() for c in cells)]
    if not rows:
        raise TraceError(f"{shown}: empty: expected a header line naming the columns, then one line per job")
    header_line, header = rows[0]
    names = [h.strip() for h in header]
    if column is None:
        if len(names) != 1:
            raise TraceError(f"{shown}:{header_line}: {len(names)} columns ({', '.join(names)}): "
                             "give the compute's column")
        column = names[0]
    if column not in names:
        raise TraceError(f'{shown}:{header_line}: no column "{column}" (columns: {", ".join(names)})')
    unit_ns = _unit_ns(column)
    if unit_ns is None:
        raise TraceError(f'{shown}:{header_line}: column "{column}" names no unit: end its name with '
                         f'{", ".join(COLUMN_UNITS)}')
    index = names.index(column)
    values: list[int] = []
    for line, cells in rows[1:]:
        if len(cells) != len(names):
            raise TraceError(f"{shown}:{line}: {len(cells)} cells, the header has {len(names)}")
        ns = _cell_ns(cells[index], unit_ns)
        if ns is None:
            raise TraceError(f'{shown}:{line}: column "{column}": expected a number >= 0 of whole ns, '
                             f'got "{cells[index].strip()}"')
        values.append(ns)
        if len(values) > MAX_JOB_DURATIONS:
            raise TraceError(f"{shown}:{line}: more than {MAX_JOB_DURATIONS} jobs (the most one compute holds)")
    if not values:
        raise TraceError(f"{shown}: no job after the header (line {header_line})")
    if max(values) == 0:
        raise TraceError(f'{shown}: column "{column}" is 0 in every job: a compute needs some CPU time')
    return column, tuple(values)
