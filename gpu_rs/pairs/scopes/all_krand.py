"""``scope="all"`` with ``k > 1`` reports per user: a proven upper end over every pair (docs/composition.md §2).

The shuffle of all ``kN`` reports is a post-processing of ``k`` separate shuffles, round ``j``
holding every user's ``j``-th report: each round is the one-report mechanism on the same
neighbouring pair, independent of the others. One report's every-pair upper ``δ``
(:func:`~gpu_rs.pairs.scopes.all_bound.proven_deltas`) gives, on an export's grid, one discrete
pair dominating every neighbouring pair in either order
(:func:`~gpu_rs.pairs.compose_pairs.pessimistic`); its ``k``-fold composition
(:class:`~gpu_rs.pairs.compose_sides.Side`) bounds ``δ(ε)`` of every pair with ``k`` reports, and
docs/worst-case.md §8.3 turns that into the tail: ``P[R_k > e^{ε′}] <= δ(ε)/(1 − e^{ε − ε′})``
for every ``ε < ε′``, the least over :data:`GAPS`. The lower end is the seed's pair with ``k``
reports in both orders (:func:`gpu_rs.pairs.krand.answer`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.common.limits import MAX_TILT_TERMS
from gpu_rs.engine.atoms import eps_top
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import krand
from gpu_rs.pairs.compose_pairs import LossPmf, dominating, grid_span
from gpu_rs.pairs.compose_sides import Side
from gpu_rs.pairs.guarantees import guarantee
from gpu_rs.pairs.profile_grid import POINTS, export_grid
from gpu_rs.pairs.results import PairBound
from gpu_rs.pairs.scopes.all_bound import proven_deltas
from gpu_rs.pairs.scopes.base import Ends, Scope, Scoped, TailQuery

GAPS = np.geomspace(0.01, 20.0, 16)
"""The gaps ``ε′ − ε`` of docs/worst-case.md §8.3 tried for each tail."""
SEED_WIDTH = 0.1
"""Relative width asked of the lower end, the seed's pair with ``k`` reports."""


@dataclass(frozen=True)
class _Proven:
    """One report's every-pair upper ``δ``, read by :func:`~gpu_rs.pairs.profile_grid.export_grid`."""

    n: int
    bits: int
    q: float
    scope = "all"
    rel_width = 0.0
    bound_only = True

    @property
    def eps_top(self) -> float:
        return eps_top(self.bits, self.q)

    def delta(self, eps: Any) -> list[Any]:
        return [
            PairBound("every pair", 0.0, float(v), "proven")
            for v in proven_deltas(self.n, self.bits, self.q, np.asarray(eps))
        ]


class AllKrand(Scope):
    """``scope="all"``, ``k > 1``: the ``k``-fold composition of one report's every-pair dominating pair."""

    name = "all"

    def exact(self, quantity: str) -> bool:
        return False

    def guarantee(self, quantity: str) -> str:
        return guarantee(self.name, exact_all=False, quantity="krand-delta" if quantity == "delta" else "krand")

    @functools.cached_property
    def pmf(self) -> LossPmf:
        """One report's pair dominating every pair, either order (one curve covers both)."""
        proven = _Proven(self.n, self.bits, self.q)
        # the grid reaches the largest loss, beyond which δ = 0 (no scan for the end: the blanket is slow
        # there), or MAX_LOSS
        top, step = grid_span(proven.eps_top, POINTS)
        grid = export_grid(proven, eps_max=top, discretization=step)
        return dominating(grid, grid.remove[1])

    @functools.cached_property
    def composed(self) -> Side:
        """The ``k``-fold composition of :attr:`pmf`."""
        return Side([(self.pmf, self.k)], MAX_TILT_TERMS, np)

    def every_pair_deltas(self, eps: np.ndarray, rel_width: float, abs_width: float, decide: float = 0.0) -> Ends:
        return None, np.array([self.composed.delta(float(e), rel_width, abs_width)[1] for e in eps])

    def tail(self, ask: TailQuery) -> Scoped:
        """The least bound over :data:`GAPS` (up to ``ask.decide``, where given), and the seed's pair below.

        The seed's pair is asked to :data:`SEED_WIDTH` relative, and absolute a thousandth of the upper
        end: it is the lower end of an interval that the composition's relaxation makes wide anyway.
        """
        eps, plan = ask.prob.eps, ask.plan
        best = 1.0
        for gap in GAPS:
            up = self.composed.delta(eps - gap, plan.rel_width, plan.abs_width)[1]
            best = min(best, up / -math.expm1(-gap) * (1.0 + 8.0 * UNIT))
            if best <= ask.decide:
                break
        loose = Plan(max(plan.rel_width, SEED_WIDTH), max(plan.abs_width, 1e-3 * best), plan.max_terms)
        seed = krand.answer("homogeneous", ask.prob, self.k, ask.inclusive, loose, ask.xp)
        lower = seed.bounds.lower
        upper = max(best, lower)
        budget = ErrorBudget(relaxation=upper - lower)
        bounds = Bounds.make(lower, upper, budget, "composition", seed.bounds.terms, seed.bounds.memory)
        known = PairBound("seed's pair, k reports", seed.bounds.lower, seed.bounds.upper, seed.bounds.method)
        return Scoped(bounds, seed.pairs, "every pair: k-fold composition (docs/composition.md §2)", known)
