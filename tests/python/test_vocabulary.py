"""One vocabulary for C and Python (issue 36, item 4): the protocol and policy names the runner
reads (tools/run/spec.c) and the library's enum (include/rtsched/mutex.h) are the model's, and the
Python side defines each protocol set once (rtsched.model.model)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from rtsched.analysis import tasks as analysis_tasks
from rtsched.model import model
from rtsched.sim import protocols as sim_protocols

ROOT = Path(__file__).resolve().parents[2]


def _runner_table(name: str) -> dict[str, str]:
    """The {"name", RTS_...} pairs of a table in tools/run/spec.c."""
    spec = (ROOT / "tools" / "run" / "spec.c").read_text()
    body = spec[spec.index(f"}} {name}[] = {{"):]
    body = body[:body.index("};")]
    return dict(re.findall(r'\{\s*"([^"]+)",\s*(RTS_\w+)\s*\}', body))


def test_the_runner_reads_every_runtime_protocol_of_the_model_and_no_other():
    table = _runner_table("protocols")
    assert set(table) == set(model.RUNTIME_PROTOCOLS)


def test_every_protocol_the_runner_maps_to_is_in_the_librarys_enum():
    header = (ROOT / "include" / "rtsched" / "mutex.h").read_text()
    enum = header[header.index("enum rts_protocol {"):]
    enum = set(re.findall(r"(RTS_PROTO_\w+)\s*=", enum[:enum.index("};")]))
    assert set(_runner_table("protocols").values()) == enum


def test_the_runner_reads_the_models_policies():
    spec = (ROOT / "tools" / "run" / "spec.c").read_text()
    read = spec[spec.index("static bool read_policy"):]
    read = read[:read.index("\n}\n")]
    assert set(re.findall(r'strcmp\(policy, "(\w+)"\)', read)) == set(model.Policy.__args__)
    assert set(model.Policy.__args__) == {"fifo", "deadline", "other", "batch", "idle"}


def test_each_protocol_set_is_defined_once():
    """One name means one set: no module defines its own CEILING_PROTOCOLS alias of the model's, and a
    protocol set's name that the model defines is the model's set in every module of the package."""
    for module in (analysis_tasks, sim_protocols):
        assert not hasattr(module, "CEILING_PROTOCOLS"), module.__name__
        assert not hasattr(module, "GATE_PROTOCOLS"), module.__name__
    assert set(analysis_tasks.KNOWN_PROTOCOLS) == set(model.PROTOCOLS) | {"np"}
    import rtsched

    for info in pkgutil.walk_packages(rtsched.__path__, "rtsched."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.endswith("_PROTOCOLS") and hasattr(model, name):
                assert value is getattr(model, name), f"{info.name}.{name} is not rtsched.model.model.{name}"
