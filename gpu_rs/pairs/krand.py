"""k-randomization (SPEC §1.3): the seed's pair with ``k`` reports per user, as engine queries.

Each user sends ``k`` randomizations and the ``M = k n`` records are shuffled together.
Under ``D_m^k`` the outlier's ``k`` records are randomized ones and ``n0 = k (n − 1)`` are
zero records; under ``D^k`` all ``M`` are zero records. ``R_k = e_k(w)/C(M, k)``. Every
inequality below is proved in docs/k-randomization.md §5; ``ℓ_m(s, b) = max(0, s^(m−2)
(s² − C(m, 2) b))/m!`` (``ℓ_0 = 1``, ``ℓ_1 = s``) and ``τ = w_L`` is the largest atom.

Forward order, ``P_{D_m^k}[e_k > C]`` with ``C = λ C(M, k)``:

* **U1** (Maclaurin) ``≤ P[p1 > M λ^(1/k)]``, ``p1`` the sum of all ``M`` atoms;
* **U2** (Maclaurin given the outlier levels ``u``) ``≤ Σ_u P(u) P[P1 > a⁺_u]``,
  ``a⁺_u = sup{s : Σ_j e_j(u) C(n0, k−j)(s/n0)^(k−j) ≤ C}``, ``P1`` the zero records' sum;
* **L2** (Bonferroni given ``u``, zero atoms ``≤ τ``) ``≥ Σ_u P(u) P[P1 > a⁻_u]``,
  ``a⁻_u = sup{s : Σ_j e_j(u) ℓ_(k−j)(s, τ s) ≤ C}``.

Reverse order, ``P_{D^k}[e_k < C(M, k)/λ]`` (the ratio ``1/R_k``):

* **lower** (Maclaurin) ``≥ P[p1 < M λ^(−1/k)]``;
* **upper** (Bonferroni) ``≤ P[p1 < a_b] + P[p2 > b]``, ``a_b = sup{s : ℓ_k(s, min(b, τ s))
  < C(M, k)/λ}``, for ``b = ∞`` (no union bound) and a few finite ``b``; the least is kept.

Each threshold is a root of a monotone function evaluated in log space; it is bracketed
with a margin (:data:`MARGIN`) far above the float error of the evaluation, and the
bracket is handed to the engine as the threshold's error, so the events stay certified.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.engine.atoms import ONE, ZERO, Kind, log_r, record_atoms
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs import krand_one_bit
from gpu_rs.pairs.results import PairBound
from gpu_rs.pairs.scopes import Scoped, larger

MAX_CONFIGS = 64
"""Outlier configurations (multisets of ``k`` levels) enumerated for U2 and L2; beyond
this only U1 (and, in the forward order, no conditioned lower bound) is computed."""
MARGIN = 1e-9
"""Absolute error allowed in ``log`` of a threshold polynomial (float error is below 1e-11)."""
B_FACTORS = (0.01, 0.05, 0.2, 0.5)
"""Finite ``b`` tried by the reverse order's union bound, in units of ``M²/C(k, 2)`` (where
``ℓ_k(M, b)`` has lost that fraction of ``M^k/k!``); only those above ``2 E p2`` are tried."""
COARSE = 0.02
"""Relative width asked of the engine on the first pass (see :func:`_two_pass`)."""
NEG = -math.inf


def _lse(xs: list[float]) -> float:
    top = max(xs)
    if top == NEG:
        return NEG
    return top + math.log(math.fsum(math.exp(x - top) for x in xs))


def _log_comb(n: int, j: int) -> float:
    return math.log(math.comb(n, j)) if 0 <= j <= n else NEG


def log_esym(log_w: list[float], counts: tuple[int, ...], k: int) -> list[float]:
    """``log e_j`` (``j = 0..k``) of the multiset with ``counts[l]`` copies of ``exp(log_w[l])``."""
    e = [0.0] + [NEG] * k
    for lw, c in zip(log_w, counts, strict=True):
        if c == 0:
            continue
        f = [_log_comb(c, j) + j * lw for j in range(min(c, k) + 1)]
        new = [NEG] * (k + 1)
        for i, ei in enumerate(e):
            if ei == NEG:
                continue
            for j, fj in enumerate(f[: k + 1 - i]):
                new[i + j] = _lse([new[i + j], ei + fj])
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


def _query(
    bits: int, q: float, parts: tuple[tuple[Kind, int], ...], log_t: float, upper: bool, inclusive: bool = False
) -> Query:
    """``P[X > t]`` (``upper``) or ``P[X < t]`` for ``X`` summing ``parts``, ``log t`` given to float accuracy."""
    return Query(bits, q, parts, log_t, upper, inclusive, log_t_error=8.0 * UNIT * (1.0 + abs(log_t)))


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


def _solve(query: Query, plan: Plan, xp: object) -> Bounds:
    return tail_bounds(query, plan, xp)


def _decided(log_e: float, log_c: float) -> Bounds:
    """``P[e > C]`` for a known ``e``: 0 or 1, or ``[0, 1]`` within the evaluation margin."""
    if log_e > log_c + MARGIN:
        return Bounds.point(1.0)
    if log_e < log_c - MARGIN:
        return Bounds.point(0.0)
    return Bounds.make(0.0, 1.0, ErrorBudget(roundoff=1.0), "exact")


def _support(bits: int, q: float, count: int) -> tuple[float, float]:
    """Log-range (with a margin) of a sum of ``count`` zero-record atoms."""
    lr = log_r(q)
    return math.log(count) + bits * lr - 1.0, math.log(count) - bits * lr + 1.0


def forward_u1(prob: Problem, k: int, inclusive: bool, plan: Plan, xp: object) -> Bounds:
    """U1: ``P[p1 > M λ^(1/k)]``, one query over ``k(n − 1)`` zero and ``k`` outlier atoms."""
    m = k * prob.n
    parts = ((ZERO, m - k), (ONE, k))
    return _solve(_query(prob.bits, prob.q, parts, math.log(m) + prob.eps / k, True, inclusive), plan, xp)


def _conditioned(prob: Problem, k: int, u: tuple[int, ...], plan: Plan, xp: object) -> tuple[Bounds, Bounds]:
    """U2 and L2 given the outlier's level counts ``u``: bounds on ``P[P1 > a⁺_u]`` and ``P[P1 > a⁻_u]``."""
    bits, q, n0 = prob.bits, prob.q, k * (prob.n - 1)
    lr = log_r(q)
    log_w = [(bits - 2 * l) * lr for l in range(bits + 1)]
    log_e = log_esym(log_w, u, k)
    log_c = prob.eps + _log_comb(k * prob.n, k)
    if n0 == 0:
        exact = _decided(log_e[k], log_c)
        return exact, exact
    log_tau = log_w[-1]
    log_n0 = math.log(n0)

    def g(ls: float) -> float:
        return _lse([log_e[j] + _log_comb(n0, k - j) + (k - j) * (ls - log_n0) for j in range(k + 1)])

    def h(ls: float) -> float:
        return _lse([log_e[j] + log_ell(k - j, ls, log_tau + ls) for j in range(k + 1)])

    lo, hi = _support(bits, q, n0)
    parts = ((ZERO, n0),)
    out = []
    for f, upper_end in ((g, True), (h, False)):
        ends = bracket(f, log_c, lo, hi)
        if ends is None:
            out.append(Bounds.point(0.0))
        elif upper_end and ends[0] == NEG:
            out.append(Bounds.point(1.0))
        else:
            out.append(_solve(_query(bits, q, parts, ends[0] if upper_end else ends[1], True), plan, xp))
    return out[0], out[1]


def forward(prob: Problem, k: int, inclusive: bool, plan: Plan, xp: object) -> Bounds:
    """Certified bounds on ``P_{D_m^k}[R_k > e^ε]`` (``≥`` when ``inclusive``).

    One bit: exact through the count of set records (:mod:`gpu_rs.pairs.krand_one_bit`).
    Otherwise the upper end is the smaller of U1 and U2, the lower end L2 (0 where the
    outlier's configurations are too many to enumerate: :data:`MAX_CONFIGS`).
    """
    if prob.bits == 1:
        return combine(*krand_one_bit.forward(prob, k, plan, xp), "k-one-bit")
    u1 = forward_u1(prob, k, inclusive, plan, xp)
    configs = configurations(prob.bits, prob.q, k)
    if not configs:
        return combine(u1, Bounds.point(0.0), "k-maclaurin")
    # Configurations too improbable to matter are bounded by their probability (upper end).
    configs.sort(key=lambda c: c[1])
    allowance, pruned, start = 0.1 * plan.goal(u1.upper), 0.0, 0
    while start < len(configs) and pruned + configs[start][1] * (1 + configs[start][2]) <= allowance:
        pruned += configs[start][1] * (1 + configs[start][2])
        start += 1
    ups, lows = [], []
    for u, p, e in configs[start:]:
        up, low = _conditioned(prob, k, u, plan, xp)
        ups.append((p, e, up))
        lows.append((p, e, low))
    u2 = mixture(ups, pruned, "k-conditioned")
    l2 = mixture(lows, 0.0, "k-conditioned")
    return combine(u2 if u2.upper <= u1.upper else u1, l2, "k-conditioned")


def _ell_root(log_level: float, k: int, log_b: float | None, log_tau: float, lo: float, hi: float) -> float | None:
    """``x_hi`` with ``ℓ_k(s, min(b, τ s)) > level`` at ``s = e^x_hi`` and ``sup{ℓ < level} < e^x_hi``."""

    def f(ls: float) -> float:
        lb = log_tau + ls if log_b is None else min(log_b, log_tau + ls)
        return log_ell(k, ls, lb)

    ends = bracket(f, log_level, lo, hi)
    return None if ends is None else ends[1]


def reverse(prob: Problem, k: int, inclusive: bool, plan: Plan, xp: object) -> Bounds:
    """Certified bounds on ``P_{D^k}[1/R_k > e^ε] = P[e_k < C(M, k) e^−ε]`` (``≤`` when ``inclusive``)."""
    if prob.bits == 1:
        return combine(*krand_one_bit.reverse(prob, k, plan, xp), "k-one-bit")
    bits, q, m = prob.bits, prob.q, k * prob.n
    parts = ((ZERO, m),)
    low = _solve(_query(bits, q, parts, math.log(m) - prob.eps / k, False, inclusive), plan, xp)
    log_level = _log_comb(m, k) - prob.eps
    lr = log_r(q)
    log_tau = -bits * lr
    lo, hi = _support(bits, q, m)
    best: Bounds | None = None
    log_mean_p2 = math.log(m) + bits * math.log1p((1.0 - 2.0 * q) ** 2 / (q * (1.0 - q)))
    log_unit = 2.0 * math.log(m) - math.log(math.comb(k, 2))
    finite = [log_unit + math.log(f) for f in B_FACTORS if log_unit + math.log(f) > log_mean_p2 + math.log(2.0)]
    for log_b in [None, *finite]:
        x_hi = _ell_root(log_level, k, log_b, log_tau, lo, hi)
        if x_hi is None:
            continue  # ℓ stays below the level: this b proves nothing
        b = _solve(_query(bits, q, parts, x_hi, False), plan, xp)
        if log_b is not None:
            tail_p2 = _solve(_query(bits, q, ((Kind(False, 2), m),), log_b, True), plan, xp)
            b = Bounds.make(
                b.lower,
                b.upper + tail_p2.upper,
                b.budget.plus(tail_p2.budget).add(relaxation=tail_p2.lower),
                "k-bonferroni",
                b.terms + tail_p2.terms,
                max(b.memory, tail_p2.memory),
            )
        if best is None or b.upper < best.upper:
            best = b
    if best is None:
        best = Bounds.make(0.0, 1.0, ErrorBudget(relaxation=1.0), "k-bonferroni")
    return combine(best, low, "k-maclaurin")


GUARANTEES = {
    "forward": "the seed's pair with k reports per user (SPEC §1.3), S ~ A(D_m^k) only; certified by "
    "Maclaurin/Bonferroni inequalities (docs/k-randomization.md §5); not a guarantee for other pairs",
    "homogeneous": "both orders of the seed's pair with k reports per user (SPEC §1.3), certified by "
    "Maclaurin/Bonferroni inequalities (docs/k-randomization.md §5); not a guarantee for other pairs",
}


def pair_bound(name: str, b: Bounds) -> PairBound:
    return PairBound(name, float(b.lower), float(b.upper), b.method)


def _two_pass(
    order: Callable[[Problem, int, bool, Plan, object], Bounds],
    prob: Problem,
    k: int,
    inclusive: bool,
    plan: Plan,
    xp: object,
) -> Bounds:
    """``order`` at a coarse engine width first; again at ``plan``'s only if the engine's share
    of the width, not the inequalities' (``relaxation``), is what keeps the target out of reach."""
    coarse = Plan(max(plan.rel_width, COARSE), plan.abs_width, plan.max_terms)
    first = order(prob, k, inclusive, coarse, xp)
    engine = first.width - first.budget.relaxation
    if plan.met(first) or coarse == plan or first.budget.relaxation > 4.0 * engine:
        return first
    return order(prob, k, inclusive, plan, xp)


def answer(scope: str, prob: Problem, k: int, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """The certified tail of the seed's pair with ``k`` reports per user, one order or both."""
    fwd = _two_pass(forward, prob, k, inclusive, plan, xp)
    if scope == "forward":
        return Scoped(fwd, (pair_bound("forward", fwd),), "forward")
    rev = _two_pass(reverse, prob, k, inclusive, plan, xp)
    pairs = (pair_bound("forward", fwd), pair_bound("reverse", rev))
    return Scoped(larger(fwd, rev), pairs, "forward" if fwd.upper >= rev.upper else "reverse")
