"""Counterexamples kept: a set a test accepted, and a legal scenario of it that breaks the promise.

``tests/python/test_soundness_regressions.py`` runs every case: the test must
either stop accepting the set or the scenario must no longer break its
promise. A case with ``defect`` set is a known unsoundness, marked
``xfail(strict=True)`` with that text until its fix lands (then the mark goes,
and the case guards the fix).

To add one: run the harness (a failing search prints the counterexample and
the ``Regression(...)`` source for it, see docs/soundness.md), paste it into
``REGRESSIONS``, give it a name saying what it caught and a note, and the
defect text while it is not fixed. Hand-made cases may build their scenario
with :func:`periodic` (periodic releases from given offsets).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtsched.analysis.registry import TestOptions
from rtsched.analysis.soundness.explorer import Semantics
from rtsched.analysis.soundness.model import Job, Op, Scenario, SystemModel, TaskModel

__all__ = ["Regression", "REGRESSIONS", "periodic"]


@dataclass(frozen=True)
class Regression:
    name: str
    test: str
    model: SystemModel
    scenario: Scenario
    options: TestOptions = field(default_factory=dict)
    semantics: Semantics = Semantics()
    check_deadlines: bool = True
    defect: str | None = None
    note: str = ""


def periodic(model: SystemModel, horizon: int, offsets: dict[str, int] | None = None,
             order: tuple[str, ...] = ()) -> Scenario:
    """Every task released periodically from its offset (default 0) until ``horizon``, full bodies."""
    offsets = offsets or {}
    jobs = tuple(Job(t.name, a, 0, t.body) for t in model.tasks
                 for a in range(offsets.get(t.name, 0), horizon, t.period))
    return Scenario(jobs, order or tuple(t.name for t in model.tasks))


def _cs(r: str, n: int) -> tuple[Op, ...]:
    return (("lock", r), ("exec", n), ("unlock", r))


def _issue22_defect1(protocol: str) -> SystemModel:
    return SystemModel((
        TaskModel("t1", 2, 2, (("exec", 1),), 3, partition="p0"),
        TaskModel("t2", 5, 5, _cs("q", 1), 2, partition="p0"),
        TaskModel("t3", 5, 5, (("exec", 1),), 1, partition="p0"),
        TaskModel("t4", 5, 5, _cs("q", 1), 1, partition="p1"),
    ), "P-FP", 2, {"q": protocol})


def _issue22_witness(model: SystemModel) -> Scenario:
    arrivals = (("t1", 0), ("t1", 2), ("t1", 4), ("t1", 6), ("t2", 0), ("t2", 5), ("t3", 2), ("t4", 1))
    return Scenario(tuple(Job(n, a, 0, model.task(n).body) for n, a in arrivals), ("t4", "t1", "t2", "t3"))


_MPCP = _issue22_defect1("mpcp")

#: ti (N_i = 2 global requests) and y (one 5-tick global section per job, T = 13) on p0; z1, z2
#: hold ti's resources for 10 ticks on p1 and p2. Every resource under MPCP.
_MPCP_LOCAL_JOBS = SystemModel((
    TaskModel("ti", 100, 100, _cs("q1", 1) + _cs("q2", 1) + (("exec", 1),), 3, partition="p0"),
    TaskModel("y", 13, 13, _cs("q3", 5), 1, partition="p0"),
    TaskModel("z1", 100, 100, _cs("q1", 10), 2, partition="p1"),
    TaskModel("z2", 100, 100, _cs("q2", 10), 2, partition="p2"),
), "P-FP", 3, {"q1": "mpcp", "q2": "mpcp", "q3": "mpcp"})
_FMLP = _issue22_defect1("fmlp+")

_BCL_D_GT_T = SystemModel((
    TaskModel("t2", 5, 2, (("exec", 1),)),
    TaskModel("t3", 3, 2, (("exec", 1),)),
    TaskModel("t1", 2, 4, (("exec", 2),)),
), "G-EDF", 2)

_GFP_D_GT_T = SystemModel((
    TaskModel("t2", 3, 4, (("exec", 2),), 3),
    TaskModel("t3", 3, 5, (("exec", 1),), 2),
    TaskModel("t1", 3, 6, (("exec", 3),), 1),
), "G-FP", 2)

_EDF_NP = SystemModel((
    TaskModel("t1", 12, 2, _cs("a", 1)),
    TaskModel("t2", 6, 6, _cs("b", 4)),
), "EDF", 1, {"a": "srp", "b": "np"})

_DEMAND_ABOVE_D = (
    TaskModel("s", 4, 4, (("exec", 1), ("sleep", 4))),  # C + S = 5 > D = 4: every job misses
    TaskModel("o", 10, 10, (("exec", 1),)),
)

_NESTED_NP = SystemModel((
    TaskModel("hi", 5, 5, (("exec", 1),), 2),
    TaskModel("lo", 12, 12, (("lock", "a"), ("lock", "b"), ("exec", 2), ("unlock", "b"), ("unlock", "a"),
                             ("exec", 3)), 1),
), "FP", 1, {"a": "srp", "b": "np"})

_EDF_NESTED = SystemModel((
    TaskModel("short", 6, 3, _cs("b", 1)),
    TaskModel("long", 12, 12, (("lock", "a"), ("exec", 1), ("lock", "b"), ("exec", 4), ("unlock", "b"),
                               ("unlock", "a"))),
), "EDF", 1, {"a": "srp", "b": "srp"})

_EDF_PIP = SystemModel((
    TaskModel("s", 40, 5, _cs("r1", 1) + _cs("r2", 1)),
    TaskModel("l1", 30, 30, _cs("r1", 3)),
    TaskModel("l2", 20, 20, _cs("r2", 3)),
), "EDF", 1, {"r1": "pip", "r2": "pip"})

_EDF_PIP_WITNESS = Scenario((Job("l1", 0, 0, _EDF_PIP.task("l1").body), Job("l2", 1, 0, _EDF_PIP.task("l2").body),
                             Job("s", 2, 0, _EDF_PIP.task("s").body)), ("s", "l2", "l1"))

def _interval_model(scheduler: str) -> SystemModel:
    return SystemModel((TaskModel("hi", 12, 2, (("exec", 1),), 2), TaskModel("lo", 6, 6, (("np", 4),), 1)),
                       scheduler, 1)


def _interval_witness(model: SystemModel) -> Scenario:
    return Scenario((Job("lo", 0, 0, model.task("lo").body), Job("hi", 1, 0, model.task("hi").body)), ("hi", "lo"))


REGRESSIONS: tuple[Regression, ...] = (
    Regression("issue22-defect1-mpcp-suspension-jitter", "p-fp-mpcp", _MPCP, _issue22_witness(_MPCP),
               semantics=Semantics("mpcp"),
               note="issue 22's set (fixed: the analysis no longer claims it): R3 = 4 was claimed; τ2 waits for q at 1, runs at [2, 3) and again at 5: "
                    "τ3 responds in 6 > 5"),
    Regression("p-fp-mpcp-local-boosting-by-several-jobs", "p-fp-mpcp", _MPCP_LOCAL_JOBS,
               Scenario(tuple(Job(n, a, 0, _MPCP_LOCAL_JOBS.task(n).body) for n, a in
                              (("y", 0), ("ti", 1), ("z1", 4), ("y", 13), ("z2", 18), ("y", 27))),
                        ("ti", "z1", "z2", "y")),
               semantics=Semantics("mpcp"),
               note="(fixed: (N_i + 1)·max gcs_y, not min(N_i + 1, N_y)) ti waits for y's section (job 1) "
                    "until 5, suspends on q1 until 14 and on q2 until 28; y's jobs 2 and 3 (arriving 13 "
                    "and 27) lock q3 just before each resumption and run boosted after ti's own section: "
                    "ti responds in 33 > the bound 28 once claimed (y charged once: N_y = 1 per job)"),
    Regression("issue22-defect1-fmlp-suspension-jitter", "p-fp-fmlp+", _FMLP, _issue22_witness(_FMLP),
               semantics=Semantics("fmlp+"),
               note="the same set and schedule under FMLP+ (one waiter: FIFO and priority order agree)"),
    Regression("gedf-bcl-deadline-beyond-period", "gedf-bcl", _BCL_D_GT_T, periodic(_BCL_D_GT_T, 40),
               note="(fixed: D > T is refused) U = 1.53 ≤ 2 but t1 (C = T = 2, D = 4) falls behind whenever an earlier-deadline job takes "
                    "one of its ticks; the job arriving at 28 completes at 33 (response 5 > D = 4)"),
    Regression("gfp-rta-deadline-beyond-period", "gfp-rta", _GFP_D_GT_T, periodic(_GFP_D_GT_T, 40),
               note="(fixed: D > T is refused) U = 2 on 2 CPUs, D > T: t1's claimed bound 5 is exceeded (the job arriving at 3 completes at 9)"),
    Regression("edf-qpa-np-section-blocks-every-task", "edf-qpa", _EDF_NP,
               Scenario((Job("t2", 1, 0, _cs("b", 4)), Job("t1", 2, 0, _cs("a", 1))), ("t1", "t2")),
               note="(fixed: an np section blocks every task) t2's non-preemptive section on b (4 ticks) starts "
                    "at 1; t1 (D = 2), arriving at 2, runs at 5: response 4; B(t) counted only sections on "
                    "resources t1 itself locks"),
    Regression("edf-dbf-np-section-blocks-every-task", "edf-dbf", _EDF_NP,
               Scenario((Job("t2", 1, 0, _cs("b", 4)), Job("t1", 2, 0, _cs("a", 1))), ("t1", "t2")),
               note="as above, the exhaustive demand test"),
    Regression("gfp-rta-demand-above-deadline", "gfp-rta", SystemModel(_DEMAND_ABOVE_D, "G-FP", 2),
               periodic(SystemModel(_DEMAND_ABOVE_D, "G-FP", 2), 8),
               note="(fixed: C + S > D is a miss) s has C + S = 5 > D = 4: the RTA started at R = C + S = 5, "
                    "found no interference and reported 5 as an ok bound"),
    Regression("gedf-rta-demand-above-deadline", "gedf-rta", SystemModel(_DEMAND_ABOVE_D, "G-EDF", 2),
               periodic(SystemModel(_DEMAND_ABOVE_D, "G-EDF", 2), 8),
               note="as above under G-EDF: the first iterate 5 was not below the starting bound D = 4, so D "
                    "stayed as the task's bound and the task counted as ok"),
    Regression("fp-rta-np-section-nested-in-srp-section", "fp-rta", _NESTED_NP,
               Scenario((Job("lo", 0, 0, _NESTED_NP.task("lo").body), Job("hi", 1, 0, (("exec", 1),))), ("hi", "lo")),
               note="(fixed: np sections count at any depth) lo holds a (srp, ceiling 1: no blocking for hi) "
                    "and inside it b (np) over [0, 2); hi arrives at 1, runs at 2: response 2 > the bound 1 "
                    "once claimed (blocking 0: the np section was not outermost)"),
    Regression("edf-util-srp-section-nested-in-another", "edf-util", _EDF_NESTED,
               Scenario((Job("long", 0, 0, _EDF_NESTED.task("long").body), Job("short", 2, 0, _cs("b", 1))),
                        ("short", "long")),
               note="(fixed: sections count at any depth) long holds b (inside a) over [1, 5); short (D = 3) "
                    "arrives at 2 and may not start before 5: response 4; edf-util took B = 0 (b's section is "
                    "not outermost, a is not short's resource). Found by the soak (edf-util/srp, seed 1032)"),
    *(Regression(f"{test}-pip-blocks-once-per-longer-task", test, _EDF_PIP, _EDF_PIP_WITNESS,
                 note="(fixed: under PIP one section per longer-deadline task) l1 locks r1 at 0; l2 (earlier "
                      "deadline) preempts it at 1 and locks r2; s (D = 5) arrives at 2, waits for r1 (l1 inherits, "
                      "[2, 4)) then for r2 (l2 inherits, [5, 7)): response 6; the test took B = 3, one section")
      for test in ("edf-dbf", "edf-qpa", "edf-util")),
    *(Regression(f"{test}-np-interval-of-another-task", test, _interval_model(sched), _interval_witness(
                 _interval_model(sched)),
                 note="(fixed: only fp-lp accepts non-preemptive intervals) lo's 4-tick interval starts at 0; hi "
                      "(D = 2) arrives at 1 and runs at 4: response 4; the test treated the interval as "
                      "preemptible (found by hand)")
      for test, sched in (("fp-rta", "FP"), ("edf-dbf", "EDF"), ("edf-qpa", "EDF"))),
)
