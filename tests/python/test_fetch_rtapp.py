"""scripts/fetch-rtapp clones (then updates) rt-app into a folder outside the repository, never inside it."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fetch-rtapp"


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def _fetch(source: Path, into: Path):
    return subprocess.run([str(SCRIPT), str(into)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "RTAPP_URL": f"file://{source}"})


def test_clones_then_updates_outside_the_repository(tmp_path):
    upstream = tmp_path / "upstream"
    (upstream / "doc" / "examples").mkdir(parents=True)
    (upstream / "doc" / "examples" / "a.json").write_text('{"tasks": {}}\n')
    _git("init", "-q", cwd=upstream)
    _git("add", ".", cwd=upstream)
    _git("commit", "-qm", "one", cwd=upstream)
    into = tmp_path / "cache" / "rt-app"
    first = _fetch(upstream, into)
    assert first.returncode == 0, first.stderr
    assert (into / "doc" / "examples" / "a.json").exists()
    (upstream / "doc" / "examples" / "b.json").write_text('{"tasks": {}}\n')
    _git("add", ".", cwd=upstream)
    _git("commit", "-qm", "two", cwd=upstream)
    second = _fetch(upstream, into)
    assert second.returncode == 0, second.stderr
    assert (into / "doc" / "examples" / "b.json").exists()  # updated to the new head
    assert first.stdout.split()[0] == second.stdout.split()[0] == str(into)
    assert first.stdout.split()[1] != second.stdout.split()[1]  # the commit it printed


def test_refuses_a_folder_inside_the_repository(tmp_path):
    result = _fetch(tmp_path, ROOT / "rt-app")
    assert result.returncode == 2
    assert "is inside the repository; give a folder outside it" in result.stderr
    assert not (ROOT / "rt-app").exists()
