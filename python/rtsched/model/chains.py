"""Cause-effect chains (docs/chains.md): named, ordered lists of tasks through which data flows.

Each link between two consecutive tasks of a chain is one of two kinds, read from the set:
``event`` when the next task is an event task that the previous one activates (``activate:
NEXT`` in its body: the activation carries the data, and the job it releases processes it),
``register`` otherwise (implicit communication: a job reads its inputs when it starts and
writes its output when it completes; a reader takes the last value written).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Chain", "LINK_KINDS", "Link"]

Link = Literal["register", "event"]
LINK_KINDS: tuple[str, ...] = ("register", "event")


@dataclass(frozen=True, slots=True)
class Chain:
    """A chain's name and its tasks' names, from the cause (the first) to the effect (the last).
    Its links' kinds: ``TaskSet.chain_links``."""

    name: str
    tasks: tuple[str, ...]
