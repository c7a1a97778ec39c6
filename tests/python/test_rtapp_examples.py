"""Every file in examples/rtapp/: import, validate, dump and load back to the same model; and read directly."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtsched.model import TaskSetError, load_taskset, loads_taskset, taskset_from_dict, taskset_to_dict
from rtsched.model.rtapp import import_rtapp, is_rtapp_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "rtapp").glob("*.json"))


def rtsched(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "rtsched.cli.main", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_there_are_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_round_trip(path, tmp_path):
    taskset, document, _ = import_rtapp(path)
    assert taskset_from_dict(document) == taskset  # the document validates to the same model
    dumped = taskset_to_dict(taskset)
    assert loads_taskset(json.dumps(dumped), "json") == taskset
    out = tmp_path / "set.yaml"
    result = rtsched("import-rtapp", str(path), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert load_taskset(out) == taskset


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_validate_reads_rt_app_files_directly(path):
    assert is_rtapp_text(path.read_text())
    taskset, _, _ = import_rtapp(path)
    assert load_taskset(path) == taskset
    result = rtsched("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert f"{path}: valid ({len(taskset.tasks)} task" in result.stdout


def test_rtsched_json_is_not_taken_for_rt_app(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps(taskset_to_dict(import_rtapp(EXAMPLES[0])[0])))
    assert not is_rtapp_text(path.read_text())
    assert load_taskset(path) == import_rtapp(EXAMPLES[0])[0]


def test_a_syntax_error_in_an_rt_app_file_is_reported_by_the_rt_app_reader(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  /* comment */\n  "tasks": {\n    "t": {"run": 10 "sleep": 5}\n  }\n}\n')
    result = rtsched("validate", str(path))
    assert result.returncode == 2  # an invalid input
    assert f'{path}: 4:21: invalid JSON: expected "," or "}}" after the value of "run", found \'"\'' in result.stderr


def test_validate_and_analyze_report_rt_app_errors_with_their_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "tasks": {\n    "t": {"policy": "SCHED_FIFO", "run": 10, "fork": "t",\n'
                    '      "timer": {"ref": "x", "period": 1000}}}}\n')
    with pytest.raises(TaskSetError):
        load_taskset(path)
    for command in ("validate", "analyze"):
        result = rtsched(command, str(path))
        assert result.returncode != 0
        assert "3:5: tasks.t.loop: a thread that runs and forks must run its loop once" in result.stderr


def test_analyze_an_rt_app_file():
    result = rtsched("analyze", str(ROOT / "examples" / "rtapp" / "control-deadline.json"), "--json")
    report = json.loads(result.stdout)
    assert (report["taskset"], report["scheduler"]) == ("control-deadline", "G-EDF")
    assert [t["name"] for t in report["tasks"]] == ["control", "planner-light", "planner-heavy"]


def test_validate_shows_the_warnings_before_the_errors_they_may_explain(tmp_path):
    path = tmp_path / "bad.json"
    first = '{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 10, "sleep": 5, "run": 20,\n'
    second = '  "timer": {"ref": "x", "period": 1000, "mode": "absolute"}, "memrun": {"type": "chase", "size": 64}}}}\n'
    path.write_text(first + second)
    runs = [i + 1 for i in range(len(first)) if first.startswith('"run"', i)]
    result = rtsched("validate", str(path))
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{path}:1:{runs[0]}: warning: tasks.t.run: repeated key: rt-app (json-c) keeps "
                               f"only its last value, 20 at 1:{runs[1]}")
    memrun = second.index('"memrun"') + 1
    assert lines[1].startswith(f'{path}: 2:{memrun}: tasks.t.memrun: rt-app event "memrun" is not supported')
