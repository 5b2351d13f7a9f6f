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

import math
from collections.abc import Callable

from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.engine.atoms import ONE, ZERO, Kind, log_r
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs import krand_one_bit
from gpu_rs.pairs.krand_parts import (
    MARGIN,
    NEG,
    bracket,
    combine,
    configurations,
    log_comb,
    log_ell,
    log_esym,
    lse,
    mixture,
)
from gpu_rs.pairs.scopes.base import Scoped, larger, pair_bound

B_FACTORS = (0.01, 0.05, 0.2, 0.5)
"""Finite ``b`` tried by the reverse order's union bound, in units of ``M²/C(k, 2)`` (where
``ℓ_k(M, b)`` has lost that fraction of ``M^k/k!``); only those above ``2 E p2`` are tried."""
COARSE = 0.02
"""Relative width asked of the engine on the first pass (see :func:`_two_pass`)."""


def _query(
    bits: int, q: float, parts: tuple[tuple[Kind, int], ...], log_t: float, upper: bool, inclusive: bool = False
) -> Query:
    """``P[X > t]`` (``upper``) or ``P[X < t]`` for ``X`` summing ``parts``, ``log t`` given to float accuracy."""
    return Query(bits, q, parts, log_t, upper, inclusive, log_t_error=8.0 * UNIT * (1.0 + abs(log_t)))


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
    log_c = prob.eps + log_comb(k * prob.n, k)
    if n0 == 0:
        exact = _decided(log_e[k], log_c)
        return exact, exact
    log_tau = log_w[-1]
    log_n0 = math.log(n0)

    def g(ls: float) -> float:
        return lse([log_e[j] + log_comb(n0, k - j) + (k - j) * (ls - log_n0) for j in range(k + 1)])

    def h(ls: float) -> float:
        return lse([log_e[j] + log_ell(k - j, ls, log_tau + ls) for j in range(k + 1)])

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
    log_level = log_comb(m, k) - prob.eps
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
