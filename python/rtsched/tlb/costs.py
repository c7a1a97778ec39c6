"""What a TLB miss and a locking method cost, in integer nanoseconds (the paper's Fig. 6).

The paper measures on the SH7750R (235 MHz, HRP2 kernel, cache off):

- a TLB-miss exception handler: 16.9 µs on average (17 µs in Section V);
- dynamic locking method 1 (invalidate only the entries of the locked pages,
  lock, and release at job end): grows by 9.6 µs per locked entry, and "is
  shorter than the TLB miss exception handler" from 2 locked entries on —
  read as: locking n entries costs less than the n misses it removes;
- dynamic locking method 2 (save the whole TLB, invalidate it, lock, and
  restore it at job end): 290 µs plus 4.2 µs per locked entry (the issue's
  form; the paper says 290 µs "to lock only one entry");
- static locking: nothing per job (done once at initialisation).

Method 1's fixed part is not printed. Its break-even statement bounds it:
fixed + 9.6 ≥ 16.9 (not cheaper at 1 entry) and fixed + 2·9.6 < 2·16.9
(cheaper at 2), so 7.3 µs ≤ fixed < 14.6 µs; rtsched takes the midpoint,
11 µs. The crossover of the two dynamic methods then follows (it is not
fitted): method 2 is cheaper from (290 − 11) / (9.6 − 4.2) ≈ 51.7, i.e. from 52
locked entries, where the paper says "more than 52".
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LockingCosts", "SH7750R_COSTS", "METHOD1_FIXED_RANGE_NS"]

#: Where the paper's statements put method 1's fixed part, [low, high) in ns (module doc).
METHOD1_FIXED_RANGE_NS = (16_900 - 9_600, 2 * (16_900 - 9_600))


@dataclass(frozen=True, slots=True)
class LockingCosts:
    """The handler's and the locking methods' costs; each method costs nothing with 0 entries."""

    miss_ns: int = 16_900
    method1_fixed_ns: int = 11_000
    method1_per_entry_ns: int = 9_600
    method2_fixed_ns: int = 290_000
    method2_per_entry_ns: int = 4_200

    def __post_init__(self) -> None:
        for name in ("miss_ns", "method1_fixed_ns", "method1_per_entry_ns", "method2_fixed_ns",
                     "method2_per_entry_ns"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} = {getattr(self, name)}: a cost is not negative")

    def method1_ns(self, entries: int) -> int:
        return self.method1_fixed_ns + self.method1_per_entry_ns * entries if entries else 0

    def method2_ns(self, entries: int) -> int:
        return self.method2_fixed_ns + self.method2_per_entry_ns * entries if entries else 0

    def locking_ns(self, policy: str, entries: int) -> int:
        """The per-job cost of ``policy`` (see ``schedule.POLICIES``) locking ``entries`` entries."""
        if policy == "dynamic-1":
            return self.method1_ns(entries)
        if policy == "dynamic-2":
            return self.method2_ns(entries)
        return 0

    def crossover_entries(self, limit: int = 100_000) -> int | None:
        """The fewest locked entries from which method 2 is cheaper than method 1 (None: not below ``limit``)."""
        slope = self.method1_per_entry_ns - self.method2_per_entry_ns
        if slope <= 0:
            return None
        n = max(1, (self.method2_fixed_ns - self.method1_fixed_ns) // slope + 1)
        return n if n <= limit else None

    def method1_break_even_entries(self, limit: int = 100_000) -> int | None:
        """The fewest entries for which method 1 costs less than the misses it removes (one per entry)."""
        slope = self.miss_ns - self.method1_per_entry_ns
        if slope <= 0:
            return None
        n = max(1, self.method1_fixed_ns // slope + 1)
        return n if n <= limit else None


#: The paper's platform (module doc).
SH7750R_COSTS = LockingCosts()
