"""Background loads that a measurement starts and stops itself.

Latency loads (seed 000 §3): ``none``; ``cpu``: one cache thrasher per CPU,
random read-modify-writes over a working set twice the last-level cache
(read from sysfs); ``io``: a direct-I/O (O_DIRECT) writer on a temporary file
on disk plus ``hackbench`` (rt-tests) when present; ``cpu+io``: both.

Overhead loads (seed 002 §2.5.1): ``idle``; ``cpu``: CPU-bound loops,
``per_cpu`` per CPU; ``aio``: buffered (asynchronous) writers; ``sio``:
synchronous (O_DSYNC) writers; ``mix``: half of each.

Every process is started in its own session with a time bound of its own
(so a crash of rtsched cannot leave it running), and stopped with SIGTERM,
then SIGKILL, on the way out of the ``with`` block; temporary files go too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from rtsched.cpus import allowed_cpus
from rtsched.native import start_native

LATENCY_LOADS = ("none", "cpu", "io", "cpu+io")
OVERHEAD_LOADS = ("idle", "cpu", "aio", "sio", "mix")
CACHE_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


class LoadError(RuntimeError):
    pass


def llc_bytes(cache_dir: Path = CACHE_SYSFS) -> int | None:
    """Size of the last-level cache (the highest ``level`` under cpu0/cache), in bytes."""
    best_level, best_size = -1, None
    try:
        entries = sorted(cache_dir.glob("index*"))
    except OSError:
        return None
    for entry in entries:
        try:
            level = int((entry / "level").read_text())
            kind = (entry / "type").read_text().strip()
            size = _parse_size((entry / "size").read_text())
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        if level > best_level:
            best_level, best_size = level, size
    return best_size


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def thrasher_mib(llc: int | None) -> int:
    """Working set of one cache thrasher: twice the LLC, at least 32 MiB."""
    if llc is None:
        return 64
    return max(32, 2 * llc // (1 << 20))


def _disk_dir() -> Path:
    """A folder on a real file system (O_DIRECT and disk interrupts; not tmpfs)."""
    for candidate in (os.environ.get("RTSCHED_LOAD_DIR"), "/var/tmp", tempfile.gettempdir()):
        if candidate and os.access(candidate, os.W_OK):
            return Path(candidate)
    return Path.cwd()


class Loads:
    """``with Loads("cpu+io", max_seconds=60) as loads:`` ... loads.describe()."""

    def __init__(
        self,
        kind: str,
        max_seconds: float,
        purpose: str = "latency",
        per_cpu: int = 2,
        ncpus: int | None = None,
    ):
        known = LATENCY_LOADS if purpose == "latency" else OVERHEAD_LOADS
        if kind not in known:
            raise LoadError(f"unknown {purpose} load '{kind}' (one of {', '.join(known)})")
        self.purpose = purpose
        self.kind = kind
        self.max_seconds = max(1.0, max_seconds)
        self.per_cpu = per_cpu
        self.ncpus = ncpus or len(allowed_cpus())
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.tmpdir: Path | None = None
        self.details: list[str] = []

    # -- starting
    # Every load runs in its own session, silent, so that stop() can end it and what it starts.
    _QUIET: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
              "start_new_session": True}

    def _spawn(self, label: str, command: list[str]) -> None:
        """Start a program that is not rtsched's (hackbench)."""
        self.processes.append((label, subprocess.Popen(command, **self._QUIET)))

    def _spawn_load(self, label: str, args: list[str]) -> None:
        """Start ``rtsched-load ARGS``."""
        self.processes.append((label, start_native("rtsched-load", args, **self._QUIET)))

    def _seconds(self) -> str:
        return f"{self.max_seconds:.1f}"

    def _cache(self, count: int) -> None:
        mib = thrasher_mib(llc_bytes())
        for _ in range(count):
            self._spawn_load("cache", ["cache", "--mib", str(mib), "--seconds", self._seconds()])
        self.details.append(f"{count} cache thrasher(s) of {mib} MiB (LLC {llc_bytes()} B)")

    def _cpu(self, count: int) -> None:
        for _ in range(count):
            self._spawn_load("cpu", ["cpu", "--seconds", self._seconds()])
        self.details.append(f"{count} CPU loop(s)")

    def _writers(self, count: int, mode: str) -> None:
        if self.tmpdir is None:
            self.tmpdir = Path(tempfile.mkdtemp(prefix="rtsched-load-", dir=_disk_dir()))
        flags = {"direct": ["--direct"], "sync": ["--sync"], "buffered": []}[mode]
        for i in range(count):
            path = self.tmpdir / f"{mode}-{i}.dat"
            self._spawn_load(
                f"write-{mode}",
                ["write", "--file", str(path), "--file-mib", "64", *flags,
                 "--seconds", self._seconds()],
            )
        self.details.append(f"{count} {mode} writer(s) in {self.tmpdir}")

    def _hackbench(self) -> None:
        hackbench = shutil.which("hackbench")
        if hackbench is None:
            self.details.append("hackbench not found (apt-get install rt-tests): skipped")
            return
        timeout = shutil.which("timeout")
        command = [hackbench, "-g", "2", "-l", "100000000"]
        if timeout:
            command = [timeout, "-s", "KILL", self._seconds(), *command]
        self._spawn("hackbench", command)
        self.details.append("hackbench -g 2 (80 processes on sockets)")

    def __enter__(self) -> Loads:
        try:
            n = self.ncpus * self.per_cpu
            if self.kind == "cpu" and self.purpose == "latency":
                self._cache(self.ncpus)  # seed 000: one cache thrasher per CPU
            elif self.kind == "cpu":
                self._cpu(n)  # seed 002: CPU-bound processes
            elif self.kind == "io":
                self._writers(1, "direct")
                self._hackbench()
            elif self.kind == "cpu+io":
                self._cache(self.ncpus)
                self._writers(1, "direct")
                self._hackbench()
            elif self.kind == "aio":
                self._writers(n, "buffered")
            elif self.kind == "sio":
                self._writers(n, "sync")
            elif self.kind == "mix":
                half = max(1, n // 2)
                self._cpu(half)
                self._writers(half, "buffered")
                self._writers(half, "sync")
            time.sleep(0.3 if self.processes else 0)  # let them get going
            for label, process in self.processes:
                if process.poll() not in (None, 0):
                    raise LoadError(f"load {label} exited at once with code {process.returncode}")
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        for _, process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for _, process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=5)
        self.processes.clear()
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def describe(self) -> str:
        return "; ".join(self.details) if self.details else "no load"
