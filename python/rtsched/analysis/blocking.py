"""Blocking terms on one processor under fixed priorities.

For a task τ_i among the tasks sharing its processor, the longest time τ_i
can wait for lower-priority tasks (priority inversion), by the protocol of
each resource:

- ``pip`` (Sha, Rajkumar, Lehoczky 1990, priority inheritance): a job is
  blocked at most once by each lower-priority job and at most once per
  resource (for non-nested sections), on the resources whose ceiling is at
  least its priority (direct or push-through blocking). The bound is the
  heaviest choice of sections satisfying both rules: a maximum-weight
  bipartite matching (lower tasks × resources), exact, no larger than the
  textbook min(Σ per task, Σ per resource). With nested sections the
  per-task rule alone is used (Σ over lower tasks of their longest
  section that can block).
  *Once per resource* holds only for one request (issue 35): a PI mutex is
  handed to its most urgent waiter at unlock (the kernel's rt_mutex,
  rtsched's simulator), so a lower job that waits for the resource when a
  higher one releases it owns it at once and blocks the next request of it.
  Each request by a job of priority ≥ p_i is blocked by at most one lower
  section (it is the most urgent waiter from then on), and each lower job at
  most once, so a resource blocks at most min(its lower users, the requests)
  times: the matching gives the resource that capacity. The requests counted
  are τ_i's own for ``jobs`` jobs, and any number when another task of
  priority ≥ p_i locks it (its jobs in the window are not counted here).
- ``pcp`` (Sha et al. 1990), ``srp`` (Baker 1991) and ``ipcp`` (immediate
  ceiling): at most one section, the longest section of a lower-priority
  task on a resource whose ceiling is ≥ the priority of τ_i, at any depth:
  one nested inside a ``none`` or ``pip`` section blocks as well (the holder
  runs at the inner ceiling, or inherits, for the inner section; issue 35).
- ``np`` (non-preemptive sections): the longest section of any lower-priority task on an ``np``
  resource, at any depth: one nested inside a section under another protocol blocks every task as
  well (the holder is not preempted from its lock to its unlock).
- ``fifo`` (the FIFO mutex, no inheritance; ``fifo_blocking``): no term when no task of
  priority ≥ τ_i's shares a FIFO resource with a task below τ_i; otherwise no bound.
- ``none`` (plain mutex, no inheritance): only direct blocking on the
  resources τ_i locks, once per lower task and per request of τ_i like PIP; and
  **unbounded** when a task of priority strictly between the holder and
  τ_i exists (the classic unbounded priority inversion), or one of the
  holder's own priority when the holder may suspend (it may sleep inside
  its section; the other then runs and keeps the processor).

Mixed protocols on one processor: the terms of each family are added (a
safe composition assumed by rtsched, not a published result). Every family
reads the sections under its protocols at any depth: an inner ``pip``
section of an outer ``none`` one is a ``pip`` section (its holder inherits
for it alone), an inner ceiling section a ceiling section.

The ceiling of a resource is the highest priority of the tasks (on this
processor) that lock it. Tasks of equal priority are not "lower": the
response-time analysis counts them as interference.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Callable, Sequence

from rtsched.analysis.fifo_blocking import fifo_problem
from rtsched.analysis.matching import PrefixMatcher, max_weight_capacitated
from rtsched.analysis.tasks import AnalysisTask
from rtsched.model.model import LOCAL_PROTOCOLS

_UNIPROCESSOR = frozenset({"pip", "none", "np", "fifo"}) | LOCAL_PROTOCOLS

__all__ = ["Blocking", "ceilings", "blocking_term", "blocking_context", "pip_blocking", "ceiling_blocking", "np_blocking"]


@dataclass(frozen=True, slots=True)
class Blocking:
    """A blocking term: ``ns`` (None: unbounded) and how it was obtained."""

    ns: int | None
    reason: str


_NO_BLOCKING = Blocking(0, "no lower-priority section can block")

#: A section (at any depth): (owner priority, owner name, resource, length ns, section ceiling, protocol,
#: nested resources).
_Section = tuple[int, str, str, int, int, str, tuple[str, ...]]


def ceilings(tasks: Sequence[AnalysisTask]) -> dict[str, int]:
    """Resource → the highest priority among the tasks that lock it."""
    out: dict[str, int] = {}
    for t in tasks:
        for r in t.resources():
            if r not in out or t.priority > out[r]:
                out[r] = t.priority
    return out


class _Context:
    """The sections of one processor's tasks, indexed once for every task's blocking term."""

    __slots__ = ("ceil", "sections", "protos", "resources", "ceiling_sections", "_families", "foreign",
                 "pip_only", "priorities", "_pip_terms", "np_sections", "requests", "user_prios", "shared")

    def __init__(self, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str] | None,
                 ceil: dict[str, int] | None = None):
        resources: dict[str, frozenset[str]] = {}
        priorities: dict[str, int] = {}
        self.resources = resources
        self.priorities = priorities
        self._pip_terms: dict[str, Blocking] | None = None
        computed: dict[str, int] = {}  # the ceilings when none are given
        proto_of: dict[str, str] = {}
        for t in tasks:
            p = priorities[t.name] = t.priority
            rs = resources[t.name] = t.resources()
            for r in rs:
                if computed.get(r, p) <= p:
                    computed[r] = p
                if protocol_of is not None and r not in proto_of:
                    proto_of[r] = protocol_of(r)
        self.ceil = ceil = computed if ceil is None else ceil
        # (owner priority, owner name, resource, length, section ceiling, protocol, nested resources)
        sections: list[_Section] = []
        self.sections = sections
        # resource → task → its requests per job (sections at any depth), for the pip and none terms
        requests: dict[str, dict[str, int]] = {}
        self.requests = requests
        counted = any(p in ("pip", "none") for p in proto_of.values())
        for t in tasks:
            if counted:
                for r in resources[t.name]:  # a resource named only as nested counts as one request
                    requests.setdefault(r, {})[t.name] = max(1, t.requests(r))
            for cs in t.critical_sections:
                c = ceil.get(cs.resource, 0)
                for r in cs.nested:
                    c = max(c, ceil.get(r, 0))
                sections.append((t.priority, t.name, cs.resource, cs.length_ns, c, proto_of.get(cs.resource, ""),
                                 cs.nested))
        # whether a resource may block a task twice: it needs two lower users and a requester above them
        self.shared = any(len(users) > 2 for users in requests.values())
        self.user_prios = {r: sorted(priorities[name] for name in users) for r, users in requests.items()}
        # sections on np resources at any depth, longest first: (owner priority, length, owner, resource)
        self.np_sections = sorted(((t.priority, cs.length_ns, t.name, cs.resource) for t in tasks
                                   for cs in t.critical_sections if proto_of.get(cs.resource) == "np"),
                                  key=lambda s: -s[1])
        # every protocol in use: the sections' and (with protocol_of) every locked resource's
        self.protos = {s[5] for s in sections} | set(proto_of.values())
        # ceiling-protocol sections alone, longest first: (owner priority, ceiling, length, owner, resource)
        self.ceiling_sections = sorted(((s[0], s[4], s[3], s[1], s[2]) for s in sections if s[5] in LOCAL_PROTOCOLS),
                                       key=lambda s: -s[2])
        # a protocol no uniprocessor term covers (the first by name), and whether PIP is the only one
        self.foreign = min(self.protos - _UNIPROCESSOR, default=None)
        self.pip_only = self.protos == {"pip"}
        self._families: dict[tuple[str, bool], _Family] = {}

    def pip_term(self, task: AnalysisTask, jobs: int | None = None) -> Blocking:
        """``blocking_term`` of a task of this processor when PIP is the only protocol and it adds nothing.

        The terms of all the tasks are made in one pass on first use (the same matchings as ``_pip``);
        a task whose requests make some resource block it twice gets ``_pip``'s own.
        """
        caps = _capacities(task, self, self.family("pip", False), None, jobs) if self.shared else None
        b = None
        if not (caps and caps[0]):
            terms = self._pip_terms
            if terms is None:
                terms = self._pip_terms = {}
                fam = self.family("pip", False)
                if not fam.nested:
                    terms.update(_pip_terms(fam, self.priorities))
            b = terms.get(task.name)
        if b is None or self.priorities[task.name] != task.priority:
            b = _pip(task, self, "pip", jobs=jobs, caps=caps)
            b = Blocking(b.ns, f"PIP {b.ns} ns: {b.reason}") if b.ns else _NO_BLOCKING
        return b

    def family(self, protocol: str, direct_only: bool) -> _Family:
        """The sections under ``protocol``, arranged for matching (built on first use)."""
        fam = self._families.get((protocol, direct_only))
        if fam is None:
            fam = self._families[(protocol, direct_only)] = _Family(self, protocol, direct_only)
        return fam


class _Family:
    """The sections under one protocol (at any depth), arranged for every task's PIP-style matching.

    The term of a task of priority p is a matching of the lower-priority tasks (priority < p) into the
    resources that can block it (ceiling ≥ p; ``direct_only``: the ones it locks), edge (j, r) weighing
    j's longest section on r. The owners, by increasing priority, are the left side of one
    ``PrefixMatcher`` (the lower tasks of any task are a prefix of them), the resources its right side
    (the ones that can block are a mask), so each task's exact matching comes from tables built once
    per processor. By ceiling the resources are numbered highest ceiling first: the mask of priority p
    is then the low bits ``(1 << t) - 1`` with t = #{r: ceiling ≥ p}, and an owner of priority q only
    matters for masks of p > q, so below ``1 << #{r: ceiling > q}`` (the matcher's widths).
    Nested sections are not in the matcher: a task that one of them can block gets the per-task rule
    instead (``_pip``). ``memo``: the non-nested terms by (lower owners, mask). ``owner_prios``: per
    resource, the sorted priorities of the owners of its non-nested sections (``_capacities``).
    """

    __slots__ = ("sections", "nested", "prios", "matcher", "bit", "neg_ceils", "direct_only", "memo",
                 "owner_prios", "pairs", "_shared", "_lefts", "_resources", "_best")

    def __init__(self, ctx: _Context, protocol: str, direct_only: bool):
        self.direct_only = direct_only
        self.sections = [s for s in ctx.sections if s[5] == protocol]
        self.nested = [s for s in self.sections if s[6]]
        ceil = ctx.ceil
        resources = sorted({s[2] for s in self.sections}, key=lambda r: (-ceil.get(r, 0), r))
        index = {r: i for i, r in enumerate(resources)}
        self.bit = {r: 1 << i for r, i in index.items()}
        self.neg_ceils = [-ceil.get(r, 0) for r in resources]  # ascending
        longest: dict[str, dict[int, int]] = {}  # owner → resource → its longest (non-nested) section
        prio: dict[str, int] = {}
        for sp, name, res, length, _, _, nest in self.sections:
            if length > 0 and not nest:
                w = longest.get(name)
                if w is None:
                    w = longest[name] = {}
                    prio[name] = sp
                r = index[res]
                if length > w.get(r, 0):
                    w[r] = length
        owners = sorted(longest, key=prio.__getitem__)  # by increasing priority
        self.owner_prios: dict[str, list[int]] = {}
        self._shared: list[tuple[str, int, list[int], list[int], dict[str, int]]] | None = None
        self.pairs: list[tuple[int, str, str, int]] = []  # (owner priority, owner, resource, its longest)
        for name in owners:
            for r, length in longest[name].items():
                self.owner_prios.setdefault(resources[r], []).append(prio[name])
                self.pairs.append((prio[name], name, resources[r], length))
        lefts = [(name, list(longest[name].items())) for name in owners]
        self._lefts, self._resources = lefts, resources
        self._best: list[list[tuple[int, int]]] | None = None
        self.prios = [prio[name] for name in owners]
        widths = None if direct_only else [bisect_left(self.neg_ceils, -sp) for sp in self.prios]
        self.matcher = PrefixMatcher(lefts, resources, widths)
        # (lower owners, mask) for the classic matching; (lower owners, own, capacities) per request
        self.memo: dict[tuple[int, int] | tuple[int, frozenset[str] | None, tuple[tuple[str, int], ...]],
                        Blocking] = {}

    def shared_resources(self, ctx: _Context) -> list[tuple[str, int, list[int], list[int], dict[str, int]]]:
        """(resource, ceiling, its owners' sorted priorities, its users' sorted priorities, requests per user)
        of the resources with two owners or more (the only ones that may block a task twice)."""
        if self._shared is None:
            self._shared = [(r, ctx.ceil.get(r, 0), prios, ctx.user_prios[r], ctx.requests[r])
                            for r, prios in self.owner_prios.items() if len(prios) > 1]
        return self._shared

    def longest_per_owner(self, k: int, t: int) -> tuple[int, list[tuple[str, str]]]:
        """Σ over the ``k`` lowest owners of each one's longest section on the ``t`` highest-ceiling
        resources (the matching when no resource limits the count), and the sections chosen."""
        best = self._best
        if best is None:  # best[j][t]: (length, resource index) of owner j's longest on resources < t
            best = self._best = []
            width = len(self._resources)
            for _, edges in self._lefts:
                row = [(0, -1)] * (width + 1)
                at = dict(edges)
                for x in range(width):
                    w = at.get(x, 0)
                    row[x + 1] = (w, x) if w > row[x][0] else row[x]
                best.append(row)
        total = 0
        chosen = []
        for j in range(k):
            w, x = best[j][t]
            if w:
                total += w
                chosen.append((self._lefts[j][0], self._resources[x]))
        return total, chosen

    def mask(self, prio: int, own: frozenset[str] | None) -> int:
        """The resources that can block a task of priority ``prio``: ceiling ≥ prio, or (direct only) its own."""
        if own is None:
            return (1 << bisect_right(self.neg_ceils, -prio)) - 1
        return sum(self.bit[r] for r in own if r in self.bit)


def _can_block(section: _Section, prio: int, own: frozenset[str] | None) -> bool:
    """Whether a section can block a task of priority ``prio`` (``own``: direct blocking only)."""
    sp, _, res, _, c, _, nest = section
    if sp >= prio:
        return False
    if own is None:
        return c >= prio
    return res in own or not own.isdisjoint(nest)


def _capacities(task: AnalysisTask, ctx: _Context, fam: _Family, own: frozenset[str] | None,
                jobs: int | None) -> tuple[dict[str, int], bool]:
    """The resources that may block ``task`` more than once, with how many times (see the module notes).

    A resource r blocks at most once per lower job and once per request of it by a job of priority
    ≥ p_i: min(its lower users whose section can block, the requests). The requests: ``jobs`` jobs'
    worth of the task's own, or unbounded when ``jobs`` is None or (``own`` None: push-through counts)
    another task of priority ≥ p_i locks r. Empty when every resource blocks at most once (the
    classic matching). The flag: some resource of two lower owners or more blocks fewer times than that.
    """
    prio = task.priority
    name = task.name
    out: dict[str, int] = {}
    limited = False
    for r, ceiling, prios, users, requests in fam.shared_resources(ctx):
        # a non-nested section on r blocks when its owner is lower and (PIP) r's ceiling ≥ p, (none) τ_i locks r
        if (ceiling < prio) if own is None else (r not in own):
            continue
        lower = cap = bisect_left(prios, prio)  # the lower owners
        if cap < 2:
            continue
        if jobs is not None:
            mine = requests.get(name, 0)
            if own is not None or len(users) - bisect_left(users, prio) == (1 if mine else 0):
                cap = min(cap, jobs * mine)  # τ_i's own requests alone (no other user at or above p_i)
        if cap > 1:
            out[r] = cap
        limited = limited or cap < lower
    return out, limited


def _pip(task: AnalysisTask, ctx: _Context, protocol: str, direct_only: bool = False,
         jobs: int | None = None, caps: tuple[dict[str, int], bool] | None = None) -> Blocking:
    """PIP-style term over the sections under ``protocol``: one per lower task, one per resource and request.

    ``direct_only`` (plain mutexes): only the resources the task locks itself, whatever their ceiling.
    ``jobs``: how many of the task's jobs make requests in the window (None: any number); ``caps``:
    ``_capacities`` of these, when already known.
    """
    fam = ctx.family(protocol, direct_only)
    prio = task.priority
    own = (ctx.resources.get(task.name) or task.resources()) if direct_only else None
    if fam.nested and any(_can_block(s, prio, own) for s in fam.nested):
        per_task: dict[str, int] = {}
        for s in fam.sections:
            if s[3] > per_task.get(s[1], 0) and _can_block(s, prio, own):
                per_task[s[1]] = s[3]
        if not per_task:
            return Blocking(0, "no lower-priority section can block")
        return Blocking(sum(per_task.values()), "nested sections: one section per lower-priority task")
    if caps is None:
        caps = _capacities(task, ctx, fam, own, jobs) if ctx.shared else ({}, False)
    times, limited = caps
    k = bisect_left(fam.prios, prio)
    if times and own is None and not limited:  # no resource limits the count: each lower task's longest
        total, chosen = fam.longest_per_owner(k, bisect_right(fam.neg_ceils, -prio))
        return _per_request_term(total, chosen, times)
    if times:
        key = (k, own, tuple(times.items()))
        b = fam.memo.get(key)
        if b is None:
            b = fam.memo[key] = _per_request(fam, ctx.ceil, prio, own, times)
        return b
    mask = fam.mask(prio, own)
    b = fam.memo.get((k, mask))
    if b is None:
        b = fam.memo[(k, mask)] = _matched(*fam.matcher.solve(k, mask))
    return b


def _per_request(fam: _Family, ceil: dict[str, int], prio: int, own: frozenset[str] | None,
                 caps: dict[str, int]) -> Blocking:
    """``_pip``'s matching when resource r may block ``caps[r]`` times (the others once).

    No nested section can block here (``_pip``): the non-nested ones, whose ceiling is their resource's.
    """
    edges = {(j, r): w for sp, j, r, w in fam.pairs
             if sp < prio and ((ceil.get(r, 0) >= prio) if own is None else (r in own))}
    users: dict[str, int] = {}
    for _, r in edges:
        users[r] = users.get(r, 0) + 1
    # a resource that may block as often as it has lower users limits nothing: each lower task takes its
    # longest section on such resources, and the matching on the others weighs what a task gains there
    free = {r for r, n in users.items() if caps.get(r, 1) >= n}
    base: dict[str, tuple[int, str]] = {}
    for (j, r), w in edges.items():
        if r in free and w > base.get(j, (0, ""))[0]:
            base[j] = (w, r)
    gains = {(j, r): w - base[j][0] if j in base else w for (j, r), w in edges.items()
             if r not in free and w > base.get(j, (0, ""))[0]}
    extra, moved = max_weight_capacitated(gains, caps) if gains else (0, [])
    total = sum(w for w, _ in base.values()) + extra
    taken = {j for j, _ in moved}
    return _per_request_term(total, moved + [(j, r) for j, (_, r) in base.items() if j not in taken], caps)


def _per_request_term(total: int, chosen: list[tuple[str, str]], caps: dict[str, int]) -> Blocking:
    if not total:
        return _NO_BLOCKING
    times = ", ".join(f"{r} up to {n}×" for r, n in caps.items())
    detail = ", ".join(f"{j}/{r}" for j, r in chosen)
    return Blocking(total, f"one section per lower task, and per request of a resource ({times}; "
                           f"matching: {detail})")


def _pip_terms(fam: _Family, priorities: dict[str, int]) -> dict[str, Blocking]:
    """Every task's PIP term, as ``blocking_term`` gives it when PIP is the only protocol and adds nothing.

    The same matchings as ``_pip`` (``PrefixMatcher.solve``'s tables, walked back the same way, so the
    same sections are named), in one pass: the terms of all the tasks of a processor, which is where
    the response-time analysis of a set with PIP spends its time (bench/analysis).
    """
    matcher = fam.matcher
    tables, widths, rights = matcher.best, matcher.widths, matcher.rights
    prios, neg_ceils = fam.prios, fam.neg_ceils
    lefts = matcher.lefts
    names: dict[tuple[int, int], str] = {}  # "owner/resource" of the edges named so far
    memo: dict[tuple[int, int], Blocking] = {}
    out: dict[str, Blocking] = {}
    for name, prio in priorities.items():
        k = bisect_left(prios, prio)
        mask = (1 << bisect_right(neg_ceils, -prio)) - 1
        b = memo.get((k, mask))
        if b is None:
            if tables is None or mask >> widths[k]:  # outside the tables: the general matching
                b = _matched(*matcher.solve(k, mask))
                b = Blocking(b.ns, f"PIP {b.ns} ns: {b.reason}") if b.ns else _NO_BLOCKING
            elif not tables[k][mask]:
                b = _NO_BLOCKING
            else:
                parts = []
                for edge in matcher.walk(k, mask):
                    label = names.get(edge)
                    if label is None:
                        label = names[edge] = f"{lefts[edge[0]][0]}/{rights[edge[1]]}"
                    parts.append(label)
                detail = ", ".join(parts)
                b = Blocking(tables[k][mask], f"PIP {tables[k][mask]} ns: one section per lower task and per "
                                              f"resource (matching: {detail})")
            memo[(k, mask)] = b
        out[name] = b
    return out


def _matched(total: int, chosen: Sequence[tuple[str, str]]) -> Blocking:
    """The PIP-style term of a matching of lower tasks × resources."""
    if not total:
        return _NO_BLOCKING
    detail = ", ".join([f"{j}/{r}" for j, r in chosen])
    return Blocking(total, f"one section per lower task and per resource (matching: {detail})")


def _longest(task: AnalysisTask, ctx: _Context, accept: Callable[[str, str], bool],
             need_ceiling: bool) -> tuple[int, str]:
    best = 0
    who = None
    prio = task.priority
    for sp, name, res, length, c, p, _ in ctx.sections:
        if sp < prio and length > best and accept(p, res) and (not need_ceiling or c >= prio):
            best, who = length, (name, res)
    return best, (f"{who[0]}/{who[1]}" if who else "")


def _accept_from(resources: Callable[[str], bool] | None) -> Callable[[str, str], bool]:
    """Which (protocol, resource) pairs a term counts: those of the resources ``resources`` accepts (default: all)."""
    if resources is None:
        return lambda p, r: True
    return lambda p, r: resources(r)


def pip_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                 resources: Callable[[str], bool] | None = None, direct_only: bool = False,
                 jobs: int | None = None) -> Blocking:
    """The PIP bound (matching; per-task sum with nesting) over the resources ``resources`` accepts;
    ``jobs``: the task's jobs whose requests count (None: any number)."""
    accepted = (lambda r: "pip") if resources is None else (lambda r: "pip" if resources(r) else "")
    return _pip(task, _Context(tasks, accepted, ceil), "pip", direct_only, jobs)


def ceiling_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                     resources: Callable[[str], bool] | None = None) -> Blocking:
    """PCP / SRP / immediate ceiling: the longest single lower-priority section with ceiling ≥ priority."""
    best, who = _longest(task, _Context(tasks, None, ceil), _accept_from(resources), True)
    if not best:
        return Blocking(0, "no lower-priority section with a ceiling at or above this priority")
    return Blocking(best, f"one section ({who})")


def np_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask],
                resources: Callable[[str], bool] | None = None) -> Blocking:
    """Non-preemptive sections: the longest section of any lower-priority task."""
    best, who = _longest(task, _Context(tasks, None), _accept_from(resources), False)
    if not best:
        return Blocking(0, "no lower-priority section")
    return Blocking(best, f"one non-preemptive section ({who})")


def _unbounded_inversion(task: AnalysisTask, tasks: Sequence[AnalysisTask],
                         protocol_of: Callable[[str], str]) -> str | None:
    own = task.resources()
    for j in tasks:
        if j.priority >= task.priority:
            continue
        shared = [r for r in j.resources() & own if protocol_of(r) == "none"]
        if not shared:
            continue
        for k in tasks:
            if k is not task and k is not j and j.priority < k.priority < task.priority:
                return (f"unbounded priority inversion: {j.name} can hold {shared[0]} (protocol none) "
                        f"while {k.name} preempts it")
            # a holder that sleeps (maybe inside its section) lets a task of its own priority run, which keeps
            # the processor when the holder wakes (FIFO among equals): the waiter waits for all of it
            if k is not task and k is not j and j.suspension_ns and j.priority == k.priority < task.priority:
                return (f"unbounded priority inversion: {j.name} can hold {shared[0]} (protocol none) and "
                        f"suspend while {k.name}, of its priority, takes the processor")
    return None


def blocking_context(tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                     ceil: dict[str, int] | None = None) -> _Context:
    """Index the sections of one processor's tasks once (pass it to ``blocking_term``)."""
    return _Context(tasks, protocol_of, ceil)


def no_shared_resources(extra_ns: int) -> Blocking:
    """The blocking term where no task of the processor locks a resource: the given extra alone."""
    return Blocking(extra_ns, "no shared resources" + (f"; {extra_ns} ns given" if extra_ns else ""))


def blocking_term(task: AnalysisTask, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                  ceil: dict[str, int] | None = None, ctx: _Context | None = None,
                  jobs: int | None = None) -> Blocking:
    """The blocking of ``task`` among ``tasks`` (one processor), each resource under its protocol.

    ``jobs``: how many jobs of ``task`` the window holds (their requests count, see the module notes);
    None: any number (the safe default where a window may hold several).
    """
    if ctx is None:
        ctx = _Context(tasks, protocol_of, ceil)
    protos = ctx.protos
    extra = task.extra_blocking_ns
    if not protos:
        return no_shared_resources(extra)
    if ctx.foreign is not None:
        return Blocking(None, f"protocol {ctx.foreign} is not a uniprocessor protocol")
    if ctx.pip_only and not extra:  # the common case, the same term as below
        return ctx.pip_term(task, jobs)
    if "none" in protos:
        problem = _unbounded_inversion(task, tasks, protocol_of)
        if problem:
            return Blocking(None, problem)
    if "fifo" in protos:  # no term of its own: a bound only where it adds nothing
        problem = fifo_problem(task, tasks, protocol_of)
        if problem:
            return Blocking(None, problem)
    parts: list[str] = []
    total = 0
    if "pip" in protos:
        b = _pip(task, ctx, "pip", jobs=jobs)
        if b.ns:
            total += b.ns
            parts.append(f"PIP {b.ns} ns: {b.reason}")
    if "none" in protos:
        b = _pip(task, ctx, "none", direct_only=True, jobs=jobs)
        if b.ns:
            total += b.ns
            parts.append(f"plain mutex {b.ns} ns: {b.reason}")
    if protos & LOCAL_PROTOCOLS:
        best, who = 0, ""
        prio = task.priority
        for sp, c, length, name, res in ctx.ceiling_sections:  # longest first: the first match is the max
            if sp < prio <= c:
                best, who = length, f"{name}/{res}"
                break
        if best:
            total += best
            parts.append(f"ceiling {best} ns: one section ({who})")
    if "np" in protos:
        best, who = 0, ""
        for sp, length, name, res in ctx.np_sections:  # longest first, nested ones included
            if sp < task.priority and length > 0:
                best, who = length, f"{name}/{res}"
                break
        if best:
            total += best
            parts.append(f"non-preemptive {best} ns: one section ({who})")
    if "fifo" in protos:
        parts.append("FIFO mutex 0 ns: no holder below this priority delays it")
    if extra:
        total += extra
        parts.append(f"given {extra} ns")
    return Blocking(total, "; ".join(parts) if parts else "no lower-priority section can block")
