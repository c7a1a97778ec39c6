"""A watcher that outlives this process and removes what it leaves when it ends.

``guard_this_process()`` is called by whatever is about to make something of
the machine's that must not outlive this process (a tracefs instance, a CPU
shield held for one command). The first call starts
``python -m rtsched.measure.leftovers --watch PID`` in a session of its own
(so the terminal's Ctrl-C reaches this process, which tidies up itself, and
not the watcher); later calls do nothing. The watcher waits on a pidfd of this
process; when this process ends, however it ends, the watcher removes what
``rtsched.measure.leftovers`` finds of it (nothing, after a normal end), names
it on its standard error (this process's) in one line, and exits.

A SIGKILL of the watcher too (a kill of the whole session, the OOM killer)
leaves the leftovers to the next ``rtsched`` command, which removes them at
its start (``rtsched.measure.leftovers.remove_leftovers``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["guard_this_process"]

_guarded_pid = 0  # the PID the watcher watches; a forked child is not watched (its PID differs)


def guard_this_process() -> None:
    """Start this process's watcher, once (see the module doc)."""
    global _guarded_pid
    pid = os.getpid()
    if _guarded_pid == pid or os.geteuid() != 0:
        return  # watched already; or not root, and then the watcher could remove nothing (leftovers)
    package_parent = str(Path(__file__).resolve().parents[2])  # the folder holding rtsched/: this very copy
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    # posix_spawn, not Popen: nothing here waits for the watcher (it ends after this process), and a
    # Popen object would warn at exit that its process still runs.
    try:
        os.posix_spawn(sys.executable, [sys.executable, "-m", "rtsched.measure.leftovers", "--watch", str(pid)], env,
                       setsid=True, file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                                  (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    except OSError as error:  # no interpreter to start (an embedded one): the next command cleans up
        print(f"rtsched: warning: no watcher started ({sys.executable or 'no sys.executable'}: {error.strerror}); "
              "a SIGKILL would leave this process's tracefs instance or shield until the next rtsched command",
              file=sys.stderr)
    _guarded_pid = pid
