"""A full disk: a command ends with one line naming the file and the space left, and leaves no
file half-written under its final name (issue 34; rtsched.outputs). Needs root for a small tmpfs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from input_fuzz import run_cli
from rtsched.cli.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
SMALL_KIB = 200


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SMALL_KIB}k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} if folder.exists() else {}


def test_sim_on_a_full_disk_says_which_file_and_leaves_only_whole_files(small_disk, tmp_path):
    args = ["sim", "--duration", "10s", "--no-plots", str(ROOT / "examples" / "picv-rpc.yaml")]
    assert run_cli([*args[:-1], "--out", str(tmp_path / "whole"), args[-1]], 120)[0] == Exit.OK
    code, err = run_cli([*args[:-1], "--out", str(small_disk / "out"), args[-1]], 120)
    assert code == Exit.FAILED
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and "KiB free" in lines[0], err
    whole, left = _files(tmp_path / "whole"), _files(small_disk / "out")
    assert len(left) < len(whole), "the disk was not full: make the run longer"
    assert not [name for name in left if name.startswith(".")], left.keys()  # no temporary left
    for name, data in left.items():  # what is there is whole: as the same (deterministic) run wrote it
        if name != "summary.json":
            assert data == whole[name], f"{name}: {len(data)} bytes, whole {len(whole[name])}"


def test_import_rtapp_on_a_full_disk_leaves_no_empty_file(small_disk):
    filler = small_disk / "filler"
    with open(filler, "wb") as f:  # leave less than the output needs
        try:
            f.write(b"\0" * (SMALL_KIB * 1024))
        except OSError:
            pass
    source = next((ROOT / "examples" / "rtapp").glob("*.json"))
    code, err = run_cli(["import-rtapp", str(source), "-o", str(small_disk / "set.yaml")], 60)
    assert code == Exit.FAILED and "No space left on device" in err, err
    assert not (small_disk / "set.yaml").exists()
    assert [p.name for p in small_disk.iterdir()] == ["filler"]
