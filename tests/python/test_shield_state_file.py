"""The shield's state file is written under a name with its writer's PID and renamed into place,
so a maker killed while writing leaves a file the leftover sweep knows to be dead and removes
(test_crash_cleanup.py's shield cases under load: `shield.tmp` was left for good)."""

from __future__ import annotations

import os
import subprocess
import sys

from rtsched.measure import leftovers, shield


def test_a_half_written_state_file_of_a_dead_writer_is_removed_and_a_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("RTSCHED_STATE_DIR", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)
    left = shield.state_tmp_file(dead_pid)
    writing = shield.state_tmp_file(os.getpid())
    left.write_text('{"version": 1, "cpus": [1')
    writing.write_text("{")
    assert shield.state_tmp_files() == sorted([(dead_pid, left), (os.getpid(), writing)])

    assert leftovers._shield_tmp_files(None) == [f"half-written shield state {left.name} (pid {dead_pid})"]
    assert not left.exists() and writing.exists()


def test_saving_the_state_leaves_only_the_state_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RTSCHED_STATE_DIR", str(tmp_path))
    shield.ShieldState(cpus=[1], backend="cgroup-v2", pid=os.getpid(), created=0.0).save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shield.json"]
    assert shield.ShieldState.load().cpus == [1]
