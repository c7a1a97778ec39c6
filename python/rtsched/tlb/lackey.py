"""Memory-access traces of real programs: valgrind's lackey, parsed as a stream.

``valgrind --tool=lackey --trace-mem=yes PROGRAM`` writes one line per access
to its log::

    I  0401ab70,3        instruction fetch of 3 bytes at 0x0401ab70
     L 1fff000668,8      data load
     S 1fff000660,8      data store
     M 04a2b010,4        data modify (a load then a store: two accesses)

and valgrind's own messages begin with ``==PID==``. An access whose bytes
cross a page boundary touches both pages (two accesses). Traces are large (a
tiny program makes about 10^5 lines, a real one 10^8), so the parser reads
line by line and keeps only runs of pages (``pages.PageTrace``); the runner
reads valgrind's log from a pipe and stops it after ``max_accesses``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Sequence

from rtsched.tlb.pages import PageTrace, PageTraceBuilder

__all__ = ["LackeyError", "ValgrindMissing", "parse_lackey", "read_lackey_file", "trace_program"]

_ACCESSES_OF_KIND = {"I": 1, "L": 1, "S": 1, "M": 2}


class LackeyError(ValueError):
    """A line of a lackey log that is not an access nor a valgrind message."""


class ValgrindMissing(RuntimeError):
    pass


#: Every how many lines of a log ``progress`` hears how many accesses were read.
PROGRESS_LINES = 1 << 16


def parse_lackey(lines: Iterable[str], page_bytes: int = 4096, source: str = "",
                 max_accesses: int | None = None, progress: Callable[[int], None] | None = None) -> PageTrace:
    """The page trace of a lackey log; stops after ``max_accesses`` accesses (None: all).
    ``progress`` hears the accesses read so far every PROGRESS_LINES lines."""
    if page_bytes < 1 or page_bytes & (page_bytes - 1):
        raise ValueError(f"page size {page_bytes} bytes: a power of two")
    shift = page_bytes.bit_length() - 1
    builder = PageTraceBuilder(source)
    add = builder.add
    for number, line in enumerate(lines, 1):
        if line.startswith("==") or not line.strip():
            continue
        kind = line[:2].strip()
        repeat = _ACCESSES_OF_KIND.get(kind)
        address, _, size = line[2:].strip().partition(",")
        try:
            if repeat is None:
                raise ValueError
            first = int(address, 16)
            length = int(size)
            if length < 1:
                raise ValueError
        except ValueError:
            raise LackeyError(f"{source or 'lackey log'}:{number}: not a lackey access "
                              f"('I|L|S|M ADDRESS,SIZE'): {line.rstrip()!r}") from None
        page = first >> shift
        last = (first + length - 1) >> shift
        add(page, repeat)
        if last != page:
            add(last, repeat)
        if max_accesses is not None and builder.accesses >= max_accesses:
            break
        if progress is not None and number % PROGRESS_LINES == 0:
            progress(builder.accesses)
    return builder.build()


def read_lackey_file(path: Path, page_bytes: int = 4096, max_accesses: int | None = None,
                     progress: Callable[[int], None] | None = None) -> PageTrace:
    with open(path, encoding="ascii", errors="replace") as lines:
        return parse_lackey(lines, page_bytes, str(path), max_accesses, progress)


def trace_program(argv: Sequence[str], page_bytes: int = 4096, max_accesses: int | None = None,
                  progress: Callable[[int], None] | None = None) -> PageTrace:
    """Run ``argv`` under lackey here and parse its accesses as they come (the program's output is discarded).

    Stops valgrind (the process started here, by its pid) once ``max_accesses``
    are read. ValgrindMissing when valgrind is not installed; RuntimeError when
    the program cannot be traced (valgrind's message is in it).
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise ValgrindMissing("valgrind is not installed (Debian: apt-get install valgrind; scripts/setup does it)")
    if not argv:
        raise ValueError("no program to trace")
    read_fd, write_fd = os.pipe()
    command = [valgrind, "--tool=lackey", "--trace-mem=yes", f"--log-fd={write_fd}", *argv]
    source = "lackey: " + " ".join(argv)
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                                   pass_fds=(write_fd,))
        os.close(write_fd)
        try:
            with os.fdopen(read_fd, encoding="ascii", errors="replace") as log:
                trace = parse_lackey(log, page_bytes, source, max_accesses, progress)
        except BaseException:
            process.kill()   # a bad line, or interrupted: valgrind must not outlive the parse
            process.wait()
            raise
        stopped_early = max_accesses is not None and trace.accesses >= max_accesses
        if stopped_early:
            process.kill()
        status = process.wait()
        if not stopped_early and status != 0:
            errors.seek(0)
            message = errors.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"{source}: exit status {status}: {message[-1] if message else 'no message'}")
    if trace.accesses == 0:
        raise RuntimeError(f"{source}: lackey reported no access")
    return trace
