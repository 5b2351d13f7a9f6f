"""``scope="all"`` at one bit: the exact maximum over every background.

At one bit every background is "``a`` zeros and ``c`` ones": the maximum of the tail over them is
certified by :mod:`gpu_rs.pairs.backgrounds`, that of ``δ`` by :mod:`gpu_rs.pairs.background_delta`.
Where either search is estimated beyond its time, that quantity takes the proven bound of
:mod:`gpu_rs.pairs.scopes.all_bound` instead, and :meth:`AllOneBit.exact` says so.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from gpu_rs.common.validation import Problem
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import background_delta, clones
from gpu_rs.pairs.backgrounds import WorstBackground
from gpu_rs.pairs.results import PairBound
from gpu_rs.pairs.scopes.all_bound import proven_all, proven_deltas
from gpu_rs.pairs.scopes.base import Ends, Scope, Scoped, TailQuery, pair_bound

SECONDS_PER_BACKGROUND = 1.2e-7
"""Cost of evaluating one background for ``scope="all"`` at one bit, per unit of ``sqrt(N p q)``
(measured on a 2-core CPU; see docs/benchmarks.md)."""
MAX_SECONDS = 900.0
"""Work estimated to take longer than this is refused up front."""
SEARCH_SECONDS = 20.0
"""The one-bit search over backgrounds stops after this long; the backgrounds left are bounded
from the ends of their intervals (a wider interval, reported as not met)."""


def estimate_seconds(n: int, q: float) -> float:
    """Estimated time of the one-bit search over every background."""
    return SECONDS_PER_BACKGROUND * n * math.sqrt(n * q * (1.0 - q)) + 0.05


def every_background(prob: Problem, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """``scope="all"`` for one bit: the certified maximum over every background (:mod:`gpu_rs.pairs.backgrounds`)."""
    search = WorstBackground(prob.n, prob.q, prob.ratio, inclusive)
    search.evaluate(0)
    goal = plan.goal(search.evaluated[0].lower)
    cap = min(1.0, clones.collapsed_tail(prob.n, 1, prob.q, prob.eps)[0])
    worst = search.search(goal, budget=prob.n + 2, cap=cap, seconds=SEARCH_SECONDS)
    best = search.evaluated[worst.zeros]
    own = min(best.upper, worst.upper) - best.lower
    budget = ErrorBudget(roundoff=own, relaxation=max(0.0, worst.upper - worst.lower - own))
    bounds = Bounds.make(worst.lower, worst.upper, budget, "backgrounds", worst.evaluated)
    ones = prob.n - 1 - worst.zeros
    name = f"background of {worst.zeros} zeros and {ones} ones, the user changing 0 -> 1, S drawn with the user at 1"
    if worst.lower == 0.0:
        name = "none resolved: every background's tail lies below the upper end"
        name += ", the clone bound" if worst.upper >= cap else ""
    if not worst.complete:
        name += (
            f" (the search stopped after {SEARCH_SECONDS:.0f} s with {worst.evaluated} backgrounds evaluated; "
            "the rest are bounded from the ends of their intervals)"
        )
    pairs = [pair_bound(name, Bounds(best.lower, best.upper, ErrorBudget(), "backgrounds"))]
    for a, label in ((prob.n - 1, "forward"), (0, "reverse")):
        pairs.append(PairBound(label, search.evaluated[a].lower, search.evaluated[a].upper, "backgrounds"))
    return Scoped(bounds, tuple(pairs), name)


class AllOneBit(Scope):
    """``scope="all"`` at one bit: the exact maximum over every background, where its search fits."""

    name = "all"

    def exact(self, quantity: str) -> bool:
        if quantity == "delta":
            return background_delta.fits(self.n, self.q)
        return estimate_seconds(self.n, self.q) <= MAX_SECONDS

    @functools.cached_property
    def rows(self) -> background_delta.Rows:
        """The rows of the one-bit δ search, kept across calls (a root finder's rounds reuse them)."""
        return background_delta.Rows(self.n, self.q)

    def tail(self, ask: TailQuery) -> Scoped:
        if self.exact("tail"):
            return every_background(ask.prob, ask.inclusive, ask.plan, ask.xp)
        minutes = estimate_seconds(self.n, self.q) / 60
        note = f"the exact search over every background would take about {minutes:.0f} min "
        note += f"(at most {MAX_SECONDS / 60:.0f} min is started)"
        return proven_all(ask.prob, ask.inclusive, ask.plan, ask.xp, note=note, decide=ask.decide)

    def every_pair_deltas(self, eps: np.ndarray, rel_width: float, abs_width: float, decide: float = 0.0) -> Ends:
        if self.exact("delta"):
            return background_delta.worst_deltas(self.rows, eps, rel_width, abs_width), None
        return None, proven_deltas(self.n, self.bits, self.q, eps, decide)
