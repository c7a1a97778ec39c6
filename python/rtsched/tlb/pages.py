"""Page traces: what a program touched, as runs of consecutive accesses to one page.

A trace of N accesses is kept as runs ``(page, count)``: ``count`` accesses in a
row to ``page``. Every rule of ``replacement`` treats a run exactly as
``count`` single accesses (the first may miss, the rest hit; the replace
counter advances by ``count``), so the runs lose nothing the model needs.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

__all__ = ["PageTrace", "PageTraceBuilder"]


@dataclass(frozen=True, slots=True)
class PageTrace:
    """Runs of accesses; ``source`` says where the trace came from (a file, a command)."""

    pages: array[int]
    counts: array[int]
    source: str = ""
    accesses: int = field(init=False)

    def __post_init__(self) -> None:
        if len(self.pages) != len(self.counts):
            raise ValueError("a page trace needs one count per run")
        if any(c < 1 for c in self.counts):
            raise ValueError("a run has at least one access")
        object.__setattr__(self, "accesses", sum(self.counts))

    @classmethod
    def of(cls, runs: list[tuple[int, int]], source: str = "") -> "PageTrace":
        """A trace from ``(page, count)`` runs (adjacent runs on one page are merged)."""
        builder = PageTraceBuilder(source)
        for page, count in runs:
            builder.add(page, count)
        return builder.build()

    def runs(self) -> Iterator[tuple[int, int]]:
        return zip(self.pages, self.counts)

    def accesses_per_page(self) -> Counter[int]:
        per: Counter[int] = Counter()
        for page, count in self.runs():
            per[page] += count
        return per

    def distinct_pages(self) -> int:
        return len(set(self.pages))


class PageTraceBuilder:
    """Appends accesses, merging a repeat of the last page into its run."""

    def __init__(self, source: str = "") -> None:
        self.source = source
        self._pages: array[int] = array("q")
        self._counts: array[int] = array("q")
        self.accesses = 0

    def add(self, page: int, count: int = 1) -> None:
        if self._pages and self._pages[-1] == page:
            self._counts[-1] += count
        else:
            self._pages.append(page)
            self._counts.append(count)
        self.accesses += count

    def build(self) -> PageTrace:
        return PageTrace(self._pages, self._counts, self.source)
