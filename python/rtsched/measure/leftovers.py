"""What killed rtsched processes left on the machine, found and removed.

What an rtsched process makes that outlives it unless removed, and how each
is told to be a leftover (its owner's PID is in it, and that PID no longer
lives):

- a tracefs instance ``rtsched-PID`` (``kernel_recorder``), recording into
  16 MB per CPU for as long as it exists: tracing is turned off, then the
  instance is removed;
- a CPU shield (``shield``) whose state file names a dead maker, when the
  maker was killed half-way or held the shield for one command
  (``until_exit``); a shield made by ``rtsched shield`` stays, by design,
  until ``rtsched shield --undo``; and the shield's state file a killed
  maker left half-written (``shield.json.PID.tmp``);
- the runner's P-EDF and kernel-reservation cpusets, recorded in the
  runner's own state file: ``rtsched-run --cleanup`` removes them when the
  runner that made them is gone (it says so; it refuses while that runner lives).

Child processes are not in the list: each ends with its parent
(``rtsched.lifetime``). rtsched's commands make no ``/dev/shm`` object (lock
domains are made and unlinked by the programs that use the library).

Two callers: every command that makes any of these calls
:func:`remove_leftovers` at its start (``rtsched.cli.main``), and the watcher
of a process (``rtsched.measure.guard``, this module's ``--watch PID``) calls
it for that one PID as soon as the process ends.
"""

from __future__ import annotations

import argparse
import errno
import os
import select
import subprocess
import sys
from pathlib import Path

from rtsched.lifetime import preexec
from rtsched.measure import shield as shielding
from rtsched.measure.tracefs import find_tracefs, instance_owner
from rtsched.native import NativeToolMissing, native_command

__all__ = ["remove_leftovers", "say_removed", "watch"]


def _alive(pid: int) -> bool:
    """Does ``pid`` still run? A zombie (ended, its parent not yet told) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        return True  # unreadable: assume it lives (never remove what a live process holds)
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def _gone(pid: int, owner: int | None) -> bool:
    """Is ``pid`` a process that no longer runs? (``owner``: one known to have ended, maybe not yet reaped.)"""
    return pid == owner if owner is not None else not _alive(pid)


def _tracefs_instances(owner: int | None) -> list[str]:
    root = find_tracefs()
    if root is None:
        return []
    try:
        names = os.listdir(root / "instances")
    except OSError:
        return []
    removed = []
    for name in sorted(names):
        pid = instance_owner(name)
        if pid is None or not _gone(pid, owner):
            continue
        instance = root / "instances" / name
        try:
            was_on = (instance / "tracing_on").read_text().strip() == "1"
            (instance / "tracing_on").write_text("0")
            instance.rmdir()
        except FileNotFoundError:
            continue  # removed meanwhile (by its owner's watcher, or another command)
        except OSError as error:
            removed.append(f"tracefs instance {name} NOT removed ({error.strerror})")
            continue
        removed.append(f"tracefs instance {name}" + (" (it was still recording)" if was_on else ""))
    return removed


def _shield_tmp_files(owner: int | None) -> list[str]:
    removed = []
    for pid, path in shielding.state_tmp_files():
        if _gone(pid, owner):
            path.unlink(missing_ok=True)
            removed.append(f"half-written shield state {path.name} (pid {pid})")
    return removed


def _shield(owner: int | None) -> list[str]:
    try:
        state = shielding.ShieldState.load()
    except shielding.ShieldError as error:
        return [f"shield state NOT read ({error})"]
    if state is None or not _gone(state.pid, owner) or (state.complete and not state.until_exit):
        return []
    why = "held for its command" if state.complete else "half-made"
    cpus = ",".join(map(str, state.cpus))
    try:
        report = shielding.undo()
    except shielding.ShieldError as error:
        return [f"shield of CPU {cpus} (pid {state.pid}, {why}) NOT undone ({error})"]
    if not report.undone:
        return []  # undone meanwhile
    problems = f"; problems: {', '.join(report.problems)}" if report.problems else ""
    return [f"shield of CPU {cpus} (pid {state.pid}, {why}){problems}"]


def _runner_cpusets() -> list[str]:
    try:
        command = native_command("rtsched-run", ["--cleanup"])
    except NativeToolMissing:
        return []
    try:  # not run_native_tool: what it removed is on its standard error, and exit 1 is no failure here
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                              preexec_fn=preexec())
    except (OSError, subprocess.TimeoutExpired):
        return []
    # It prints one line when it removed something; when a live runner holds them it exits 1.
    return [line.removeprefix("rtsched-run: ") for line in done.stderr.splitlines()
            if done.returncode == 0 and line.strip()]


def remove_leftovers(owner: int | None = None) -> list[str]:
    """Remove what rtsched processes that no longer run left (``owner``: only what that one process,
    known to have ended, left); what was removed (or could not be), one phrase each. Needs root
    (tracefs, cpusets, shields): without, nothing is touched or named."""
    if os.geteuid() != 0:
        return []
    removed = _tracefs_instances(owner) + _shield(owner) + _shield_tmp_files(owner)
    if owner is None:
        removed += _runner_cpusets()
    return removed


def say_removed(removed: list[str], whose: str) -> None:
    """One line on standard error naming what was removed, if anything."""
    if removed:
        print(f"rtsched: removed what {whose} left: {'; '.join(removed)}", file=sys.stderr, flush=True)


def watch(pid: int) -> None:
    """Wait until process ``pid`` (this one's parent) ends, then remove what it left."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError as error:
        if error.errno != errno.ESRCH:
            raise
        pidfd = -1
    # pidfd_open after the parent ended could name another process with its PID: not if it is
    # still our parent.
    if pidfd >= 0 and os.getppid() == pid:
        select.select([pidfd], [], [])
    # The removal is short (a shield's undo: some hundred writes to /proc and cgroup files) and is
    # waited for: at nice -20 it is not slowed by the machine's other (nice 0) work. Not real-time:
    # it must not delay anyone's real-time tasks.
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -20)
    except OSError:
        pass  # not allowed: at the usual weight
    say_removed(remove_leftovers(owner=pid), f"rtsched pid {pid}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtsched.measure.leftovers",
                                     description="Remove what killed rtsched processes left (see its module doc).")
    parser.add_argument("--watch", type=int, metavar="PID", help="wait for PID to end, then remove what it left")
    args = parser.parse_args(argv)
    if args.watch is not None:
        watch(args.watch)
    else:
        say_removed(remove_leftovers(), "killed rtsched commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
