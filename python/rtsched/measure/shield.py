"""CPU shielding at run time: a real-time partition made and unmade without a reboot.

``shield([1])`` makes CPU 1 a partition of its own (seed 002 ASMP-Linux, done
with stock kernel interfaces):

- cpusets. cgroup v1: ``/sys/fs/cgroup/cpuset/rtsched-shield`` with the
  shielded CPUs, ``cpu_exclusive=1`` and ``sched_load_balance=0``; every other
  CPU in ``rtsched-system``, where every movable task of the root cpuset goes;
  the root's ``sched_load_balance=0`` so the shielded CPUs leave its scheduling
  domain. cgroup v2: ``/sys/fs/cgroup/rtsched-shield`` with
  ``cpuset.cpus.partition=isolated`` (or ``root``), which takes the CPUs away
  from every other cgroup by itself.
- device IRQs: ``/proc/irq/N/smp_affinity`` and ``default_smp_affinity``
  narrowed to the other CPUs; the IRQs that refuse (managed IRQs: EIO/EPERM)
  are listed.
- the unbound workqueue cpumask narrowed.

The prior state (cpuset flags, every moved task's affinity, every IRQ's
affinity, the workqueue mask) is written to the state file *before* anything
changes, so ``undo()`` restores it exactly, also after a shield interrupted
half-way (SIGINT) or a crash. A shield whose maker was killed half-way, or
one held for a command (``shielded()``) whose process is gone, is undone by
the maker's watcher at once, or else by the next rtsched command
(``rtsched.measure.leftovers``). Shielding a CPU that does not exist, or every
CPU, is an error that changes nothing.

The ``RTSCHED_SHIELD_TEST_PAUSE`` environment variable (tests only) names a
step at which ``shield()`` stops for a while, so a test can interrupt it there.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

from rtsched.cpus import (
    CpuListError,
    cpu_mask,
    format_cpu_list,
    format_mask,
    online_cpus,
    parse_cpu_list,
    parse_mask,
)
from rtsched.measure.guard import guard_this_process

STATE_VERSION = 1
SHIELD_NAME = "rtsched-shield"
SYSTEM_NAME = "rtsched-system"
CGROUP_ROOT = Path("/sys/fs/cgroup")
CPUSET_V1 = CGROUP_ROOT / "cpuset"
PROC_IRQ = Path("/proc/irq")
WORKQUEUE_MASK = Path("/sys/devices/virtual/workqueue/cpumask")
PAUSE_ENV = "RTSCHED_SHIELD_TEST_PAUSE"


def state_file() -> Path:
    return Path(os.environ.get("RTSCHED_STATE_DIR", "/run/rtsched")) / "shield.json"


def state_tmp_file(pid: int) -> Path:
    """Where process ``pid`` writes the state before renaming it into place: a process killed
    while writing leaves it, and its PID in the name tells a leftover from a write under way."""
    return state_file().with_name(f"shield.json.{pid}.tmp")


def state_tmp_files() -> list[tuple[int, Path]]:
    """(writer's PID, path) of every state file being written or left half-written."""
    found = []
    for path in state_file().parent.glob("shield.json.*.tmp"):
        pid = path.name.removeprefix("shield.json.").removesuffix(".tmp")
        if pid.isdigit():
            found.append((int(pid), path))
    return sorted(found)


class ShieldError(RuntimeError):
    """The shield could not be made or unmade; the message says what to do."""


# ---------------------------------------------------------------- small helpers


def _read(path: Path) -> str:
    return path.read_text().strip()


def _write(path: Path, value: str) -> None:
    # One write() per value, as the kernel's files expect.
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _pause(step: str) -> None:
    """Test hook: stop at ``step`` when RTSCHED_SHIELD_TEST_PAUSE names it (bounded: 20 s)."""
    if os.environ.get(PAUSE_ENV) == step:
        print(f"rtsched shield: paused at {step}", file=sys.stderr, flush=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            time.sleep(0.05)


def _task_start_time(tid: int) -> int | None:
    """Start time of a task (field 22 of /proc/TID/stat): tells a TID from a reused one."""
    try:
        stat = Path(f"/proc/{tid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[19])


def _task_comm(tid: int) -> str:
    try:
        return Path(f"/proc/{tid}/comm").read_text().strip()
    except OSError:
        return "?"


def _task_cpu(tid: int) -> int | None:
    """The CPU a task last ran on (field 39 of /proc/TID/stat)."""
    try:
        stat = Path(f"/proc/{tid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[36])


def all_tids() -> list[int]:
    tids: list[int] = []
    for pid_dir in Path("/proc").iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            tids.extend(int(t.name) for t in (pid_dir / "task").iterdir())
        except OSError:
            continue
    return sorted(tids)


def cgroup_version() -> int | None:
    """1 if a v1 cpuset hierarchy is mounted, 2 if the v2 root offers cpuset, else None."""
    if (CPUSET_V1 / "cpuset.cpus").exists():
        return 1
    controllers = CGROUP_ROOT / "cgroup.controllers"
    if controllers.exists() and "cpuset" in controllers.read_text().split():
        return 2
    return None


def irq_numbers() -> list[str]:
    if not PROC_IRQ.exists():
        return []
    return sorted((p.name for p in PROC_IRQ.iterdir() if p.name.isdigit()), key=int)


# ---------------------------------------------------------------- the state


@dataclass
class ShieldState:
    """Everything undo() needs, written before the first change."""

    cpus: list[int]
    backend: str  # "cgroup-v1" | "cgroup-v2"
    pid: int
    created: float
    complete: bool = False
    # True: the shield lasts as long as process ``pid`` (``shielded()``, for one command), so it is a
    # leftover once that process is gone; False: it stays until ``rtsched shield --undo``.
    until_exit: bool = False
    cpuset_root: str = ""
    root_flags: dict[str, str] = field(default_factory=dict)  # file -> value before
    subtree_control_added: bool = False  # v2: we enabled +cpuset
    created_dirs: list[str] = field(default_factory=list)  # cpusets this shield made (undo removes only these)
    tasks: dict[str, dict] = field(default_factory=dict)  # tid -> {affinity, start, comm}
    irqs: dict[str, str] = field(default_factory=dict)  # irq -> smp_affinity before
    default_smp_affinity: str | None = None
    workqueue_mask: str | None = None

    def save(self) -> None:
        path = state_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = state_tmp_file(os.getpid())
        with open(tmp, "w") as f:
            json.dump({"version": STATE_VERSION, **asdict(self)}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    @staticmethod
    def load() -> ShieldState | None:
        path = state_file()
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            raise ShieldError(f"{path} is unreadable ({error}); remove it by hand after checking") from error
        if data.get("version", STATE_VERSION) != STATE_VERSION:
            raise ShieldError(f"{path} has an unknown version")
        data.pop("version", None)
        return ShieldState(**data)


@dataclass
class ShieldReport:
    cpus: list[int]
    backend: str
    shield_cpuset: str
    moved_tasks: int = 0
    refused_tasks: list[dict] = field(default_factory=list)  # {tid, comm, reason}
    moved_irqs: list[str] = field(default_factory=list)
    refused_irqs: list[dict] = field(default_factory=list)  # {irq, reason, effective}
    pending_irqs: list[str] = field(default_factory=list)  # moved, still effective until their next interrupt
    workqueue_mask: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class UndoReport:
    undone: bool
    cpus: list[int] = field(default_factory=list)
    restored_tasks: int = 0
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- shielding


def validate_cpus(cpus: list[int]) -> list[int]:
    """The CPUs to shield, checked: all exist and are online, at least one stays unshielded."""
    if not cpus:
        raise CpuListError("no CPU to shield")
    online = online_cpus()
    missing = [c for c in cpus if c not in online]
    if missing:
        raise CpuListError(
            f"CPU {format_cpu_list(missing)} does not exist or is offline (online: {format_cpu_list(online)})"
        )
    if set(cpus) >= set(online):
        raise CpuListError(
            f"cannot shield every CPU ({format_cpu_list(online)}): the rest of the system needs one"
        )
    return sorted(set(cpus))


def shield_cpuset_dir() -> Path:
    version = cgroup_version()
    return (CPUSET_V1 if version == 1 else CGROUP_ROOT) / SHIELD_NAME


def shield(cpus: list[int], *, until_exit: bool = False) -> ShieldReport:
    """Shield ``cpus``; raises CpuListError (nothing changed) or ShieldError (rolled back).
    ``until_exit``: the shield is this process's for as long as it lives (``ShieldState.until_exit``)."""
    cpus = validate_cpus(cpus)
    if os.geteuid() != 0:
        raise ShieldError("shielding needs root (cpusets, IRQ affinities, workqueue mask)")
    existing = ShieldState.load()
    if existing is not None:
        raise ShieldError(
            f"a shield of CPU {format_cpu_list(existing.cpus)} is already up "
            f"(state in {state_file()}); run `rtsched shield --undo` first"
        )
    version = cgroup_version()
    if version is None:
        raise ShieldError("no cpuset controller: neither /sys/fs/cgroup/cpuset (v1) nor cpuset in v2")
    online = online_cpus()
    rest = [c for c in online if c not in cpus]

    state = ShieldState(
        cpus=cpus,
        backend=f"cgroup-v{version}",
        pid=os.getpid(),
        created=time.time(),
        cpuset_root=str(CPUSET_V1 if version == 1 else CGROUP_ROOT),
        until_exit=until_exit,
    )
    _snapshot(state, version)
    # Before the state is saved: from then on a SIGKILL leaves a half-made (or, until_exit, any) shield
    # to the watcher, which undoes it (rtsched.measure.leftovers).
    guard_this_process()
    state.save()  # before the first change: from here on, undo() can restore
    report = ShieldReport(cpus=cpus, backend=state.backend, shield_cpuset=str(shield_cpuset_dir()))
    try:
        _pause("saved")
        if version == 1:
            _cpusets_v1(state, cpus, rest, report)
        else:
            _cpusets_v2(state, cpus, report)
        _pause("cpusets")
        _irqs(state, cpus, rest, report)
        _pause("irqs")
        _workqueue(state, rest, report)
        state.complete = True
        state.save()
    except BaseException:
        # Includes KeyboardInterrupt: leave nothing half-done behind.
        undo()
        raise
    return report


def _snapshot(state: ShieldState, version: int) -> None:
    root = Path(state.cpuset_root)
    if version == 1:
        for name in ("cpuset.sched_load_balance", "cpuset.cpu_exclusive"):
            state.root_flags[name] = _read(root / name)
        tids = [int(t) for t in _read(root / "tasks").split()]
    else:
        state.root_flags["cgroup.subtree_control"] = _read(root / "cgroup.subtree_control")
        tids = all_tids()
    for tid in tids:
        try:
            affinity = sorted(os.sched_getaffinity(tid))
        except OSError:
            continue
        state.tasks[str(tid)] = {
            "affinity": affinity,
            "start": _task_start_time(tid),
            "comm": _task_comm(tid),
        }
    for irq in irq_numbers():
        try:
            state.irqs[irq] = _read(PROC_IRQ / irq / "smp_affinity")
        except OSError:
            continue
    try:
        state.default_smp_affinity = _read(PROC_IRQ / "default_smp_affinity")
    except OSError:
        state.default_smp_affinity = None
    try:
        state.workqueue_mask = _read(WORKQUEUE_MASK)
    except OSError:
        state.workqueue_mask = None


def _mems(root: Path) -> str:
    for name in ("cpuset.mems.effective", "cpuset.effective_mems", "cpuset.mems"):
        try:
            value = _read(root / name)
        except OSError:
            continue
        if value:
            return value
    return "0"


def _cpusets_v1(state: ShieldState, cpus: list[int], rest: list[int], report: ShieldReport) -> None:
    root = Path(state.cpuset_root)
    system = root / SYSTEM_NAME
    shielded = root / SHIELD_NAME
    mems = _mems(root)
    for child in (system, shielded):
        if child.exists():
            raise ShieldError(
                f"{child} exists but no shield is recorded: a shield made by something else, or left by a "
                "lost state file; move its tasks to the root cpuset and rmdir it"
            )
    for child, child_cpus in ((system, rest), (shielded, cpus)):
        state.created_dirs.append(str(child))
        state.save()
        try:
            child.mkdir()
        except FileExistsError:  # made by another process since the check above: not ours to undo
            state.created_dirs.pop()
            state.save()
            raise ShieldError(f"{child} was made by another process while this shield was being made "
                              "(another shield going up at the same time); nothing of it is changed") from None
        try:
            _write(child / "cpuset.cpus", format_cpu_list(child_cpus))
            _write(child / "cpuset.mems", mems)
        except OSError as error:
            raise ShieldError(
                f"cannot give {child} CPUs {format_cpu_list(child_cpus)}: {error.strerror} "
                "(another cpuset may hold them exclusively)"
            ) from error
    try:
        _write(shielded / "cpuset.cpu_exclusive", "1")
    except OSError as error:
        raise ShieldError(
            f"cannot make {shielded} exclusive: {error.strerror} (another cpuset overlaps CPU "
            f"{format_cpu_list(cpus)}; see /sys/fs/cgroup/cpuset)"
        ) from error
    _write(shielded / "cpuset.sched_load_balance", "0")
    _write(system / "cpuset.sched_load_balance", "1")
    # Off on the root, or its domain still spans the shielded CPUs.
    _write(root / "cpuset.sched_load_balance", "0")

    for tid_text in _read(root / "tasks").split():
        tid = int(tid_text)
        try:
            _write(system / "tasks", tid_text)
            report.moved_tasks += 1
        except OSError as error:
            if error.errno == errno.ESRCH:
                continue  # exited meanwhile
            report.refused_tasks.append(
                {"tid": tid, "comm": _task_comm(tid), "reason": error.strerror or str(error)}
            )
        if report.moved_tasks == 1:
            _pause("tasks")


def _cpusets_v2(state: ShieldState, cpus: list[int], report: ShieldReport) -> None:
    root = Path(state.cpuset_root)
    if "cpuset" not in state.root_flags.get("cgroup.subtree_control", "").split():
        _write(root / "cgroup.subtree_control", "+cpuset")
        state.subtree_control_added = True
        state.save()
    shielded = root / SHIELD_NAME
    if shielded.exists():
        raise ShieldError(f"{shielded} exists but no shield is recorded; remove it by hand")
    state.created_dirs.append(str(shielded))
    state.save()
    shielded.mkdir()
    _write(shielded / "cpuset.cpus", format_cpu_list(cpus))
    for partition in ("isolated", "root"):
        try:
            _write(shielded / "cpuset.cpus.partition", partition)
        except OSError:
            continue
        if _read(shielded / "cpuset.cpus.partition") == partition:
            report.notes.append(f"cgroup v2 partition '{partition}'")
            break
    else:
        raise ShieldError(
            f"cgroup v2 refused a partition on CPU {format_cpu_list(cpus)}: "
            f"{_read(shielded / 'cpuset.cpus.partition')}"
        )
    # A partition takes its CPUs from every other cgroup; tasks that refuse
    # (per-CPU kernel threads) still allow them: list those.
    shielded_set = set(cpus)
    for tid_text, task in state.tasks.items():
        try:
            now = set(os.sched_getaffinity(int(tid_text)))
        except OSError:
            continue
        if now & shielded_set and now - shielded_set:
            report.refused_tasks.append(
                {"tid": int(tid_text), "comm": task["comm"], "reason": "affinity still includes the shield"}
            )
        elif now & shielded_set:
            report.refused_tasks.append(
                {"tid": int(tid_text), "comm": task["comm"], "reason": "bound to a shielded CPU"}
            )
        else:
            report.moved_tasks += 1


def _irqs(state: ShieldState, cpus: list[int], rest: list[int], report: ShieldReport) -> None:
    shielded_mask = cpu_mask(cpus)
    rest_mask = cpu_mask(rest)
    for irq, before in state.irqs.items():
        mask = parse_mask(before)
        wanted = mask & ~shielded_mask or rest_mask
        path = PROC_IRQ / irq / "smp_affinity"
        if wanted != mask:
            try:
                _write(path, format_mask(wanted))
                report.moved_irqs.append(irq)
            except OSError as error:
                report.refused_irqs.append(
                    {"irq": irq, "reason": error.strerror or str(error), "effective": _effective(irq)}
                )
                continue
    # x86 moves a non-managed IRQ at its next interrupt: look again after a moment,
    # and list those still delivered to a shielded CPU as pending, not refused.
    time.sleep(0.05)
    refused = {r["irq"] for r in report.refused_irqs}
    for irq in state.irqs:
        effective = _effective(irq)
        if irq in refused or not effective:
            continue
        try:
            targets = set(parse_cpu_list(effective))
        except CpuListError:
            continue
        if targets & set(cpus):
            report.pending_irqs.append(irq)
    if state.default_smp_affinity is not None:
        mask = parse_mask(state.default_smp_affinity) & ~shielded_mask or rest_mask
        try:
            _write(PROC_IRQ / "default_smp_affinity", format_mask(mask))
        except OSError as error:
            report.notes.append(f"default_smp_affinity unchanged: {error.strerror}")


def _effective(irq: str) -> str | None:
    try:
        return _read(PROC_IRQ / irq / "effective_affinity_list")
    except OSError:
        return None


def _workqueue(state: ShieldState, rest: list[int], report: ShieldReport) -> None:
    if state.workqueue_mask is None:
        report.notes.append("no unbound workqueue cpumask on this kernel")
        return
    mask = parse_mask(state.workqueue_mask) & cpu_mask(rest) or cpu_mask(rest)
    try:
        _write(WORKQUEUE_MASK, format_mask(mask))
        report.workqueue_mask = _read(WORKQUEUE_MASK)
    except OSError as error:
        report.notes.append(f"workqueue cpumask unchanged: {error.strerror}")


# ---------------------------------------------------------------- undoing


def undo() -> UndoReport:
    """Restore what the state file recorded; remove it when all is restored."""
    state = ShieldState.load()
    if state is None:
        return UndoReport(undone=False)
    if os.geteuid() != 0:
        raise ShieldError("undoing a shield needs root")
    report = UndoReport(undone=True, cpus=state.cpus)
    if state.workqueue_mask is not None:
        _restore(WORKQUEUE_MASK, state.workqueue_mask, report, parse_mask)
    for irq, before in state.irqs.items():
        path = PROC_IRQ / irq / "smp_affinity"
        if path.exists():
            _restore(path, before, report, parse_mask)
    if state.default_smp_affinity is not None:
        _restore(PROC_IRQ / "default_smp_affinity", state.default_smp_affinity, report, parse_mask)

    root = Path(state.cpuset_root)
    if state.backend == "cgroup-v1":
        for name in state.created_dirs:
            if Path(name).exists():
                _empty_cpuset(Path(name), root / "tasks", report)
        for name in state.created_dirs:
            _rmdir(Path(name), report)
        for name, value in state.root_flags.items():
            _restore(root / name, value, report)
    else:
        for name in state.created_dirs:
            if Path(name).exists():
                _empty_cpuset(Path(name), root / "cgroup.procs", report)
            _rmdir(Path(name), report)
        if state.subtree_control_added:
            try:
                _write(root / "cgroup.subtree_control", "-cpuset")
            except OSError as error:
                report.problems.append(f"cgroup.subtree_control: -cpuset refused: {error.strerror}")

    for tid_text, task in state.tasks.items():
        tid = int(tid_text)
        if _task_start_time(tid) != task["start"]:
            continue  # exited (or a new task reuses the TID)
        wanted = set(task["affinity"])
        try:
            if set(os.sched_getaffinity(tid)) != wanted:
                os.sched_setaffinity(tid, wanted)
            report.restored_tasks += 1
        except OSError as error:
            if error.errno not in (errno.ESRCH, errno.EINVAL):
                report.problems.append(f"task {tid} ({task['comm']}): affinity not restored: {error.strerror}")

    if not report.problems:
        state_file().unlink(missing_ok=True)
    return report


def _restore(path: Path, value: str, report: UndoReport, normalise=None) -> None:
    try:
        current = _read(path)
        same = normalise(current) == normalise(value) if normalise else current == value
        if not same:
            _write(path, value)
    except OSError as error:
        report.problems.append(f"{path}: not restored to {value}: {error.strerror}")


def _empty_cpuset(child: Path, destination: Path, report: UndoReport) -> None:
    """Move every task of ``child`` to ``destination`` (the root's tasks / cgroup.procs)."""
    members = "tasks" if destination.name == "tasks" else "cgroup.procs"
    for _ in range(5):
        try:
            tids = _read(child / members).split()
        except OSError:
            return
        if not tids:
            return
        for tid in tids:
            try:
                _write(destination, tid)
            except OSError as error:
                if error.errno != errno.ESRCH:
                    report.problems.append(f"task {tid}: not moved out of {child}: {error.strerror}")
        time.sleep(0.01)  # tasks forked meanwhile land in child: go again


def _rmdir(path: Path, report: UndoReport) -> None:
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY:
                report.problems.append(f"{path}: not removed: {error.strerror}")
                return
            time.sleep(0.02)  # exiting tasks still counted
    report.problems.append(f"{path}: not removed: still busy")


# ---------------------------------------------------------------- API for other commands


def shielded_cpus() -> list[int]:
    state = ShieldState.load()
    return state.cpus if state else []


@contextmanager
def shielded(cpus: list[int]) -> Iterator[ShieldReport]:
    """``with shielded([1]) as report:`` ... the shield is undone on the way out, always."""
    report = shield(cpus, until_exit=True)
    try:
        yield report
    finally:
        undo()


def join_shield(pid: int | None = None) -> None:
    """Move a process (default: this one) into the shield's cpuset (cgroup v1: the whole thread group)."""
    directory = shield_cpuset_dir()
    target = directory / ("cgroup.procs")
    _write(target, str(pid or os.getpid()))


# ---------------------------------------------------------------- status


@dataclass
class CpuStatus:
    cpu: int
    shielded: bool
    running_tasks: int  # tasks that last ran here
    allowed_tasks: int  # tasks whose affinity includes it
    task_names: list[str]
    irqs: list[str]  # device IRQs delivered here

    def as_dict(self) -> dict:
        return asdict(self)


def status() -> list[CpuStatus]:
    state = ShieldState.load()
    shield_set = set(state.cpus) if state else set()
    online = online_cpus()
    running: dict[int, list[str]] = {cpu: [] for cpu in online}
    allowed = {cpu: 0 for cpu in online}
    for tid in all_tids():
        cpu = _task_cpu(tid)
        if cpu in running:
            running[cpu].append(_task_comm(tid))
        try:
            for a in os.sched_getaffinity(tid):
                if a in allowed:
                    allowed[a] += 1
        except OSError:
            pass
    irqs: dict[int, list[str]] = {cpu: [] for cpu in online}
    for irq in irq_numbers():
        effective = _effective(irq)
        if not effective:
            continue
        try:
            targets = parse_cpu_list(effective)
        except CpuListError:
            continue
        for cpu in targets:
            if cpu in irqs:
                irqs[cpu].append(irq)
    result = []
    for cpu in online:
        names = sorted(set(running[cpu]), key=lambda n: (-running[cpu].count(n), n))
        result.append(
            CpuStatus(
                cpu=cpu,
                shielded=cpu in shield_set,
                running_tasks=len(running[cpu]),
                allowed_tasks=allowed[cpu],
                task_names=names[:6],
                irqs=irqs[cpu],
            )
        )
    return result


__all__ = [
    "ShieldError",
    "ShieldReport",
    "ShieldState",
    "UndoReport",
    "cgroup_version",
    "join_shield",
    "shield",
    "shield_cpuset_dir",
    "shielded",
    "shielded_cpus",
    "state_file",
    "status",
    "undo",
    "validate_cpus",
]
