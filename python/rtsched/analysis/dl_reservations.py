"""Bounds of tasks whose SCHED_DEADLINE reservation is not their jobs' (``dl_deadline``, ``dl_period``).

The kernel runs such a thread as a hard constant-bandwidth server of runtime Q, deadline D and
period P (rt-app's ``dl-runtime``, ``dl-deadline``, ``dl-period``), whatever its jobs' own period and
deadline. So the flat tests see the *server* in the task's place (``from_taskset``: WCET Q, deadline
D, period P): that is what the thread may take from the others, and how EDF orders it. A test that
shows the server meets its deadlines shows it delivers Q in each of its windows, D after the
window's start at the latest; the thread then receives at least the supply of a periodic resource
(Shin & Lee 2003) of period P, budget Q and deadline D, whose longest gap without supply is
P + D - 2Q (one window's budget at its start, the next one's at its deadline). A job of C that
is alone in the server completes within

    R(C) = (P + D - 2Q) + C + (ceil(C / Q) - 1) (P - Q)

of its release. The kernel's wake-up rule keeps that: a thread that wakes with its old deadline
keeps at most its density of the time left (the revised CBS rule), so its job ends by
now + P + D - 2Q + C at the latest; one that gets a new deadline has Q by now + D.

Only for a job alone in the server: a self-paced task (its next job is released when the last
ends), an event task that loses activations while busy, or a timer-released one whose R(C) is
within its period. Sleeps, critical sections, condition waits and calls make the job's supply
depend on others: no bound then, with the reason.
"""

from __future__ import annotations

from rtsched.analysis.results import AnalysisResult, TaskBound, TaskVerdict, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, ReservedJobs, ceil_div
from rtsched.model.durations import format_duration

__all__ = ["job_response_ns", "with_job_bounds"]


def job_response_ns(wcet_ns: int, runtime_ns: int, deadline_ns: int, period_ns: int) -> int:
    """R(C) above: the latest completion of a job of ``wcet_ns`` alone in the reservation."""
    windows = max(1, ceil_div(wcet_ns, runtime_ns))
    return (period_ns + deadline_ns - 2 * runtime_ns) + wcet_ns + (windows - 1) * (period_ns - runtime_ns)


def _reservation(jobs: ReservedJobs) -> str:
    fd = format_duration
    return (f"its SCHED_DEADLINE reservation (runtime {fd(jobs.runtime_ns)}, deadline {fd(jobs.deadline_ns)}, "
            f"period {fd(jobs.period_ns)})")


def _job_bound(server: TaskBound, jobs: ReservedJobs) -> TaskBound:
    """The task's bound from its server's: R(C) when the server is shown to meet its deadline."""
    name = server.name
    fd = format_duration
    if jobs.why_not:
        return TaskBound(name, None, "unknown", jobs.why_not)
    if server.verdict != "ok" or server.bound_ns is None or server.bound_ns > jobs.deadline_ns:
        why = server.reason or "the test does not show it meets its deadline"
        return TaskBound(name, None, "unknown" if server.verdict == "unknown" else "miss",
                         f"{_reservation(jobs)} is not shown to meet its deadlines: {why}")
    bound = job_response_ns(jobs.wcet_ns, jobs.runtime_ns, jobs.deadline_ns, jobs.period_ns)
    if not jobs.alone and bound > jobs.job_period_ns:
        return TaskBound(name, None, "miss",
                         f"a job may still run at its next release ({fd(bound)} in {_reservation(jobs)}, "
                         f"period {fd(jobs.job_period_ns)}): jobs queued in a reservation are not bounded here")
    verdict: TaskVerdict = "ok" if bound <= jobs.job_deadline_ns else "miss"
    return TaskBound(name, bound, verdict,
                     f"in {_reservation(jobs)}, shown to meet its deadlines: a job of {fd(jobs.wcet_ns)} ends "
                     f"within the longest gap of its supply "
                     f"({fd(jobs.period_ns + jobs.deadline_ns - 2 * jobs.runtime_ns)}) and its windows",
                     server.blocking_ns)


def with_job_bounds(problem: AnalysisProblem, result: AnalysisResult) -> AnalysisResult:
    """``result`` with each reserved task's bound (its server's, as the test gave it) made its jobs'."""
    if not problem.dl_reservations:
        return result
    tasks = tuple(_job_bound(b, problem.dl_reservations[b.name]) if b.name in problem.dl_reservations else b
                  for b in result.tasks)
    verdict = result.verdict if result.verdict == "unsupported" else verdict_of(tasks)
    return AnalysisResult(test=result.test, verdict=verdict, tasks=tasks, reason=result.reason, exact=False,
                          details=result.details)
