"""Every test sees no overhead profile unless it makes one: the bounds that `rtsched analyze`
and `rtsched run` show would otherwise depend on whether this machine was calibrated."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_machine_profile(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path_factory.mktemp("profile") / "overheads.json"))
