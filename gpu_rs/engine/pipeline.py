"""The certified tail of a sum of record atoms, stage by stage: read this file first.

``P[X > t]`` (or ``>=``, ``<``, ``<=``) for ``X`` a sum of records of a few kinds
(zero vectors, outliers, their atoms squared), the engine behind every public
entry point:

1. **atoms** (:mod:`gpu_rs.engine.atoms`): each kind's atom values in log space and exact
   probabilities;
2. **crossing** (:mod:`gpu_rs.engine.crossing`): atoms that decide the event alone are split
   off in closed form; what is left is ``P[Y ∈ cut]`` for a sum ``Y`` of bounded
   summands (:class:`gpu_rs.engine.laws.SumLaw`);
3. **width plan** (:class:`Plan`): the absolute width the inner problem must reach,
   from a Chernoff guess of the answer, refined from the first lower bound;
4. **dispatch** (:mod:`gpu_rs.engine.dispatch`): the first method in the table that applies
   bounds ``P[Y ∈ cut]``;
5. **combination** (:mod:`gpu_rs.engine.bounds`): the inner bounds and the split-off mass give
   the answer, with an error budget that adds up to its width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpu_rs.common.errors import MemoryBudgetError
from gpu_rs.common.floats import EXP_LIMIT, FLOOR
from gpu_rs.engine import chernoff, crossing, dispatch
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.crossing import Crossing, Query
from gpu_rs.engine.fourier import FIRST_TERMS, workspace_bytes

REFINEMENTS = 3
"""At most this many reruns with a target refined from the last lower bound."""


@dataclass(frozen=True)
class Plan:
    """What width to reach, and how many Fourier terms the memory budget allows."""

    rel_width: float
    abs_width: float
    max_terms: int

    def goal(self, tail: float) -> float:
        """The absolute width asked of an answer near ``tail``."""
        return max(self.abs_width, self.rel_width * tail, FLOOR)

    def met(self, b: Bounds) -> bool:
        """Whether ``b`` is as narrow as asked (measured against its own lower bound)."""
        return b.width <= max(self.abs_width, self.rel_width * b.lower)


def plan_terms(max_terms: int, free_bytes: int, max_memory: int | None) -> int:
    """How many frequencies the memory budget allows; refuses up front if too few.

    The budget is ``max_memory`` bytes, or half of ``free_bytes`` (the device's free memory).
    """
    budget = free_bytes // 2 if max_memory is None else int(max_memory)
    fit = (budget - workspace_bytes(0)) // (workspace_bytes(1) - workspace_bytes(0))
    if fit < FIRST_TERMS:
        need = workspace_bytes(FIRST_TERMS)
        raise MemoryBudgetError(
            f"max_memory must allow at least {need / 2**20:.1f} MiB for this query: got {budget / 2**20:.1f} MiB"
        )
    return int(min(max_terms, fit))


def tail_bounds(query: Query, plan: Plan, xp: Any) -> Bounds:
    """Certified bounds on ``query``'s probability (see the module docstring for the stages)."""
    return crossed_bounds(crossing.split(query), plan, xp)


def crossed_bounds(cross: Crossing, plan: Plan, xp: Any) -> Bounds:
    """Stages 3 to 5 for a problem whose deciding atoms are already split off (any source of laws)."""
    if cross.law is None:
        # Every record crosses: the tail is 1 (upper) or 0 (lower), up to the set-aside atoms.
        return cross.combine(Bounds.point(0.0 if cross.upper else 1.0, "crossing"))
    k_lo, k_hi = cross.keep
    if math.log(k_hi) < -EXP_LIMIT:
        # P[A] is below 1e-304: bracket the answer without solving for Y.
        return cross.combine(Bounds.make(0.0, 1.0, ErrorBudget(truncation=1.0), "crossing"))
    law, cut = cross.law, cross.cut
    if cross.upper:
        guess = 1.0 - k_lo + k_hi * chernoff.upper_tail(law, cut.lo)
    else:
        guess = k_hi * chernoff.lower_tail(law, cut.hi)
    target = plan.goal(min(1.0, guess)) / k_hi
    result = cross.combine(dispatch.solve(law, cut, target, plan.max_terms, xp))
    for _ in range(REFINEMENTS):
        if plan.met(result):
            break
        refined = plan.goal(result.lower) / k_hi
        if refined >= 0.9 * target:
            break
        target = refined
        result = cross.combine(dispatch.solve(law, cut, target, plan.max_terms, xp))
    return result
