"""Read and validate an I/O file (docs/io.md) into an ``IoSystem``.

The same reader as task-set files (YAML or JSON, duplicate keys refused,
syntax errors with line and column) and the same error style: every problem
is listed with its path (``flows[1].size: ...``), unknown keys are errors
with a suggestion, and nothing is read further from a part that is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from rtsched.model.durations import DurationError, parse_duration
from rtsched.model.io_system import Flow, IoServer, IoSystem, Peripheral
from rtsched.model.io_units import UnitError, parse_bandwidth_bytes_per_s, parse_size_bytes
from rtsched.model.load import read_document
from rtsched.model.validate import MAX_NAME, NAME_PATTERN, TaskSetError, suggest
from rtsched.model.values import describe

__all__ = ["load_io_system", "io_system_from_dict", "TOP_KEYS", "PERIPHERAL_KEYS", "FLOW_KEYS", "SERVER_KEYS"]

TOP_KEYS = frozenset({"name", "memory_bandwidth", "horizon", "peripherals", "servers", "flows"})
PERIPHERAL_KEYS = frozenset({"name", "link_bandwidth"})
SERVER_KEYS = frozenset({"name", "budget", "period"})
FLOW_KEYS = frozenset({"name", "peripheral", "size", "transfer", "period", "deadline", "offset", "server"})

T = TypeVar("T")


class _Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path or '(top level)'}: {message}")

    def mapping(self, value: object, path: str, allowed: frozenset[str], required: tuple[str, ...]) -> bool:
        if not isinstance(value, dict):
            self.error(path, f"expected a mapping, got {describe(value)}")
            return False
        ok = True
        for key in value:
            if key not in allowed:
                self.error(f"{path}.{key}" if path else str(key),
                           f"unknown key{suggest(str(key), allowed)}; allowed: {', '.join(sorted(allowed))}")
                ok = False
        for key in required:
            if key not in value:
                self.error(path, f'missing required key "{key}"')
                ok = False
        return ok

    def name(self, value: object, path: str) -> str | None:
        if not isinstance(value, str) or not NAME_PATTERN.match(value) or len(value) > MAX_NAME:
            self.error(path, f"expected a name (letters, digits, _ . -; at most {MAX_NAME} characters), "
                             f"got {describe(value)}")
            return None
        return value

    def parsed(self, parse: Callable[[object], T], value: object, path: str) -> T | None:
        try:
            return parse(value)
        except (DurationError, UnitError) as e:
            self.error(path, str(e))
            return None

    def positive_ns(self, value: object, path: str) -> int | None:
        ns = self.parsed(parse_duration, value, path)
        if ns == 0:
            self.error(path, "expected a positive duration, got 0")
            return None
        return ns

    def items(self, doc: dict[str, Any], key: str, required: bool) -> list[tuple[str, Any]]:
        value = doc.get(key, [] if not required else None)
        if not isinstance(value, list) or (required and not value):
            self.error(key, f"expected a non-empty list, got {describe(value)}")
            return []
        return [(f"{key}[{i}]", item) for i, item in enumerate(value)]

    def unique(self, names: list[tuple[str, str]], kind: str) -> None:
        seen: set[str] = set()
        for path, n in names:
            if n in seen:
                self.error(f"{path}.name", f'duplicate {kind} name "{n}"')
            seen.add(n)


def _peripherals(c: _Checker, doc: dict[str, Any]) -> list[tuple[str, Peripheral]]:
    result = []
    for path, item in c.items(doc, "peripherals", required=True):
        if not c.mapping(item, path, PERIPHERAL_KEYS, ("name",)):
            continue
        name = c.name(item["name"], f"{path}.name")
        link = None
        if "link_bandwidth" in item:
            link = c.parsed(parse_bandwidth_bytes_per_s, item["link_bandwidth"], f"{path}.link_bandwidth")
            if link is None:
                continue
        if name is not None:
            result.append((path, Peripheral(name, link)))
    return result


def _servers(c: _Checker, doc: dict[str, Any]) -> list[tuple[str, IoServer]]:
    result = []
    for path, item in c.items(doc, "servers", required=False):
        if not c.mapping(item, path, SERVER_KEYS, ("name", "budget", "period")):
            continue
        name = c.name(item["name"], f"{path}.name")
        budget = c.positive_ns(item["budget"], f"{path}.budget")
        period = c.positive_ns(item["period"], f"{path}.period")
        if budget is not None and period is not None and budget > period:
            c.error(f"{path}.budget", f"the budget ({item['budget']}) exceeds the period ({item['period']})")
        elif name is not None and budget is not None and period is not None:
            result.append((path, IoServer(name, budget, period)))
    return result


def _flow(c: _Checker, path: str, item: dict[str, Any]) -> Flow | None:
    name = c.name(item["name"], f"{path}.name")
    size = c.parsed(parse_size_bytes, item["size"], f"{path}.size")
    transfer = c.positive_ns(item["transfer"], f"{path}.transfer")
    period = c.positive_ns(item["period"], f"{path}.period")
    deadline = c.positive_ns(item["deadline"], f"{path}.deadline") if "deadline" in item else period
    offset = c.parsed(parse_duration, item["offset"], f"{path}.offset") if "offset" in item else 0
    server = item.get("server")
    if server is not None and not isinstance(server, str):
        c.error(f"{path}.server", f"expected a server name, got {describe(server)}")
        return None
    if not isinstance(item["peripheral"], str):
        c.error(f"{path}.peripheral", f"expected a peripheral name, got {describe(item['peripheral'])}")
        return None
    if None in (name, size, transfer, period, deadline, offset):
        return None
    assert name is not None and size is not None and transfer is not None and period is not None
    assert deadline is not None and offset is not None
    return Flow(name, item["peripheral"], size, transfer, period, deadline, offset, server)


def _check_references(c: _Checker, flows: list[tuple[str, Flow]], peripherals: dict[str, Peripheral],
                      servers: dict[str, IoServer], memory: Fraction | None) -> None:
    for path, f in flows:
        peak_per_s = f.peak_bytes_per_ns * 1_000_000_000
        if f.peripheral not in peripherals:
            c.error(f"{path}.peripheral", f'no peripheral "{f.peripheral}"{suggest(f.peripheral, peripherals)}')
        else:
            link = peripherals[f.peripheral].link_bytes_per_s
            if link is not None and peak_per_s > link:
                c.error(f"{path}.transfer", f"{f.size_bytes} bytes in {f.transfer_ns} ns need "
                        f"{float(peak_per_s) / 1e6:.3f} MB/s, above the link of \"{f.peripheral}\" "
                        f"({float(link) / 1e6:.3f} MB/s)")
        if memory is not None and peak_per_s > memory:
            c.error(f"{path}.transfer", f"{f.size_bytes} bytes in {f.transfer_ns} ns need "
                    f"{float(peak_per_s) / 1e6:.3f} MB/s, above the memory bandwidth ({float(memory) / 1e6:.3f} MB/s)")
        if f.server is not None and f.server not in servers:
            c.error(f"{path}.server", f'no server "{f.server}"{suggest(f.server, servers)}')
    named = [path for path, f in flows if f.server is not None]
    if servers and len(named) != len(flows):
        for path, f in flows:
            if f.server is None:
                c.error(path, "every flow needs a server when the file declares servers "
                              "(the reservation controller schedules all real-time flows)")
    # An unused server is only reported on an otherwise valid file (a misspelt
    # reference or an invalid flow would leave its server looking unused).
    unused = set(servers) - {f.server for _, f in flows} if not c.errors else set()
    for n in sorted(unused):
        c.error("servers", f'server "{n}" serves no flow')


def io_system_from_dict(doc: object, source: str | None = None) -> IoSystem:
    """Validate plain data (a parsed I/O file); raises TaskSetError listing every problem with its path."""
    c = _Checker()
    if not c.mapping(doc, "", TOP_KEYS, ("name", "memory_bandwidth", "peripherals", "flows")):
        raise TaskSetError(c.errors, source)
    assert isinstance(doc, dict)
    name = c.name(doc["name"], "name")
    memory = c.parsed(parse_bandwidth_bytes_per_s, doc["memory_bandwidth"], "memory_bandwidth")
    horizon = c.positive_ns(doc["horizon"], "horizon") if "horizon" in doc else None
    peripherals = _peripherals(c, doc)
    servers = _servers(c, doc)
    flows: list[tuple[str, Flow]] = []
    for path, item in c.items(doc, "flows", required=True):
        if c.mapping(item, path, FLOW_KEYS, ("name", "peripheral", "size", "transfer", "period")):
            flow = _flow(c, path, item)
            if flow is not None:
                flows.append((path, flow))
    c.unique([(p, x.name) for p, x in peripherals], "peripheral")
    c.unique([(p, x.name) for p, x in servers], "server")
    c.unique([(p, x.name) for p, x in flows], "flow")
    _check_references(c, flows, {p.name: p for _, p in peripherals}, {s.name: s for _, s in servers}, memory)
    if c.errors:
        raise TaskSetError(c.errors, source)
    assert name is not None and memory is not None
    by_priority = sorted((s for _, s in servers), key=lambda s: s.period_ns)  # stable: file order on ties
    return IoSystem(name, memory, tuple(p for _, p in peripherals), tuple(f for _, f in flows),
                    tuple(by_priority), horizon)


def load_io_system(path: str | Path) -> IoSystem:
    """Read and validate an I/O file (YAML or JSON)."""
    return io_system_from_dict(read_document(path), str(path))
