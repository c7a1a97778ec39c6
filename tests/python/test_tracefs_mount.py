"""tracefs mounted by rtsched itself where it is not (issue 31, item 3), in a mount namespace of
the test's own so that the machine's mounts are left as they are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

PROGRAM = """
import sys
from rtsched.measure.kernel_recorder import tracefs_root
from rtsched.measure.tracefs import TRACEFS_DIRS
import subprocess
# a namespace where tracefs is mounted nowhere: debugfs too, where /sys/kernel/debug/tracing
# mounts tracefs again when looked at (debugfs is mounted on most systemd machines)
for d in (*TRACEFS_DIRS, "/sys/kernel/debug"):
    subprocess.run(["umount", "-l", d], stderr=subprocess.DEVNULL)
print(tracefs_root())
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_the_recorder_mounts_tracefs_where_it_is_not_and_says_so():
    done = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c", PROGRAM],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and "tracefs" in done.stderr and "does not exist" in done.stderr:
        pytest.skip("this kernel has no tracefs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "/sys/kernel/tracing"
    assert "mounted tracefs at /sys/kernel/tracing (it was not mounted)" in done.stderr
