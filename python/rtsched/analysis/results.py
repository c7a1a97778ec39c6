"""Result objects of every analysis: returned, never written onto tasks (STYLE 23).

A test returns an :class:`AnalysisResult`: the overall verdict, one
:class:`TaskBound` per task, the reason in words and the test's name. Bounds
are exact integers of nanoseconds (rounded up where the analysis yields a
``Fraction``), or None when the test gives no bound for that task.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Literal

if TYPE_CHECKING:
    from rtsched.analysis.tasks import AnalysisProblem

__all__ = ["LABELS", "STOPPED", "SCHEDULABLE", "NOT_SCHEDULABLE", "UNSUPPORTED", "UNDECIDED", "TaskBound", "AnalysisResult",
           "DeferredResult", "ChainBound"]

Verdict = Literal["schedulable", "not schedulable", "unsupported", "unknown"]
TaskVerdict = Literal["ok", "miss", "unknown"]
Label = Literal["exact", "sufficient", "necessary"]
#: What a verdict guarantees (see AnalysisResult).
LABELS: tuple[str, ...] = ("exact", "sufficient", "necessary")

SCHEDULABLE: Verdict = "schedulable"
NOT_SCHEDULABLE: Verdict = "not schedulable"
UNSUPPORTED: Verdict = "unsupported"
#: The reason of a task a test left out under ``verdict_only`` (the verdict was decided before it).
STOPPED = "not analysed: verdict_only stopped at the first task not shown schedulable"
#: The test applies but gave up before deciding (a step budget); the reason says where it stopped.
UNDECIDED: Verdict = "unknown"


@dataclass(frozen=True, slots=True)
class TaskBound:
    """One task's outcome.

    ``bound_ns``: the worst-case response-time bound (release to completion)
    the test proves, or None. ``verdict``: ``ok`` (bound ≤ deadline, or the
    deadline is proven met), ``miss`` (the test cannot show the deadline is
    met: an exact test says it can be missed, a sufficient one only that it
    failed), ``unknown`` (the test does not apply to this task).
    ``blocking_ns``: the blocking term used, when the test has one.
    """

    name: str
    bound_ns: int | None
    verdict: TaskVerdict
    reason: str = ""
    blocking_ns: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bound_ns": self.bound_ns,
            "verdict": self.verdict,
            "reason": self.reason,
            "blocking_ns": self.blocking_ns,
        }


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """What a test concluded about a task set.

    ``verdict`` is ``schedulable`` only when every task's deadline is proven
    met; ``not schedulable`` when the test fails (for a sufficient test this
    means "not shown schedulable"); ``unsupported`` when the test does not
    apply to the set (then the reason says why and bounds are None);
    ``unknown`` when it applies but gave up before deciding (a step
    budget; the reason says where), never a silent "schedulable".
    ``exact`` tells whether the test is exact (necessary and sufficient) for
    the model it assumes; ``label`` says the same in words for what the
    verdict guarantees: ``exact`` (both answers are certain), ``sufficient``
    (a "schedulable" is proven, a "not schedulable" only means "not shown"),
    ``necessary`` (a "not schedulable" is proven, a "schedulable" only means
    "not ruled out"). Default: ``exact`` or ``sufficient`` from ``exact``.
    ``details`` holds test-specific exact figures
    (Fractions, ints) such as the utilization or a minimum budget.
    """

    test: str
    verdict: Verdict
    tasks: tuple[TaskBound, ...]
    reason: str = ""
    exact: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    label: Label = ""  # type: ignore[assignment]  # filled from ``exact`` when not given

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", "exact" if self.exact else "sufficient")
        elif self.label not in LABELS:
            raise ValueError(f"label must be one of {', '.join(LABELS)}, not {self.label!r}")
        elif (self.label == "exact") != self.exact:
            raise ValueError(f"label {self.label!r} contradicts exact={self.exact}")

    @property
    def schedulable(self) -> bool:
        return self.verdict == SCHEDULABLE

    def bound(self, name: str) -> int | None:
        return self.task(name).bound_ns

    def task(self, name: str) -> TaskBound:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    def bounds(self) -> dict[str, int | None]:
        return {t.name: t.bound_ns for t in self.tasks}

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "verdict": self.verdict,
            "exact": self.exact,
            "label": self.label,
            "reason": self.reason,
            "tasks": [t.to_dict() for t in self.tasks],
            "details": {k: _jsonable(v) for k, v in self.details.items()},
        }


#: The fields a DeferredResult computes on first read (all but ``test`` and ``verdict``).
_DEFERRED = ("tasks", "reason", "exact", "details", "label")
#: AnalysisResult's own storage of each field (its slots), which DeferredResult's properties fill.
_SLOTS = {name: AnalysisResult.__dict__[name] for name in _DEFERRED}


class KernelMismatch(RuntimeError):
    """A native kernel's verdict or bounds differ from the Python test's: a defect, never a result."""


def _deferred(name: str) -> property:
    slot = _SLOTS[name]

    def get(self: DeferredResult) -> Any:
        try:
            return slot.__get__(self, DeferredResult)
        except AttributeError:  # not filled yet
            self._complete_now()
            return slot.__get__(self, DeferredResult)

    def put(self: DeferredResult, value: Any) -> None:  # AnalysisResult.__init__ (dataclasses.replace)
        slot.__set__(self, value)

    return property(get, put, doc=f"AnalysisResult.{name}, computed on first read")


class DeferredResult(AnalysisResult):
    """An AnalysisResult whose verdict a native kernel decided (``native_engine``) and whose
    other fields are computed on first read by ``complete`` (the pure-Python test, or the
    Python test's own result builder over the kernel's outputs): a caller that reads only
    ``verdict`` / ``schedulable`` (a sweep, a benchmark) pays for no per-task object and no
    formatted reason; one that reads anything else gets exactly the Python test's result,
    field for field.

    Invariant (checked when completing): the Python test's verdict is this verdict and its
    per-task bounds are ``bounds()`` (the kernel's); a difference raises KernelMismatch.
    It compares equal to, and prints and pickles as, the plain AnalysisResult it completes to.
    """

    __slots__ = ("_complete", "_bounds")
    _complete: Callable[[], AnalysisResult]
    _bounds: Callable[[], list[int | None]]
    tasks = _deferred("tasks")
    reason = _deferred("reason")
    exact = _deferred("exact")
    details = _deferred("details")
    label = _deferred("label")

    @classmethod
    def of(cls, test: str, verdict: Verdict, complete: Callable[[], AnalysisResult],
           bounds: Callable[[], list[int | None]]) -> DeferredResult:
        """The result of ``test`` with ``verdict``; ``complete``: the Python test on the same set;
        ``bounds``: the kernel's per-task bounds, in task order. (AnalysisResult's own constructor,
        which ``dataclasses.replace`` calls, still builds a complete one.)"""
        self = object.__new__(cls)
        object.__setattr__(self, "test", test)
        object.__setattr__(self, "verdict", verdict)
        object.__setattr__(self, "_complete", complete)
        object.__setattr__(self, "_bounds", bounds)
        return self

    def _complete_now(self) -> None:
        full = self._complete()
        kernel = self._bounds()
        python = [t.bound_ns for t in full.tasks]
        if full.verdict != self.verdict or full.test != self.test or python != kernel:
            raise KernelMismatch(f"{self.test}: the native kernel says {self.verdict} with bounds {kernel}, "
                                 f"the Python test {full.verdict} with bounds {python}")
        for name in _DEFERRED:
            _SLOTS[name].__set__(self, getattr(full, name))

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(AnalysisResult))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AnalysisResult):
            return self._fields() == tuple(getattr(other, f.name) for f in fields(AnalysisResult))
        return NotImplemented

    __hash__ = AnalysisResult.__hash__

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(AnalysisResult) if f.repr)
        return f"AnalysisResult({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return AnalysisResult, self._fields()


@dataclass(frozen=True, slots=True)
class ChainBound:
    """One cause-effect chain's end-to-end bounds (``rtsched.analysis.chains``, docs/chains.md).

    ``reaction_ns``: the longest time from a cause (a change of the first task's input) to the
    completion of the first job of the last task whose output reflects it; ``data_age_ns``: the
    longest time from the read (start) of the first task's job to the completion of a last-task
    job whose output derives from it; None with the reason in ``reaction_reason`` /
    ``data_age_reason``. ``davare_ns``: the classic sum of (longest release gap + response bound)
    over the chain's tasks (Davare et al. 2007), for comparison; None where it does not apply.
    ``links``: each link's kind (``register`` or ``event``)."""

    name: str
    links: tuple[str, ...]
    reaction_ns: int | None
    data_age_ns: int | None
    reaction_reason: str = ""
    data_age_reason: str = ""
    davare_ns: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "links": list(self.links), "reaction_bound_ns": self.reaction_ns,
                "data_age_bound_ns": self.data_age_ns, "reaction_reason": self.reaction_reason,
                "data_age_reason": self.data_age_reason, "davare_bound_ns": self.davare_ns}


def _jsonable(value: Any) -> Any:
    from fractions import Fraction

    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def verdict_of(tasks: tuple[TaskBound, ...] | list[TaskBound]) -> Verdict:
    """``schedulable`` when every task is ``ok``; ``unsupported`` when none was analysed."""
    if tasks and all(t.verdict == "ok" for t in tasks):
        return SCHEDULABLE
    if tasks and all(t.verdict == "unknown" for t in tasks):
        return UNSUPPORTED
    return NOT_SCHEDULABLE


def unsupported(test: str, names: list[str] | tuple[str, ...], reason: str) -> AnalysisResult:
    """A result with no bounds, saying why the test does not apply."""
    return AnalysisResult(
        test=test,
        verdict=UNSUPPORTED,
        tasks=tuple(TaskBound(n, None, "unknown", reason) for n in names),
        reason=reason,
    )


def refuse_clusters(test: str, problem: AnalysisProblem) -> AnalysisResult | None:
    """``unsupported`` when a partition of ``problem`` has several CPUs (a cluster), else None.

    The uniprocessor and partitioned tests assume one processor per
    partition; a cluster's tasks are scheduled globally inside it, which
    ``c-fp`` / ``c-edf`` analyse (issue 13: a two-CPU partition was analysed
    as one processor and the verdict labelled exact).
    """
    clusters = problem.clusters()
    if not clusters:
        return None
    part, n = sorted(clusters.items())[0]
    policy = "c-edf" if problem.is_edf else "c-fp"
    return unsupported(test, problem.names(),
                       f"partition {part} has {n} CPUs: its tasks are scheduled globally inside it "
                       f"({policy.upper()}), and {test} assumes one processor per partition; use {policy}")
