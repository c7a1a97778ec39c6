"""Cause-effect chains (docs/chains.md): named, ordered lists of tasks through which data flows.

Each link between two consecutive tasks of a chain is one of two kinds, read from the set:
``event`` when the next task is an event task that the previous one activates (``activate:
NEXT`` in its body: the activation carries the data, and the job it releases processes it),
``register`` otherwise (implicit communication: a job reads its inputs when it starts and
writes its output when it completes; a reader takes the last value written).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rtsched.model.model import Task

__all__ = ["Chain", "LINK_KINDS", "Link", "activates", "chain_links"]

Link = Literal["register", "event"]
LINK_KINDS: tuple[str, ...] = ("register", "event")


@dataclass(frozen=True, slots=True)
class Chain:
    """A chain's name and its tasks' names, from the cause (the first) to the effect (the last)."""

    name: str
    tasks: tuple[str, ...]


def activates(task: Task, target: str) -> bool:
    """Whether ``task``'s body activates the event task ``target``."""
    return any(getattr(a, "op", "") == "activate" and getattr(a, "task", None) == target for a in task.body)


def chain_links(chain: Chain, tasks: Sequence[Task]) -> tuple[Link, ...]:
    """The kind of each of ``chain``'s links (one fewer than its tasks), ``tasks`` the set's."""
    by_name = {t.name: t for t in tasks}
    links: list[Link] = []
    for before, after in zip(chain.tasks, chain.tasks[1:]):
        event = by_name[after].kind == "event" and activates(by_name[before], after)
        links.append("event" if event else "register")
    return tuple(links)
