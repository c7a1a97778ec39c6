"""One output file written by a forked child process while this process goes on (the report's
trace.pftrace beside the pass that writes jobs.csv and the statistics: on two CPUs, the command
waits for the longer of the two instead of their sum).

    with written_in_child(lambda: write_it(path)):
        ...  # this process's own work
    # here the child has ended; its failure is raised as ForkedWriterFailed

The child starts from a copy of this process at the fork (the trace, already read, is shared
copy-on-write; the trace reader reads with ``pread``, so the two never move one file offset).
It only runs ``write`` and ends with ``os._exit``: no ``atexit`` handler, no buffer of this
process flushed twice, nothing printed. It dies with this process (``die_with_parent``, SIGKILL:
it holds no state worth a clean end), and when the block fails this process kills it and waits
for it before the error goes on. Its failure comes back over a pipe as its traceback's text.

Invariant: fork from the main thread only (``die_with_parent``'s "parent" is the forking
thread), and ``write`` must touch nothing but its own file: a thread of this process (a progress
bar's) does not exist in the child, and a lock one of them held stays held there.
"""

from __future__ import annotations

import os
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rtsched.lifetime import die_with_parent

__all__ = ["ForkedWriterFailed", "can_fork_a_writer", "written_in_child"]


class ForkedWriterFailed(RuntimeError):
    """The child's ``write`` raised (the message is its traceback) or the child was killed."""


def can_fork_a_writer() -> bool:
    """Whether a child would help and may be forked here: this process may run on two CPUs or more
    (its affinity), and this is the main thread (a child dies with the thread that forked it:
    a worker thread of a pool may end first)."""
    return len(os.sched_getaffinity(0)) > 1 and threading.current_thread() is threading.main_thread()


def _child(write: Callable[[], None], report_fd: int, parent_pid: int) -> None:
    """The child's whole life: run ``write``, say how it went, exit without unwinding."""
    status, message = 1, b""
    try:
        die_with_parent(signal.SIGKILL, parent_pid)
        write()
        status = 0
    except BaseException:  # noqa: BLE001 - everything goes back to the parent, as text
        message = traceback.format_exc().encode(errors="replace")
    finally:
        try:
            view = memoryview(message)
            while view:
                view = view[os.write(report_fd, view):]
        finally:
            os._exit(status)


@contextmanager
def written_in_child(write: Callable[[], None]) -> Iterator[None]:
    """Run ``write`` in a forked child for the duration of the block; at its end wait for the
    child and raise ForkedWriterFailed if ``write`` failed (a failing block kills the child).
    Only from the main thread (``can_fork_a_writer``)."""
    read_fd, write_fd = os.pipe()
    parent_pid = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(write, write_fd, parent_pid)
    os.close(write_fd)
    try:
        try:
            yield
        except BaseException:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        with os.fdopen(read_fd, "rb", closefd=False) as report:
            message = report.read()
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(read_fd)
    if os.waitstatus_to_exitcode(status) != 0:
        why = message.decode(errors="replace").strip() or f"ended by signal {-os.waitstatus_to_exitcode(status)}"
        raise ForkedWriterFailed(f"the child process writing the file failed:\n{why}")
