"""How concurrent transfers share the bus when nothing schedules them (a COTS
interconnect): max-min fair sharing, exactly.

Each active flow is capped by its own peak rate (its DMA engine: size /
transfer time); the flows of one peripheral share its link; all flows share
the memory. The arbiter serves them round-robin, transaction by transaction,
which in the fluid limit is *max-min fairness*: every flow gets the same rate
unless it is held lower by its own cap or by a saturated link, and no flow can
gain without taking from one that has no more. It is computed by progressive
filling: raise every unfrozen rate together until a cap or a link saturates,
freeze what it holds, repeat. With Fractions the result is exact.

Example (the thesis's Table 3.1): memory 909.1 MB/s, the ML555 alone at its
peak (909.09 MB/s, 4.4 ms for 4.0 MB) and three ML505 at 146.7 MB/s each:
together the ML505s keep their 146.7 MB/s (below an equal share, 227 MB/s)
and the ML555 gets what is left, 469 MB/s, about half its peak.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

__all__ = ["fair_rates"]


def fair_rates(caps: Mapping[str, Fraction], links: Sequence[tuple[Fraction, Sequence[str]]]) -> dict[str, Fraction]:
    """Max-min fair rates of the active flows.

    ``caps``: flow -> its own peak rate. ``links``: (capacity, flows crossing
    it) for every shared link (the memory, each peripheral's link). Returns
    flow -> rate; the rates respect every cap and every link capacity.
    """
    rate = {f: Fraction(0) for f in caps}
    unfrozen = set(caps)
    while unfrozen:
        step = min(caps[f] - rate[f] for f in unfrozen)
        for capacity, members in links:
            free = [f for f in members if f in unfrozen]
            if free:
                step = min(step, (capacity - sum(rate[f] for f in members)) / len(free))
        for f in unfrozen:
            rate[f] += step
        frozen = {f for f in unfrozen if rate[f] == caps[f]}
        for capacity, members in links:
            if sum(rate[f] for f in members) == capacity:
                frozen.update(f for f in members if f in unfrozen)
        unfrozen -= frozen
    return rate
