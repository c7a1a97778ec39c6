"""Soundness harness: every "schedulable" verdict checked against legal schedules (issue 22 item 4).

    from rtsched.analysis.soundness import SUBJECTS, search, describe
    report = search(SUBJECTS[0], seed=1, sets=8, scenarios_per_set=40)
    if report.counterexample:
        print(describe(report.counterexample))   # set, verdict, scenario, who ran when

- ``model``: task models with concrete job bodies (sections, sleeps, NP
  intervals) in integer ticks, scenarios (one legal behaviour), legality;
- ``explorer``: the discrete-time schedule explorer (uniprocessor,
  partitioned, global; FP and EDF; the lock protocols the tests model);
- ``scenarios``: synchronous, exhaustive offsets, random sporadic scenarios;
- ``families``: small random sets per platform;
- ``subjects``: which registered test is checked on which family, how;
- ``harness``: ``judge`` one scenario, ``search`` many sets;
- ``witness``: a counterexample in words and as a regression case;
- ``regressions``: the counterexamples kept.

``python3 -m rtsched.analysis.soundness --seconds 60`` searches fresh seeds
for a while (the soak); docs/soundness.md has the model and the budget.
"""

from __future__ import annotations

from rtsched.analysis.soundness.explorer import Run, Semantics, explore
from rtsched.analysis.soundness.harness import Counterexample, SearchReport, Violation, judge, search
from rtsched.analysis.soundness.model import Job, Scenario, SystemModel, TaskModel, check_legal
from rtsched.analysis.soundness.subjects import EXCLUDED, SUBJECTS, Subject, subject
from rtsched.analysis.soundness.witness import as_regression, describe

__all__ = [
    "Counterexample", "EXCLUDED", "Job", "Run", "SUBJECTS", "Scenario", "SearchReport", "Semantics", "Subject",
    "SystemModel", "TaskModel", "Violation", "as_regression", "check_legal", "describe", "explore", "judge",
    "search", "subject",
]
