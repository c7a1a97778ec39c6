"""rt-app's per-thread logs (rt-app master, ``log_size`` "file"): one row per loop of a phase.

    from rtsched.trace.rtapp_log import parse_rtapp_log, rtapp_log_files
    rows = parse_rtapp_log(Path("logs/rtapp-thread0-0.log").read_text())
    files = rtapp_log_files(Path("logs"), "rtapp", ["thread0"])   # thread -> its files, by instance

rt-app writes ``LOGDIR/BASENAME-NAME.log`` per thread (``setup_thread_logging``), NAME being
``<thread>-<index>`` (index: the thread's place among every thread and instance rt-app
created, in file order) or ``<thread>-<index>-<fork:04d>`` for a forked thread
(``thread_data_set_unique_name``). Its first line is the header, then one row per loop of a
phase (``log_timing``), every figure an integer, times in microseconds (doc/tutorial.txt,
"Log and gnuplot"):

    #idx perf run period start end rel_st slack c_duration c_period wu_lat

- ``run``: wall-clock time of the loop's ``run``/``runtime`` events;
- ``period``: wall-clock time of the whole loop, from its first event to the end of its last
  (for a loop ending with a timer, up to the wake-up after it);
- ``start``, ``end``: CLOCK_MONOTONIC; ``rel_st``: ``start`` since rt-app's start;
- ``slack``: the time from the end of the events before the (last) timer to the timer's
  expiry, negative when the timer had already expired (``cumulative_slack`` false);
- ``c_duration``, ``c_period``: the configured runs and timer periods of the loop;
- ``wu_lat``: how late the timer's wake-up was.

In "file" mode rt-app writes a row when the loop ends, only while the run goes on: the loop
cut by the end of ``duration`` leaves no row. rt-app cancels its threads at the end, so one may
be cancelled while writing its row: a last line without its newline is left out when it is not
a whole row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LOG_COLUMNS", "RtAppLog", "RtAppLogError", "RtAppRow", "parse_rtapp_log", "read_rtapp_logs",
           "rtapp_log_files"]

#: rt-app's columns, in order (rt-app/src/rt-app.c thread_body's header, rt-app/src/rt-app_utils.c log_timing).
LOG_COLUMNS: tuple[str, ...] = ("idx", "perf", "run", "period", "start", "end", "rel_st", "slack",
                                "c_duration", "c_period", "wu_lat")


class RtAppLogError(ValueError):
    """A log that is not rt-app's: the message names the line."""


@dataclass(frozen=True)
class RtAppRow:
    """One loop of a phase, as rt-app logged it (microseconds)."""

    idx: int
    perf: int
    run_us: int
    period_us: int
    start_us: int
    end_us: int
    rel_start_us: int
    slack_us: int
    c_duration_us: int
    c_period_us: int
    wakeup_latency_us: int


@dataclass(frozen=True)
class RtAppLog:
    """One thread's log: rt-app's name of the thread (``thread0-0``, ``worker-3-0001``) and its rows."""

    name: str
    rows: tuple[RtAppRow, ...]


def parse_rtapp_log(text: str, source: str = "<log>") -> tuple[RtAppRow, ...]:
    """The rows of one thread's log. Raises RtAppLogError for a header or row that is not rt-app's."""
    rows = []
    header_seen = False
    lines = text.splitlines()
    cut = bool(lines) and not text.endswith("\n")  # the last row's writer was cancelled mid-line
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if cut and number == len(lines) and header_seen and len(fields) != len(LOG_COLUMNS):
            break
        if fields[0].startswith("#"):
            if fields[0] == "#idx":
                if tuple(fields) != ("#idx", *LOG_COLUMNS[1:]):
                    raise RtAppLogError(f"{source}:{number}: not rt-app's header: expected "
                                        f"{' '.join(LOG_COLUMNS)}, got {line.strip()}")
                header_seen = True
            continue
        if not header_seen:
            raise RtAppLogError(f"{source}:{number}: a row before rt-app's header (#idx perf run ...)")
        if len(fields) != len(LOG_COLUMNS):
            raise RtAppLogError(f"{source}:{number}: expected {len(LOG_COLUMNS)} columns "
                                f"({' '.join(LOG_COLUMNS)}), got {len(fields)}")
        try:
            values = [int(f) for f in fields]
        except ValueError:
            raise RtAppLogError(f"{source}:{number}: expected integers, got {line.strip()}") from None
        rows.append(RtAppRow(*values))
    if not header_seen:
        raise RtAppLogError(f"{source}: no rt-app header (#idx perf run period ...)")
    return tuple(rows)


_INSTANCE = re.compile(r"(0|[1-9][0-9]*)(?:-([0-9]{4}))?")


def rtapp_log_files(log_dir: Path, basename: str, threads: list[str]) -> dict[str, list[Path]]:
    """Each thread's log files (``threads``: rt-app's thread names), its instances first (by
    rt-app's index), then its forks (by index, so in the order they were forked)."""
    found: dict[str, list[tuple[bool, int, Path]]] = {t: [] for t in threads}
    for path in log_dir.glob(f"{basename}-*.log"):
        name = path.name[len(basename) + 1:-len(".log")]
        for thread in sorted(threads, key=len, reverse=True):  # "a-1" before "a"
            if not name.startswith(thread + "-"):
                continue
            match = _INSTANCE.fullmatch(name[len(thread) + 1:])
            if match:
                found[thread].append((match.group(2) is not None, int(match.group(1)), path))
                break
    return {t: [p for _, _, p in sorted(files)] for t, files in found.items()}


def read_rtapp_logs(log_dir: Path, basename: str, threads: list[str]) -> dict[str, tuple[RtAppLog, ...]]:
    """Each thread's logs, read (as ``rtapp_log_files`` orders them). Raises RtAppLogError."""
    return {t: tuple(RtAppLog(p.name[len(basename) + 1:-len(".log")], parse_rtapp_log(p.read_text(), str(p)))
                     for p in paths)
            for t, paths in rtapp_log_files(log_dir, basename, threads).items()}
