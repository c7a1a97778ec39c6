"""Locks in a reservation hierarchy's analysis (docs/reservations.md, "Locks inside reservations").

The rules analysed are the simulator's and the ult runtime's: a holder runs only in its own
reservation, on its budget (no bandwidth inheritance), with the key it inherits from its
waiters ordering it among that reservation's tasks; a ceiling protocol works inside one
reservation with its levels. Then:

- a resource **local to a hard FP reservation** (every user in that leaf) blocks as on a
  processor, in the leaf's own time: in a level-i busy period of the leaf, what must be
  supplied is τ_i's C_i, the higher tasks' interference and the blocking term B_i of
  ``rtsched.analysis.blocking`` (PIP, the ceiling protocols, none, FIFO), since the holder
  runs only when the leaf is supplied and inherits only from the leaf's tasks. So
  R_i = least fixed point of tbf(C_i + B_i + Σ_hp ⌈R_i/T_j⌉·C_j) (``fp_component`` with
  ``extra_blocking_ns``; Davis & Burns's local resources in a hierarchical FP system). A term
  without a bound (unbounded priority inversion under ``none``, a FIFO mutex shared past a
  higher task) leaves that task without one, with its reason;
- a resource **local to a hard EDF reservation**: not analysed (the SRP's dbf + blocking
  test under a supply bound is not implemented): its tasks have no bound;
- a resource **shared across reservations**: a waiter's wait depends on the holder's
  reservation's budget and on its other tasks (its supply while the holder is behind them),
  which the compositional analysis does not bound; and the holder, lent a key from outside,
  delays the other tasks of its own leaf. Every task of a leaf with such a user has no bound.
  A leaf that is not involved keeps its bound: a reservation's supply depends only on the
  budgets and keys of the reservations, which locks do not change;
- a resource shared by a task **at the top level** and a task in a reservation: the top-level
  holder, lent a key, changes the top level's schedule and so every reservation's supply on
  that partition: every task of the partition has no bound.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, Sequence

from rtsched.analysis.blocking import Blocking, blocking_term
from rtsched.analysis.tasks import AnalysisTask
from rtsched.model import TaskSet
from rtsched.model.reservation_locks import lock_homes

__all__ = ["LockScope", "with_blocking"]


class LockScope:
    """Which leaves and partitions of ``taskset`` locks leave without a bound, and why, all known
    once made: ``why_leaf`` is a lookup."""

    def __init__(self, taskset: TaskSet, protocols: Mapping[str, str], ceilings: Mapping[str, int]) -> None:
        self.protocols = protocols  # resource -> protocol, for the tests of each level
        self.ceilings = ceilings    # resource -> the ceiling the file gives (P-FP)
        self.partitions: dict[str | None, str] = {}  # partition -> why its tasks have no bound
        leaves: dict[str, str] = {}  # leaf reservation -> why its tasks have no bound (its own resources)
        for resource, homes in lock_homes(taskset).items():
            if len(homes) < 2:
                continue
            named = ", ".join("the top level" if h is None else f'reservation "{h}"' for h in homes)
            if None in homes:
                why = (f'"{resource}" is shared by {named}: a holder at the top level lent a waiter\'s key '
                       "changes the supply of every reservation of its partition (not analysed)")
                for t in taskset.tasks:
                    if resource in t.resources_used() and t.reservation is None:
                        self.partitions.setdefault(t.partition, why)
                continue
            why = (f'"{resource}" is shared by {named}: a waiter waits on the holder\'s reservation\'s budget, '
                   "and the holder, lent its key, delays its own reservation's tasks (not analysed across "
                   "reservations)")
            for home in homes:
                if home is not None:
                    leaves.setdefault(home, why)
        #: reservation -> why its tasks have no bound (its partition's reason first)
        self.why_leaf: dict[str, str] = {}
        for r in taskset.reservations:
            root = r
            while root.parent is not None:
                root = taskset.reservation(root.parent)
            why_not = self.partitions.get(root.partition) or leaves.get(r.name)
            if why_not:
                self.why_leaf[r.name] = why_not


def with_blocking(tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str]
                  ) -> tuple[tuple[AnalysisTask, ...], dict[str, Blocking]]:
    """The tasks of one FP leaf whose sections are local to it, as independent tasks carrying their
    blocking terms (``extra_blocking_ns``), and each task's term (``ns`` None: no bound)."""
    terms = {t.name: blocking_term(t, tasks, protocol_of) for t in tasks}
    out = tuple(replace(t, critical_sections=(), extra_blocking_ns=terms[t.name].ns or 0) for t in tasks)
    return out, terms
