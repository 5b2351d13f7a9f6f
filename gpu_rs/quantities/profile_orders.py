"""``privacy_profile``: certified ``δ(ε)`` and ``ε(δ)`` of shuffled L-bit randomized response (SPEC §1.2).

For a pair with laws ``P`` (under ``D_m``), ``Q`` (under ``D``) and ``R = dP/dQ``, writing
``(1 − λ/R)_+ = ∫_λ^∞ (λ/r²) 1{R > r} dr`` gives

    δ_{P‖Q}(ε) = E_P[(1 − λ/R)_+] = ∫_λ^∞ (λ / r²) P_P[R > r] dr,    λ = e^ε,

and the same for ``δ_{Q‖P}`` with ``Q`` and ``1/R``. For the homogeneous pair ``P_P[R > r]`` is the forward
tail ``P[X > N r]`` and ``P_Q[1/R > r]`` the reverse tail ``P[X′ < N/r]``, both certified by the engine.
``r ↦ P[R > r]`` is nonincreasing, so on a grid ``r_0 <= λ < r_1 < … < r_m`` (with ``P[R > r_m] = 0``),
with weights ``w_i = λ (1/max(r_i, λ) − 1/r_{i+1})`` (exact integrals of ``λ/r²``):

    Σ_i w_i · lower(r_{i+1})  <=  δ  <=  Σ_i w_i · upper(r_i).

The grid is dyadic in ``log r`` and refined where ``w_i (upper(r_i) − lower(r_{i+1}))`` is largest, so every
``ε`` reuses the tails already computed.

The first route is cheaper: with ``E = {R > λ}``, ``δ_{P‖Q}(ε) = P(E) − λ Q(E)``, and under ``Q`` the ratio is
the same function of the output, ``R = X′/N`` with ``X′`` the sum of ``N`` zero-vector atoms. So

    δ_{P‖Q}(ε) = P[X > Nλ] − λ P[X′ > Nλ],      δ_{Q‖P}(ε) = P[X′ < N/λ] − λ P[X < N/λ],

four certified tails, asked ever narrower while the difference is wider than asked (its cancellation
costs relative accuracy). Where that does not reach the width, the integral above runs too and the two
certified intervals are intersected. ``ε(δ)`` is bracketed by a root finder on certified ``δ`` (nonincreasing).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.common.limits import PROFILE_SEARCH_SECONDS
from gpu_rs.engine.atoms import log_r
from gpu_rs.engine.bounds import ErrorBudget
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs.background_delta import WorstDelta
from gpu_rs.pairs.results import estimate
from gpu_rs.pairs.scopes import Scope
from gpu_rs.pairs.scopes.seed import seed_pair
from gpu_rs.quantities.profile_curve import HingeCurve
from gpu_rs.quantities.profile_enumeration import MAX_VECTORS, Enumerated, count_vectors
from gpu_rs.quantities.profile_one_bit import delta_one_bit
from gpu_rs.quantities.profile_results import DeltaBound, EpsilonBound, intersect

FIRST_STEP = 0.5
"""Spacing in ``log r`` of the first grid."""
FINEST = 2.0**-30
"""Intervals of the grid are not split below this length in ``log r``."""
ROUND = 64 * UNIT
"""Relative rounding charged to each weighted sum."""
ROOT_POINTS = 7
"""Points evaluated inside each bracket per round of the ``ε(δ)`` root finder."""
ROOT_ROUNDS = 12
"""Rounds of the root finder: each narrows a bracket ``ROOT_POINTS + 1`` times (8¹² ≈ 7e10)."""


@dataclass
class Order:
    """One order of the homogeneous pair: its tail ``r ↦ P[R > r]``, cached on a dyadic grid."""

    n: int
    bits: int
    q: float
    forward: bool
    plan: Plan
    xp: Any
    cache: dict[float, tuple[float, float]] = field(default_factory=dict)

    @property
    def top(self) -> float:
        """A grid point (a multiple of :data:`FIRST_STEP`) above ``log max R = L log(p/q)``."""
        return math.ceil((self.bits * -log_r(self.q) + 1.0) / FIRST_STEP) * FIRST_STEP

    def tail(self, x: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` of ``P[R > e^x]`` (one engine query, cached)."""
        if x not in self.cache:
            log_n = math.log(self.n)
            if self.forward:  # P[X > N e^x], X with the outlier
                self.cache[x] = self._query(True, log_n + x, True, self.plan)
            else:  # P[X′ < N e^−x], X′ of N zero vectors
                self.cache[x] = self._query(False, log_n - x, False, self.plan)
        return self.cache[x]

    def _query(self, outlier: bool, log_t: float, upper: bool, plan: Plan) -> tuple[float, float]:
        """Certified ``P[X > t]`` (``upper``) or ``P[X < t]``, ``X`` with or without the outlier."""
        err = 4.0 * UNIT * (abs(math.log(self.n)) + abs(log_t))
        b = tail_bounds(Query(self.bits, self.q, seed_pair(self.n, outlier), log_t, upper, False, err), plan, self.xp)
        return float(b.lower), float(b.upper)

    def difference(self, eps: float, plan: Plan) -> tuple[float, float]:
        """``δ(ε)`` as ``P(E) − λ Q(E)`` from four certified tails (module docstring)."""
        lam, log_n = math.exp(eps), math.log(self.n)
        if self.forward:
            a = self._query(True, log_n + eps, True, plan)
            b = self._query(False, log_n + eps, True, plan)
        else:
            a = self._query(False, log_n - eps, False, plan)
            b = self._query(True, log_n - eps, False, plan)
        lower = a[0] - lam * b[1] - ROUND * (a[0] + lam * b[1])
        upper = a[1] - lam * b[0] + ROUND * (a[1] + lam * b[0]) + FLOOR
        return max(0.0, lower), min(1.0, upper)  # 0 <= δ <= 1 always

    def delta(self, eps: float, rel_width: float, abs_width: float, max_queries: int) -> tuple[float, float, int]:
        """``(lower, upper, queries)`` for ``δ(ε)`` of this order: the difference, then the integral."""
        if eps >= self.top:
            return 0.0, 0.0, 0  # R <= (p/q)^L < e^eps: the divergence is 0
        lower, upper, queries = 0.0, 1.0, 0
        for shrink in (8.0, 64.0, 512.0):
            plan = Plan(rel_width / shrink, abs_width / (shrink * math.exp(eps)), self.plan.max_terms)
            d_lo, d_hi = self.difference(eps, plan)
            lower, upper, queries = max(lower, d_lo), min(upper, d_hi), queries + 4
            if upper - lower <= max(abs_width, rel_width * lower):
                return lower, upper, queries
        i_lo, i_hi, more = self.integral(eps, rel_width, abs_width, max_queries)
        return *intersect(eps, (lower, upper), (i_lo, i_hi)), queries + more

    def integral(self, eps: float, rel_width: float, abs_width: float, max_queries: int) -> tuple[float, float, int]:
        """``(lower, upper, queries)`` for ``δ(ε)`` from the integral of the tail over a grid."""
        start = len(self.cache)
        first = math.floor(eps / FIRST_STEP) * FIRST_STEP
        if first >= self.top:
            return 0.0, 0.0, 0  # R <= (p/q)^L < e^eps: the divergence is 0
        points = sorted({first, self.top} | {x for x in self.cache if first <= x <= self.top})
        if len(points) == 2:
            steps = round((self.top - first) / FIRST_STEP)
            points = [first + i * FIRST_STEP for i in range(steps + 1)]
        while True:
            pairs = itertools.pairwise(points)
            weights = [math.exp(eps - max(a, eps)) - math.exp(eps - max(b, eps)) for a, b in pairs]
            tails = [self.tail(x) for x in points]
            lower = sum(w * tails[i + 1][0] for i, w in enumerate(weights)) * (1.0 - ROUND)
            upper = min(1.0, sum(w * tails[i][1] for i, w in enumerate(weights)) * (1.0 + ROUND) + FLOOR)
            gaps = [w * (tails[i][1] - tails[i + 1][0]) for i, w in enumerate(weights)]
            i = max(range(len(gaps)), key=gaps.__getitem__)
            a, b = points[i], points[i + 1]
            done = upper - lower <= max(abs_width, rel_width * lower)
            if done or b - a <= FINEST or len(self.cache) - start >= max_queries:
                return lower, upper, len(self.cache) - start
            points.insert(i + 1, 0.5 * (a + b))


@dataclass
class Profile:
    """The orders a scope needs, and the rules that turn them into ``δ`` and ``ε`` intervals.

    ``δ`` comes first from the hinge expectations: exact sums at one bit (:mod:`~gpu_rs.quantities.profile_one_bit`),
    exact enumeration where there are few count vectors (:mod:`~gpu_rs.quantities.profile_enumeration`), otherwise
    one certified curve (:mod:`~gpu_rs.quantities.profile_curve`); an order whose interval is still wider than asked
    is recomputed under the tilted law (:meth:`HingeCurve.tilted`), then, with ``max_queries``, by the tail-query
    routes of :class:`Order`, the intervals intersected (not where ``decide`` is already decided). ``known_pair``:
    the lower end's pair where :attr:`bound_only`, searched for ``search_seconds`` (``known_deltas``).
    """

    n: int
    bits: int
    q: float
    covers: Scope
    rel_width: float
    abs_width: float
    max_queries: int
    orders: dict[str, Order]
    hinge: HingeCurve | None = None
    exact: Enumerated | None = None
    known_pair: str = "the seed's pair (both orders)"
    search_seconds: float = PROFILE_SEARCH_SECONDS

    @property
    def bound_only(self) -> bool:
        """Whether ``scope="all"`` is a proven upper end here (the homogeneous pair the lower end), not the maximum."""
        return self.covers.name == "all" and not self.covers.exact("delta")

    def deltas(self, eps: Sequence[float], decide: float = 0.0) -> list[DeltaBound]:
        """Certified ``δ`` at every ``ε`` (one set of transforms serves them all); ``decide``: see ``Curve.deltas``."""
        eps = [float(e) for e in eps]
        if self.bits == 1:
            first = {name: [delta_one_bit(self.n, self.q, e, name == "forward") for e in eps] for name in self.orders}
        elif count_vectors(self.n, self.bits) <= MAX_VECTORS:
            if self.exact is None:
                self.exact = Enumerated(self.n, self.bits, self.q)
            first = {name: [self.exact.delta(e, name == "forward") for e in eps] for name in self.orders}
        else:
            if self.hinge is None:
                first_order = next(iter(self.orders.values()))
                self.hinge = HingeCurve(self.n, self.bits, self.q, first_order.plan.max_terms, first_order.xp)
            both = len(self.orders) > 1
            found = self.hinge.deltas(np.asarray(eps), self.rel_width / 4, self.abs_width / 4, both=both)
            first = {name: list(zip(*(map(float, a) for a in found[name]), strict=True)) for name in self.orders}
        exact, upper = self.covers.every_pair_deltas(np.array(eps), self.rel_width, self.abs_width, decide)
        worst: list[WorstDelta | None] = [None] * len(eps) if exact is None else list(exact)
        proven: list[float | None] = [None] * len(eps) if upper is None else [float(v) for v in upper]
        known = None if upper is None else self.covers.known_deltas(np.array(eps), self.search_seconds)
        self.known_pair = self.known_pair if known is None else known.pair
        pairs = [None if known is None else known.at(i) for i in range(len(eps))]
        return [
            self._one(e, {k: v[i] for k, v in first.items()}, proven[i], worst[i], pairs[i], decide)
            for i, e in enumerate(eps)
        ]

    def delta(self, eps: float) -> DeltaBound:
        """Certified ``δ(ε)`` for the scope."""
        return self.deltas([eps])[0]

    def _one(
        self,
        eps: float,
        first: dict[str, tuple[float, float]],
        proven: float | None,
        worst: WorstDelta | None,
        member: tuple[float, float] | None = None,
        decide: float = 0.0,
    ) -> DeltaBound:
        found = {name: (*first[name], 0) for name in self.orders}
        for name in sorted(self.orders, key=lambda k: -first[k][1]):  # the larger δ first
            order, (lo, hi, queries) = self.orders[name], found[name]
            top = max(v[0] for v in found.values())
            need = max(self.abs_width, self.rel_width * top)  # what the larger δ asks
            decided = decide > 0.0 and not lo <= decide < hi  # a root finder's point: on one side of δ* already
            if hi - lo > need and self.hinge is not None and not decided:  # the curve's absolute width: tilt
                # at a root finder's point, a lower end at most floor moves no decision, no other end and no need
                floor = min(decide, max(top, self.abs_width / self.rel_width))
                keep = (floor, hi) if decide > 0.0 and self.max_queries == 0 else None
                tilted = self.hinge.tilted(eps, name == "forward", self.rel_width / 2, need / 2, keep)
                if tilted is not None:
                    lo, hi = intersect(eps, (lo, hi), tilted)
                    need = max(need, self.rel_width * lo)
            if hi - lo > need and self.max_queries > 0 and not decided:
                o_lo, o_hi, queries = order.delta(eps, self.rel_width, self.abs_width, self.max_queries)
                lo, hi = intersect(eps, (lo, hi), (o_lo, o_hi))
            found[name] = (lo, hi, queries)
        lower, upper = (max(v[i] for v in found.values()) for i in (0, 1))
        relaxation, known = 0.0, None
        if worst is not None:
            # every background, pruned (pairs/background_delta.py); it contains the homogeneous pair
            lower, upper = max(lower, worst.lower), max(worst.upper, lower)
        elif proven is not None:
            # proven for every pair (so also for the pair known: its upper end can take it, as a tail's does);
            # lower end: the seed's pair, or scope.known_deltas' member where larger
            known = (lower, max(lower, min(upper, proven)))
            if member is not None and member[0] > lower:
                known = (member[0], max(member[0], min(member[1], proven)))
            lower, upper = known[0], max(proven, known[0])
            relaxation = upper - known[1]
        budget = ErrorBudget(discretization=upper - lower - relaxation, relaxation=relaxation)
        return DeltaBound(
            eps,
            lower,
            estimate(lower, upper, known),
            upper,
            found["forward"][:2],
            found["reverse"][:2] if "reverse" in found else None,
            upper - lower <= max(self.abs_width, self.rel_width * lower),
            sum(v[2] for v in found.values()),
            budget,
        )

    def epsilon(self, delta: float, eps_tol: float) -> EpsilonBound:
        """Certified ``ε(δ)``: a root finder on the certified curve, each end bracketed on its own.

        The upper end is the least point found where the certified upper ``δ`` is at most
        ``delta`` (so ``ε(δ)`` is at most it), the lower end the largest point found where the
        certified lower ``δ`` is above ``delta``. Each round evaluates :data:`ROOT_POINTS` points
        inside both brackets in one batched call (one set of transforms), until each bracket is
        narrower than ``eps_tol`` times the upper end; ``met`` says whether the interval is.
        """
        top = max(order.top for order in self.orders.values())
        at_hi = self.delta(top)
        hi, at_lo, lo = top, None, 0.0
        u_lo, l_hi, pair_hi = 0.0, top, top  # δ > delta at u_lo; lower δ, pair's upper δ <= delta at l_hi, pair_hi
        for _ in range(ROOT_ROUNDS):
            tol = eps_tol * max(hi, 1e-6)
            brackets = [(a, b) for a, b in ((u_lo, hi), (lo, l_hi)) if b - a > tol]
            if not brackets:
                break
            grid = sorted({a + (b - a) * j / (ROOT_POINTS + 1) for a, b in brackets for j in range(1, ROOT_POINTS + 1)})
            found = self.deltas([e for e in grid if e > 0.0], decide=delta)
            for d in found:
                if d.upper <= delta and d.eps < hi:
                    hi, at_hi = d.eps, d
                elif d.upper > delta:
                    u_lo = max(u_lo, d.eps)
                if d.lower > delta and d.eps > lo:
                    lo, at_lo = d.eps, d
                elif d.lower <= delta:
                    l_hi = min(l_hi, d.eps)
                if max(order[1] for order in (d.forward, d.reverse) if order is not None) <= delta:
                    pair_hi = min(pair_hi, d.eps)
            u_lo, l_hi = min(u_lo, hi), max(l_hi, lo)
        met = hi - lo <= eps_tol * max(hi, 1e-6)
        known = (lo, pair_hi) if self.bound_only else None
        return EpsilonBound(delta, lo, estimate(lo, hi, known), hi, at_hi, at_lo, met)
