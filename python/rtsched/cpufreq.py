"""What this machine's CPU frequency scaling (Linux cpufreq) offers, read from sysfs.

    status = read_cpufreq()          # /sys/devices/system/cpu/cpufreq
    status.present, status.policies, describe_cpufreq(status)

Each cpufreq *policy* (``policyN``) is a group of CPUs that change frequency
together: its ``related_cpus``, ``scaling_governor`` (``schedutil`` is the one
that follows SCHED_DEADLINE's bandwidth, docs/dvfs.md), the frequency range
``cpuinfo_min_freq``..``cpuinfo_max_freq`` and the current ``scaling_cur_freq``
(kHz). A machine without the folder, or with no policy in it, has no frequency
scaling the kernel can drive (a virtual machine usually: the host owns the clock).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtsched.cpus import CpuListError, format_cpu_list, parse_cpu_list

__all__ = ["CPUFREQ_ROOT", "CpufreqPolicy", "CpufreqStatus", "read_cpufreq", "describe_cpufreq"]

CPUFREQ_ROOT = Path("/sys/devices/system/cpu/cpufreq")


@dataclass(frozen=True, slots=True)
class CpufreqPolicy:
    """One ``policyN`` folder; a field is None where its file is missing or unreadable."""

    name: str
    cpus: tuple[int, ...]
    governor: str | None
    governors: tuple[str, ...]
    min_khz: int | None
    max_khz: int | None
    cur_khz: int | None


@dataclass(frozen=True, slots=True)
class CpufreqStatus:
    root: Path
    policies: tuple[CpufreqPolicy, ...]

    @property
    def present(self) -> bool:
        return bool(self.policies)


def _text(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _khz(path: Path) -> int | None:
    text = _text(path)
    return int(text) if text is not None and text.isdigit() else None


def _policy(folder: Path) -> CpufreqPolicy:
    cpus_text = _text(folder / "related_cpus") or _text(folder / "affected_cpus") or ""
    try:  # sysfs writes "0 1 2" here, the kernel's list syntax elsewhere
        cpus = parse_cpu_list(",".join(cpus_text.split())) if cpus_text else ()
    except CpuListError:
        cpus = ()
    return CpufreqPolicy(
        name=folder.name,
        cpus=cpus,
        governor=_text(folder / "scaling_governor"),
        governors=tuple((_text(folder / "scaling_available_governors") or "").split()),
        min_khz=_khz(folder / "cpuinfo_min_freq"),
        max_khz=_khz(folder / "cpuinfo_max_freq"),
        cur_khz=_khz(folder / "scaling_cur_freq"),
    )


def read_cpufreq(root: Path = CPUFREQ_ROOT) -> CpufreqStatus:
    """The cpufreq policies under ``root`` (none when the folder is missing)."""
    if not root.is_dir():
        return CpufreqStatus(root, ())
    folders = sorted((p for p in root.iterdir() if p.name.startswith("policy") and p.is_dir()),
                     key=lambda p: int(p.name[len("policy"):]) if p.name[len("policy"):].isdigit() else 0)
    return CpufreqStatus(root, tuple(_policy(p) for p in folders))


def describe_cpufreq(status: CpufreqStatus) -> str:
    """One line per policy, or why there is none."""
    if not status.root.is_dir():
        return (f"cpufreq: this machine has no CPU frequency scaling ({status.root} does not exist); "
                "the frequencies here are simulated only")
    if not status.present:
        return f"cpufreq: {status.root} has no policy: no CPU frequency scaling; the frequencies here are simulated only"
    lines = []
    for p in status.policies:
        span = (f"{p.min_khz // 1000}-{p.max_khz // 1000} MHz" if p.min_khz is not None and p.max_khz is not None
                else "range unknown")
        now = f", now {p.cur_khz // 1000} MHz" if p.cur_khz is not None else ""
        schedutil = "" if "schedutil" in p.governors or p.governor == "schedutil" else " (no schedutil governor)"
        lines.append(f"cpufreq: {p.name}: CPUs {format_cpu_list(p.cpus) or '?'}, governor {p.governor or '?'}, "
                     f"{span}{now}{schedutil}")
    return "\n".join(lines)
