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

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from rtsched.outputs import partial
from rtsched.report.job_pass import StreamBlock
from rtsched.report.jobs import JobTable, TaskInfo

__all__ = ["BLOCK_ROWS", "CSV_HEADER", "JobCsv", "write_job_csv"]

CSV_COLUMNS = ("Task", "Job", "Period", "Response", "DL Miss?", "Lateness", "Tardiness", "Forced?", "ACET")
CSV_HEADER = "#%5s, %5s, %10s, %10s, %8s, %10s, %10s, %7s, %10s" % CSV_COLUMNS


ROW_FORMAT = " %5u, %5u, %10u, %10u, %8d, %10d, %10d, %7d, %10u"
_WIDTHS = (5, 5, 10, 10, 8, 10, 10, 7, 10)  # ROW_FORMAT's, column by column
#: Rows formatted at a time: the formatter's arrays stay small (memory flat in the jobs).
BLOCK_ROWS = 1 << 16
#: A task's rows JobCsv lets wait before formatting them (a call costs about as much for 10 as for 8,000).
SPOOL_ROWS = 1 << 13


_POWERS_OF_TEN = 10 ** np.arange(1, 19, dtype=np.int64)
#: Characters of the widest int64 with its sign, in 32-bit words of four.
_MOST_GROUPS = 5


def _leading_blanks(groups: int) -> np.ndarray:
    """Row d (digits): what turns a number of d digits zero-padded to ``4 * groups`` into a
    blank-padded one when subtracted from its ASCII codes (``"0"`` - ``" "`` before the digits,
    0 from them on), as ``groups`` 32-bit words (no borrow crosses a byte: "0" - 16 is " ")."""
    width = 4 * groups
    cut = np.arange(width)[None, :] < (width - np.arange(width + 1))[:, None]
    return np.ascontiguousarray(np.where(cut, ord("0") - ord(" "), 0).astype(np.uint8)).view(np.uint32)


#: "%04d" of 0 to 9999 as one 32-bit word each (its four ASCII codes in memory order).
_FOUR_DIGITS = np.frombuffer("".join(f"{k:04d}" for k in range(10_000)).encode(), np.uint32)
_BLANKS = {groups: _leading_blanks(groups) for groups in range(1, _MOST_GROUPS + 1)}


def _digits(magnitude: np.ndarray) -> np.ndarray:
    return 1 + np.searchsorted(_POWERS_OF_TEN, magnitude, side="right")


def _right_aligned(values: np.ndarray, width: int, out: np.ndarray) -> None:
    """Write ``"%{width}d" % v`` of every value, each at most ``width`` characters, into ``out``
    ((n, width) ASCII codes). The digits are looked up four at a time and the leading zeros
    blanked by a lookup too, both as 32-bit words."""
    v = values.astype(np.int64)
    magnitude = np.abs(v)
    digits = _digits(magnitude)
    negative = np.flatnonzero(v < 0)
    groups = -(-width // 4)
    padded = np.empty((len(v), groups), np.uint32)
    rest = magnitude
    for g in range(groups):
        rest, four = np.divmod(rest, 10_000)
        padded[:, groups - 1 - g] = _FOUR_DIGITS[four]
    padded -= _BLANKS[groups][digits]
    out[:] = padded.view(np.uint8)[:, 4 * groups - width:]
    out[negative, width - 1 - digits[negative]] = ord("-")


def _lines(columns: Sequence[np.ndarray], widths: Sequence[int]) -> bytes:
    """ROW_FORMAT's lines of these rows, each column right-aligned in its width (a value fits)."""
    n = len(columns[0])
    line = np.full((n, 1 + sum(widths) + 2 * (len(widths) - 1) + 1), ord(","), np.uint8)
    line[:, 0] = ord(" ")
    line[:, -1] = ord("\n")
    at = 1
    for k, (column, width) in enumerate(zip(columns, widths)):
        if k:
            line[:, at + 1] = ord(" ")  # after the comma
            at += 2
        _right_aligned(column, width, line[:, at:at + width])
        at += width
    return line.tobytes()


def _task_rows(tid: int, period_ns: int, jobs: np.ndarray) -> bytes:
    """The CSV rows of one task's jobs (ROW_FORMAT), formatted on the columns into (rows, line
    length) arrays of ASCII codes. A value wider than its column widens it in its row, as
    ``%5u`` does (job 100000 onwards, a lateness of seconds): the rows are formatted in runs of
    the same widths (one run, or a few: job numbers only grow)."""
    columns = (np.full(len(jobs), tid), jobs["job"].astype(np.int64), np.full(len(jobs), period_ns), jobs["response"],
               jobs["missed"].astype(np.int64), jobs["lateness"], jobs["tardiness"], np.zeros(len(jobs), np.int64),
               jobs["cpu_time"])
    if not len(jobs):
        return b""
    widths = np.stack([np.maximum(width, _digits(np.abs(c.astype(np.int64))) + (c < 0))
                       for c, width in zip(columns, _WIDTHS)])
    key = np.zeros(len(jobs), np.int64)
    for row in widths:  # a width is at most 20: five bits each
        key = (key << 5) | row
    runs = [0, *(np.flatnonzero(key[1:] != key[:-1]) + 1).tolist(), len(jobs)]
    return b"".join(_lines([c[a:b] for c in columns], widths[:, a].tolist()) for a, b in zip(runs, runs[1:]))


class JobCsv:
    """jobs.csv written from a pass over the trace (``job_pass.run_pass``): each window's rows are
    formatted as they come and spooled to an unnamed file beside ``path``, then copied out task by
    task, in the table's order, when the pass ends (whole or not at all, rtsched.outputs).
    ``tids`` and ``periods_ns``: by task index (the trace's stream records); ``wcet_ns`` and
    ``task_cpus`` by task index as for write_job_csv."""

    def __init__(self, path: str | Path, tids: Mapping[int, int], periods_ns: Mapping[int, int], *,
                 wcet_ns: Sequence[int] | None = None, task_cpus: Sequence[Sequence[int]] | None = None) -> None:
        self.path, self.rows = Path(path), 0
        self._tids, self._periods, self._wcet, self._cpus = tids, periods_ns, wcet_ns, task_cpus
        self._spool = tempfile.TemporaryFile(dir=self.path.parent)
        self._pieces: dict[int, list[tuple[int, int]]] = {}  # task index -> (offset, bytes) in the spool
        self._size = 0
        self._waiting: dict[int, list[np.ndarray]] = {}  # task index -> rows not yet formatted

    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        for block in blocks:
            self.add(block.index, block.rows)

    def add(self, index: int, jobs: np.ndarray) -> None:
        """Task ``index``'s next rows (JOB_DTYPE, job order), formatted SPOOL_ROWS at a time or more."""
        waiting = self._waiting.setdefault(index, [])
        if len(jobs):
            waiting.append(jobs)
        if sum(len(w) for w in waiting) >= SPOOL_ROWS:
            self._format(index)

    def _format(self, index: int) -> None:
        waiting = self._waiting.pop(index, [])
        jobs = np.concatenate(waiting) if len(waiting) > 1 else waiting[0] if waiting else np.zeros(0)
        for first in range(0, len(jobs), BLOCK_ROWS):
            text = _task_rows(self._tids[index], self._periods[index], jobs[first:first + BLOCK_ROWS])
            self._spool.write(text)
            self._pieces.setdefault(index, []).append((self._size, len(text)))
            self._size += len(text)
            self.rows += len(jobs[first:first + BLOCK_ROWS])

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        for index in list(self._waiting):
            self._format(index)
        self._spool.flush()
        with self._spool, partial(self.path) as tmp, open(tmp, "wb") as out:
            out.write(CSV_HEADER.encode() + b"\n")
            for info in tasks:
                cost = self._wcet[info.index] if self._wcet is not None and info.index < len(self._wcet) else 0
                cpus = list(self._cpus[info.index]) if self._cpus is not None and info.index < len(self._cpus) else []
                cpu = cpus[0] if len(cpus) == 1 else -1
                out.write(f"# task NAME={info.name} PID={info.tid} COST={cost} PERIOD={info.period_ns} CPU={cpu}\n"
                          .encode())
                for offset, size in self._pieces.get(info.index, []):
                    out.write(os.pread(self._spool.fileno(), size, offset))


def write_job_csv(
    table: JobTable,
    path: str | Path,
    *,
    wcet_ns: Sequence[int] | None = None,
    task_cpus: Sequence[Sequence[int]] | None = None,
) -> int:
    """Write one row per completed job of a table at hand (whole or not at all, rtsched.outputs);
    returns the number of rows. The rows are formatted and written BLOCK_ROWS at a time."""
    csv = JobCsv(path, {t.index: t.tid for t in table.tasks}, {t.index: t.period_ns for t in table.tasks},
                 wcet_ns=wcet_ns, task_cpus=task_cpus)
    for info in table.tasks:
        csv.add(info.index, table.of_task(info.index))
    csv.finish(table.tasks)
    return csv.rows
