"""Careless and hostile input: every command ends with an exit code and lines that say what
and where, never a traceback, never a stall (issue 29).

CI runs a fixed seeded corpus; a soak runs more:

    RTSCHED_FUZZ_INPUTS=2000 python3 -m pytest -q tests/python/test_input_fuzz.py
"""

from __future__ import annotations

import json
import os
import random

import pytest
import yaml

from input_fuzz import EXAMPLES, corpus, found_classes, reordered, run_cli
from rtsched.cli.exit_codes import Exit
from rtsched.model import load_taskset

#: A command on one input may take at most this long (the issue's limit; they take milliseconds).
LIMIT_S = 10
CI_INPUTS = int(os.environ.get("RTSCHED_FUZZ_INPUTS", "160"))
#: Every how many inputs one is also simulated (a native run: slower than validating).
SIM_EVERY = 8


def _check_one(tmp_path, name: str, text: str, suffix: str, simulate: bool) -> int:
    path = tmp_path / f"input{suffix}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code, err = run_cli(["validate", str(path)], LIMIT_S)
    assert code in (Exit.OK, Exit.INVALID_INPUT), f"{name}: validate exited {code}: {err[-500:]}"
    if code == Exit.INVALID_INPUT:
        lines = err.splitlines()
        # errors as "PATH: ...", the warnings before them (rt-app files) as "PATH:LINE:COLUMN: warning: ..."
        assert lines and all(line.startswith(f"{path}:") for line in lines), f"{name}: {err[-500:]}"
        assert all(len(line) < 2_000 for line in lines), f"{name}: an error line of {max(map(len, lines))} chars"
    analyzed, err = run_cli(["analyze", str(path)], LIMIT_S)
    assert analyzed in (Exit.OK, Exit.FAILED, Exit.INVALID_INPUT), f"{name}: analyze exited {analyzed}: {err[-500:]}"
    if code == Exit.INVALID_INPUT:
        assert analyzed == Exit.INVALID_INPUT, f"{name}: invalid for validate, {analyzed} for analyze"
    if simulate:
        simulated, err = run_cli(["sim", "--duration", "1s", "--no-plots", "--out", str(tmp_path / "sim"),
                                  str(path)], LIMIT_S)
        assert simulated in (Exit.OK, Exit.FAILED, Exit.INVALID_INPUT), \
            f"{name}: sim exited {simulated}: {err[-500:]}"
    return code


@pytest.mark.parametrize("name,text,suffix", found_classes(), ids=[c[0] for c in found_classes()])
def test_the_inputs_an_outside_check_broke_us_with_are_refused_in_one_line(tmp_path, name, text, suffix):
    code = _check_one(tmp_path, name, text, suffix, simulate=True)
    assert code == Exit.INVALID_INPUT or name == "cpu99"  # cpu99 is only wrong on a machine without it


def test_a_seeded_corpus_of_mutated_examples_gives_no_traceback_and_no_stall(tmp_path):
    codes: dict[int, int] = {}
    for i, (name, text, suffix) in enumerate(corpus(seed=29, count=CI_INPUTS)):
        code = _check_one(tmp_path, name, text, suffix, simulate=i % SIM_EVERY == 0)
        codes[code] = codes.get(code, 0) + 1
    # the mutator must reach both sides, or it proves little
    assert codes.get(Exit.OK, 0) >= CI_INPUTS // 40 and codes.get(Exit.INVALID_INPUT, 0) >= CI_INPUTS // 2, codes


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_a_valid_file_stays_valid_and_equal_under_key_order_and_layout(tmp_path, example):
    original = load_taskset(example)
    data = yaml.safe_load(example.read_text())
    rng = random.Random(example.name)
    shuffled = reordered(data, rng)
    for text, suffix in [(json.dumps(shuffled, indent=7), ".json"),
                         (yaml.safe_dump(shuffled, sort_keys=False, indent=5, default_flow_style=False), ".yaml"),
                         (yaml.safe_dump(shuffled, sort_keys=False, default_flow_style=True), ".yaml")]:
        path = tmp_path / f"{example.stem}{suffix}"
        path.write_text(text)
        code, err = run_cli(["validate", str(path)], LIMIT_S)
        assert code == Exit.OK, err
        assert load_taskset(path) == original
