"""Every test sees no overhead profile unless it makes one: the bounds that `rtsched analyze`
and `rtsched run` show would otherwise depend on whether this machine was calibrated; nor does
`rtsched run` measure one first (RTSCHED_AUTO_CALIBRATE=0) unless the test asks for that.

Tests that interrupt a command (Ctrl-C: SIGINT) need it to take SIGINT: a suite started as a
background job of a non-interactive shell (`cmd &`, nohup) inherits SIGINT ignored, every command
it starts would inherit that too and carry on past the interrupt. The suite's own disposition is a
handler, which exec resets to the default in each command it starts."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import pytest

# Files whose tests use the machine itself (real-time threads, cpusets, IRQ affinities, tracefs):
# marked `live`, so that `-m "not live"` runs the rest anywhere, at once, and `-m live` only these
# (one run at a time on a machine: scripts/test-loaded runs them under load).
LIVE_FILES = {"test_shield.py", "test_crash_cleanup.py", "test_full_disk.py", "test_litmus_jobstats.py",
              "test_tracefs_mount.py"}


def pytest_configure(config):
    config.addinivalue_line("markers", "live: uses real-time scheduling, cpusets or tracefs of this machine")
    # For the whole session too, not only each test's own (below): a module-scoped fixture runs
    # before any function's monkeypatch, and would otherwise measure into the user's own cache.
    session_profile = Path(tempfile.mkdtemp(prefix="rtsched-test-profile-")) / "overheads.json"
    os.environ["RTSCHED_OVERHEADS"] = str(session_profile)
    os.environ["RTSCHED_AUTO_CALIBRATE"] = "0"
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = Path(str(item.fspath)).name
        if name.endswith("_live.py") or name in LIVE_FILES:
            item.add_marker(pytest.mark.live)


@pytest.fixture(autouse=True)
def _no_machine_profile(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path_factory.mktemp("profile") / "overheads.json"))
    monkeypatch.setenv("RTSCHED_AUTO_CALIBRATE", "0")
