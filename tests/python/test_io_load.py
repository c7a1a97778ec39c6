"""I/O files: validated as task-set files are, every error with its path."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rtsched.model.io_load import io_system_from_dict
from rtsched.model.io_units import UnitError, parse_bandwidth_bytes_per_s, parse_size_bytes
from rtsched.model.validate import TaskSetError


def _doc(**flow):
    base = {"name": "f", "peripheral": "p", "size": "1MB", "transfer": "5ms", "period": "10ms", "server": "s"}
    base.update(flow)
    return {"name": "io", "memory_bandwidth": "1GB/s", "peripherals": [{"name": "p", "link_bandwidth": "250MB/s"}],
            "servers": [{"name": "s", "budget": "6ms", "period": "10ms"}], "flows": [base]}


def _errors(doc):
    with pytest.raises(TaskSetError) as e:
        io_system_from_dict(doc)
    return e.value.errors


def test_a_valid_file_loads_exactly():
    system = io_system_from_dict(_doc())
    flow = system.flows[0]
    assert (flow.size_bytes, flow.transfer_ns, flow.deadline_ns) == (1_000_000, 5_000_000, 10_000_000)
    assert system.peripherals[0].link_bytes_per_s == 250_000_000 and system.scheduled


def test_units_are_exact_and_required():
    assert parse_size_bytes("786.6KB") == 786_600 and parse_size_bytes("1KiB") == 1024
    assert parse_bandwidth_bytes_per_s("909.1MB/s") == Fraction(909_100_000)
    for bad in (1000, "1.5B", "4 Mb", "-1MB"):
        with pytest.raises(UnitError):
            parse_size_bytes(bad)


def test_errors_name_their_path():
    misspelt = _doc(sise="1MB")
    del misspelt["flows"][0]["size"]
    assert _errors(misspelt) == [
        'flows[0].sise: unknown key (did you mean "size"?); allowed: deadline, name, offset, period, peripheral, '
        "server, size, transfer",
        'flows[0]: missing required key "size"',
    ]
    assert _errors(_doc(size=1000)) == ["flows[0].size: expected a size with a unit (4MB, 512KiB, 1500B), got 1000"]
    assert _errors(_doc(server="t")) == ['flows[0].server: no server "t"']
    assert _errors(_doc(peripheral="q")) == ['flows[0].peripheral: no peripheral "q"']


def test_a_flow_faster_than_its_link_is_refused():
    errors = _errors(_doc(size="2MB"))
    assert errors == ['flows[0].transfer: 2000000 bytes in 5000000 ns need 400.000 MB/s, above the link of "p" '
                      "(250.000 MB/s)"]


def test_servers_are_all_or_nothing():
    doc = _doc()
    doc["flows"].append(dict(doc["flows"][0], name="g"))
    del doc["flows"][1]["server"]
    assert _errors(doc) == [
        "flows[1]: every flow needs a server when the file declares servers "
        "(the reservation controller schedules all real-time flows)",
    ]


def test_a_server_must_serve_a_flow():
    doc = _doc()
    doc["servers"].append({"name": "unused", "budget": "1ms", "period": "10ms"})
    assert _errors(doc) == ['servers: server "unused" serves no flow']
    doc["servers"][1]["budget"] = "11ms"
    assert _errors(doc) == ["servers[1].budget: the budget (11ms) exceeds the period (10ms)"]


def test_the_schema_lists_what_the_validator_accepts():
    import json
    from pathlib import Path

    from rtsched.model import io_load

    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" / "io.schema.json").read_text())
    defs = schema["$defs"]
    assert set(schema["properties"]) == io_load.TOP_KEYS
    assert set(defs["peripheral"]["properties"]) == io_load.PERIPHERAL_KEYS
    assert set(defs["server"]["properties"]) == io_load.SERVER_KEYS
    assert set(defs["flow"]["properties"]) == io_load.FLOW_KEYS
