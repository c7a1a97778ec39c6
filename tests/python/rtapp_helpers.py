"""Helpers for the rt-app import tests: build a file's text and find a key's position in it."""

import json
import subprocess
import sys

import pytest

from rtsched.model import TaskSetError, taskset_from_dict
from rtsched.model.rtapp import loads_rtapp


def text_of(doc) -> str:
    """rt-app text for a dict, one key per line (repeated keys need hand-written text)."""
    return json.dumps(doc, indent=1)


def pos(text: str, key: str, nth: int = 0) -> str:
    """``line:column`` of the nth occurrence of the quoted ``key`` in ``text``."""
    needle = f'"{key}"'
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"{line}:{column}"


def imported(doc_or_text, **kwargs):
    text = doc_or_text if isinstance(doc_or_text, str) else text_of(doc_or_text)
    data, warnings = loads_rtapp(text, **kwargs)
    return taskset_from_dict(data), data, warnings


def errors(doc_or_text):
    text = doc_or_text if isinstance(doc_or_text, str) else text_of(doc_or_text)
    with pytest.raises(TaskSetError) as info:
        loads_rtapp(text)
    return info.value.errors


def fifo(**events):
    return {"policy": "SCHED_FIFO", **events}


TIMER = {"ref": "unique", "period": 1000, "mode": "absolute"}  # "relative" (the default) warns


def simulated(tmp_path, doc, duration="200ms"):
    """``rtsched sim`` of an rt-app file: its summary.json (jobs per task, activations kept and lost)."""
    path = tmp_path / "file.json"
    path.write_text(text_of(doc))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "sim", "--no-plots", "--ideal", "--duration",
                           duration, "--out", str(out), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((out / "summary.json").read_text())
