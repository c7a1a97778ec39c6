"""A real first run on a machine with no profile (SCHED_FIFO on the last CPU; run the suite under
`flock /tmp/rt.lock`): `rtsched run` measures a quick profile, keeps it at $RTSCHED_OVERHEADS,
and its table shows the overhead-aware bound beside the ideal one; the next run uses the profile
without measuring again. No time is asserted."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtsched.cli.first_profile import FIRST_PROFILE_COMMAND
from rtsched.native import NativeToolMissing, native_tool

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "picv-rpc.yaml"


def _ready() -> bool:
    try:
        for tool in ("rtsched-calibrate", "rtsched-latency", "rtsched-lockbench", "rtsched-overhead", "rtsched-run"):
            native_tool(tool)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(90))
    except (NativeToolMissing, PermissionError):
        return False
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return True


pytestmark = pytest.mark.skipif(not _ready(), reason="needs the native tools and SCHED_FIFO")


def _run(out: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", str(EXAMPLE), "--duration", "1s",
                           "--no-plots", "--out", str(out)], capture_output=True, text=True, timeout=240, env=env)


def test_first_run_measures_a_profile_then_the_next_uses_it(tmp_path):
    profile = tmp_path / "cache" / "overheads.json"
    env = {**os.environ, "RTSCHED_OVERHEADS": str(profile), "COLUMNS": "200"}
    env.pop("RTSCHED_AUTO_CALIBRATE")
    first = _run(tmp_path / "first", env)
    assert first.returncode == 0, first.stderr
    said = " ".join(first.stderr.split())
    assert "this machine has no overhead profile" in said and "measuring one now" in said
    assert f"kept in {profile}" in said
    kept = json.loads(profile.read_text())
    assert kept["format"] == "rtsched-overheads/1" and kept["provenance"]["command"] == FIRST_PROFILE_COMMAND
    summary = json.loads((tmp_path / "first" / "summary.json").read_text())
    assert summary["overheads"]["sources"] and str(profile) in summary["overheads"]["sources"][0]
    assert " ideal " in first.stdout  # the overhead-aware bound, and the ideal one beside it

    second = _run(tmp_path / "second", env)
    assert second.returncode == 0, second.stderr
    assert "measuring one now" not in second.stderr
    assert json.loads(profile.read_text())["provenance"]["date"] == kept["provenance"]["date"]
