"""``rtsched run --compare-backends`` refuses, before anything runs, a set that either backend
cannot run, naming the feature, its path and the backend (docs/run.md). No real-time
scheduling is needed: nothing runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtsched.model import loads_taskset
from rtsched.run.backends import backend_refusals

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUFFIX = "(refused under the {} backend, which --compare-backends runs the set under too)"

PARTIAL_GEDF = """\
name: partial-gedf
platform: {scheduler: G-EDF, cpus: [1]}
tasks: [{name: a, period: 10ms, body: [{compute: 1ms}]}]
"""


def refusals(text: str) -> list[str]:
    return backend_refusals(loads_taskset(text, "yaml"), duration_ns=10**9)


@pytest.mark.parametrize(
    "example, backend, first",
    [
        ("prem-pfp.yaml", "ult", "tasks[0]: PREM (prem actions, peripheral tasks) needs scheduler P-FP with the "
                                 "threads backend"),
        ("reservations.yaml", "threads", "reservations: reservations are scheduled by the library's user-level "
                                         "scheduler"),
    ],
)
def test_a_feature_one_backend_lacks_is_refused_with_its_path_and_the_backend(tmp_path, example, backend, first):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", str(EXAMPLES / example),
                           "--compare-backends", "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2  # an invalid input
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith(f"{EXAMPLES / example}: {first}"), lines
    assert all(line.endswith(SUFFIX.format(backend)) for line in lines), lines
    assert not out.exists()  # nothing ran


def test_what_the_threads_backend_cannot_resolve_here_is_refused_too():
    """G-EDF on part of the CPUs: SCHED_DEADLINE needs them all; the ult backend takes it."""
    import os

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 CPUs")
    found = refusals(PARTIAL_GEDF)
    assert len(found) == 1
    assert found[0].startswith("platform.cpus: G-EDF with SCHED_DEADLINE needs every online CPU")
    assert found[0].endswith(SUFFIX.format("threads"))


def test_a_set_both_backends_run_is_not_refused():
    assert refusals((EXAMPLES / "ult-cedf.yaml").read_text()) == []
    assert refusals((EXAMPLES / "locks.yaml").read_text()) == []
    assert refusals((EXAMPLES / "picv-rpc.yaml").read_text()) == []  # its server: a ULT under ult
