"""The task-set format is described once (issue 36, item 4): rtsched.model.validation.fields
holds every mapping's keys, required keys, value kinds, ranges and words, the validator reads
them from there, and docs/taskset.schema.json must say the same. This test walks the schema:
every object in it is a mapping the validator knows, with the same keys, required keys,
kinds, ranges and enumerations; a mapping other modules read has their key set; the sizes
and lengths the schema bounds are the readers' limits. A difference fails here, by key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from rtsched.model import demand_format, dvfs_format, prem, reservation_control, reservations, stacks, writes
from rtsched.model.validation import body
from rtsched.model.validation import fields as f
from rtsched.model.validation.checker import NAME_PATTERN

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads((ROOT / "docs" / "taskset.schema.json").read_text())
DEFS: dict[str, Any] = SCHEMA["$defs"]

#: Mappings read outside rtsched.model.validation: their place in the schema -> their reader's keys.
ELSEWHERE: dict[str, frozenset[str]] = {
    "reservation": reservations.RESERVATION_KEYS,
    "reservation.controller": reservation_control.CONTROLLER_KEYS,
    "dvfs": dvfs_format.DVFS_KEYS,
    "operatingPoint": dvfs_format.OPERATING_POINT_KEYS,
    "memwrite": writes.MEMWRITE_KEYS,
    "iowrite": writes.IOWRITE_KEYS,
    "prem": prem.PREM_KEYS,
    "peripheral": prem.PERIPHERAL_KEYS,
    "compute": demand_format.COMPUTE_KEYS,
    "compute.normal": demand_format.NORMAL_KEYS,
    "action": frozenset(f.ACTION_NAMES) | frozenset(f.FUTURE_ACTIONS),
    "sched": body.SCHED_KEYS,
}


def _at(place: str) -> dict[str, Any]:
    """The schema's object for a place: "" the top, "task" a definition (its mapping form when
    it is oneOf a name or a mapping), "task.sporadic" a mapping inside one."""
    if place == "":
        return SCHEMA
    name, _, key = place.partition(".")
    node = DEFS[name]
    if "oneOf" in node:
        node = next(n for n in node["oneOf"] if n.get("type") == "object")
    return node["properties"][key] if key else node


def _def(ref: str) -> dict[str, Any]:
    assert ref.startswith("#/$defs/"), ref
    return DEFS[ref.removeprefix("#/$defs/")]


def _agrees(value: f.Value, prop: dict[str, Any]) -> bool:
    """Whether a schema property says what the validator's description of the value says."""
    if isinstance(value, f.Duration):
        return prop.get("$ref") == ("#/$defs/positiveDuration" if value.positive else "#/$defs/duration")
    if isinstance(value, f.Integer):
        return (prop.get("type"), prop.get("minimum"), prop.get("maximum")) == ("integer", value.lo, value.hi)
    if isinstance(value, f.Flag):
        return prop.get("type") == "boolean"
    if isinstance(value, f.Name):
        name = _def(prop["$ref"])
        return (name["type"], name["pattern"], name["maxLength"]) == ("string", NAME_PATTERN.pattern, value.limit)
    if isinstance(value, f.Choice):
        return sorted(prop["enum"]) == sorted(set(value.choices) | set(value.future))
    if isinstance(value, f.Ref):
        return prop.get("$ref") == "#/$defs/name"
    if isinstance(value, f.Items):
        return (prop.get("type"), prop.get("items"), prop.get("minItems", 0)) == (
            "array", {"$ref": f"#/$defs/{value.of}"}, 1 if value.nonempty else 0)
    if isinstance(value, f.CpuList):
        return prop.get("$ref") == "#/$defs/cpuList"
    if isinstance(value, f.Refused):
        return prop.get("not") == {}
    assert isinstance(value, f.Shape)
    if "." in value.schema:  # a mapping described inline, and checked as a mapping of its own
        return _at(value.schema) is prop
    return prop.get("$ref") == f"#/$defs/{value.schema}"


@pytest.mark.parametrize("place", list(f.MAPPINGS), ids=lambda p: p or "top")
def test_each_mapping_has_the_validators_keys_kinds_and_ranges(place):
    mapping = f.MAPPINGS[place]
    node = _at(place)
    assert node["additionalProperties"] is False
    assert set(node["properties"]) == mapping.keys
    assert set(node.get("required", ())) == set(mapping.required)
    disagree = [key for key, value in mapping.fields.items() if not _agrees(value, node["properties"][key])]
    assert disagree == [], f"{place or 'top'}: the schema and rtsched.model.validation.fields differ on {disagree}"


@pytest.mark.parametrize("place", list(ELSEWHERE))
def test_each_mapping_read_elsewhere_has_its_readers_keys(place):
    node = _at(place)
    assert node["additionalProperties"] is False
    assert set(node["properties"]) == ELSEWHERE[place]
    if place == "reservation":
        assert set(node["required"]) == {"name", "period", "budget", "scheduler"}


def _objects(node: Any, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every mapping the schema describes (a node with properties), with its JSON pointer."""
    if isinstance(node, dict):
        if "properties" in node:
            yield where, node
        for key, value in node.items():
            yield from _objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{where}/{i}")


def test_every_mapping_in_the_schema_is_one_the_validator_reads():
    known = {id(_at(place)) for place in [*f.MAPPINGS, *ELSEWHERE]}
    unknown = [where for where, node in _objects(SCHEMA) if id(node) not in known]
    assert unknown == [], "add them to rtsched.model.validation.fields (or ELSEWHERE here, with their reader's keys)"


def test_the_shared_definitions_are_the_readers():
    assert DEFS["cpuList"] == {"type": "array", "minItems": 1, "uniqueItems": True,
                               "items": {"type": "integer", "minimum": 0}}
    assert DEFS["setName"]["maxLength"] == f.MAX_SET_NAME and DEFS["setName"]["pattern"] == NAME_PATTERN.pattern
    stack = DEFS["stack"]["oneOf"][0]
    assert (stack["minimum"], stack["maximum"]) == (stacks.STACK_MIN_BYTES, stacks.STACK_MAX_BYTES)
    size = DEFS["size"]["oneOf"][0]
    assert (size["minimum"], size["maximum"]) == (prem.CACHE_LINE_BYTES, prem.BUFFER_MAX_BYTES)
    assert DEFS["prem"]["properties"]["buffers"]["maxItems"] == prem.BUFFERS_MAX
    assert DEFS["iowrite"]["properties"]["device"]["maxLength"] == writes.DEVICE_MAX_BYTES


def test_the_check_sees_a_difference():
    assert not _agrees(f.Integer(1, 99), {"type": "integer", "minimum": 1})
    assert not _agrees(f.Duration(), {"$ref": "#/$defs/duration"})
    assert not _agrees(f.Choice(("a", "b"), {"c": "no"}), {"enum": ["a", "b"]})
    assert not _agrees(f.Items("task", nonempty=True), {"type": "array", "items": {"$ref": "#/$defs/task"}})
