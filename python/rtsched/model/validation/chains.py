"""The ``chains`` list (docs/chains.md): each chain's name (unique among chains) and its tasks,
at least two, each a task of the set, none twice. Read after the tasks, against their names."""

from __future__ import annotations

from typing import Any

from rtsched.model.chains import Chain
from rtsched.model.model import Task
from rtsched.model.validation.checker import Checker, Names
from rtsched.model.validation.fields import CHAIN, TOP
from rtsched.model.values import describe

__all__ = ["read_chains"]


def read_chains(c: Checker, value: Any, tasks: list[Task] | None) -> tuple[Chain, ...]:
    """The chains of ``value`` (the file's ``chains``); ``tasks``: the set's, None when they did not read."""
    items = TOP.fields["chains"].read(c, value, "chains")
    if items is None:
        return ()
    known = [t.name for t in tasks] if tasks is not None else None
    chains: list[Chain] = []
    names: Names = []
    for i, item in enumerate(items):
        path = f"chains[{i}]"
        data = c.mapping(item, path)
        if data is None:
            continue
        c.format_keys(data, CHAIN, path)
        name = c.read(data, CHAIN, "name", path) if "name" in data else None
        names.append((name, f"{path}.name"))
        members = _members(c, data["tasks"], f"{path}.tasks", known) if "tasks" in data else None
        if name is not None and members is not None:
            chains.append(Chain(name, members))
    c.unique(names, "chain")
    return tuple(chains)


def _members(c: Checker, value: Any, path: str, known: list[str] | None) -> tuple[str, ...] | None:
    items = c.list_of(value, path)
    if items is None:
        return None
    if len(items) < 2:
        c.error(path, f"a chain has at least two tasks, got {len(items)}")
        return None
    members: list[str] = []
    for j, item in enumerate(items):
        where = f"{path}[{j}]"
        if known is None:  # the tasks did not read: only the names' form can be checked
            name = c.name(item, where)
        else:
            name = c.reference(item, where, known, "task")
        if name is not None and name in members:
            c.error(where, f"task {describe(name)} is in the chain twice (first at {path}[{members.index(name)}])")
            return None
        if name is None:
            return None
        members.append(name)
    return tuple(members)
