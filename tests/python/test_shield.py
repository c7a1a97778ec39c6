"""``rtsched shield``: shield then --undo restores cpusets, IRQ affinities, the
workqueue mask and task affinities exactly; an interrupted or crashed shield
can be undone; a CPU that does not exist changes nothing.

These move real tasks and IRQs, so each test is short and undoes in a
finally block; the shielded CPU is the last one (never CPU 0).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crash_helpers import watchers_of
from rtsched.cpus import online_cpus, parse_mask
from rtsched.measure import shield as shielding

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="shielding needs root (cpusets, /proc/irq)"),
    pytest.mark.skipif(len(online_cpus()) < 2, reason="shielding needs two CPUs"),
    pytest.mark.skipif(shielding.cgroup_version() is None, reason="no cpuset controller"),
]

CPU = max(online_cpus())
CPUSET = Path(shielding.CPUSET_V1 if shielding.cgroup_version() == 1 else shielding.CGROUP_ROOT)


def snapshot() -> dict:
    """Everything a shield changes and undo must restore."""
    state = {"cpusets": sorted(p.name for p in CPUSET.iterdir() if p.is_dir())}
    for name in ("cpuset.sched_load_balance", "cpuset.cpu_exclusive", "cpuset.cpus", "cgroup.subtree_control"):
        path = CPUSET / name
        if path.exists():
            state[name] = path.read_text()
    state["irqs"] = {
        irq: (Path("/proc/irq") / irq / "smp_affinity").read_text() for irq in shielding.irq_numbers()
    }
    state["default_smp_affinity"] = Path("/proc/irq/default_smp_affinity").read_text()
    if shielding.WORKQUEUE_MASK.exists():
        state["workqueue"] = shielding.WORKQUEUE_MASK.read_text()
    return state


@pytest.fixture
def isolated_state(tmp_path, monkeypatch):
    """A state file of the test's own, and no other shield up on the machine."""
    for name in (shielding.SHIELD_NAME, shielding.SYSTEM_NAME):
        if (CPUSET / name).exists():
            pytest.skip(f"{CPUSET / name} exists: another shield is up on this machine")
    monkeypatch.setenv("RTSCHED_STATE_DIR", str(tmp_path))
    yield tmp_path
    if (tmp_path / "shield.json").exists():  # a failed test must not leave a shield behind
        shielding.undo()


@pytest.fixture
def pinned_sleeper():
    """A task pinned to the CPU to shield: the shield moves it, undo must pin it back."""
    process = subprocess.Popen(["sleep", "60"])
    os.sched_setaffinity(process.pid, {CPU})
    yield process
    process.kill()
    process.wait()


def cli(*args, env=None, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "rtsched.cli.main", "shield", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs,
    )


def test_shield_then_undo_restores_exactly(isolated_state, pinned_sleeper):
    before = snapshot()
    try:
        report = shielding.shield([CPU])
        during = snapshot()
        assert shielding.SHIELD_NAME in during["cpusets"]
        assert report.moved_tasks > 0
        assert CPU not in os.sched_getaffinity(pinned_sleeper.pid)  # moved off the shield
        assert parse_mask(during["workqueue"]) >> CPU & 1 == 0
        status = {s.cpu: s for s in shielding.status()}
        assert status[CPU].shielded and not status[0].shielded
        for irq in report.moved_irqs:
            assert parse_mask(during["irqs"][irq]) >> CPU & 1 == 0
        # Refusals are listed, not errors.
        assert all(set(r) >= {"irq", "reason"} for r in report.refused_irqs)
    finally:
        undo = shielding.undo()
    assert undo.undone and not undo.problems
    assert snapshot() == before
    assert os.sched_getaffinity(pinned_sleeper.pid) == {CPU}
    assert not (isolated_state / "shield.json").exists()


def test_context_manager_undoes_on_error(isolated_state):
    before = snapshot()
    with pytest.raises(RuntimeError, match="boom"):
        with shielding.shielded([CPU]):
            assert shielding.shielded_cpus() == [CPU]
            raise RuntimeError("boom")
    assert snapshot() == before
    assert shielding.shielded_cpus() == []


def _wait_for_pause(process, step, timeout=20):
    deadline = time.monotonic() + timeout
    line = ""
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if f"paused at {step}" in line:
            return
        if not line and process.poll() is not None:
            break
    process.kill()
    pytest.fail(f"the shield never paused at {step}: {line!r} {process.stderr.read()}")


def test_sigint_in_the_middle_of_shielding_then_undo(isolated_state, pinned_sleeper):
    before = snapshot()
    env = {**os.environ, shielding.PAUSE_ENV: "tasks"}
    process = cli(str(CPU), env=env)
    try:
        _wait_for_pause(process, "tasks")  # cpusets made, some tasks moved
        assert snapshot() != before
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    undo = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "shield", "--undo"],
                          capture_output=True, text=True, timeout=60)
    assert undo.returncode == 0, undo.stderr
    assert snapshot() == before
    assert os.sched_getaffinity(pinned_sleeper.pid) == {CPU}


def test_crash_in_the_middle_of_shielding_then_undo(isolated_state, pinned_sleeper):
    before = snapshot()
    env = {**os.environ, shielding.PAUSE_ENV: "irqs"}
    process = cli(str(CPU), env=env)
    try:
        _wait_for_pause(process, "irqs")  # cpusets, tasks and IRQs changed; workqueue not yet
        # A crash of everything (the OOM killer, a kill of every process): no clean-up runs, not
        # even the watcher's that would undo it at once (test_crash_cleanup.py).
        for watcher in watchers_of(process.pid):
            os.kill(watcher, signal.SIGKILL)
        process.kill()
        process.wait(timeout=10)
        assert (isolated_state / "shield.json").exists()
        assert snapshot() != before
    finally:
        undo = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "shield", "--undo"],
                              capture_output=True, text=True, timeout=60)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert snapshot() == before
    assert os.sched_getaffinity(pinned_sleeper.pid) == {CPU}
    assert not (isolated_state / "shield.json").exists()


def test_shielding_a_missing_cpu_changes_nothing(isolated_state):
    before = snapshot()
    missing = max(online_cpus()) + 1
    with pytest.raises(shielding.CpuListError, match="does not exist"):
        shielding.shield([missing])
    with pytest.raises(shielding.CpuListError, match="every CPU"):
        shielding.shield(online_cpus())
    result = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "shield", str(missing)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "does not exist" in result.stderr
    assert snapshot() == before
    assert not (isolated_state / "shield.json").exists()


def test_second_shield_is_refused_while_one_is_up(isolated_state):
    try:
        shielding.shield([CPU])
        with pytest.raises(shielding.ShieldError, match="already up"):
            shielding.shield([CPU])
    finally:
        shielding.undo()


def test_undo_without_a_shield_is_harmless(isolated_state):
    before = snapshot()
    assert shielding.undo().undone is False
    assert snapshot() == before


def test_status_lists_every_cpu():
    rows = shielding.status()
    assert tuple(r.cpu for r in rows) == online_cpus()
    assert all(r.allowed_tasks >= 0 and isinstance(r.irqs, list) for r in rows)
