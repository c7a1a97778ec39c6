"""``rtsched latency`` / ``overhead`` / ``shield``: argument errors name the argument, exit 2, change nothing."""

import json
import os
import subprocess
import sys

import pytest

from rtsched.cli.main import Exit
from rtsched.cpus import online_cpus


def run_cli(*args, env=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "rtsched.cli.main", *args],
        capture_output=True, text=True, timeout=timeout, env=env,
    )


MISSING_CPU = str(max(online_cpus()) + 1)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--cpus", "5-3"], "--cpus"),
        (["--cpus", "x"], "--cpus"),
        (["--cpus", MISSING_CPU], "--cpus"),
        (["--policy", "rr"], "--policy"),
        (["--interval-us", "0"], "--interval-us"),
        (["--interval-us", "abc"], "--interval-us"),
        (["--duration", "-1"], "--duration"),
        (["--duration", "0"], "--duration"),
        (["--priority", "100"], "--priority"),
        (["--distance-us", "-5"], "--distance-us"),
        (["--load", "disk"], "--load"),
        (["--policy", "other", "--priority", "10"], "--priority"),
        (["--policy", "deadline", "--compare-cyclictest"], "--compare-cyclictest"),
        (["--rounds", "3"], "--rounds"),
        (["--shield", MISSING_CPU], "--shield"),
    ],
)
def test_latency_argument_errors(args, needle):
    result = run_cli("latency", *args)
    assert result.returncode == Exit.USAGE, result.stderr
    assert needle in result.stderr


def test_latency_cannot_shield_every_cpu():
    result = run_cli("latency", "--shield", "--duration", "1")
    assert result.returncode == Exit.USAGE
    assert "every CPU" in result.stderr


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--variants", "fifo,bogus"], "--variants"),
        (["--iterations", "0"], "--iterations"),
        (["--target-ms", "-3"], "--target-ms"),
        (["--load", "disk"], "--load"),
        (["--shield-cpu", MISSING_CPU], "--shield-cpu"),
    ],
)
def test_overhead_argument_errors(args, needle):
    result = run_cli("overhead", *args)
    assert result.returncode == Exit.USAGE, result.stderr
    assert needle in result.stderr


@pytest.mark.parametrize(
    "args, needle",
    [
        ([], "cpus"),
        (["5-3"], "reversed"),
        (["x"], "not a CPU list"),
        ([MISSING_CPU], "does not exist"),
        (["0-" + str(max(online_cpus()))], "every CPU"),
        (["1", "--undo"], "--undo"),
    ],
)
def test_shield_argument_errors_change_nothing(args, needle, tmp_path):
    env = {**os.environ, "RTSCHED_STATE_DIR": str(tmp_path)}
    result = run_cli("shield", *args, env=env)
    assert result.returncode == Exit.USAGE, result.stderr
    assert needle in result.stderr
    assert not (tmp_path / "shield.json").exists()


def test_native_tool_usage_error_is_exit_2():
    from rtsched.native import NativeToolMissing, native_tool

    try:
        tool = native_tool("rtsched-latency")
    except NativeToolMissing:
        pytest.skip("rtsched-latency is not built")
    result = subprocess.run([str(tool), "--interval-us", "0"], capture_output=True, text=True, timeout=10)
    assert result.returncode == 2 and "--interval-us" in result.stderr


def test_shield_status_reports_the_kernel_facts_and_local_timer():
    result = run_cli("shield", "--status", "--json")
    assert result.returncode == Exit.OK, result.stderr
    status = json.loads(result.stdout)
    assert [row["cpu"] for row in status["cpus"]] == list(online_cpus())
    facts = status["kernel_facts"]
    assert {"preemption", "nohz_full", "isolcpus", "rcu_nocbs", "hz"} <= set(facts)
    assert facts["release"] == os.uname().release
    if status["local_timer_interrupts"] is not None:
        assert set(status["local_timer_interrupts"]) == {str(cpu) for cpu in online_cpus()}
    human = run_cli("shield", "--status")
    assert human.returncode == Exit.OK
    for fact in ("preemption:", "nohz_full:", "isolcpus:", "rcu_nocbs:"):
        assert fact in human.stdout


def test_overhead_a_off_without_nohz_full_says_why_and_measures_nothing():
    from rtsched.measure.kernel_facts import read_kernel_facts

    if read_kernel_facts().nohz_full.cpus:
        pytest.skip("this machine has nohz_full CPUs: the A_off variant runs here")
    result = run_cli("overhead", "--variants", "fifo-tickless")
    assert result.returncode == Exit.FAILED
    assert "nothing to measure" in result.stderr and "nohz_full" in result.stderr
