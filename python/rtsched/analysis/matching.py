"""Maximum-weight bipartite matching, exact (Hungarian algorithm, Kuhn–Munkres; small cases by branch and bound).

Used for blocking terms of the form "at most one item per lower-priority task
and at most one per resource/server": the PI-CV RPC blocking of seed 004
(Eq. 4–5) and the PIP blocking bound for non-nested critical sections.
Integer weights, so the answer is exact; no scipy.

``PrefixMatcher`` answers many related questions at once: the matchings of
every prefix of an ordered left side (for PIP: the tasks below a priority)
into any subset of a small right side (the resources that can block), by
dynamic programming over the subsets of the right side.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Generic, Hashable, Mapping, Sequence, TypeVar

__all__ = ["max_weight_matching", "max_weight_assignment", "max_weight_capacitated", "PrefixMatcher"]

#: The labels of the left and of the right vertices.
L = TypeVar("L", bound=Hashable)
R = TypeVar("R", bound=Hashable)


def max_weight_assignment(weights: list[list[int]]) -> tuple[int, list[tuple[int, int]]]:
    """Maximum total weight of a matching in a rectangular matrix of non-negative integers.

    Returns (total, pairs) with pairs (row, column) of positive weight. A
    zero entry means "no edge" (matching it adds nothing). O(n² m) with
    n = min(rows, columns).
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return 0, []
    transposed = rows > cols
    if transposed:
        weights = [list(col) for col in zip(*weights)]
        rows, cols = cols, rows
    # Min-cost assignment of every row to a distinct column with cost = -weight
    # (shortest augmenting paths with potentials u, v; 1-based, column 0 virtual).
    inf = float("inf")
    u: list[float] = [0] * (rows + 1)
    v: list[float] = [0] * (cols + 1)
    p = [0] * (cols + 1)  # p[j]: row matched to column j
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        p[0] = i
        j0 = 0
        minv: list[float] = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = inf
            j1 = 0
            row = weights[i0 - 1]
            ui0 = u[i0]
            for j in range(1, cols + 1):
                if not used[j]:
                    cur = -row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = []
    total = 0
    for j in range(1, cols + 1):
        i = p[j]
        if i and weights[i - 1][j - 1] > 0:
            total += weights[i - 1][j - 1]
            pairs.append((j - 1, i - 1) if transposed else (i - 1, j - 1))
    return total, sorted(pairs)


#: Below this many vertices on the smaller side, an exact branch and bound beats the O(n³) algorithm.
SMALL_SIDE = 6


def _branch_and_bound(edges: Mapping[tuple[L, R], int], best_left: dict[L, int], best_right: dict[R, int],
                      greedy: int, chosen: list[tuple[L, R]]) -> tuple[int, list[tuple[L, R]]]:
    """Exact search over the smaller side's vertices, pruned by Σ of their best remaining edges."""
    flip = len(best_right) < len(best_left)
    # the small side's vertices, heaviest first, each with its edges heaviest first:
    # (weight, vertex on the other side, the edge)
    adj: dict[Hashable, list[tuple[int, Hashable, tuple[L, R]]]] = {}
    for edge, w in edges.items():
        if w <= 0:
            continue
        a, b = edge
        small, big = (b, a) if flip else (a, b)
        adj.setdefault(small, []).append((w, big, edge))
    order = sorted(adj, key=lambda v: -max(w for w, _, _ in adj[v]))
    for v in order:
        adj[v].sort(key=lambda e: -e[0])
    rest = [0] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        rest[k] = rest[k + 1] + adj[order[k]][0][0]
    best_total = greedy
    best_edges = list(chosen)
    used: set[Hashable] = set()
    picked: list[tuple[L, R]] = []  # the edges taken so far, in search order

    def search(k: int, total: int) -> None:
        nonlocal best_total, best_edges
        if total + rest[k] <= best_total:
            return
        if k == len(order):
            best_total = total
            best_edges = list(picked)
            return
        v = order[k]
        for w, b, edge in adj[v]:
            if b not in used:
                used.add(b)
                picked.append(edge)
                search(k + 1, total + w)
                picked.pop()
                used.discard(b)
        search(k + 1, total)

    search(0, 0)
    return best_total, best_edges


def max_weight_matching(
    edges: Mapping[tuple[L, R], int],
) -> tuple[int, list[tuple[L, R]]]:
    """Maximum-weight matching of a bipartite graph given as {(left, right): weight}.

    Each left and each right vertex is used at most once. Returns (total, chosen edges).
    Fast paths: one left or one right vertex (then it is the heaviest edge); a greedy
    matching that reaches the upper bound min(Σ best per left, Σ best per right).
    """
    if not edges:
        return 0, []
    best_left: dict[L, int] = {}
    best_right: dict[R, int] = {}
    for (a, b), w in edges.items():
        if w < 0:
            raise ValueError("weights must be non-negative")
        if w > best_left.get(a, -1):
            best_left[a] = w
        if w > best_right.get(b, -1):
            best_right[b] = w
    if len(best_left) == 1 or len(best_right) == 1:
        best = max(edges.items(), key=lambda kv: kv[1])
        return (best[1], [best[0]]) if best[1] > 0 else (0, [])
    # Greedy (heaviest edge first) is a lower bound, min(Σ per left, Σ per right) an upper
    # one: when they meet, greedy is optimal and the O(n³) algorithm is not needed.
    upper = min(sum(best_left.values()), sum(best_right.values()))
    used_l: set[L] = set()
    used_r: set[R] = set()
    greedy = 0
    chosen: list[tuple[L, R]] = []
    for (a, b), w in sorted(edges.items(), key=lambda kv: -kv[1]):
        if w > 0 and a not in used_l and b not in used_r:
            used_l.add(a)
            used_r.add(b)
            greedy += w
            chosen.append((a, b))
    if greedy == upper:
        return greedy, chosen
    if min(len(best_left), len(best_right)) <= SMALL_SIDE:
        return _branch_and_bound(edges, best_left, best_right, greedy, chosen)
    lefts = list(best_left)
    rights = list(best_right)
    li = {a: i for i, a in enumerate(lefts)}
    ri = {b: j for j, b in enumerate(rights)}
    matrix = [[0] * len(rights) for _ in lefts]
    for (a, b), w in edges.items():
        matrix[li[a]][ri[b]] = max(matrix[li[a]][ri[b]], w)
    total, pairs = max_weight_assignment(matrix)
    return total, [(lefts[i], rights[j]) for i, j in pairs]


def max_weight_capacitated(edges: Mapping[tuple[L, R], int],
                           capacity: Mapping[R, int]) -> tuple[int, list[tuple[L, R]]]:
    """``max_weight_matching`` where right vertex r may take up to ``capacity[r]`` left vertices (default 1).

    Each left vertex is used at most once. Solved as a matching into copies of each right vertex.
    """
    copies: dict[tuple[L, tuple[R, int]], int] = {}
    for (a, b), w in edges.items():
        for k in range(max(1, capacity.get(b, 1))):
            copies[(a, (b, k))] = w
    total, chosen = max_weight_matching(copies)
    return total, [(a, b[0]) for a, b in chosen]


#: Up to this many right vertices, ``PrefixMatcher`` uses its subset dynamic programme (2^R values per prefix).
SUBSET_DP_RIGHTS = 8


@lru_cache(maxsize=None)
def _masks_holding(n: int) -> list[list[tuple[int, int]]]:
    """For each of n bits r, the masks m below 1 << n that hold it, ascending, as (m, m without r)."""
    return [[(m, m ^ (1 << r)) for m in range(1 << n) if m >> r & 1] for r in range(n)]


class PrefixMatcher(Generic[L, R]):
    """Maximum-weight matchings of the first ``k`` left vertices into a subset ``mask`` of the right ones.

    ``lefts``: the left vertices in a fixed order, each ``(label, [(right index, weight > 0), ...])``;
    ``rights``: the right vertices' labels (index r is bit ``1 << r`` of a mask).
    ``solve(k, mask)`` returns the same (total, chosen edges) as ``max_weight_matching`` on the edges of
    the first k lefts that end in ``mask``, up to which optimal matching is chosen.

    With R ≤ ``dp_rights`` right vertices, one table per prefix is built once: ``best[k][m]`` is the
    maximum weight of a matching of lefts 0..k-1 into the rights of ``m``. Invariant (exact, by cases on
    left k-1: unmatched, or matched to one right r of m):

        best[0][m] = 0
        best[k][m] = max(best[k-1][m], max over edges (r, w) of left k-1 with r in m of best[k-1][m - r] + w)

    so every query is a lookup, and the chosen edges are recovered by walking the tables back.
    ``widths`` (optional, one per left): queries over more than lefts 0..i only use rights below
    ``widths[i]``; table k then covers only the masks below ``1 << width`` (the widths are made
    non-increasing first), and a query outside that falls back to the general algorithm.
    More right vertices: each query runs ``max_weight_matching`` on its edges.
    """

    __slots__ = ("lefts", "rights", "best", "widths")

    def __init__(self, lefts: Sequence[tuple[L, list[tuple[int, int]]]], rights: Sequence[R],
                 widths: list[int] | None = None, dp_rights: int = SUBSET_DP_RIGHTS):
        self.lefts = lefts
        self.rights = rights
        # widths[k]: the rights (low bits) table k covers; non-increasing, so walking back stays covered
        self.widths = [len(rights)] * (len(lefts) + 1)
        if widths is not None:
            covered = 0
            for k in range(len(lefts), 0, -1):  # table k serves every query over k or more lefts
                if widths[k - 1] > covered:
                    covered = widths[k - 1] if widths[k - 1] < len(rights) else len(rights)
                self.widths[k] = covered
        self.best: list[list[int]] | None = None
        if len(rights) <= dp_rights:
            self.best = self._tables()

    def _tables(self) -> list[list[int]]:
        prev = [0] * (1 << self.widths[0])
        tables = [prev]
        for (_, edges), width in zip(self.lefts, self.widths[1:]):
            cur = prev[:1 << width]
            with_r = _masks_holding(width)  # the masks below 1 << width that hold each bit
            for r, w in edges:
                if r >= width:
                    continue
                for m, without in with_r[r]:
                    v = prev[without] + w
                    if v > cur[m]:
                        cur[m] = v
            tables.append(cur)
            prev = cur
        return tables

    def solve(self, k: int, mask: int) -> tuple[int, list[tuple[L, R]]]:
        """The heaviest matching of lefts 0..k-1 into the rights in ``mask``: (total, [(left, right), ...])."""
        tables = self.best
        if tables is None or mask >> self.widths[k]:
            edges = {(label, self.rights[r]): w for label, es in self.lefts[:k] for r, w in es if mask >> r & 1}
            return max_weight_matching(edges)
        lefts, rights = self.lefts, self.rights
        return tables[k][mask], [(lefts[j][0], rights[r]) for j, r in self.walk(k, mask)]

    def walk(self, k: int, mask: int) -> list[tuple[int, int]]:
        """The matching ``solve`` names for (k, mask), as (left index, right index), highest left first.

        Only for queries the tables cover (``best`` built, ``mask`` below ``1 << widths[k]``).
        """
        tables, lefts = self.best, self.lefts
        if tables is None:
            raise ValueError(f"walk needs the subset tables, not built for {len(self.rights)} right vertices")
        value = tables[k][mask]
        chosen = []
        while value:  # walk back: left k-1 is matched iff it raised the value of the mask
            k -= 1
            before = tables[k]
            if before[mask] != value:
                for r, w in lefts[k][1]:
                    if mask >> r & 1 and before[mask ^ (1 << r)] + w == value:
                        chosen.append((k, r))
                        mask ^= 1 << r
                        value -= w
                        break
        return chosen
