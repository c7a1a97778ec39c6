"""Counterexamples the soundness harness (or issue 22) found, kept as regressions (regressions.py).

Each case passes when the test no longer accepts the set, or when the kept
legal scenario no longer breaks the test's promise (no deadline miss, no
response above a reported bound). Known defects are strict xfails with the
defect's text until their fix lands.
"""

from __future__ import annotations

import pytest

from rtsched.analysis.soundness.harness import analyse, judge
from rtsched.analysis.soundness.model import check_legal
from rtsched.analysis.soundness.regressions import REGRESSIONS


def _params():
    return [pytest.param(r, id=r.name, marks=[pytest.mark.xfail(strict=True, reason=r.defect)] if r.defect else [])
            for r in REGRESSIONS]


def test_regression_scenarios_are_legal_and_names_unique():
    assert len({r.name for r in REGRESSIONS}) == len(REGRESSIONS)
    for r in REGRESSIONS:
        assert check_legal(r.model, r.scenario) is None, r.name


@pytest.mark.parametrize("case", _params())
def test_regression(case):
    result = analyse(case.test, case.model, case.options)
    if not result.schedulable:
        return  # the test no longer accepts the set: nothing left to contradict
    run, violation = judge(case.model, case.scenario, result, case.semantics, case.check_deadlines)
    assert violation is None, f"{case.name}: {violation.describe(run.end)} ({case.note})"
