"""Check a test's verdicts against legal schedules: :func:`judge` one scenario, :func:`search` many sets.

A test that says ``schedulable`` promises that no legal behaviour of the
set misses a deadline, and that no job's response exceeds the bound the
test reports for its task. :func:`judge` runs one scenario through the
explorer and returns the first job that breaks either promise (a
:class:`Violation`); :func:`search` draws sets from a subject's family,
keeps those the test accepts (until enough are), and tries scenarios on each (synchronous,
every offset vector when there are few, then random ones) until one breaks
a promise or the budget is spent. A set the test rejects is never explored
(a sufficient test may reject schedulable sets; that is not unsound).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterable

from rtsched.analysis.registry import TestOptions, run_test
from rtsched.analysis.results import SCHEDULABLE, UNSUPPORTED, AnalysisResult
from rtsched.analysis.soundness.explorer import Run, Semantics, explore
from rtsched.analysis.soundness.model import Scenario, SystemModel, check_legal
from rtsched.analysis.soundness.scenarios import horizon_of, offset_scenarios, random_scenario, synchronous
from rtsched.analysis.soundness.subjects import Subject

__all__ = ["Violation", "Counterexample", "SearchReport", "judge", "analyse", "search"]


@dataclass(frozen=True)
class Violation:
    """A job that breaks the test's promise: ``finish`` None means still unfinished at the end."""

    job: int
    task: str
    arrival: int
    finish: int | None
    limit: int
    kind: str  # "deadline miss" | "bound exceeded"

    def describe(self, end: int) -> str:
        done = f"completes at {self.finish}: response {self.finish - self.arrival}" if self.finish is not None \
            else f"is unfinished at {end}: response > {end - self.arrival}"
        what = "deadline" if self.kind == "deadline miss" else "the test's bound"
        return f"{self.task} (job arriving at {self.arrival}) {done} > {what} {self.limit}"


@dataclass(frozen=True)
class Counterexample:
    """A set the test accepts, and a legal schedule of it that breaks the promise."""

    test: str
    model: SystemModel
    options: TestOptions
    semantics: Semantics
    result: AnalysisResult
    scenario: Scenario
    run: Run
    violation: Violation
    check_deadlines: bool = True


@dataclass
class SearchReport:
    subject: str
    seed: int
    sets: int = 0
    accepted: int = 0
    refused: int = 0  # sets the test called "unsupported" (outside its model)
    scenarios: int = 0
    counterexample: Counterexample | None = field(default=None, repr=False)


def analyse(test: str, model: SystemModel, options: TestOptions) -> AnalysisResult:
    return run_test(test, model.problem(), **options)


def _until(model: SystemModel, scenario: Scenario, result: AnalysisResult) -> int:
    reach = max(max(t.deadline, result.bound(t.name) or 0) for t in model.tasks)
    return max((j.arrival for j in scenario.jobs), default=0) + reach + 1


def judge(model: SystemModel, scenario: Scenario, result: AnalysisResult, semantics: Semantics = Semantics(),
          check_deadlines: bool = True) -> tuple[Run, Violation | None]:
    """Run one legal scenario; the first job (by arrival) that misses its deadline or exceeds its bound."""
    why = check_legal(model, scenario)
    if why is not None:
        raise ValueError(f"not a legal scenario: {why}")
    run = explore(model, scenario, _until(model, scenario, result), semantics)
    for index in sorted(range(len(scenario.jobs)), key=lambda k: scenario.jobs[k].arrival):
        job = scenario.jobs[index]
        task = model.task(job.task)
        bound = result.bound(job.task)
        finish = run.finish[index]
        response = (finish if finish is not None else run.end + 1) - job.arrival
        if finish is None and run.end - job.arrival < max(task.deadline, bound or 0):
            continue  # the horizon ends before this job could be judged
        if check_deadlines and response > task.deadline:
            return run, Violation(index, job.task, job.arrival, finish, task.deadline, "deadline miss")
        if bound is not None and response > bound:
            return run, Violation(index, job.task, job.arrival, finish, bound, "bound exceeded")
    return run, None


def scenarios_for(model: SystemModel, rng: random.Random, count: int, offsets_limit: int,
                  supply: tuple[int, int] | None = None,
                  patterns: Callable[[SystemModel, int], Iterable[Scenario]] | None = None) -> Iterable[Scenario]:
    """The subject's ``patterns`` (beside ``count``), then synchronous, every offset vector when at most
    ``offsets_limit``, then random ones; ``count`` in all."""
    horizon = horizon_of(model)
    until = horizon + 4 * max(t.deadline for t in model.tasks) + 1
    if patterns is not None:
        yield from patterns(model, horizon)
    made = 0
    if supply is None:
        yield synchronous(model, horizon)
        made += 1
        for sc in offset_scenarios(model, horizon, offsets_limit):
            if made >= count:
                return
            yield sc
            made += 1
    while made < count:
        yield random_scenario(model, horizon, rng, supply, until)
        made += 1


def check_set(subject: Subject, model: SystemModel, rng: random.Random, count: int,
              offsets_limit: int = 0) -> tuple[str, int, Counterexample | None]:
    """(the test's verdict, scenarios run, counterexample) for one set."""
    options = subject.options(rng) if subject.options else {}
    result = analyse(subject.test, model, options)
    if not result.schedulable:
        return result.verdict, 0, None
    supply = None
    if subject.supply:
        supply = (options["period_ns"], result.details["budget_ns"])
    ran = 0
    for scenario in scenarios_for(model, rng, count, offsets_limit, supply, subject.patterns):
        ran += 1
        run, violation = judge(model, scenario, result, subject.semantics, subject.check_deadlines)
        if violation is not None:
            return result.verdict, ran, Counterexample(subject.test, model, options, subject.semantics, result,
                                                       scenario, run, violation, subject.check_deadlines)
    return result.verdict, ran, None


def search(subject: Subject, seed: int, sets: int, scenarios_per_set: int, offsets_limit: int = 0,
           draws_per_set: int = 20) -> SearchReport:
    """Draw sets from the subject's family (seeded) until ``sets`` are accepted (at most
    ``draws_per_set`` × ``sets`` draws), and try ``scenarios_per_set`` scenarios on each."""
    rng = random.Random(f"{subject.id}:{seed}")
    report = SearchReport(subject.id, seed)
    while report.accepted < sets and report.sets < draws_per_set * sets:
        model = subject.make(rng)
        report.sets += 1
        verdict, ran, cex = check_set(subject, model, rng, scenarios_per_set, offsets_limit)
        report.accepted += verdict == SCHEDULABLE
        report.refused += verdict == UNSUPPORTED
        report.scenarios += ran
        if cex is not None:
            report.counterexample = cex
            return report
    return report
