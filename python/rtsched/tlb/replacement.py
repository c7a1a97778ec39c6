"""Replacement rules of one TLB set: which way a miss fills.

A set is ``ways`` slots; each slot is empty or holds one page, and a slot may
be locked. Invariant (all rules): a locked slot is never chosen as a victim,
and a page is in at most one slot of its set.

Rules:

- ``urc`` — the SH7750R's (SH-4) UTLB replace counter, the paper's platform:
  a counter incremented on every TLB access; a miss's handler loads the new
  entry (LDTLB) into the slot the counter points at, whatever that slot holds
  (an empty slot elsewhere is not preferred). Locked entries are the slots at
  and above the replace boundary (MMUCR.URB), where the counter never points:
  here the counter counts modulo the number of unlocked slots and points at
  the counter-th unlocked slot in slot order, which is the hardware's rule
  when the locked slots are the top ones. The counter value used by a miss is
  the one before that access's own increment.
- ``lru`` — least recently used: an empty slot first, else the unlocked slot
  used longest ago.
- ``fifo`` — first in, first out: an empty slot first, else the unlocked slot
  filled longest ago (hits do not refresh it).
- ``random`` — an empty slot first, else an unlocked slot drawn uniformly by a
  seeded generator (the same seed gives the same victims).
"""

from __future__ import annotations

import random

__all__ = ["RULES", "WaySet"]

RULES = ("urc", "lru", "fifo", "random")


class WaySet:
    """One set of ``ways`` slots under one replacement rule (see the module doc)."""

    def __init__(self, ways: int, rule: str, rng: random.Random) -> None:
        if rule not in RULES:
            raise ValueError(f"replacement rule '{rule}': expected one of {', '.join(RULES)}")
        if ways < 1:
            raise ValueError(f"{ways} ways: a set needs at least one")
        self.ways = ways
        self.rule = rule
        self._rng = rng
        self.slot_page: list[int | None] = [None] * ways
        self.slot_locked: list[bool] = [False] * ways
        self._stamp: list[int] = [0] * ways   # lru: last use; fifo: fill time
        self._slot_of: dict[int, int] = {}
        self.counter = 0                       # urc only: accesses seen, modulo the unlocked slots

    def lookup(self, page: int, count: int, clock: int) -> bool:
        """``count`` consecutive accesses to ``page`` at time ``clock``; True when the first hits.

        On a miss the page is filled (unless every slot is locked); the other
        ``count − 1`` accesses then hit.
        """
        slot = self._slot_of.get(page)
        if slot is not None:
            if self.rule == "lru":
                self._stamp[slot] = clock + count - 1
            self.counter += count
            return True
        victim = self._victim()
        self.counter += count
        if victim is not None:
            self._fill(victim, page, clock + count - 1 if self.rule == "lru" else clock)
        return False

    def _unlocked(self) -> list[int]:
        return [s for s in range(self.ways) if not self.slot_locked[s]]

    def _victim(self) -> int | None:
        free = self._unlocked()
        if not free:
            return None
        if self.rule == "urc":
            return free[self.counter % len(free)]
        empty = [s for s in free if self.slot_page[s] is None]
        if empty:
            return empty[0]
        if self.rule == "random":
            return self._rng.choice(free)
        return min(free, key=lambda s: self._stamp[s])

    def _fill(self, slot: int, page: int, stamp: int) -> None:
        old = self.slot_page[slot]
        if old is not None:
            del self._slot_of[old]
        self.slot_page[slot] = page
        self._slot_of[page] = slot
        self._stamp[slot] = stamp

    def holds(self, page: int) -> bool:
        return page in self._slot_of

    def lock(self, page: int, clock: int) -> None:
        """Make ``page`` present and locked (loaded from a prepared table, no miss counted).

        A page already present is locked in place; else it takes an empty
        unlocked slot, else the rule's victim. ValueError when every slot is
        already locked.
        """
        slot = self._slot_of.get(page)
        if slot is None:
            free = self._unlocked()
            if not free:
                raise ValueError(f"page {page:#x}: every one of the {self.ways} ways of its set is locked")
            empty = [s for s in free if self.slot_page[s] is None]
            slot = empty[0] if empty else self._victim()
            assert slot is not None
            self._fill(slot, page, clock)
        self.slot_locked[slot] = True

    def unlock(self, page: int) -> None:
        """Release ``page``'s lock; the entry stays valid as a normal entry."""
        slot = self._slot_of.get(page)
        if slot is not None:
            self.slot_locked[slot] = False

    def invalidate(self, page: int) -> None:
        slot = self._slot_of.pop(page, None)
        if slot is not None:
            self.slot_page[slot] = None
            self.slot_locked[slot] = False

    def clear(self) -> None:
        """Invalidate every slot, locked ones included."""
        self.slot_page = [None] * self.ways
        self.slot_locked = [False] * self.ways
        self._slot_of.clear()

    def snapshot(self) -> tuple[tuple[int | None, ...], tuple[bool, ...], tuple[int, ...]]:
        return tuple(self.slot_page), tuple(self.slot_locked), tuple(self._stamp)

    def restore(self, saved: tuple[tuple[int | None, ...], tuple[bool, ...], tuple[int, ...]]) -> None:
        pages, locked, stamps = saved
        self.slot_page = list(pages)
        self.slot_locked = list(locked)
        self._stamp = list(stamps)
        self._slot_of = {p: s for s, p in enumerate(pages) if p is not None}
