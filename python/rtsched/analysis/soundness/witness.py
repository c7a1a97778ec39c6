"""A counterexample in words: the set, the verdict, the scenario and who ran when.

:func:`describe` is what a failing harness test prints; :func:`as_regression`
is the same counterexample as Python source for ``regressions.py`` (paste it
into ``REGRESSIONS`` and it becomes a regression case).
"""

from __future__ import annotations

from rtsched.analysis.soundness.explorer import Run
from rtsched.analysis.soundness.harness import Counterexample
from rtsched.analysis.soundness.model import Scenario

__all__ = ["describe", "gantt", "as_regression"]

_MARKS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def gantt(run: Run, names: list[str]) -> list[str]:
    """One row per processor, one column per tick: the mark of the task that ran ('.' idle)."""
    marks = {n: _MARKS[k] if k < len(_MARKS) else "?" for k, n in enumerate(names)}
    width = max((len(row) for row in run.slots.values()), default=0)
    ruler = "".join(str(t % 10) for t in range(width))
    label = max(len(c) for c in run.slots) if run.slots else 4
    lines = [f"{'tick':>{label}} {ruler}"]
    for cpu, row in run.slots.items():
        lines.append(f"{cpu:>{label}} " + "".join(marks[x] if x else "." for x in row))
    lines.append("marks: " + ", ".join(f"{marks[n]}={n}" for n in names))
    return lines


def _jobs(scenario: Scenario, run: Run) -> list[str]:
    out = []
    for k, j in enumerate(scenario.jobs):
        fin = run.finish[k]
        out.append(f"  {j.task} arrives {j.arrival}" + (f" (+{j.delay} delay)" if j.delay else "")
                   + f", finishes {fin if fin is not None else 'never'}; body {list(j.body)}")
    return out


def describe(cex: Counterexample) -> str:
    model = cex.model
    names = [t.name for t in model.tasks]
    bounds = ", ".join(f"{b.name} {b.bound_ns}" for b in cex.result.tasks)
    lines = [
        f"{cex.test} says schedulable (bounds: {bounds}); a legal schedule breaks it:",
        "  " + cex.violation.describe(cex.run.end),
        f"set: {model.scheduler}, {model.cpus} CPU(s), protocols {dict(model.protocols)}"
        + (f", options {cex.options}" if cex.options else "")
        + (f", {cex.semantics}" if cex.semantics.global_protocol else ""),
    ]
    for t in model.tasks:
        lines.append(f"  {t.name}: T={t.period} D={t.deadline} prio={t.priority}"
                     + (f" J={t.jitter}" if t.jitter else "") + (f" on {t.partition}" if t.partition else "")
                     + f" body {list(t.body)}")
    lines.append("scenario (tie-break order " + ", ".join(cex.scenario.order) + "):")
    lines += _jobs(cex.scenario, cex.run)
    if cex.scenario.supply is not None:
        lines.append(f"  supply Γ({cex.scenario.supply_period}, {cex.scenario.supply_budget}): {cex.scenario.supply}")
    lines.append("schedule:")
    lines += ["  " + x for x in gantt(cex.run, names)]
    lines.append("as a regression case:")
    lines.append(as_regression(cex, "NAME", "why"))
    return "\n".join(lines)


def as_regression(cex: Counterexample, name: str, note: str) -> str:
    return (f"Regression(\n    name={name!r},\n    test={cex.test!r},\n    model={cex.model!r},\n"
            f"    scenario={cex.scenario!r},\n    options={cex.options!r},\n    semantics={cex.semantics!r},\n"
            f"    check_deadlines={cex.check_deadlines!r},\n    defect=None,\n    note={note!r},\n),")
