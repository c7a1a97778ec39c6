"""The C layers (src/layers.txt, docs/architecture.md "C library") and the check that keeps
them (scripts/check-layers, which scripts/test runs on every build): every directory of
src/ is in one layer, and the check fails on a call into a higher layer or a peer while it
lets calls go down."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check():
    loader = importlib.machinery.SourceFileLoader("check_layers", str(ROOT / "scripts" / "check-layers"))
    spec = importlib.util.spec_from_loader("check_layers", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


CHECK = _check()
LAYERS = CHECK.read_layers("low  # a comment\n\nmid peer\nhigh\n")


def test_every_source_directory_is_in_one_layer():
    layers = CHECK.read_layers((ROOT / "src" / "layers.txt").read_text())
    assert set(layers) == CHECK.source_dirs(ROOT / "src")


def test_layers_are_read_bottom_up_with_peers_on_one_line():
    assert LAYERS == {"low": 0, "mid": 1, "peer": 1, "high": 2}


def test_a_directory_listed_twice_is_refused():
    try:
        CHECK.read_layers("low\nhigh low\n")
    except ValueError as err:
        assert "low is listed twice" in str(err)
    else:
        raise AssertionError("accepted a directory in two layers")


def test_the_check_names_an_upward_call():
    defs = {"f_high": "high/h.c", "f_low": "low/l.c"}
    uses = {"low/l.c": {"f_high", "memcpy"}, "high/h.c": {"f_low"}}
    assert CHECK.upward_calls(LAYERS, defs, uses) == [
        "low/l.c (layer low) calls f_high of high/h.c (layer high), a higher layer"]


def test_the_check_refuses_a_call_between_peers():
    defs = {"f_peer": "peer/p.c"}
    uses = {"mid/m.c": {"f_peer"}}
    assert CHECK.upward_calls(LAYERS, defs, uses) == [
        "mid/m.c (layer mid) calls f_peer of peer/p.c (layer peer), a peer on its line"]


def test_the_check_lets_calls_go_down_and_stay_in_a_directory():
    defs = {"f_low": "low/l.c", "f_mid": "mid/m2.c"}
    uses = {"high/h.c": {"f_low"}, "mid/m.c": {"f_low", "f_mid"}}
    assert CHECK.upward_calls(LAYERS, defs, uses) == []
