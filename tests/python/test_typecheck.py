"""The package type-checks (scripts/typecheck: mypy, strict on the model, trace, report,
CPU lists, native programs and analysis). Where mypy is missing the test skips, except
under CI, whose scripts/setup installs it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_type_checks():
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("CI"):
            pytest.fail("mypy is not installed: scripts/setup installs it (pip install .[test])")
        pytest.skip("mypy is not installed (scripts/setup installs it)")
    done = subprocess.run([str(ROOT / "scripts" / "typecheck")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
