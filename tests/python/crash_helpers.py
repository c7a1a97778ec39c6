"""Helpers of the crash tests: what of rtsched's is on the machine, and the processes of one command."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rtsched.measure.shield import state_file
from rtsched.measure.tracefs import find_tracefs

TAG_ENV = "RTSCHED_TEST_TAG"  # set in a command's environment: its descendants carry it too


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


@dataclass(frozen=True)
class MachineState:
    """What of rtsched's a killed command could leave: compared before and after."""

    tracefs_instances: frozenset[str]
    cgroups: frozenset[str]
    shm: frozenset[str]
    state_files: frozenset[str]
    processes: frozenset[str]  # "pid comm" of the command's processes
    root_load_balance: str

    def added_since(self, before: MachineState) -> list[str]:
        """What is here and was not ``before`` (what others removed meanwhile is not a leftover)."""
        out = []
        for name in self.__dataclass_fields__:
            now, then = getattr(self, name), getattr(before, name)
            if isinstance(now, frozenset):
                if now - then:
                    out.append(f"{name}: {sorted(now - then)}")
            elif now != then:
                out.append(f"{name}: {then!r} -> {now!r}")
        return out


def machine_state(tag: str) -> MachineState:
    tracefs = find_tracefs()
    instances = frozenset(n for n in os.listdir(tracefs / "instances") if n.startswith("rtsched")) \
        if tracefs else frozenset()
    cgroups = frozenset(str(p) for mount in _cgroup_mounts() for p in mount.glob("rtsched*"))
    state_dir = state_file().parent
    states = frozenset(os.listdir(state_dir)) if state_dir.is_dir() else frozenset()
    balance = Path("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance")
    return MachineState(
        tracefs_instances=instances,
        cgroups=cgroups,
        shm=frozenset(n for n in os.listdir("/dev/shm") if n.startswith("rtsched")),
        state_files=states,
        processes=frozenset(f"{pid} {comm}" for pid, comm in tagged_processes(tag).items()),
        root_load_balance=balance.read_text().strip() if balance.exists() else "",
    )
