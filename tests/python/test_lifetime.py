"""Children end with the rtsched process that started them (rtsched.lifetime), a SIGKILL of it too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

PARENT = """
import subprocess, sys, time
from rtsched.lifetime import preexec
child = subprocess.Popen(["sleep", "60"], preexec_fn=preexec())
print(child.pid, flush=True)
time.sleep(60)
"""


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def test_a_child_gets_sigterm_when_its_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert _running(child)
        parent.kill()
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _running(child)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_child_whose_parent_ended_before_the_prctl_ends_at_once():
    # Parent PID 1 is not this process's parent: as if the parent had died between fork and prctl.
    done = subprocess.run([sys.executable, "-c", "import signal, time\nfrom rtsched.lifetime import die_with_parent\n"
                           "die_with_parent(signal.SIGTERM, 1)\ntime.sleep(30)"], env=_env(), timeout=60)
    assert done.returncode == -signal.SIGTERM
