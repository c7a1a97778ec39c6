"""A global section nested inside a local one (issue 35, found by the adversarial search).

``p-fp-mpcp`` and ``p-fp-fmlp+`` (and their LP forms) count only the outermost
global sections and refuse a global section with sections inside it; a global
section *inside* a local one was neither counted nor refused. The FMLP+
witness: t0_1 holds l0 (pcp) and inside it q (fmlp+) for 2 ticks; t1_1 on the
other processor requests q at the same instant and waits for it, response 4,
while the test said schedulable with bound 2 (its own execution). Now every
P-FP global-locking test calls such a set unsupported.
"""

from __future__ import annotations

import pytest

from rtsched.analysis.soundness.explorer import Semantics
from rtsched.analysis.soundness.harness import analyse, judge
from rtsched.analysis.soundness.model import Job, Scenario, SystemModel, TaskModel


def _model(protocol: str) -> SystemModel:
    return SystemModel((
        TaskModel("t0_2", 6, 4, (("lock", "l0"), ("exec", 1), ("unlock", "l0")), 2, partition="p0"),
        TaskModel("t0_1", 24, 20, (("lock", "l0"), ("lock", "q"), ("exec", 2), ("unlock", "q"), ("unlock", "l0")), 1,
                  partition="p0"),
        TaskModel("t1_1", 10, 6, (("lock", "q"), ("exec", 2), ("unlock", "q")), 1, partition="p1"),
    ), "P-FP", 2, {"q": protocol, "l0": "pcp"})


@pytest.mark.parametrize("test,protocol", [("p-fp-fmlp+", "fmlp+"), ("p-fp-fmlp+-lp", "fmlp+"),
                                           ("p-fp-mpcp", "mpcp"), ("p-fp-mpcp-lp", "mpcp")])
def test_a_global_section_inside_a_local_one_is_refused(test, protocol):
    model = _model(protocol)
    result = analyse(test, model, {})
    assert result.verdict == "unsupported"
    assert result.reason == ("t0_1: global resource q is locked inside another section; nested global sections "
                             "are not supported")
    # the schedule against the bound of 2 the test gave: t0_1 and t1_1 request q at 0, t0_1 first
    # (tie-break), so t1_1 waits the 2 ticks of t0_1's section (t0_2 arrives at 1)
    scenario = Scenario(tuple(Job(t.name, int(t.name == "t0_2"), 0, t.body) for t in model.tasks),
                        ("t0_1", "t1_1", "t0_2"))
    run, _ = judge(model, scenario, result, Semantics(protocol))
    assert run.response(scenario, 2) == 4
