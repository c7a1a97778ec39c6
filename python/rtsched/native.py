"""Where the native programs built from the C sources are.

An installed package carries them in ``rtsched/_native/bin`` (scikit-build-core
puts them there). A developer may point ``RTSCHED_NATIVE_BIN`` at folders of a
CMake build tree (several, separated by ``:``, e.g.
``build/tools/run:build/tools/lockbench``) to use freshly built ones instead.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_BIN = Path(__file__).resolve().parent / "_native" / "bin"


class NativeToolMissing(RuntimeError):
    """A native program is not installed where rtsched looks for it."""


def native_tool(name: str) -> Path:
    """Path of the native program ``name`` (e.g. ``rtsched-lockbench``)."""
    override = os.environ.get("RTSCHED_NATIVE_BIN")
    folders = [Path(p) for p in override.split(os.pathsep) if p] if override else []
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
