"""One vocabulary for C and Python (issue 36, item 4): the protocol and policy names the runner
reads (tools/run/spec.c) and the library's enum (include/rtsched/mutex.h) are the model's, and the
Python side defines each protocol set once (rtsched.model.model)."""

from __future__ import annotations

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
    assert set(re.findall(r'strcmp\(policy, "(\w+)"\)', read)) == {"fifo", "deadline", "other"}
    assert set(model.Policy.__args__) == {"fifo", "deadline", "other"}


def test_each_protocol_set_is_defined_once():
    assert analysis_tasks.CEILING_PROTOCOLS is model.LOCAL_PROTOCOLS
    assert analysis_tasks.DISTRIBUTED_PROTOCOLS is model.DISTRIBUTED_PROTOCOLS
    assert set(analysis_tasks.KNOWN_PROTOCOLS) == set(model.PROTOCOLS) | {"np"}
    assert sim_protocols.CEILING_PROTOCOLS is model.ALL_CEILING_PROTOCOLS
    assert sim_protocols.GATE_PROTOCOLS is model.START_GATE_PROTOCOLS
