"""What the kernel offers a real-time measurement: its preemption model, the tick
(``nohz_full``), isolated CPUs (``isolcpus``) and RCU callback offloading
(``rcu_nocbs``).

Each parser takes the text of one kernel file (None: the file is absent or
unreadable) and says what it means; ``read_kernel_facts()`` reads this
machine's files and puts the answers together, each with where it came from:

- preemption: ``/sys/kernel/realtime`` ("1" on a PREEMPT_RT kernel),
  ``uname -v`` (``PREEMPT_RT``, ``PREEMPT_DYNAMIC``, ``PREEMPT``), the build
  configuration (``/proc/config.gz``, else ``/boot/config-$(uname -r)``), the
  ``preempt=`` boot parameter and, where debugfs lets us read it,
  ``/sys/kernel/debug/sched/preempt`` ("none voluntary (full) lazy": the mode
  in parentheses is the current one);
- ``nohz_full``: ``/sys/devices/system/cpu/nohz_full`` (only on kernels built
  with ``CONFIG_NO_HZ_FULL``), else the boot parameter;
- ``isolcpus``: ``/sys/devices/system/cpu/isolated`` with the flags of the
  boot parameter (``isolcpus=nohz,domain,managed_irq,2-3``);
- ``rcu_nocbs``: no file shows it, so it is derived: the boot parameter's CPUs,
  plus the ``nohz_full`` CPUs (the kernel offloads those too), or every CPU
  when the kernel is built with ``CONFIG_RCU_NOCB_CPU_DEFAULT_ALL``.

A boot parameter the kernel ignores (``nohz_full=`` on a kernel without
``CONFIG_NO_HZ_FULL``) is reported as ignored, not as in force.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, TypeVar

from rtsched.cpus import CpuListError, format_cpu_list, online_cpus, parse_cpu_list

PROC_CMDLINE = Path("/proc/cmdline")
PROC_CONFIG_GZ = Path("/proc/config.gz")
BOOT_CONFIG_DIR = Path("/boot")
SYS_REALTIME = Path("/sys/kernel/realtime")
DEBUGFS_PREEMPT = Path("/sys/kernel/debug/sched/preempt")
SYS_NOHZ_FULL = Path("/sys/devices/system/cpu/nohz_full")
SYS_ISOLATED = Path("/sys/devices/system/cpu/isolated")
SYS_POSSIBLE = Path("/sys/devices/system/cpu/possible")

#: The kernel's names for its preemption modes (the words of debugfs sched/preempt).
PREEMPT_MODES = ("none", "voluntary", "full", "lazy")
#: The build option that makes each mode the default, first match wins (PREEMPT_RT is full preemption).
_CONFIG_MODE = (("CONFIG_PREEMPT_RT", "full"), ("CONFIG_PREEMPT_LAZY", "lazy"), ("CONFIG_PREEMPT", "full"),
                ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"), ("CONFIG_PREEMPT_NONE", "none"))
ISOLCPUS_FLAGS = ("nohz", "domain", "managed_irq")


_Fact = TypeVar("_Fact")


class KernelFactError(ValueError):
    """A kernel file whose text does not say what its format promises; the message quotes it."""


# ---------------------------------------------------------------- parsers, one per file


def parse_config(text: str) -> dict[str, str]:
    """The options a kernel .config sets (``CONFIG_X=value``); unset ones ("# ... is not set") are absent."""
    options: dict[str, str] = {}
    for line in text.splitlines():
        name, equals, value = line.strip().partition("=")
        if equals and name.startswith("CONFIG_"):
            options[name] = value.strip('"')
    return options


def parse_cmdline(text: str) -> dict[str, str | None]:
    """The kernel's boot parameters: ``name=value`` -> value, a bare ``name`` -> None.

    Double quotes group a value with spaces, as the kernel reads them; what
    follows ``--`` belongs to init and is left out; a repeated parameter keeps
    its last value.
    """
    params: dict[str, str | None] = {}
    word: list[str] = []
    words: list[str] = []
    quoted = False
    for char in text.strip() + " ":
        if char == '"':
            quoted = not quoted
        elif char.isspace() and not quoted:
            if word:
                words.append("".join(word))
                word = []
        else:
            word.append(char)
    for item in words:
        if item == "--":
            break
        name, equals, value = item.partition("=")
        params[name] = value if equals else None
    return params


def parse_uname_flags(version: str) -> frozenset[str]:
    """The preemption words of ``uname -v`` ("#1 SMP PREEMPT_DYNAMIC ..."); ``PREEMPT_{RT,DYNAMIC}`` gives both."""
    flags: set[str] = set()
    for word in version.split():
        if word.startswith("PREEMPT_{") and word.endswith("}"):
            flags.update(f"PREEMPT_{part}" for part in word[len("PREEMPT_{"):-1].split(","))
        elif word == "PREEMPT" or word.startswith("PREEMPT_"):
            flags.add(word)
    return frozenset(flags)


def parse_debugfs_preempt(text: str) -> tuple[str, tuple[str, ...]]:
    """(current mode, modes offered) of debugfs sched/preempt: "none voluntary (full) lazy" -> ("full", (...))."""
    words = text.split()
    current = [w[1:-1] for w in words if w.startswith("(") and w.endswith(")")]
    if len(current) != 1:
        raise KernelFactError(f"sched/preempt reads {text.strip()!r}: expected one mode in parentheses")
    return current[0], tuple(w.strip("()") for w in words)


def parse_kernel_cpu_list(text: str, nr_cpus: int) -> tuple[int, ...]:
    """A CPU list as the kernel reads one (boot parameters, sysfs): "1-3,5", "all", "N" for the
    last CPU (``nr_cpus - 1``), "" or "(null)" for none. Raises KernelFactError saying what is wrong."""
    stripped = text.strip()
    if stripped in ("", "(null)"):
        return ()
    if stripped == "all":
        return tuple(range(nr_cpus))
    items = [item.replace("N", str(nr_cpus - 1)) if item.strip() == "N" or item.endswith("-N") else item
             for item in stripped.split(",")]
    try:
        return parse_cpu_list(",".join(items))
    except CpuListError as error:
        raise KernelFactError(f"{stripped!r}: {error}") from error


def parse_isolcpus(value: str, nr_cpus: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """(flags, CPUs) of ``isolcpus=``: "nohz,domain,2-3" -> (("nohz", "domain"), (2, 3)).
    No flag means ``domain``, as in the kernel."""
    items = value.split(",")
    flags: list[str] = []
    while items and items[0] in ISOLCPUS_FLAGS:
        flags.append(items.pop(0))
    return tuple(flags) or ("domain",), parse_kernel_cpu_list(",".join(items), nr_cpus)


# ---------------------------------------------------------------- the facts


@dataclass(frozen=True)
class Preemption:
    """The kernel's preemption model.

    ``mode`` is one of PREEMPT_MODES or None when nothing readable says;
    ``mode_source`` says where it comes from ("debugfs": the current mode;
    "cmdline" and "config": the mode at boot, which debugfs may have changed
    since on a PREEMPT_DYNAMIC kernel).
    """

    rt: bool
    dynamic: bool | None
    mode: str | None
    mode_source: str
    modes_offered: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"rt": self.rt, "dynamic": self.dynamic, "mode": self.mode, "mode_source": self.mode_source,
                "modes_offered": list(self.modes_offered)}


@dataclass(frozen=True)
class CpuFact:
    """A set of CPUs the kernel treats specially (None: unknown) and where that was read."""

    cpus: tuple[int, ...] | None
    source: str
    flags: tuple[str, ...] = ()  # isolcpus only

    def covers(self, cpu: int) -> bool:
        return self.cpus is not None and cpu in self.cpus

    def as_dict(self) -> dict[str, Any]:
        listed = None if self.cpus is None else format_cpu_list(self.cpus)
        fact: dict[str, Any] = {"cpus": listed, "source": self.source}
        if self.flags:
            fact["flags"] = list(self.flags)
        return fact


@dataclass(frozen=True)
class KernelFacts:
    release: str
    version: str
    hz: int | None
    config_source: str | None  # the file the build configuration was read from
    preemption: Preemption
    nohz_full: CpuFact
    isolcpus: CpuFact
    rcu_nocbs: CpuFact
    notes: tuple[str, ...] = ()  # files that could not be read, and why

    def as_dict(self) -> dict[str, Any]:
        return {"release": self.release, "version": self.version, "hz": self.hz,
                "config_source": self.config_source, "preemption": self.preemption.as_dict(),
                "nohz_full": self.nohz_full.as_dict(), "isolcpus": self.isolcpus.as_dict(),
                "rcu_nocbs": self.rcu_nocbs.as_dict(), "notes": list(self.notes)}

    def describe(self) -> list[str]:
        """One line per fact, for people."""
        p = self.preemption
        kind = "PREEMPT_RT" if p.rt else ("PREEMPT_DYNAMIC" if p.dynamic else "not PREEMPT_RT")
        mode = p.mode or "unknown"
        lines = [f"kernel {self.release} ({kind}), HZ {self.hz if self.hz is not None else 'unknown'}",
                 f"preemption: {mode} ({p.mode_source})"]
        for name, fact in (("nohz_full", self.nohz_full), ("isolcpus", self.isolcpus),
                           ("rcu_nocbs", self.rcu_nocbs)):
            cpus = "unknown" if fact.cpus is None else (format_cpu_list(fact.cpus) or "none")
            flags = f" [{','.join(fact.flags)}]" if fact.flags else ""
            lines.append(f"{name}: {cpus}{flags} ({fact.source})")
        return lines + [f"note: {note}" for note in self.notes]


@dataclass(frozen=True)
class KernelFiles:
    """The texts the facts come from (None: absent or unreadable)."""

    release: str
    version: str
    nr_cpus: int
    cmdline: str | None = None
    config: str | None = None
    config_source: str | None = None
    realtime: str | None = None
    debugfs_preempt: str | None = None
    nohz_full: str | None = None
    isolated: str | None = None


def preemption(files: KernelFiles, config: dict[str, str] | None, cmdline: dict[str, str | None]) -> Preemption:
    flags = parse_uname_flags(files.version)
    rt = (files.realtime or "").strip() == "1" or "PREEMPT_RT" in flags or (config or {}).get("CONFIG_PREEMPT_RT") == "y"
    if config is not None:
        dynamic: bool | None = config.get("CONFIG_PREEMPT_DYNAMIC") == "y"
    elif "PREEMPT_DYNAMIC" in flags:
        dynamic = True
    else:
        dynamic = None
    if files.debugfs_preempt is not None:
        mode, offered = parse_debugfs_preempt(files.debugfs_preempt)
        return Preemption(rt, dynamic, mode, "debugfs sched/preempt", offered)
    boot = cmdline.get("preempt")
    if dynamic and boot in PREEMPT_MODES:
        return Preemption(rt, dynamic, boot, "preempt= on the command line, at boot: debugfs may have changed it")
    if config is not None:
        mode_now = next((mode for option, mode in _CONFIG_MODE if config.get(option) == "y"), None)
        at_boot = ", at boot: debugfs may have changed it" if dynamic else ""
        return Preemption(rt, dynamic, mode_now, f"the build configuration{at_boot}")
    if rt or "PREEMPT" in flags:
        return Preemption(rt, dynamic, "full", "uname -v")
    return Preemption(rt, dynamic, None, "nothing readable says")


def _boot_cpus(cmdline: dict[str, str | None], name: str, nr_cpus: int) -> tuple[int, ...] | None:
    value = cmdline.get(name)
    return None if value is None else parse_kernel_cpu_list(value, nr_cpus)


def nohz_full(files: KernelFiles, config: dict[str, str] | None, cmdline: dict[str, str | None]) -> CpuFact:
    """sysfs nohz_full exists exactly on kernels built with CONFIG_NO_HZ_FULL."""
    if files.nohz_full is not None:
        return CpuFact(parse_kernel_cpu_list(files.nohz_full, files.nr_cpus), "sysfs nohz_full")
    asked = _boot_cpus(cmdline, "nohz_full", files.nr_cpus)
    if config is not None and config.get("CONFIG_NO_HZ_FULL") == "y":
        return CpuFact(asked or (), "nohz_full= on the command line (sysfs nohz_full unreadable)")
    why = ("the kernel is built without CONFIG_NO_HZ_FULL" if config is not None
           else "no sysfs nohz_full: the kernel is built without CONFIG_NO_HZ_FULL")
    return CpuFact((), why + ("; nohz_full= on the command line is ignored" if asked else ""))


def isolcpus(files: KernelFiles, cmdline: dict[str, str | None]) -> CpuFact:
    value = cmdline.get("isolcpus")
    flags, asked = parse_isolcpus(value, files.nr_cpus) if value is not None else ((), None)
    if files.isolated is not None:
        return CpuFact(parse_kernel_cpu_list(files.isolated, files.nr_cpus), "sysfs isolated", flags)
    if asked is not None:
        return CpuFact(asked, "isolcpus= on the command line", flags)
    return CpuFact(None, "no sysfs isolated, no isolcpus= on the command line")


def rcu_nocbs(files: KernelFiles, config: dict[str, str] | None, cmdline: dict[str, str | None],
              tickless: CpuFact) -> CpuFact:
    if config is not None and config.get("CONFIG_RCU_NOCB_CPU") != "y":
        return CpuFact((), "the kernel is built without CONFIG_RCU_NOCB_CPU")
    if config is not None and config.get("CONFIG_RCU_NOCB_CPU_DEFAULT_ALL") == "y":
        return CpuFact(tuple(range(files.nr_cpus)), "CONFIG_RCU_NOCB_CPU_DEFAULT_ALL")
    if tickless.cpus is None:
        return CpuFact(None, "unknown: the nohz_full CPUs, offloaded too, are unknown")
    asked = _boot_cpus(cmdline, "rcu_nocbs", files.nr_cpus) if cmdline.get("rcu_nocbs") else None
    cpus = tuple(sorted(set(asked or ()) | set(tickless.cpus or ())))
    given = [what for what, some in (("rcu_nocbs= on the command line", asked), ("the nohz_full CPUs", tickless.cpus))
             if some]
    source = (" and ".join(given) + ", at boot: cpusets may change it" if given
              else "no rcu_nocbs= list on the command line, no nohz_full CPU")
    if "rcu_nocbs" in cmdline and not cmdline["rcu_nocbs"]:
        source += "; a bare rcu_nocbs offloads none at boot, cpusets may at run time"
    return CpuFact(cpus, source)


def kernel_facts(files: KernelFiles) -> KernelFacts:
    """The facts ``files`` say. A file that does not read as its format leaves the facts that
    depend on it unknown, with a note quoting it; nothing is guessed."""
    notes: list[str] = []
    config = parse_config(files.config) if files.config is not None else None
    cmdline = parse_cmdline(files.cmdline) if files.cmdline is not None else {}
    unknown = CpuFact(None, "unreadable (see notes)")

    def fact(derive: Callable[[], _Fact], fallback: _Fact) -> _Fact:
        try:
            return derive()
        except KernelFactError as error:
            notes.append(str(error))
            return fallback

    tickless = fact(lambda: nohz_full(files, config, cmdline), unknown)
    hz = int(config["CONFIG_HZ"]) if config and config.get("CONFIG_HZ", "").isdigit() else None
    return KernelFacts(
        release=files.release,
        version=files.version,
        hz=hz,
        config_source=files.config_source,
        preemption=fact(lambda: preemption(files, config, cmdline),
                        Preemption(False, None, None, "unreadable (see notes)")),
        nohz_full=tickless,
        isolcpus=fact(lambda: isolcpus(files, cmdline), unknown),
        rcu_nocbs=fact(lambda: rcu_nocbs(files, config, cmdline, tickless), unknown),
        notes=tuple(notes),
    )


# ---------------------------------------------------------------- this machine


def _read(path: Path, notes: list[str]) -> str | None:
    """The file's text; None if absent; None with a note if it exists but cannot be read."""
    try:
        return path.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        notes.append(f"{path}: {error.strerror or error}")
        return None


def _read_config(release: str, notes: list[str]) -> tuple[str | None, str | None]:
    try:
        return gzip.decompress(PROC_CONFIG_GZ.read_bytes()).decode(errors="replace"), str(PROC_CONFIG_GZ)
    except FileNotFoundError:
        pass
    except OSError as error:
        notes.append(f"{PROC_CONFIG_GZ}: {error.strerror or error}")
    boot = BOOT_CONFIG_DIR / f"config-{release}"
    text = _read(boot, notes)
    return (text, str(boot)) if text is not None else (None, None)


def possible_cpu_count() -> int:
    """How many CPUs the kernel may ever bring up (the length of its CPU masks)."""
    try:
        return max(parse_cpu_list(SYS_POSSIBLE.read_text())) + 1
    except (OSError, CpuListError):
        return max(online_cpus()) + 1


def read_kernel_facts() -> KernelFacts:
    """This machine's kernel facts (see the module doc); a file that is unreadable is a note, a
    file that reads wrong is noted and its fact left unknown rather than guessed."""
    notes: list[str] = []
    uname = os.uname()
    config, config_source = _read_config(uname.release, notes)
    files = KernelFiles(
        release=uname.release,
        version=uname.version,
        nr_cpus=possible_cpu_count(),
        cmdline=_read(PROC_CMDLINE, notes),
        config=config,
        config_source=config_source,
        realtime=_read(SYS_REALTIME, notes),
        debugfs_preempt=_read(DEBUGFS_PREEMPT, notes),
        nohz_full=_read(SYS_NOHZ_FULL, notes),
        isolated=_read(SYS_ISOLATED, notes),
    )
    facts = kernel_facts(files)
    return replace(facts, notes=tuple(notes) + facts.notes)
