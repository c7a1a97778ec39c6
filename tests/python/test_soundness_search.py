"""The soundness harness in CI: every registered test's "schedulable" checked against legal schedules.

Fixed budget (fixed seeds, a fixed number of sets and scenarios per
subject; about 10 s in all on the project's VM). A subject whose search
hits a known defect is ``xfail(strict=True)`` with the defect's text: when
the fix lands the search passes, the strict mark fails, and the mark goes.
A failing search prints the counterexample (set, verdict, scenario, who ran
when) and its ``Regression(...)`` source for regressions.py.

The soak: ``RTSCHED_SOUNDNESS_SOAK=<seconds>`` runs fresh seeds over every
subject for that long (see docs/soundness.md).
"""

from __future__ import annotations

import os
import time

import pytest

from rtsched.analysis.registry import TESTS
from rtsched.analysis.soundness.harness import search
from rtsched.analysis.soundness.subjects import EXCLUDED, SUBJECTS
from rtsched.analysis.soundness.witness import describe

#: (seed, accepted sets, scenarios per set) for every subject in CI, unless BUDGETS says otherwise.
CI_BUDGET = (22, 8, 40)
#: Subjects with a known defect get a seed (and budget) with which the search reaches it within
#: the CI time (found by scanning seeds 0–39); the strict xfail then tells when the fix lands.
#: The suspension families keep the budgets that found issue 22's defect 1 and the global RTAs'
#: C + S > D defect (both fixed since): the seeds reach such sets, so the budgets keep guarding the fixes.
BUDGETS = {
    "fp-rta/nested-np": (29, 8, 40),  # fixed since: the seed still reaches such sets
    "edf-util/np": (15, 8, 40),
    "edf-dbf/np": (28, 8, 40),
    "edf-qpa/np": (4, 8, 40),
    "p-edf/np": (36, 8, 40),
    "p-fp-mpcp/suspension": (0, 10, 200),
    "p-fp-fmlp+/suspension": (1, 10, 200),
    "gedf-rta/suspension": (0, 8, 40),
    "gfp-rta/suspension": (1, 8, 40),
    # issue 35 (fixed): seeds at which the search reached the defects on the code before the fix
    "p-fp-mpcp/sleep-over-boosts": (3, 4, 25),
    "p-fp-mpcp-lp/sleep-over-boosts": (3, 4, 25),
    "p-fp-fmlp+/sleep-over-boosts": (3, 4, 25),
    "p-fp-fmlp+-lp/sleep-over-boosts": (1, 4, 25),
    "p-fp-mpcp/pending-jobs": (9, 8, 40),
    "p-fp-mpcp-lp/pending-jobs": (3, 4, 25),
    "p-fp-fmlp+/pending-jobs": (0, 4, 25),
    "p-fp-fmlp+-lp/pending-jobs": (1, 4, 25),
    "p-fp-mpcp/three-cpus": (22, 4, 25),
    "p-fp-mpcp-lp/three-cpus": (22, 4, 25),
}
#: Offset vectors tried exhaustively per set when there are at most this many.
OFFSETS_LIMIT = 64
#: A search must check at least this many accepted sets, else it proves little (the family is off).
MIN_ACCEPTED = 4


def _params():
    return [pytest.param(s, id=s.id, marks=[pytest.mark.xfail(strict=True, reason=s.defect)] if s.defect else [])
            for s in SUBJECTS]


def test_every_registered_test_is_checked_or_excluded_with_a_reason():
    checked = {s.test for s in SUBJECTS}
    assert set(TESTS) == checked | set(EXCLUDED), sorted(set(TESTS) ^ (checked | set(EXCLUDED)))
    assert not checked & set(EXCLUDED)


@pytest.mark.parametrize("subj", _params())
def test_no_schedulable_verdict_is_contradicted(subj):
    seed, sets, scenarios = BUDGETS.get(subj.id, CI_BUDGET)
    report = search(subj, seed, sets, scenarios, OFFSETS_LIMIT)
    if report.counterexample is not None:
        pytest.fail(f"{subj.id}: unsound after {report.accepted} accepted set(s), {report.scenarios} scenario(s)\n"
                    + describe(report.counterexample), pytrace=False)
    if report.accepted == 0 and report.refused == report.sets:
        pytest.skip(f"{subj.test} calls every set of this family unsupported: nothing to check "
                    "(a fix that refuses these sets; drop the subject or its defect mark)")
    assert report.accepted >= MIN_ACCEPTED, f"{subj.id}: only {report.accepted} of {report.sets} sets accepted"


@pytest.mark.skipif(not os.environ.get("RTSCHED_SOUNDNESS_SOAK"), reason="set RTSCHED_SOUNDNESS_SOAK=<seconds>")
def test_soak():
    """Fresh seeds over every subject until the time is spent; known defects are reported, new ones fail."""
    seconds = float(os.environ["RTSCHED_SOUNDNESS_SOAK"])
    end = time.monotonic() + seconds
    seed = int(os.environ.get("RTSCHED_SOUNDNESS_SEED", "1000"))
    new: list[str] = []
    known: dict[str, int] = {}
    rounds = 0
    while time.monotonic() < end:
        for subj in SUBJECTS:
            if time.monotonic() >= end:
                break
            report = search(subj, seed, 8, 60, OFFSETS_LIMIT)
            if report.counterexample is not None:
                if subj.defect or subj.also_known:
                    known[subj.id] = known.get(subj.id, 0) + 1
                else:
                    new.append(f"seed {seed}: " + describe(report.counterexample))
        seed += 1
        rounds += 1
    print(f"soak: {rounds} round(s) from seed {os.environ.get('RTSCHED_SOUNDNESS_SEED', '1000')}; "
          f"known defects hit: {known}")
    assert not new, "\n\n".join(new)
