"""A TLB: ``entries`` slots in sets of ``ways``, one replacement rule, lockable entries.

A page maps to set ``page mod (entries / ways)``; ``ways = entries`` is fully
associative (the SH7750R's 64-entry UTLB). One TLB serves instruction and data
accesses (the SH7750R's unified UTLB; its 4-entry ITLB is not modelled).
Invariant: a locked entry is never evicted by a miss; only ``unlock``,
``invalidate`` and ``flush`` remove it (``replacement`` holds the rule per set).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rtsched.tlb.replacement import RULES, WaySet

__all__ = ["Tlb", "TlbGeometry", "TlbSnapshot", "SH7750R_TLB"]

TlbSnapshot = tuple[tuple[tuple[int | None, ...], tuple[bool, ...], tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class TlbGeometry:
    """What a TLB is: ``entries``, ``ways`` per set (None: fully associative), ``rule``, ``page_bytes``."""

    entries: int = 64
    ways: int | None = None
    rule: str = "urc"
    page_bytes: int = 4096
    seed: int = 0

    def __post_init__(self) -> None:
        if self.entries < 1:
            raise ValueError(f"TLB of {self.entries} entries: at least 1")
        ways = self.entries if self.ways is None else self.ways
        if ways < 1 or self.entries % ways:
            raise ValueError(f"{ways} ways do not divide {self.entries} entries")
        if self.rule not in RULES:
            raise ValueError(f"replacement rule '{self.rule}': expected one of {', '.join(RULES)}")
        if self.rule == "urc" and ways != self.entries:
            raise ValueError("the urc rule (SH-4 replace counter) needs a fully associative TLB (ways = entries)")
        if self.page_bytes < 1 or self.page_bytes & (self.page_bytes - 1):
            raise ValueError(f"page size {self.page_bytes} bytes: a power of two")

    @property
    def sets(self) -> int:
        return self.entries // (self.entries if self.ways is None else self.ways)


#: The paper's platform: 64 entries, fully associative, replace counter, 4 KiB pages.
SH7750R_TLB = TlbGeometry(entries=64, ways=None, rule="urc", page_bytes=4096)


class Tlb:
    """The state of one TLB of a given geometry; counts nothing itself (the callers do)."""

    def __init__(self, geometry: TlbGeometry) -> None:
        self.geometry = geometry
        rng = random.Random(geometry.seed)
        ways = geometry.entries // geometry.sets
        self._sets = [WaySet(ways, geometry.rule, rng) for _ in range(geometry.sets)]
        self._clock = 0

    def _set(self, page: int) -> WaySet:
        return self._sets[page % len(self._sets)]

    def access(self, page: int, count: int = 1) -> bool:
        """``count`` consecutive accesses to ``page``; True when the first hits (the rest always hit)."""
        hit = self._set(page).lookup(page, count, self._clock)
        self._clock += count
        return hit

    def holds(self, page: int) -> bool:
        return self._set(page).holds(page)

    def lock(self, page: int) -> None:
        self._set(page).lock(page, self._clock)

    def unlock(self, page: int) -> None:
        self._set(page).unlock(page)

    def invalidate(self, page: int) -> None:
        self._set(page).invalidate(page)

    def flush(self) -> None:
        """Invalidate every entry, locked ones too (one write to MMUCR on the SH7750R)."""
        for s in self._sets:
            s.clear()

    def locked_pages(self) -> set[int]:
        return {p for s in self._sets for p, lk in zip(s.slot_page, s.slot_locked) if lk and p is not None}

    def valid_pages(self) -> set[int]:
        return {p for s in self._sets for p in s.slot_page if p is not None}

    def save(self) -> TlbSnapshot:
        """Every entry (dynamic locking method 2 saves the whole TLB to memory)."""
        return tuple(s.snapshot() for s in self._sets)

    def restore(self, saved: TlbSnapshot) -> None:
        for s, state in zip(self._sets, saved, strict=True):
            s.restore(state)
