"""`rtsched validate` and `rtsched import-rtapp` on the command line."""

import subprocess
import sys
from pathlib import Path

from rtsched.cli.main import Exit

ROOT = Path(__file__).resolve().parents[2]


def rtsched(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "rtsched.cli.main", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )


def test_validate_a_valid_file():
    path = ROOT / "examples" / "pfp-two-cpus.yaml"
    result = rtsched("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{path}: valid (5 tasks, scheduler P-FP)\n"


def test_validate_prints_every_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad\nplatform: {scheduler: P-FP}\ntasks:\n"
        "  - {name: t, period: ten, perod: 1ms, priority: 1, partition: cpu0, body: [{compute: 1ms}]}\n"
    )
    result = rtsched("validate", str(path))
    assert result.returncode == 2  # an invalid input
    lines = result.stderr.splitlines()
    assert f'{path}: tasks[0].perod: unknown key (did you mean "period"?)' in lines
    assert any(line.startswith(f'{path}: tasks[0].period: expected a duration, got "ten"') for line in lines)
    assert lines[-1] == f"{path}: invalid (2 errors)"


def test_validate_several_files_fails_if_one_fails(tmp_path):
    good = ROOT / "examples" / "gedf.yaml"
    missing = tmp_path / "missing.yaml"
    result = rtsched("validate", str(good), str(missing))
    assert result.returncode == 2  # an invalid input
    assert f"{good}: valid" in result.stdout
    assert f"{missing}: cannot read: no such file" in result.stderr


def test_validate_syntax_error_line_and_column(tmp_path):
    path = tmp_path / "syntax.yaml"
    path.write_text("name: x\ntasks: [\n")
    result = rtsched("validate", str(path))
    assert result.returncode == 2  # an invalid input
    assert f"{path}: line 3, column 1: invalid YAML" in result.stderr


def test_validate_usage_error():
    result = rtsched("validate")
    assert result.returncode == Exit.USAGE


def test_import_rtapp_prints_yaml_that_validates(tmp_path):
    result = rtsched("import-rtapp", str(ROOT / "examples" / "rtapp" / "simple.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# imported from simple.json")
    out = tmp_path / "simple.yaml"
    out.write_text(result.stdout)
    check = rtsched("validate", str(out))
    assert check.returncode == 0 and "valid (3 tasks, scheduler P-FP)" in check.stdout


def test_import_rtapp_output_file_and_json(tmp_path):
    out = tmp_path / "set.json"
    result = rtsched("import-rtapp", str(ROOT / "examples" / "rtapp" / "simple.json"), "-o", str(out), "--name", "imp")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    check = rtsched("validate", str(out))
    assert check.returncode == 0, check.stderr


def test_import_rtapp_unsupported_event(tmp_path):
    path = tmp_path / "fork.json"
    path.write_text('{"tasks": {"thread0": {"policy": "SCHED_FIFO", "run": 100, "fork": "t",'
                    ' "timer": {"ref": "t", "period": 1000}}}}')
    result = rtsched("import-rtapp", str(path))
    assert result.returncode == 2  # an invalid input
    assert f'{path}:1:60: tasks.thread0.fork: fork of "t": no such thread in tasks' in result.stderr


def test_import_rtapp_iorun_without_its_wcet_says_what_to_add(tmp_path):
    path = tmp_path / "io.json"
    path.write_text('{"tasks": {"thread0": {"policy": "SCHED_FIFO", "run": 100, "iorun": 10,'
                    ' "timer": {"ref": "t", "period": 1000}}}}')
    result = rtsched("import-rtapp", str(path))
    assert result.returncode == 2  # an invalid input
    assert (f'{path}:1:60: tasks.thread0.iorun: rtsched needs the time this iorun may take (its size does not say '
            'it): add "wcet": {"iorun": MICROSECONDS} to the same thread or phase (rt-app ignores that key)'
            in result.stderr)


def test_import_rtapp_usage_and_missing_file(tmp_path):
    assert rtsched("import-rtapp").returncode == Exit.USAGE
    result = rtsched("import-rtapp", str(tmp_path / "none.json"))
    assert result.returncode == 1 and "cannot read" in result.stderr
