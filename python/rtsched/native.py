"""The native programs built from the C sources, and the one way Python drives them.

Where they are: an installed package carries them in ``rtsched/_native/bin``
and its shared libraries in ``rtsched/_native/lib`` (scikit-build-core puts
them there). A developer may point ``RTSCHED_NATIVE_BIN`` at folders of a
CMake build tree (several, separated by ``:``, e.g.
``build/tools/run:build/tools``) to use freshly built ones instead; a
library (``native_library``) is looked for in the same folders first.

How they are driven, by what each caller needs:

- ``exec_native``: replace this process (``rtsched lockbench``: signals and the
  exit code pass straight through);
- ``run_native_tool``: run to the end within a time bound (or none), input given, output captured;
  a failure raises ``NativeToolFailed`` with the program's own explanation;
- ``start_native``: start it and hand back the process (the runner's
  progress bar and signal forwarding, rtsched-latency's progress lines,
  background loads).

Every path raises ``NativeToolMissing`` when the program is not installed.
A program started by ``run_native_tool`` or ``start_native`` gets SIGTERM when
this process ends, however it ends (``rtsched.lifetime``): a SIGKILL of
``rtsched`` leaves no native program running on without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rtsched.lifetime import preexec

__all__ = [
    "PACKAGE_BIN",
    "NativeToolFailed",
    "NativeToolMissing",
    "exec_native",
    "native_command",
    "native_library",
    "native_tool",
    "run_native_tool",
    "start_native",
]

PACKAGE_BIN = Path(__file__).resolve().parent / "_native" / "bin"
PACKAGE_LIB = Path(__file__).resolve().parent / "_native" / "lib"


class NativeToolMissing(RuntimeError):
    """A native program is not installed where rtsched looks for it."""


class NativeToolFailed(RuntimeError):
    """A native program failed or overran its time bound; the message is its explanation."""

    def __init__(self, program: str, message: str, returncode: int | None) -> None:
        super().__init__(message)
        self.program = program
        self.returncode = returncode  # None: it was killed for overrunning its bound


def _override_folders() -> list[Path]:
    override = os.environ.get("RTSCHED_NATIVE_BIN")
    return [Path(p) for p in override.split(os.pathsep) if p] if override else []


def native_library(name: str) -> Path | None:
    """Path of the shared library ``name`` (e.g. ``librtsched_analysis.so``), or None when it is
    not built: its callers have a pure-Python path (the library only makes them faster)."""
    for folder in [*_override_folders(), PACKAGE_LIB]:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def native_tool(name: str) -> Path:
    """Path of the native program ``name`` (e.g. ``rtsched-lockbench``)."""
    folders = _override_folders()
    folders.append(PACKAGE_BIN)
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    searched = ", ".join(str(f) for f in folders)
    raise NativeToolMissing(
        f"{name} not found (looked in {searched}); reinstall with `pip install .` "
        "or set RTSCHED_NATIVE_BIN to a build tree's tools folder"
    )


def native_command(name: str, args: Sequence[str]) -> list[str]:
    """The command line that runs native program ``name`` with ``args``."""
    return [str(native_tool(name)), *args]


def exec_native(name: str, args: Sequence[str]) -> NoReturn:
    """Replace this process with native program ``name``, so signals and the exit code pass through."""
    command = native_command(name, args)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(command[0], command)


def run_native_tool(name: str, args: Sequence[str], *, timeout_s: float | None, input_text: str | None = None) -> str:
    """Run ``name`` to its end (killed after ``timeout_s``; None: no bound) with ``input_text`` on its
    standard input, and return its standard output.
    Raises NativeToolFailed with its standard error when it exits with a status other than 0."""
    try:
        done = subprocess.run(native_command(name, args), capture_output=True, text=True, timeout=timeout_s,
                              input=input_text, preexec_fn=preexec())
    except subprocess.TimeoutExpired as error:
        raise NativeToolFailed(name, f"{name} did not finish in time ({timeout_s:.0f} s)", None) from error
    if done.returncode != 0:
        raise NativeToolFailed(name, done.stderr.strip() or f"{name} failed ({done.returncode})", done.returncode)
    return done.stdout


def start_native(name: str, args: Sequence[str], **popen: Any) -> subprocess.Popen[str]:
    """Start ``name`` (text mode); ``popen``: subprocess.Popen's options (streams, session, ...;
    a ``preexec_fn`` runs in the child after the death signal is set)."""
    popen["preexec_fn"] = preexec(then=popen.get("preexec_fn"))
    return subprocess.Popen(native_command(name, args), text=True, **popen)
