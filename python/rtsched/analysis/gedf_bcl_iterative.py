"""Global EDF: the iterative slack-based BCL test (Bertogna, Cirinei & Lipari).

M. Bertogna, M. Cirinei, "Response-time analysis for globally scheduled
symmetric multiprocessor platforms", RTSS 2007, and M. Bertogna, M.
Cirinei, G. Lipari, "Schedulability analysis of global scheduling
algorithms on multiprocessor platforms", IEEE TPDS 20(4), 2009 (the
slack iteration for EDF, Eq. 17–18). Constrained deadlines, integer time,
independent tasks, suspension-oblivious (the checks of ``gedf``).

A slack S_i says every job of τ_i finishes at least S_i before its
deadline. In τ_k's window [r_k, d_k) the jobs of τ_i that EDF lets run
ahead of τ_k's job have deadlines ≤ d_k; with the last at d_k there are
N_i = ⌊(D_k − D_i)/T_i⌋ + 1 whole jobs and a carried-in one that ends by its
deadline minus S_i:

    J_i^k(S_i) = N_i·C_i + min(C_i, max(0, D_k − N_i·T_i − S_i))

and the slack of τ_k is at least (integer time)

    S_k = D_k − C_k − ⌊(1/m)·Σ_{i≠k} min(J_i^k, D_k − C_k + 1)⌋.

Why: let x = D_k − S_k. If τ_k's job were unfinished at r_k + x (x ≤ D_k when
S_k ≥ 0) it ran at most C_k − 1 ticks, so in L = x − C_k + 1 ticks of [r_k, r_k + x)
all m processors ran other jobs, each task at most min(J_i^k, L) of them:
m·L ≤ Σ min(J_i^k, D_k − C_k + 1), i.e. L ≤ x − C_k, a contradiction.

Slacks start at 0 (every deadline met, the first-miss assumption) and only
grow: each round recomputes every S_k from the others' current slacks,
keeping the larger value; the rounds stop when nothing grows. The set is
schedulable when every S_k ≥ 0; the bound reported is D_k − S_k. A task
with S_k < 0 makes the others' slacks (which assumed its deadlines met)
unproven: they are reported ``unknown``.

With every S_i = 0 the condition S_k ≥ 0 is implied by the one-shot BCL
condition of ``gedf-bcl`` (if Σ min(J, D − C) < m(D − C), fewer than m terms
reach D − C + 1, so Σ min(J, D − C + 1) < m(D − C + 1)), and slacks only
grow: every set ``gedf-bcl`` accepts, this test accepts.
"""

from __future__ import annotations

from typing import Sequence

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.results import AnalysisResult, TaskBound
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["gedf_bcl_iterative", "bcl_slack", "MAX_ROUNDS"]

#: Rounds before the iteration stops where it is (every slack kept is still a valid lower bound).
MAX_ROUNDS = 1_000


#: The other tasks' parts of J_i^k for one τ_k that do not depend on the slacks: (i, N_i·C_i, C_i,
#: D_k − N_i·T_i), so that J_i^k(S_i) = N_i·C_i + min(C_i, max(0, D_k − N_i·T_i − S_i)).
Carried = list[tuple[int, int, int, int]]


def _carried_row(tasks: Sequence[AnalysisTask], k: int) -> Carried:
    dk = tasks[k].deadline_ns
    row = []
    for i, ti in enumerate(tasks):
        if i == k:
            continue
        n = (dk - ti.deadline_ns) // ti.period_ns + 1 if dk >= ti.deadline_ns else 0
        row.append((i, n * ti.exec_ns, ti.exec_ns, dk - n * ti.period_ns))
    return row


def _slack_from(tk: AnalysisTask, row: Carried, slack: Sequence[int], m: int) -> int:
    if tk.exec_ns > tk.deadline_ns:
        return tk.deadline_ns - tk.exec_ns  # its own demand misses (the caps below would turn negative)
    room = tk.deadline_ns - tk.exec_ns + 1
    total = 0
    for i, base, c_i, gap in row:
        rest = gap - slack[i]
        work = base + (c_i if rest >= c_i else rest if rest > 0 else 0)
        total += work if work < room else room
    return tk.deadline_ns - tk.exec_ns - total // m


def bcl_slack(tasks: Sequence[AnalysisTask], k: int, slack: Sequence[int], m: int) -> int:
    """S_k from the others' slacks (negative: τ_k not shown schedulable)."""
    return _slack_from(tasks[k], _carried_row(tasks, k), slack, m)


def gedf_bcl_iterative(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    """``verdict_only``: stop after the first round in which every slack is non-negative (slacks
    only grow, so the verdict is the one the full iteration reaches; the bounds D − S are that
    round's, valid but not always the least)."""
    test = "gedf-bcl-iterative"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    tasks = problem.tasks
    carried = [_carried_row(tasks, k) for k in range(len(tasks))]  # fixed over the rounds
    slack = [0] * len(tasks)
    last = [0] * len(tasks)
    rounds = 0
    changed = True
    while changed and rounds < MAX_ROUNDS:
        rounds += 1
        changed = False
        for k in range(len(tasks)):
            new = _slack_from(tasks[k], carried[k], slack, m)
            last[k] = new
            if new > slack[k]:
                slack[k] = new
                changed = True
        if verdict_only and min(last, default=0) >= 0:
            break
    # slacks only grow, so the last round's value is each task's best; negative: not shown
    failed = [t.name for k, t in enumerate(tasks) if last[k] < 0]
    out = []
    for k, t in enumerate(tasks):
        if t.name in failed:
            out.append(TaskBound(t.name, None, "miss", f"slack {last[k]} ns < 0 after {rounds} round(s)"))
        elif failed:
            out.append(TaskBound(t.name, None, "unknown",
                                 "its slack assumed every other task meets its deadlines, not shown"))
        else:
            out.append(TaskBound(t.name, t.deadline_ns - slack[k], "ok",
                                 f"slack {slack[k]} ns after {rounds} round(s); bound = D − slack"))
    return _finish(problem, test, out, False, "every slack is non-negative", {"rounds": rounds})
