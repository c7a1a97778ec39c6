"""The validator's reporting and its generic readers: mappings and their keys, lists, names,
durations, integers, CPU lists, enumerations, references. Each reader reports what is wrong
with its path and returns None; the steps of the format (platform, resources, tasks...) are
built on them, and so are the readers other modules lend them to (``reservations.Checks``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rtsched.model.durations import DurationError, parse_duration
from rtsched.model.model import CondVar, Platform, Reservation, Resource, RpcServer
from rtsched.model.validation.fields import MAX_NAME, Mapping
from rtsched.model.values import MAX_SHOWN, describe

__all__ = ["Checker", "Declared", "TaskSetError", "suggest", "NAME_PATTERN", "Names"]

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

#: The names a list declares, each with the path it was declared at (None: an invalid name).
Names = list[tuple[str | None, str]]

T = TypeVar("T")


@dataclass(frozen=True)
class Declared:
    """What the set declares before its tasks, by name: what a task's references are read against."""

    resources: dict[str, Resource]
    condvars: dict[str, CondVar]
    servers: dict[str, RpcServer]
    reservations: dict[str, Reservation]


class TaskSetError(Exception):
    """An invalid task set (or file): ``errors`` lists every problem found, each with its path."""

    def __init__(self, errors: list[str], source: str | None = None):
        self.errors = list(errors)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(prefix + e for e in self.errors)


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` when a choice is close to ``word``, else ``""``."""
    if not isinstance(word, str) or len(word) > MAX_SHOWN:  # difflib is quadratic in the length
        return ""
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return f' (did you mean "{lowered[word.lower()]}"?)'
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


class Checker:
    """One validation's errors, in the order found, and the readers that report them."""

    def __init__(self, base_dir: Path | None = None) -> None:
        """``base_dir``: where relative paths in the set (demand traces) start; None: the current directory."""
        self.errors: list[str] = []
        self.base_dir = base_dir
        # Names declared but invalid (already reported): references to them are not errors again.
        self.invalid_names: set[str] = set()

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path or '(top level)'}: {message}")

    def reported(self, parsed: tuple[T, list[tuple[str, str]]]) -> T:
        """The value of a reader that returns (value, [(path, message)...]), its problems reported."""
        value, problems = parsed
        for where, message in problems:
            self.error(where, message)
        return value

    def mapping(self, value: Any, path: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.error(path, f"expected a mapping, got {describe(value)}")
            return None
        return value

    def keys(
        self, data: dict[str, Any], allowed: Collection[str], path: str, required: tuple[str, ...] = ()
    ) -> None:
        for key in data:
            if key not in allowed:
                where = f"{path}.{key}" if path else str(key)
                self.error(where, "unknown key" + suggest(str(key), sorted(allowed)))
        for key in required:
            if key not in data:
                self.error(path, f'missing required key "{key}"')

    def format_keys(self, data: dict[str, Any], mapping: Mapping, path: str) -> None:
        """``data``'s keys against a mapping of the format (fields.py): unknown and missing ones."""
        self.keys(data, mapping.keys, path, required=mapping.required)

    def read(self, data: dict[str, Any], mapping: Mapping, key: str, path: str) -> Any:
        """``data[key]`` read as the format says (``path``: the mapping's); ``data`` must hold ``key``."""
        return mapping.fields[key].read(self, data[key], f"{path}.{key}" if path else key)

    def list_of(self, value: Any, path: str, *, nonempty: bool = False) -> list[Any] | None:
        if not isinstance(value, list):
            self.error(path, f"expected a list, got {describe(value)}")
            return None
        if nonempty and not value:
            self.error(path, "must not be empty")
        return value

    def name(self, value: Any, path: str, *, limit: int = MAX_NAME) -> str | None:
        if not isinstance(value, str):
            self.error(path, f"expected a name (a string), got {describe(value)}")
            return None
        if not NAME_PATTERN.match(value):
            self.error(
                path,
                f"{describe(value)} is not a valid name (letters, digits, _ . -; "
                "starting with a letter or _)",
            )
            return None
        if len(value) > limit:
            self.error(path, f"{describe(value)} is longer than {limit} characters")
            return None
        return value

    def duration(self, value: Any, path: str, *, positive: bool = True) -> int | None:
        try:
            ns = parse_duration(value)
        except DurationError as e:
            self.error(path, str(e))
            return None
        if positive and ns <= 0:
            self.error(path, f"must be > 0, got {describe(value)}")
            return None
        return ns

    def integer(self, value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(path, f"expected an integer, got {describe(value)}")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            if hi is None:
                self.error(path, f"must be >= {lo}, got {describe(value)}")
            else:
                self.error(path, f"must be in {lo}..{hi}, got {describe(value)}")
            return None
        return value

    def cpu_list(self, value: Any, path: str) -> tuple[int, ...] | None:
        items = self.list_of(value, path, nonempty=True)
        if items is None or not items:
            return None
        cpus: list[int] = []
        ok = True
        for i, item in enumerate(items):
            cpu = self.integer(item, f"{path}[{i}]", 0)
            if cpu is None:
                ok = False
            elif cpu in cpus:
                self.error(f"{path}[{i}]", f"CPU {cpu} is listed twice")
                ok = False
            else:
                cpus.append(cpu)
        return tuple(cpus) if ok else None

    def enum(
        self, value: Any, path: str, choices: Collection[str], future: dict[str, str] | None = None
    ) -> str | None:
        future = future or {}
        if isinstance(value, str) and value in choices:
            return value
        if isinstance(value, str) and value in future:
            self.error(path, f"{describe(value)}: {future[value]}")
            return None
        allowed = ", ".join(choices)
        self.error(
            path,
            f"expected one of {allowed}, got {describe(value)}"
            + suggest(value, list(choices) + list(future)),
        )
        return None

    def unique(self, names: Names, what: str) -> None:
        seen: dict[str, str] = {}
        for name, path in names:
            if name is None:
                continue
            if name in seen:
                self.error(path, f'duplicate {what} name "{name}" (first at {seen[name]})')
            else:
                seen[name] = path

    def reference(self, value: Any, path: str, known: Collection[str], what: str) -> str | None:
        if not isinstance(value, str):
            self.error(path, f"expected the name of a {what}, got {describe(value)}")
            return None
        if value not in known and value in self.invalid_names:
            return None
        if value not in known:
            listed = ", ".join(f'"{k}"' for k in known) or "none are declared"
            self.error(
                path,
                f"unknown {what} {describe(value)}" + suggest(value, list(known)) + f" (known: {listed})",
            )
            return None
        return value

    def partition_ref(self, value: Any, path: str, platform: Platform) -> str | None:
        """A partition's name: one of platform.partitions, else ``cpuN`` (one partition per CPU)."""
        if platform.partitions is not None:
            return self.reference(value, path, {p.name: p for p in platform.partitions}, "partition")
        if not isinstance(value, str):
            self.error(path, f"expected the name of a partition, got {describe(value)}")
            return None
        if not re.fullmatch(r"cpu(0|[1-9][0-9]*)", value):
            self.error(
                path,
                f"unknown partition {describe(value)} (platform.partitions is not given, so there is one "
                "partition per CPU, named cpu0, cpu1, ...)",
            )
            return None
        return value
