"""The ``rtsched`` command: what it offers and how it fails."""

import subprocess
import sys

import pytest

from rtsched.cli.main import Exit, main


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rtsched.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_command_is_a_usage_error():
    result = run_cli()
    assert result.returncode == Exit.USAGE
    assert "COMMAND" in result.stderr


def test_unknown_command_is_a_usage_error():
    result = run_cli("frobnicate")
    assert result.returncode == Exit.USAGE
    assert "frobnicate" in result.stderr


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("rtsched ")


def test_missing_native_tool_says_where_it_looked(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RTSCHED_NATIVE_BIN", str(tmp_path))
    monkeypatch.setattr("rtsched.native.PACKAGE_BIN", tmp_path / "nowhere")
    assert main(["lockbench", "--quick"]) == Exit.NATIVE_MISSING
    err = capsys.readouterr().err
    assert "rtsched-lockbench not found" in err
    assert str(tmp_path) in err


def test_a_wide_table_is_split_on_a_narrow_console_without_cutting_a_cell():
    import io

    from rich.console import Console

    from rtsched.cli.tables import figures_table, print_fitting

    headers = ["task"] + [f"figure {i}" for i in range(12)]
    table = figures_table("wide", headers, caption="times in ms")
    table.add_row("telemetry", *(f"{1000 + i}.125" for i in range(12)))
    out = io.StringIO()
    print_fitting(Console(file=out, width=80, highlight=False), table)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "…" not in out.getvalue()
    assert sum("telemetry" in line for line in lines) >= 2  # each part keeps the task's name
    assert all(f"{1000 + i}.125" in out.getvalue() for i in range(12))
    assert lines[-1].strip() == "times in ms"


def test_a_timed_progress_bar_names_each_phase_and_leaves_no_thread_behind():
    import io
    import threading

    from rich.console import Console

    from rtsched.cli.timed_progress import timed_progress

    before = set(threading.enumerate())
    out = io.StringIO()
    with timed_progress(Console(file=out, force_terminal=True, width=100), expected_s=30) as say:
        say("release latency: 2000 jobs")
        say("lock and unlock")
        refresh = set(threading.enumerate()) - before
        assert len(refresh) == 1  # the bar's refresh thread
    for thread in refresh:  # told to stop with the block; it ends within its refresh period
        thread.join(timeout=5)
    assert set(threading.enumerate()) == before
    assert "about" in out.getvalue() and "s left" in out.getvalue()
