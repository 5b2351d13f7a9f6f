"""Pieces of the k-randomization bounds (docs/k-randomization.md §5): log-space elementary
symmetric polynomials, Bonferroni's ``ℓ_m``, certified root brackets of monotone functions,
the outlier's level configurations, and the rules that combine bounds.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import ONE, record_atoms
from gpu_rs.engine.bounds import Bounds, ErrorBudget

MAX_CONFIGS = 64
"""Outlier configurations (multisets of ``k`` levels) enumerated for U2 and L2; beyond
this only U1 (and, in the forward order, no conditioned lower bound) is computed."""
MARGIN = 1e-9
"""Absolute error allowed in ``log`` of a threshold polynomial (float error is below 1e-11)."""
NEG = -math.inf


def lse(xs: list[float]) -> float:
    """``log Σ exp(x)`` (``-inf`` for an empty sum)."""
    top = max(xs)
    if top == NEG:
        return NEG
    return top + math.log(math.fsum(math.exp(x - top) for x in xs))


def log_comb(n: int, j: int) -> float:
    """``log C(n, j)`` from the exact integer (``-inf`` outside ``0 <= j <= n``)."""
    return math.log(math.comb(n, j)) if 0 <= j <= n else NEG


def log_esym(log_w: list[float], counts: tuple[int, ...], k: int) -> list[float]:
    """``log e_j`` (``j = 0..k``) of the multiset with ``counts[l]`` copies of ``exp(log_w[l])``."""
    e = [0.0] + [NEG] * k
    for lw, c in zip(log_w, counts, strict=True):
        if c == 0:
            continue
        f = [log_comb(c, j) + j * lw for j in range(min(c, k) + 1)]
        new = [NEG] * (k + 1)
        for i, ei in enumerate(e):
            if ei == NEG:
                continue
            for j, fj in enumerate(f[: k + 1 - i]):
                new[i + j] = lse([new[i + j], ei + fj])
        e = new
    return e


def log_ell(m: int, ls: float, lb: float) -> float:
    """``log ℓ_m(s, b)`` from ``log s`` and ``log b`` (``-inf`` where it is 0)."""
    if m == 0:
        return 0.0
    if m == 1:
        return ls
    x = math.log(math.comb(m, 2)) + lb - 2.0 * ls  # log(C(m,2) b / s²)
    if x >= 0.0:
        return NEG
    return m * ls + math.log(-math.expm1(x)) - math.lgamma(m + 1)


def bracket(f: Callable[[float], float], level: float, lo: float, hi: float) -> tuple[float, float] | None:
    """``(x_lo, x_hi)`` with ``f(x_lo) < level − MARGIN`` and ``f(x_hi) > level + MARGIN``.

    ``f`` is non-decreasing on ``[lo, hi]``; if ``f`` is computed within ``MARGIN`` of the
    truth, the true ``sup{x : f(x) ≤ level}`` lies in the bracket. Returns None if
    ``f(hi) ≤ level + MARGIN`` (no crossing proven below ``hi``); ``x_lo = -inf`` if
    ``f(lo) ≥ level − MARGIN``.
    """
    if f(hi) <= level + MARGIN:
        return None
    ends = []
    for target, below in ((level - MARGIN, True), (level + MARGIN, False)):
        a, b = lo, hi
        if f(a) >= target:
            ends.append(NEG if below else a)
            continue
        for _ in range(200):
            mid = 0.5 * (a + b)
            if mid in (a, b):
                break
            if f(mid) < target:
                a = mid
            else:
                b = mid
        ends.append(a if below else b)
    return ends[0], ends[1]


def configurations(bits: int, q: float, k: int) -> list[tuple[tuple[int, ...], float, float]]:
    """The outlier's level counts ``u`` with ``(P(u), relative error bound)``; empty if too many."""
    if math.comb(bits + k, k) > MAX_CONFIGS:
        return []
    at = record_atoms(bits, q, ONE)
    out = []
    for levels in itertools.combinations_with_replacement(range(bits + 1), k):
        counts = tuple(levels.count(l) for l in range(bits + 1))
        log_p = math.lgamma(k + 1) + sum(
            c * float(at.log_probs[l]) - math.lgamma(c + 1) for l, c in enumerate(counts) if c
        )
        err = sum(c * float(at.prob_error[l]) for l, c in enumerate(counts)) + 16.0 * UNIT * (k + abs(log_p))
        out.append((counts, math.exp(log_p), err))
    return out


def combine(upper: Bounds, lower: Bounds, method: str) -> Bounds:
    """``[lower.lower, upper.upper]`` from a certified upper-bounding and a lower-bounding quantity.

    The width is ``upper``'s width, ``lower``'s width and the gap between them (the
    inequalities' slack, charged to ``relaxation``).
    """
    gap = max(0.0, upper.lower - lower.upper)
    budget = upper.budget.plus(lower.budget).add(relaxation=gap)
    return Bounds.make(
        min(lower.lower, upper.upper),
        upper.upper,
        budget,
        method,
        upper.terms + lower.terms,
        max(upper.memory, lower.memory),
        shrunk=True,
    )


def mixture(rows: list[tuple[float, float, Bounds]], pruned: float, method: str) -> Bounds:
    """``Σ P(u) b_u`` with ``P(u)`` known to relative error ``e_u``; ``pruned`` mass added above."""
    lower = math.fsum(p * (1.0 - e) * b.lower for p, e, b in rows)
    upper = math.fsum(p * (1.0 + e) * b.upper for p, e, b in rows) + pruned
    upper *= 1.0 + 4.0 * UNIT * (len(rows) + 2)
    budget = ErrorBudget(truncation=pruned, roundoff=4.0 * UNIT * (len(rows) + 2) * upper)
    for p, e, b in rows:
        budget = budget.plus(b.budget.scaled(p)).add(roundoff=p * e * (b.upper + b.lower))
    return Bounds.make(
        lower,
        min(upper, 1.0),
        budget,
        method,
        sum(b.terms for _, _, b in rows),
        max((b.memory for _, _, b in rows), default=0),
        shrunk=upper > 1.0,
    )
