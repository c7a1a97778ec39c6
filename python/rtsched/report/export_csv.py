"""Per-job CSV in the layout of LITMUS^RT's ``st-job-stats`` (feather-trace-tools).

    # Task,   Job,     Period,   Response, DL Miss?,   Lateness,  Tardiness, Forced?,       ACET
    # task NAME=control PID=27404 COST=1000000 PERIOD=10000000 CPU=0
     27404,     1,   10000000,    1041969,        0,   -8958031,          0,       0,    1008329

As in ``st-job-stats`` (nanoseconds, its default): Task is the thread id
(LITMUS: the PID), each task's rows follow a ``# task NAME=... PID=... COST=...
PERIOD=... CPU=...`` comment line (COST: the WCET estimate, CPU: the partition's
CPU or -1 if the task may run on several), Response = completion − release,
DL Miss? = 1 when completion > absolute deadline, Lateness = completion −
deadline (negative when early), Tardiness = max(0, Lateness), Forced? = 0
(rtsched never forces a job to complete; budget overruns are reported, not
enforced), ACET = the CPU time the job consumed. Documented in docs/run.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from rtsched.outputs import write_bytes
from rtsched.report.jobs import JobTable

__all__ = ["CSV_HEADER", "write_job_csv"]

CSV_COLUMNS = ("Task", "Job", "Period", "Response", "DL Miss?", "Lateness", "Tardiness", "Forced?", "ACET")
CSV_HEADER = "#%5s, %5s, %10s, %10s, %8s, %10s, %10s, %7s, %10s" % CSV_COLUMNS


ROW_FORMAT = " %5u, %5u, %10u, %10u, %8d, %10d, %10d, %7d, %10u"
_WIDTHS = (5, 5, 10, 10, 8, 10, 10, 7, 10)  # ROW_FORMAT's, column by column


_POWERS_OF_TEN = 10 ** np.arange(1, 19, dtype=np.int64)
_FOUR_DIGITS = np.frombuffer("".join(f"{k:04d}" for k in range(10_000)).encode(), np.uint8).reshape(10_000, 4)


def _right_aligned(values: np.ndarray, width: int) -> np.ndarray | None:
    """``"%{width}d" % v`` of every value as an (n, width) array of ASCII codes, or None when a
    value needs more than ``width`` characters (the caller then formats those rows one by one).
    The digits are looked up four at a time, then the leading zeros blanked."""
    v = values.astype(np.int64)
    magnitude = np.abs(v)
    digits = 1 + np.searchsorted(_POWERS_OF_TEN, magnitude, side="right")
    negative = np.flatnonzero(v < 0)
    if len(v) and int(np.where(v < 0, digits + 1, digits).max()) > width:
        return None
    groups = -(-width // 4)
    padded = np.empty((len(v), 4 * groups), np.uint8)
    rest = magnitude
    for g in range(groups):
        rest, four = np.divmod(rest, 10_000)
        padded[:, 4 * (groups - 1 - g):4 * (groups - g)] = _FOUR_DIGITS[four]
    out = padded[:, 4 * groups - width:]
    out[np.arange(width)[None, :] < (width - digits)[:, None]] = ord(" ")
    out[negative, width - 1 - digits[negative]] = ord("-")
    return out


def _task_rows(tid: int, period_ns: int, jobs: np.ndarray) -> bytes:
    """The CSV rows of one task's jobs (ROW_FORMAT), formatted on the columns."""
    columns = (np.full(len(jobs), tid), jobs["job"], np.full(len(jobs), period_ns), jobs["response"],
               jobs["missed"].astype(np.int64), jobs["lateness"], jobs["tardiness"], np.zeros(len(jobs), np.int64),
               jobs["cpu_time"])
    constant = (0, 2, 7)  # the same in every row: formatted once
    cells = [np.broadcast_to(np.frombuffer((f"%{w}d" % c[0]).encode(), np.uint8), (len(jobs), len(f"%{w}d" % c[0])))
             if k in constant and len(jobs) else _right_aligned(c, w)
             for k, (c, w) in enumerate(zip(columns, _WIDTHS))]
    if any(c is None or c.shape[1] != w for c, w in zip(cells, _WIDTHS)):  # a value wider than its column: the exact % layout, row by row
        rows = zip(*(c.tolist() for c in columns))
        return "".join(ROW_FORMAT % row + "\n" for row in rows).encode()
    pieces: list[np.ndarray] = [np.full((len(jobs), 1), ord(" "), np.uint8)]
    for k, cell in enumerate(cells):
        assert cell is not None
        if k:
            pieces.append(np.tile(np.frombuffer(b", ", np.uint8), (len(jobs), 1)))
        pieces.append(cell)
    pieces.append(np.full((len(jobs), 1), ord("\n"), np.uint8))
    return np.concatenate(pieces, axis=1).tobytes()


def write_job_csv(
    table: JobTable,
    path: str | Path,
    *,
    wcet_ns: Sequence[int] | None = None,
    task_cpus: Sequence[Sequence[int]] | None = None,
) -> int:
    """Write one row per completed job; returns the number of rows."""
    parts = [CSV_HEADER.encode() + b"\n"]
    rows = 0
    for info in table.tasks:
        cost = wcet_ns[info.index] if wcet_ns is not None and info.index < len(wcet_ns) else 0
        cpus = list(task_cpus[info.index]) if task_cpus is not None and info.index < len(task_cpus) else []
        cpu = cpus[0] if len(cpus) == 1 else -1
        parts.append(f"# task NAME={info.name} PID={info.tid} COST={cost} PERIOD={info.period_ns} CPU={cpu}\n".encode())
        jobs = table.of_task(info.index)
        parts.append(_task_rows(info.tid, info.period_ns, jobs))
        rows += len(jobs)
    write_bytes(Path(path), b"".join(parts))
    return rows
