"""Helpers of the crash tests: what of rtsched's is on the machine, and the processes of one command."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rtsched.measure.shield import state_file
from rtsched.measure.tracefs import find_tracefs

TAG_ENV = "RTSCHED_TEST_TAG"  # set in a command's environment: its descendants carry it too
RUNNER_STATE_DIR = Path("/run/rtsched")  # the runner's cpusets state (tools/run/cpusets.c)


def tagged_processes(tag: str) -> dict[int, str]:
    """PID -> command name of every live process whose environment holds ``TAG_ENV=tag``."""
    wanted = f"{TAG_ENV}={tag}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "comm").read_text().strip()
        except OSError:
            continue  # ended meanwhile
    return found


def watchers_of(pid: int) -> list[int]:
    """The watcher(s) (rtsched.measure.guard) that process ``pid`` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == pid and b"rtsched.measure.leftovers" in cmdline:
            found.append(int(entry.name))
    return found


def _cgroup_mounts() -> list[Path]:
    mounts = []
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] in ("cgroup", "cgroup2"):
            mounts.append(Path(fields[1]))
    return mounts


def _shm_held(pids: list[int]) -> frozenset[str]:
    """The rtsched /dev/shm objects these processes have open or mapped."""
    held = set()
    for pid in pids:
        try:
            paths = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            paths += [line.split(None, 5)[-1] for line in Path(f"/proc/{pid}/maps").read_text().splitlines()
                      if "/dev/shm/" in line]
        except OSError:
            continue  # ended meanwhile
        held.update(Path(path).name for path in paths if path.startswith("/dev/shm/rtsched"))
    return frozenset(held)


@dataclass(frozen=True)
class MachineState:
    """What of rtsched's a killed command could leave: compared before and after."""

    tracefs_instances: frozenset[str]
    cgroups: frozenset[str]
    state_files: frozenset[str]
    processes: frozenset[str]  # "pid comm" of the command's processes
    root_load_balance: str
    shm: frozenset[str]  # rtsched's /dev/shm objects
    shm_held: frozenset[str]  # those the command's processes have open or mapped

    def added_since(self, before: MachineState, at_kill: MachineState) -> list[str]:
        """What is here and was not ``before`` (what others removed meanwhile is not a leftover).
        /dev/shm: only objects the command held when it was killed count (library tests of other
        sessions make lock domains all the time, some living for seconds)."""
        out = []
        for name in ("tracefs_instances", "cgroups", "state_files", "processes"):
            added = getattr(self, name) - getattr(before, name)
            if added:
                out.append(f"{name}: {sorted(added)}")
        if self.root_load_balance != before.root_load_balance:
            out.append(f"root_load_balance: {before.root_load_balance!r} -> {self.root_load_balance!r}")
        shm = (self.shm & at_kill.shm_held) - before.shm
        if shm:
            out.append(f"shm: {sorted(shm)}")
        return out


def machine_state(tag: str) -> MachineState:
    tracefs = find_tracefs()
    instances = frozenset(n for n in os.listdir(tracefs / "instances") if n.startswith("rtsched")) \
        if tracefs else frozenset()
    cgroups = frozenset(str(p) for mount in _cgroup_mounts() for p in mount.glob("rtsched*"))
    states = frozenset(f"{d}/{n}" for d in {state_file().parent, RUNNER_STATE_DIR} if d.is_dir()
                       for n in os.listdir(d))
    balance = Path("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance")
    processes = tagged_processes(tag)
    return MachineState(
        tracefs_instances=instances,
        cgroups=cgroups,
        state_files=states,
        processes=frozenset(f"{pid} {comm}" for pid, comm in processes.items()),
        root_load_balance=balance.read_text().strip() if balance.exists() else "",
        shm=frozenset(n for n in os.listdir("/dev/shm") if n.startswith("rtsched")),
        shm_held=_shm_held(list(processes)),
    )
