"""The FIFO mutex (protocol ``fifo``, docs/fifo-mutex.md) on one processor under fixed priorities.

The FIFO mutex serves its waiters in arrival order and lends its holder
nothing: the holder runs at its own priority, so every task of a priority
above the holder's may preempt it while others wait. Whether that can delay
a task τ_i decides everything here:

- **No exposure, no term.** If every task of priority ≥ p_i that locks a
  FIFO resource r shares r only with tasks of priority ≥ p_i, then whenever
  one of them waits on r the holder is itself of priority ≥ p_i: while τ_i's
  job is pending the processor runs work of priority ≥ p_i (hp or equal
  tasks, already counted as interference, their sections inside their WCETs)
  exactly as in the level-i busy period of the standard response-time
  analysis. The FIFO resources then add 0 to τ_i's blocking, and the other
  protocols' terms (``blocking``) stand unchanged.
- **Exposure: no bound.** If a task of priority ≥ p_i (τ_i itself or a
  higher one) locks r and a task of priority < p_i locks r too, that task
  may hold r while the other waits, and it can be preempted by every task
  of priority between its own and the waiter's for as long as they run
  (the priority inversion the FIFO mutex accepts by design). τ_i then either
  waits for all that work or, when a higher task is the one that waits, sees
  that task's execution deferred (a self-suspension, which may fit more of
  its jobs into τ_i's window than ⌈R/T⌉). No bound is given: the reason
  names the waiter, the resource and the lower holder.
- **Nesting: no bound.** A FIFO section that holds another lock, or one
  taken inside another section, passes no inheritance along the chain, so
  a holder boosted under PIP or a ceiling may wait on a FIFO holder that
  any task preempts; every task of the processor gets no bound.

Resources shared across partitions are global: ``fp_uni.fp_rta`` refuses
them before this is asked. Invariant: a term given with FIFO resources in
the set is the term of the other protocols alone, never reduced.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rtsched.analysis.tasks import AnalysisTask

__all__ = ["NOT_APPLICABLE", "fifo_problem"]

NOT_APPLICABLE = "not applicable: FIFO mutex without inheritance"


def _nested_problem(tasks: Sequence[AnalysisTask], is_fifo: Callable[[str], bool]) -> str | None:
    for t in tasks:
        for cs in t.critical_sections:
            if is_fifo(cs.resource) and cs.nested:
                return f"{NOT_APPLICABLE}: {t.name} locks {cs.nested[0]} inside its section on {cs.resource}"
            inner = next((r for r in cs.nested if is_fifo(r)), None)
            if inner is not None:
                return f"{NOT_APPLICABLE}: {t.name} locks {inner} inside its section on {cs.resource}"
    return None


def fifo_problem(task: AnalysisTask, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str]) -> str | None:
    """Why the FIFO resources of ``task``'s processor (``tasks``) leave it without a blocking
    bound, or None when they add nothing to its blocking (the module's rules)."""
    def is_fifo(r: str) -> bool:
        return protocol_of(r) == "fifo"

    nested = _nested_problem(tasks, is_fifo)
    if nested is not None:
        return nested
    prio = task.priority
    for r in sorted({r for t in tasks for r in t.resources() if is_fifo(r)}):
        users = [t for t in tasks if r in t.resources()]
        waiter = max(users, key=lambda t: (t is task, t.priority))  # the task itself if it locks r
        holder = min(users, key=lambda t: t.priority)
        if waiter.priority >= prio > holder.priority:
            return (f"{NOT_APPLICABLE}: {waiter.name} (priority {waiter.priority}) may wait on {r} while "
                    f"{holder.name} (priority {holder.priority}, below {task.name}'s {prio}) holds it at its own "
                    f"priority, preempted by every task above it meanwhile: no bound")
    return None
