"""Which registered tests the harness checks, on which sets, with which schedule semantics.

A :class:`Subject` is one registered test with one family of sets (a test
may have several: ``gedf-bcl/constrained`` and ``gedf-bcl/arbitrary``).
``semantics`` tells the explorer what the test assumes where the set alone
does not say (the partitioned tests impose MPCP or FMLP+ on the global
resources). ``defect``: a known unsoundness that the search is expected to
hit (the CI test marks it ``xfail(strict=True)`` until it is fixed); ``also_known``: a known
defect that a longer search (the soak) may reach on this family, though the CI budget does not
(the soak reports it without failing).
``check_deadlines`` is False for a test whose verdict is about bounded
tardiness, not deadlines (only its bounds are then checked). ``patterns``:
release patterns tried on each set before the random scenarios (worst cases
of the protocols, e.g. ``families_nesting.blocking_chains``).

Every name in the registry is either a subject here or in :data:`EXCLUDED`
with the reason (a test checks that, so a new test cannot be forgotten).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable

from rtsched.analysis.registry import TestOptions
from rtsched.analysis.soundness.explorer import Semantics
from rtsched.analysis.soundness.families import (
    global_multi, partitioned_distributed, partitioned_global, partitioned_suspension, rpc_clients, uniprocessor)
from rtsched.analysis.soundness.families_global import pending_jobs, sleep_over_boosts, three_cpus
from rtsched.analysis.soundness.families_nesting import blocking_chains, nested_mixed, repeated_calls, repeated_requests
from rtsched.analysis.soundness.families_np_gedf import np_gedf
from rtsched.analysis.soundness.lock_cycles import opposite_orders
from rtsched.analysis.soundness.model import Scenario, SystemModel

__all__ = ["Subject", "SUBJECTS", "EXCLUDED", "subject"]



@dataclass(frozen=True)
class Subject:
    test: str
    variant: str
    make: Callable[[random.Random], SystemModel]
    semantics: Semantics = Semantics()
    options: Callable[[random.Random], TestOptions] | None = None
    supply: bool = False
    check_deadlines: bool = True
    defect: str | None = None
    also_known: str | None = None
    #: worst-case release patterns tried first on each set, (model, horizon) → scenarios (None: none)
    patterns: Callable[[SystemModel, int], Iterable[Scenario]] | None = None

    @property
    def id(self) -> str:
        return f"{self.test}/{self.variant}"


ALL_UNI = ("none", "pip", "pcp", "srp", "ipcp", "np")
_uni = partial(uniprocessor, scheduler="FP")
_edf = partial(uniprocessor, scheduler="EDF")


def _forced(protocol: str) -> Callable[[random.Random], SystemModel]:
    return partial(_uni, protocols=(protocol,), nested=True, jitter=True, sleep=True)


_PFP_LOCKING = (("p-fp-mpcp", "mpcp"), ("p-fp-mpcp-lp", "mpcp"), ("p-fp-fmlp+", "fmlp+"), ("p-fp-fmlp+-lp", "fmlp+"))


def _prm_options(supply: str) -> Callable[[random.Random], TestOptions]:
    return lambda rng: {"period_ns": rng.randint(2, 5), "supply": supply}


SUBJECTS: tuple[Subject, ...] = (
    Subject("fp-rta", "independent", partial(_uni, resources=0, deadlines="arbitrary", jitter=True, sleep=True)),
    Subject("fp-rta", "locks", partial(_uni, protocols=ALL_UNI, nested=True, jitter=True, sleep=True)),
    Subject("fp-rta", "nested-np", partial(_uni, protocols=("np", "srp", "pcp"), nested=True)),
    Subject("fp-rta", "lock-order", partial(opposite_orders, protocols=ALL_UNI)),  # issue 35 class 7
    Subject("fp-rta-pip", "lock-order", partial(opposite_orders, protocols=("pip",))),
    Subject("fp-rta", "partitioned", partial(_uni, protocols=ALL_UNI, partitions=2, jitter=True, u_range=(0.3, 0.8))),
    *(Subject(f"fp-rta-{p}", "forced", _forced(p)) for p in ("pip", "pcp", "srp", "ipcp", "np")),
    Subject("fp-ll", "rm", partial(_uni, protocols=("pip", "pcp"), deadlines="implicit", rm=True,
                                   u_range=(0.5, 0.85))),
    Subject("fp-hyperbolic", "rm", partial(_uni, protocols=("pip", "pcp"), deadlines="implicit", rm=True,
                                           u_range=(0.5, 0.9))),
    Subject("fp-lp", "intervals", partial(_uni, protocols=("pcp", "srp"), resources=1, np_share=0.6)),
    Subject("edf-util", "independent", partial(_edf, resources=0, sleep=True)),
    Subject("edf-util", "srp", partial(_edf, protocols=("srp", "ipcp", "pcp"), nested=True)),
    Subject("edf-util", "np", partial(_edf, protocols=("np", "srp"))),
    Subject("edf-dbf", "independent", partial(_edf, resources=0, sleep=True)),
    Subject("edf-dbf", "srp", partial(_edf, protocols=("srp", "ipcp", "pcp"), nested=True)),
    Subject("edf-dbf", "np", partial(_edf, protocols=("np", "srp"))),
    Subject("edf-dbf", "pip", partial(_edf, protocols=("pip",))),
    Subject("edf-qpa", "independent", partial(_edf, resources=0, sleep=True)),
    Subject("edf-qpa", "srp", partial(_edf, protocols=("srp", "ipcp", "pcp"), nested=True)),
    Subject("edf-qpa", "np", partial(_edf, protocols=("np", "srp"))),
    Subject("p-edf", "partitioned", partial(_edf, protocols=("srp",), partitions=2, u_range=(0.3, 0.9))),
    Subject("p-edf", "np", partial(_edf, protocols=("np",), partitions=2, u_range=(0.3, 0.9))),
    Subject("p-fp-mpcp", "global", partial(partitioned_global, protocol="mpcp"), Semantics("mpcp")),
    Subject("p-fp-mpcp", "suspension", partial(partitioned_suspension, protocol="mpcp"), Semantics("mpcp")),
    Subject("p-fp-fmlp+", "global", partial(partitioned_global, protocol="fmlp+"), Semantics("fmlp+")),
    Subject("p-fp-fmlp+", "suspension", partial(partitioned_suspension, protocol="fmlp+"), Semantics("fmlp+")),
    Subject("p-fp-fmlp+-lp", "global", partial(partitioned_global, protocol="fmlp+"), Semantics("fmlp+")),
    Subject("p-fp-fmlp+-lp", "suspension", partial(partitioned_suspension, protocol="fmlp+"), Semantics("fmlp+")),
    Subject("p-fp-mpcp-lp", "global", partial(partitioned_global, protocol="mpcp"), Semantics("mpcp")),
    Subject("p-fp-mpcp-lp", "suspension", partial(partitioned_suspension, protocol="mpcp"), Semantics("mpcp")),
    Subject("p-fp-dpcp-lp", "agents", partial(partitioned_distributed, protocol="dpcp"), Semantics("dpcp")),
    Subject("p-fp-dflp-lp", "agents", partial(partitioned_distributed, protocol="dflp"), Semantics("dflp")),
    # issue 35 (families_global.py): a sleeping task above a task with several boosted sections (class 1),
    # deadlines beyond the period with jobs pending (class 2), a lower task's sections on a third CPU's resource
    *(Subject(t, "sleep-over-boosts", partial(sleep_over_boosts, protocol=p), Semantics(p)) for t, p in _PFP_LOCKING),
    *(Subject(t, "pending-jobs", partial(pending_jobs, protocol=p), Semantics(p)) for t, p in _PFP_LOCKING),
    *(Subject(t, "three-cpus", partial(three_cpus, protocol=p, deadlines="arbitrary"), Semantics(p))
      for t, p in _PFP_LOCKING if p == "mpcp"),
    # The global tests refuse deadlines beyond the period (issue 22 defect 2): only constrained families.
    Subject("gedf-gfb", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-bcl", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-rta", "constrained", global_multi),
    Subject("gedf-rta", "suspension", partial(global_multi, sleep=True)),
    Subject("gedf-tardiness", "implicit", partial(global_multi, deadlines="implicit", u_range=(1.5, 2.0)),
            check_deadlines=False),
    Subject("gfp-rta", "constrained", partial(global_multi, scheduler="G-FP")),
    Subject("gfp-rta", "suspension", partial(global_multi, scheduler="G-FP", sleep=True)),
    # issue 22 item 5: the G-EDF and G-FP tests researchers expect (suspension-oblivious, like the ones above)
    Subject("gedf-baker", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-baruah", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-ffdbf", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-bcl-iterative", "constrained", partial(global_multi, sleep=True)),
    Subject("gedf-tardiness-lambda", "implicit", partial(global_multi, deadlines="implicit", u_range=(1.0, 2.0)),
            check_deadlines=False),
    Subject("gedf-np-tardiness", "np-2cpus", np_gedf, check_deadlines=False),
    Subject("gedf-np-tardiness", "np-3cpus", partial(np_gedf, cpus=3), check_deadlines=False),
    Subject("gfp-guan", "constrained", partial(global_multi, scheduler="G-FP", sleep=True)),
    Subject("picv-rpc", "clients", rpc_clients),
    # issue 35, classes 3-5 (families_nesting): nested sections of mixed protocols, repeated requests, repeated calls
    Subject("fp-rta", "nested-mixed", nested_mixed, patterns=blocking_chains),
    Subject("fp-rta", "repeated-requests", repeated_requests, patterns=blocking_chains),
    Subject("fp-rta-pip", "repeated-requests", partial(repeated_requests, protocols=("pip",)), patterns=blocking_chains),
    Subject("picv-rpc", "repeated-calls", repeated_calls, patterns=blocking_chains),
    Subject("prm-fp", "exact", partial(_uni, resources=0, u_range=(0.2, 0.6)), options=_prm_options("exact"),
            supply=True),
    Subject("prm-fp", "linear", partial(_uni, resources=0, u_range=(0.2, 0.6)), options=_prm_options("linear"),
            supply=True),
    Subject("prm-edf", "exact", partial(_edf, resources=0, deadlines="implicit", u_range=(0.2, 0.6)),
            options=_prm_options("exact"), supply=True),
)

EXCLUDED: dict[str, str] = {
    "c-fp": "runs gfp-rta on each cluster (checked here as gfp-rta); the explorer has no clusters of CPUs yet",
    "c-edf": "runs the G-EDF tests on each cluster (checked here as gedf-*); the explorer has no clusters of CPUs "
             "yet",
    "p-fp-msrp": "MSRP spin locks (non-preemptive FIFO spinning) exist in neither rtsched's runtime nor the "
                 "explorer; the test reduces to fp-rta with np sections (checked as fp-rta/locks) plus the spin terms",
}


def subject(ident: str) -> Subject:
    for s in SUBJECTS:
        if s.id == ident:
            return s
    raise KeyError(f"unknown subject {ident!r}; known: {', '.join(s.id for s in SUBJECTS)}")
