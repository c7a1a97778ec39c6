"""Run an rt-app file under real rt-app (``rtsched run FILE --compare-rtapp PATH``), with its logs.

    from rtsched.run.rtapp import run_rtapp
    run = run_rtapp(Path("/tmp/rtapp-build/rt-app"), Path("workload.json"), 2, Path("out/x/rtapp"))
    run.logs["thread0"][0]        # rt-app's rows for thread0's first instance

The file is read as rt-app reads it (``rtsched.model.rtapp.reader``: json-c's rules, so a
repeated key is its last value in its first place), and written, as plain JSON, to
OUT/workload.json with its ``global`` changed only in what rt-app logs and for how long it
runs: ``duration`` (whole seconds, rt-app's unit), ``logdir`` OUT, ``log_basename`` "rtapp",
``log_size`` "file" (a row per loop, written as it ends), ``gnuplot`` false, ``ftrace``
"none". rt-app runs in OUT, its output in OUT/rt-app.out; its logs are read back
(``rtsched.trace.rtapp_log``). On request (``--rtapp-runtime``) every ``run`` event runs as
a ``runtime`` event of the same length: rt-app's ``run`` is a count of loops calibrated once at
its start, whose time follows the CPU's speed, while ``runtime`` loops until that much time has
passed, as rtsched's ``compute`` does in CPU time (the two agree while nothing preempts the thread).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtsched.cpus import online_cpus
from rtsched.measure.steal import read_steal_ns, steal_during
from rtsched.model.rtapp import event_kind
from rtsched.model.rtapp.reader import JObject, read_rtapp
from rtsched.trace.rtapp_log import RtAppLog, read_rtapp_logs

__all__ = ["LOG_BASENAME", "RtAppFailed", "RtAppMissing", "RtAppRun", "rtapp_version", "run_rtapp"]

LOG_BASENAME = "rtapp"
#: rt-app calibrates its run loop before it starts the threads (about a second), and stops them
#: after ``duration``: how long past ``duration`` it may take before it is stopped as hung.
SLACK_S = 60


class RtAppMissing(Exception):
    """PATH is not an executable rt-app: the message says what PATH is."""


class RtAppFailed(Exception):
    """rt-app refused the file or failed: the message has the end of its output."""


@dataclass(frozen=True)
class RtAppRun:
    """rt-app's run of a file: its version, for how long, where, the document it ran (plain JSON,
    json-c's reading of the file) and each thread's logged loops (``logs``: thread -> its
    instances' logs, then its forks'; rtsched.trace.rtapp_log)."""

    binary: Path
    version: str
    duration_s: int
    out_dir: Path
    document: dict[str, Any]
    logs: dict[str, tuple[RtAppLog, ...]]
    ns_per_loop: int | None = None  # its calibration ("pLoad = 24ns" in its output), which sizes every run
    steal_ns: dict[str, int] | None = None  # per CPU, what the hypervisor took during rt-app's run
    runs_as_runtime: bool = False  # its run events were run as runtime events (no calibration)


#: rt-app's calibration line (rt-app/src/rt-app.c, main: log_notice("pLoad = %dns : calib_cpu %d", ...)).
_PLOAD = re.compile(r"pLoad = (\d+)ns")


def rtapp_version(binary: Path) -> str:
    """rt-app's version line (``rt-app -v``). Raises RtAppMissing when ``binary`` is no rt-app."""
    if not binary.exists():
        raise RtAppMissing(f"{binary}: no such file (give the path of a built rt-app: bench/rtapp/build-rtapp)")
    if binary.is_dir() or not binary.stat().st_mode & 0o111:
        raise RtAppMissing(f"{binary}: not an executable file")
    try:
        done = subprocess.run([str(binary), "-v"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RtAppMissing(f"{binary}: cannot run it as rt-app ({e})") from None
    line = (done.stdout.strip().splitlines() or [""])[0]
    if done.returncode != 0 or not line.startswith("rt-app "):
        raise RtAppMissing(f"{binary}: not rt-app (`{binary.name} -v` printed {line[:60]!r}, "
                           f"exit {done.returncode}; rt-app prints \"rt-app v...\")")
    return line


def _runs_as_runtime(events: dict[str, Any]) -> dict[str, Any]:
    """``events`` (a thread or a phase) with each ``run`` event a ``runtime`` event of the same
    length, in its place: ``run0`` becomes ``runtime_run0`` (rt-app takes a key for the first event
    name it starts with, ``runtime`` before ``run``). Its phases too."""
    out: dict[str, Any] = {}
    for key, value in events.items():
        if key == "phases" and isinstance(value, dict):
            value = {name: _runs_as_runtime(p) if isinstance(p, dict) else p for name, p in value.items()}
        elif event_kind(key) == "run":
            if f"runtime_{key}" in events:
                raise ValueError(f'cannot make "{key}" a runtime event: "runtime_{key}" is taken')
            key = f"runtime_{key}"
        out[key] = value
    return out


def rtapp_copy(text: str, duration_s: int, log_dir: Path, *, runtime: bool = False) -> dict[str, Any]:
    """The document rt-app reads from ``text``, with ``global`` set to log into ``log_dir`` for
    ``duration_s`` seconds (see the module doc); ``runtime``: every ``run`` event a ``runtime``
    event (``_runs_as_runtime``). Raises RtAppSyntaxError, or ValueError for a document without a
    ``tasks`` object."""
    root = read_rtapp(text).root
    if not isinstance(root, JObject) or root.get("tasks") is None:
        raise ValueError('not an rt-app file: no "tasks" object')
    doc = root.to_plain()
    if runtime and isinstance(doc["tasks"], dict):
        doc["tasks"] = {name: _runs_as_runtime(t) if isinstance(t, dict) else t for name, t in doc["tasks"].items()}
    given = doc.get("global")
    settings: dict[str, Any] = given if isinstance(given, dict) else {}
    doc["global"] = {**settings, "duration": duration_s, "logdir": str(log_dir), "log_basename": LOG_BASENAME,
                     "log_size": "file", "gnuplot": False, "ftrace": "none"}
    return doc


def run_rtapp(binary: Path, source: Path, duration_s: int, out_dir: Path, *, runtime: bool = False) -> RtAppRun:
    """Run ``source`` under rt-app at ``binary`` for ``duration_s`` seconds into ``out_dir``
    (``runtime``: its ``run`` events as ``runtime`` ones, ``rtapp_copy``).
    Raises RtAppMissing (``binary``), ValueError or RtAppSyntaxError (``source``), RtAppFailed."""
    version = rtapp_version(binary)
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob(f"{LOG_BASENAME}-*.log"):
        old.unlink()
    doc = rtapp_copy(source.read_text(encoding="utf-8"), duration_s, out_dir, runtime=runtime)
    workload = out_dir / "workload.json"
    workload.write_text(json.dumps(doc, indent=1) + "\n")
    output = out_dir / "rt-app.out"
    cpus = online_cpus()
    before = read_steal_ns(cpus)
    try:
        with output.open("w") as sink:
            done = subprocess.run([str(binary.resolve()), str(workload)], cwd=out_dir, stdout=sink,
                                  stderr=subprocess.STDOUT, timeout=duration_s + SLACK_S)
    except subprocess.TimeoutExpired:
        raise RtAppFailed(f"rt-app did not stop {SLACK_S} s after its duration of {duration_s} s "
                          f"(killed; its output: {output})") from None
    steal = steal_during(before, read_steal_ns(cpus))
    if done.returncode != 0:
        tail = "\n".join(output.read_text(errors="replace").splitlines()[-8:])
        raise RtAppFailed(f"rt-app exited {done.returncode} on {workload}; the end of its output "
                          f"({output}):\n{tail}")
    threads = list(doc["tasks"]) if isinstance(doc["tasks"], dict) else []
    pload = _PLOAD.search(output.read_text(errors="replace"))
    return RtAppRun(binary, version, duration_s, out_dir, doc, read_rtapp_logs(out_dir, LOG_BASENAME, threads),
                    int(pload.group(1)) if pload else None, steal, runtime)
