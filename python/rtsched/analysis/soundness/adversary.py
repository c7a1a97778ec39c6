"""Adversarial construction: search for the set *and* the scenario that maximise (response − bound).

:func:`harness.search` draws sets and scenarios at random; the defects that
outside checkers found (issue 35) hid where random draws seldom go: a
resource requested twice in one job, a lower task's several global sections,
nested sections of different protocols, D > T. :func:`adversarial_search`
climbs towards them instead.

The objective, for a set the test accepts and one legal scenario of it, is
the largest *excess* of any job that can be judged: its response (the
explorer's: a job still unfinished counts as unfinished at the end) less the
bound the test reported for its task, or less its deadline when the test's
verdict is about deadlines and that is smaller. The test's bound is used only
as the figure to exceed; what a job's response is comes only from the
explorer, which implements the protocols' rules (``explorer.py``). An excess
above 0 is a counterexample, the same as :func:`harness.judge` gives.

The search, per round: a set from the subject's family (accepted by the test;
one it rejects is stretched in time, periods and deadlines doubled, once or
twice: the same structure — sections, nesting, priorities — with more room,
which a test is more likely to accept; dense structure is where the defects
were),
and the best of the papers' worst-case plans for it (``patterns.py``:
synchronous release, critical instant with jitter, a maximal blocking chain
before each task). Then simulated annealing over both: each step edits the set
(``mutations.py``: execution, section lengths and positions, request counts,
nesting, protocols, periods, deadlines, priorities, jitter, sleeps, calls,
processors, tasks; a set the test no longer accepts is stretched, and if it
still is not accepted the step is not taken; after a set edit the papers'
plans on the new set are tried too, the current plan having been tuned for
the old one) or the
scenario (``plans.py``: offsets, sporadic gaps, release delays, shorter
amounts, tie-breaks, a release one tick after another task's lock); a step
that lowers the excess by δ is taken with probability e^(−δ/temperature),
the temperature falling from 2 to 0.1 over the round.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rtsched.analysis.registry import TestOptions
from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.soundness.harness import Counterexample, analyse, judge
from rtsched.analysis.soundness.model import Scenario, SystemModel
from rtsched.analysis.soundness.mutations import Space, learn_space, mutate_model, stretch
from rtsched.analysis.soundness.patterns import seed_plans
from rtsched.analysis.soundness.plans import Plan, mutate_plan, realize
from rtsched.analysis.soundness.scenarios import horizon_of
from rtsched.analysis.soundness.subjects import Subject

__all__ = ["AdversaryReport", "adversarial_search", "excess", "task_excess"]

#: The share of steps that edit the set (the rest edit the scenario).
SET_EDITS = 0.4
#: How many of a family's sets are drawn to learn its space.
SPACE_DRAWS = 30
#: A set the test rejects is stretched (periods and deadlines doubled) at most this many times, while
#: its longest period is at most STRETCH_LIMIT ticks.
STRETCHES = 2
STRETCH_LIMIT = 24


@dataclass
class AdversaryReport:
    subject: str
    seed: int
    rounds: int = 0
    steps: int = 0
    evaluations: int = 0  # scenarios explored
    rejected: int = 0  # edited sets the test did not accept (or the explorer cannot run)
    best: int | None = None  # the largest excess seen (> 0: the counterexample)
    pattern: str = ""  # the seed pattern the winning climb started from
    counterexample: Counterexample | None = field(default=None, repr=False)


@dataclass(frozen=True)
class _State:
    model: SystemModel
    options: TestOptions
    result: AnalysisResult
    plan: Plan
    scenario: Scenario
    excess: int  # the largest over the jobs (> 0: cex)
    score: float  # what the climb maximises: excess + SPREAD × the tasks' mean excess
    cex: Counterexample | None


def task_excess(model: SystemModel, scenario: Scenario, result: AnalysisResult, end: int,
                finish: list[int | None], check_deadlines: bool = True) -> dict[str, int]:
    """Per task, the largest (response − limit) over its jobs that can be judged; limit: the test's
    bound for the task, or its deadline when smaller and ``check_deadlines``. ``end``: where the
    schedule stops (a job unfinished then is judged as finishing after it, when it can be judged)."""
    out: dict[str, int] = {}
    for job, done in zip(scenario.jobs, finish):
        task = model.task(job.task)
        bound = result.bound(job.task)
        limits = ([bound] if bound is not None else []) + ([task.deadline] if check_deadlines else [])
        if not limits:
            continue
        if done is None and end - job.arrival < max(task.deadline, bound or 0):
            continue  # the schedule ends before this job could be judged (as judge does)
        over = (done if done is not None else end + 1) - job.arrival - min(limits)
        out[job.task] = max(over, out.get(job.task, over))
    return out


def excess(model: SystemModel, scenario: Scenario, result: AnalysisResult, end: int,
           finish: list[int | None], check_deadlines: bool = True) -> int | None:
    """The largest (response − limit) of any job that can be judged (None: none can); above 0 exactly
    when :func:`harness.judge` reports a violation."""
    per_task = task_excess(model, scenario, result, end, finish, check_deadlines)
    return max(per_task.values()) if per_task else None


#: The objective adds this share of the tasks' mean excess to the largest: among schedules as close
#: to a counterexample, the climb prefers those that push every task towards its bound.
SPREAD = 0.2


class _Climb:
    def __init__(self, subject: Subject, rng: random.Random, space: Space, report: AdversaryReport):
        self.subject = subject
        self.rng = rng
        self.space = space
        self.report = report

    def accepted(self, model: SystemModel, options: TestOptions) -> tuple[SystemModel, AnalysisResult] | None:
        """The model, or the model stretched in time (``stretch``, at most twice), with the test's
        "schedulable"; None when the test accepts neither."""
        for _ in range(1 + STRETCHES):
            try:
                result = analyse(self.subject.test, model, options)
            except ValueError:
                return None
            if result.schedulable:
                return model, result
            if max(t.period for t in model.tasks) > STRETCH_LIMIT:
                return None
            model = stretch(model)
        return None

    def evaluate(self, model: SystemModel, options: TestOptions, plan: Plan,
                 result: AnalysisResult) -> _State | None:
        supply = (options["period_ns"], result.details["budget_ns"]) if self.subject.supply else None
        scenario = realize(model, plan, horizon_of(model), supply)
        try:
            run, violation = judge(model, scenario, result, self.subject.semantics, self.subject.check_deadlines)
        except (ValueError, RuntimeError):  # a model the explorer does not run (a resource it cannot share)
            return None
        self.report.evaluations += 1
        per_task = task_excess(model, scenario, result, run.end, run.finish, self.subject.check_deadlines)
        if not per_task:
            return None
        largest = max(per_task.values())
        score = largest + SPREAD * sum(per_task.values()) / len(per_task)
        cex = None
        if violation is not None:
            cex = Counterexample(self.subject.test, model, options, self.subject.semantics, result, scenario, run,
                                 violation, self.subject.check_deadlines)
        return _State(model, options, result, plan, scenario, largest, score, cex)

    def start(self, draws: int) -> tuple[str, _State] | None:
        """A set of the family the test accepts, with the best of the papers' plans for it."""
        for _ in range(draws):
            options = self.subject.options(self.rng) if self.subject.options else {}
            accepted = self.accepted(self.subject.make(self.rng), options)
            if accepted is None:
                continue
            model, result = accepted
            best: tuple[str, _State] | None = None
            for name, plan in seed_plans(model, self.rng):
                state = self.evaluate(model, options, plan, result)
                if state is not None and (best is None or state.score > best[1].score):
                    best = (name, state)
            if best is not None:
                return best
        return None

    def step(self, state: _State) -> _State | None:
        self.report.steps += 1
        if self.rng.random() < SET_EDITS:
            edited = mutate_model(state.model, self.space, self.rng)
            accepted = self.accepted(edited, state.options) if edited is not None else None
            out = self.evaluate(accepted[0], state.options, state.plan, accepted[1]) if accepted else None
            self.report.rejected += edited is not None and out is None
            if out is None:
                return None
            model = out.model
            # the plan was tuned to the old set: the papers' plans on the new one may expose more
            for _, plan in seed_plans(model, self.rng):
                other = self.evaluate(model, state.options, plan, out.result)
                if other is not None and (other.excess, other.score) > (out.excess, out.score):
                    out = other
            return out
        return self.evaluate(state.model, state.options, mutate_plan(state.model, state.plan, self.rng),
                             state.result)


def adversarial_search(subject: Subject, seed: int, rounds: int, steps: int, draws: int = 20,
                       nesting: bool | None = None) -> AdversaryReport:
    """``rounds`` climbs of ``steps`` steps each (fewer when one finds a counterexample, which ends
    the search); each from a fresh accepted set of the family (at most ``draws`` draws). ``nesting``:
    whether set edits may nest sections (None: when the family draws nested sections)."""
    rng = random.Random(f"adversary:{subject.id}:{seed}")
    report = AdversaryReport(subject.id, seed)
    climb = _Climb(subject, rng, learn_space(subject.make, rng, SPACE_DRAWS, nesting), report)
    for _ in range(rounds):
        begun = climb.start(draws)
        if begun is None:
            continue
        report.rounds += 1
        pattern, state = begun
        best = state
        for k in range(steps):
            if best.cex is not None:
                break
            temperature = 2.0 * (0.05 ** (k / max(1, steps - 1)))
            candidate = climb.step(state)
            if candidate is None:
                continue
            if candidate.score >= state.score or rng.random() < math.exp((candidate.score - state.score) / temperature):
                state = candidate
            if (state.excess, state.score) > (best.excess, best.score):
                best = state
        if report.best is None or best.excess > report.best:
            report.best = best.excess
            report.pattern = pattern
        if best.cex is not None:
            report.counterexample = best.cex
            return report
    return report
