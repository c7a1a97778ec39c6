"""rtsched calibrate without measuring: where the profile lives, how it is read, the
provenance arithmetic, and the command line's errors (no real-time run here)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from rtsched.cli.main import main
from rtsched.measure import calibrate as cal
from rtsched.measure import provenance
from rtsched.native import NativeToolMissing, native_tool


# ---- where the profile lives -------------------------------------------------------------------

def test_profile_path_env_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path / "mine.json"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cal.default_profile_path() == tmp_path / "mine.json"


def test_profile_path_xdg_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("RTSCHED_OVERHEADS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cal.default_profile_path() == tmp_path / "cache" / "rtsched" / "overheads.json"


@pytest.mark.parametrize("xdg", [None, "", "relative/cache"])
def test_profile_path_home_cache_when_xdg_unset_or_invalid(monkeypatch, tmp_path, xdg):
    monkeypatch.delenv("RTSCHED_OVERHEADS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert cal.default_profile_path() == tmp_path / ".cache" / "rtsched" / "overheads.json"


# ---- reading and writing it --------------------------------------------------------------------

def test_load_profile_missing_is_none(monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path / "none.json"))
    assert cal.load_profile() is None
    assert cal.load_profile(tmp_path / "other.json") is None


def test_load_profile_round_trip(monkeypatch, tmp_path):
    target = tmp_path / "deep" / "dir" / "p.json"
    profile = {"format": "rtsched-overheads/1", "stat": "max", "context_switch_ns": 2000}
    assert cal.write_profile(profile, target) == target
    assert [p.name for p in target.parent.iterdir()] == ["p.json"]  # no temporary left behind
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(target))
    assert cal.load_profile() == profile


@pytest.mark.parametrize("text, says", [
    ("{not json", "not JSON"),
    ("[1, 2]", "not an overhead profile"),
    ('{"format": "rtsched-latency/1"}', "not an overhead profile"),
])
def test_load_profile_rejects_what_is_not_a_profile(tmp_path, text, says):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(cal.ProfileError) as error:
        cal.load_profile(bad)
    assert str(bad) in str(error.value) and says in str(error.value)


# ---- provenance arithmetic ---------------------------------------------------------------------

STAT_BEFORE = """cpu  10 0 10 100 0 0 0 0 0 0
cpu0 100 0 50 800 10 5 5 30 0 0
cpu1 200 10 40 700 0 0 0 50 7 0
intr 1
"""
STAT_AFTER = """cpu  10 0 10 100 0 0 0 0 0 0
cpu0 150 0 60 880 10 5 5 30 0 0
cpu1 250 10 40 790 0 0 0 60 9 0
"""


def test_cpu_times_and_steal_ratios():
    before = provenance.cpu_times(STAT_BEFORE)
    after = provenance.cpu_times(STAT_AFTER)
    # guest (column 9) is already in user: not added to the total
    assert before == {0: (30, 1000), 1: (50, 1000)}
    ratios = provenance.steal_ratios(before, after)
    assert ratios[0] == 0.0  # 140 ticks, none stolen
    assert ratios[1] == pytest.approx(10 / 150)


def test_steal_warning_only_above_one_percent():
    quiet = {"provenance": {"cpu": 1, "steal_ratio": {"0": 0.0, "1": 0.01}}}
    assert cal.steal_warning(quiet) is None
    noisy = {"provenance": {"cpu": 1, "steal_ratio": {"0": 0.002, "1": 0.034}}}
    text = cal.steal_warning(noisy)
    assert "measured CPU" in text and "CPU 1 3.4%" in text and "CPU 0" not in text
    other = {"provenance": {"cpu": 1, "steal_ratio": {"0": 0.05, "1": 0.0}}}
    assert "another CPU" in cal.steal_warning(other)


def test_p99_is_nearest_rank():
    values = list(range(1, 201))
    assert cal._p99(values) == 198
    assert cal._p99([7]) == 7
    assert cal._p99(list(range(1, 101))) == 99


def test_quick_config_is_smaller_and_short():
    full, quick = cal.CalibrationConfig(cpu=1), cal.CalibrationConfig.quick(cpu=1)
    assert quick.cpu == full.cpu == 1
    for field in ("latency_samples", "lock_iterations", "native_samples", "windows"):
        assert getattr(quick, field) < getattr(full, field)
    assert quick.expected_seconds() <= 15 and full.expected_seconds() <= 60


# ---- the command line's errors -----------------------------------------------------------------

def _usage_error(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(["calibrate", *argv])
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def test_cli_rejects_offline_cpu(capsys):
    err = _usage_error(capsys, "--cpu", "4095")
    assert "--cpu: CPU 4095 does not exist or is offline" in err


@pytest.mark.parametrize("value", ["1", "99", "x"])
def test_cli_rejects_priority_out_of_range(capsys, value):
    err = _usage_error(capsys, "--priority", value)
    assert "--priority" in err and f"'{value}'" in err


def test_cli_rejects_out_directory(capsys, tmp_path):
    err = _usage_error(capsys, "--out", str(tmp_path))
    assert "--out" in err and "is a directory" in err


def test_cli_rejects_unknown_option(capsys):
    err = _usage_error(capsys, "--samples", "10")
    assert "unrecognized arguments: --samples 10" in err


# ---- without the privilege to use SCHED_FIFO ---------------------------------------------------

def _unprivileged(command):
    """command run without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 (needs root to set up)."""
    return ["prlimit", "--rtprio=0", "setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice", *command]


needs_setpriv = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("prlimit"),
    reason="dropping CAP_SYS_NICE needs root, setpriv and prlimit")


@needs_setpriv
def test_cli_says_what_is_missing_without_privilege(tmp_path):
    out = tmp_path / "p.json"
    done = subprocess.run(_unprivileged([sys.executable, "-m", "rtsched.cli.main", "calibrate", "--quick",
                                         "--out", str(out)]),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "CAP_SYS_NICE" in done.stderr and "RLIMIT_RTPRIO >= 90 (it is 0)" in done.stderr
    assert not out.exists()


# ---- the C tool's option errors ----------------------------------------------------------------

try:
    CALIBRATE_TOOL = str(native_tool("rtsched-calibrate"))
except NativeToolMissing:
    CALIBRATE_TOOL = None

needs_tool = pytest.mark.skipif(CALIBRATE_TOOL is None, reason="rtsched-calibrate is not built")


@needs_tool
@pytest.mark.parametrize("args, says", [
    (["--samples", "5"], "--samples: '5' is not a count in 10..10000000"),
    (["--priority", "99"], "--priority: '99' is not a SCHED_FIFO priority in 2..98"),
    (["--cpu", "4096"], "--cpu: CPU 4096 does not exist"),
    (["--only", "context-switch,nope"], "--only: unknown measurement 'nope'"),
    (["--frobnicate"], "unknown option '--frobnicate'"),
    (["--samples"], "--samples needs a value"),
    (["extra"], "unexpected argument 'extra'"),
])
def test_tool_option_errors(args, says):
    done = subprocess.run([CALIBRATE_TOOL, *args], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2
    assert says in done.stderr and done.stdout == ""


@needs_tool
def test_tool_help_lists_the_measurements():
    done = subprocess.run([CALIBRATE_TOOL, "--help"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0
    for name in ("context-switch", "rpc-call", "trace-event"):
        assert name in done.stdout


@needs_tool
@needs_setpriv
def test_tool_says_what_is_missing_without_privilege():
    done = subprocess.run(_unprivileged([CALIBRATE_TOOL, "--samples", "10"]), capture_output=True, text=True,
                          timeout=10)
    assert done.returncode == 1
    assert "CAP_SYS_NICE" in done.stderr and "RLIMIT_RTPRIO >= 90" in done.stderr
    assert done.stdout == ""


# ---- the table -----------------------------------------------------------------------------------

def test_table_has_a_row_per_overhead_and_protocol_and_the_steal():
    from rich.console import Console

    from rtsched.cli.calibrate import profile_table

    scalars = {key: 1000 * (i + 1) for i, key in enumerate(cal.SCALAR_KEYS)}
    locks = {key: {"pip": 30, "fmlp+": 50} for key in cal.LOCK_KEYS}
    profile = {
        "format": "rtsched-overheads/1", "stat": "max", **scalars, **locks,
        "os_interference": {"window_ns": 10_000_000, "max_lost_ns": 250_000},
        "p99": {**scalars, **locks, "os_interference": {"window_ns": 10_000_000, "max_lost_ns": 120_000}},
        "samples": {**{k: 77 for k in scalars}, **{k: {"pip": 5, "fmlp+": 5} for k in locks}, "os_interference": 9},
        "provenance": {"hostname": "box", "cpu": 3, "kernel": "6.1", "date": "2026-01-01T00:00:00Z",
                       "steal_ratio": {"0": 0.0, "3": 0.0125}},
    }
    console = Console(record=True, width=200)
    console.print(profile_table(profile))
    text = console.export_text()
    for key in cal.SCALAR_KEYS:
        assert key in text
    for key in cal.LOCK_KEYS:
        assert f"{key}.pip" in text and f"{key}.fmlp+" in text
    assert "os_interference (lost per 10 ms)" in text and "250.000" in text and "120.000" in text
    assert "box on CPU 3" in text and "CPU 3 1.25%" in text
