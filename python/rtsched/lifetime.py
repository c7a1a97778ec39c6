"""Child processes that end with the rtsched process that started them.

A SIGKILL of an ``rtsched`` command runs no signal handler and no ``finally``:
what it started must notice the death by itself. :func:`die_with_parent` asks
the kernel (``prctl(PR_SET_PDEATHSIG)``) to send a signal to the calling
process when its parent ends; it is called in the child, between fork and
exec (:func:`preexec`, for ``subprocess``) or first thing in a worker (the
sweep's pool initializer).

Two details decide whether it holds:

- the parent may have died between the fork and the ``prctl``; the signal
  would then never come. So the child compares ``getppid()`` with the parent's
  PID, read before the fork, and sends itself the signal when they differ;
- the kernel's "parent" is the *thread* that forked. Every caller forks from
  the thread that lives as long as the process (the main thread), so the
  signal comes when the process ends, not before.

The death signal survives ``execve`` (not a set-user-ID one), so a native
program started this way needs no code of its own for it: ``rtsched-run``
takes SIGTERM as its order to stop its tasks and remove its cpusets.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
from typing import Callable

__all__ = ["die_with_parent", "preexec"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

# Loaded before any fork: a child between fork and exec should not load libraries.
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def die_with_parent(signum: int, parent_pid: int) -> None:
    """In a child of ``parent_pid``: receive ``signum`` when the parent ends (at once if it already has)."""
    if _libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent_pid:  # the parent ended before the prctl: no signal will come
        os.kill(os.getpid(), signum)


def preexec(signum: int = signal.SIGTERM, then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``signum`` when this process ends,
    then ``then`` runs (the caller's own preexec_fn, if any)."""
    parent_pid = os.getpid()

    def in_child() -> None:
        die_with_parent(signum, parent_pid)
        if then is not None:
            then()

    return in_child
