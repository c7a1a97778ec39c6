"""PIP blocking (prefix matcher over subsets of resources) against a brute-force reference."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.analysis import AnalysisTask, CriticalSection
from rtsched.analysis.blocking import blocking_context, blocking_term, ceilings, pip_blocking
from rtsched.analysis.matching import PrefixMatcher

FEW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def section_sets(draw):
    """Up to 6 tasks with distinct or equal priorities, up to 4 resources, some nested sections."""
    n = draw(st.integers(1, 6))
    tasks = []
    for i in range(n):
        sections = []
        for _ in range(draw(st.integers(0, 3))):
            r = draw(st.sampled_from(["a", "b", "c", "d"]))
            nested = draw(st.sampled_from([(), (), (), ("d",)])) if r != "d" else ()
            sections.append(CriticalSection(r, draw(st.integers(0, 9)), nested))
        tasks.append(AnalysisTask(f"t{i}", 10, 100, 100, priority=draw(st.integers(1, 5)),
                                  critical_sections=tuple(sections)))
    return tuple(tasks)


def _brute_force(edges: dict, caps: dict | None = None) -> int:
    """The heaviest set of edges with no left used twice and no right more than its cap (default 1),
    by trying every subset."""
    caps = caps or {}
    best = 0
    items = list(edges.items())
    for size in range(len(items) + 1):
        for pick in itertools.combinations(items, size):
            lefts = [a for (a, _), _ in pick]
            rights = [b for (_, b), _ in pick]
            if len(set(lefts)) == size and all(rights.count(b) <= caps.get(b, 1) for b in set(rights)):
                best = max(best, sum(w for _, w in pick))
    return best


def _reference(task: AnalysisTask, tasks, direct_only: bool, jobs: int | None = None) -> int:
    """PIP as the definition reads: sections of lower tasks that can block, one per task, and per resource
    as many as it can block: min(its lower users, the requests of it by ``jobs`` jobs of the task; any
    number when ``jobs`` is None or, push-through, when another task of priority ≥ the task's locks it)."""
    ceil = ceilings(tasks)
    own = task.resources()
    can = []
    for j in tasks:
        if j.priority >= task.priority:
            continue
        for cs in j.critical_sections:
            if not cs.outermost:
                continue
            if direct_only:
                ok = cs.resource in own or bool(set(cs.nested) & own)
            else:
                ok = max([ceil.get(cs.resource, 0)] + [ceil.get(r, 0) for r in cs.nested]) >= task.priority
            if ok:
                can.append((j.name, cs))
    if any(cs.nested for _, cs in can):
        per_task: dict[str, int] = {}
        for name, cs in can:
            per_task[name] = max(per_task.get(name, 0), cs.length_ns)
        return sum(per_task.values())
    edges: dict = {}
    for name, cs in can:
        if cs.length_ns > 0:
            edges[name, cs.resource] = max(edges.get((name, cs.resource), 0), cs.length_ns)
    caps = {}
    for r in {b for _, b in edges}:
        users = len({a for a, b in edges if b == r})
        higher = any(j is not task and j.priority >= task.priority and r in j.resources() for j in tasks)
        unbounded = jobs is None or (higher and not direct_only)
        caps[r] = users if unbounded else max(1, min(users, jobs * task.requests(r)))
    return _brute_force(edges, caps)


def _check_detail(reason: str, value: int, tasks) -> None:
    """The matching named in the reason is a matching and weighs the value."""
    if "matching: " not in reason:
        return
    pairs = [p.split("/") for p in reason.split("matching: ")[1].rstrip(")").split(", ")]
    assert len({j for j, _ in pairs}) == len(pairs)
    if "per request" not in reason:
        assert len({r for _, r in pairs}) == len(pairs)
    by_name = {t.name: t for t in tasks}
    assert sum(by_name[j].max_cs(r) for j, r in pairs) == value


@FEW
@given(section_sets(), st.sampled_from(["pip", "none"]))
def test_pip_blocking_equals_brute_force(tasks, protocol):
    ctx = blocking_context(tasks, lambda r: protocol)  # shared by every task, as rta_tasks does
    for task in tasks:
        for jobs in (None, 1):
            ref = _reference(task, tasks, direct_only=protocol == "none", jobs=jobs)
            b = pip_blocking(task, tasks, direct_only=protocol == "none", jobs=jobs)
            assert b.ns == ref
            _check_detail(b.reason, b.ns, tasks)
            if protocol == "pip":
                assert blocking_term(task, tasks, lambda r: "pip", ctx=ctx, jobs=jobs).ns == ref


@FEW
@given(st.integers(1, 5), st.lists(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 20)), max_size=3),
                                   max_size=6), st.data())
def test_prefix_matcher_equals_brute_force(n_rights, lefts, data):
    lefts = [(f"L{i}", list({r % n_rights: w for r, w in es}.items())) for i, es in enumerate(lefts)]
    widths = data.draw(st.lists(st.integers(0, n_rights), min_size=len(lefts), max_size=len(lefts)))
    rights = [f"R{r}" for r in range(n_rights)]
    for matcher in (PrefixMatcher(lefts, rights), PrefixMatcher(lefts, rights, widths),
                    PrefixMatcher(lefts, rights, dp_rights=0)):
        for k in range(len(lefts) + 1):
            for mask in range(1 << n_rights):
                edges = {(a, rights[r]): w for a, es in lefts[:k] for r, w in es if mask >> r & 1}
                total, chosen = matcher.solve(k, mask)
                assert total == _brute_force(edges)
                assert sum(edges[e] for e in chosen) == total
                assert len({a for a, _ in chosen}) == len(chosen) == len({b for _, b in chosen})
