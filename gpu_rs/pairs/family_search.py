"""The largest tail over every homogeneous background (the family of :mod:`gpu_rs.pairs.family`).

Each member's tail has a cheap certified upper bound (:func:`gpu_rs.pairs.family.quick_upper`,
Chernoff bounds conditioned on the user's report). The seed's pair in both orders is evaluated first;
then the members are taken in decreasing order of their Chernoff bound, and a member is
evaluated through the engine only while its bound exceeds the best certified lower bound
found so far. A member skipped that way cannot beat the best member found, so the search
returns a member whose certified lower bound is within the evaluation width of the family's
maximum, and an upper bound on every member's tail. Candidates are evaluated at a loose width
first (:data:`SCREEN_WIDTH`); the winner is evaluated again at the width asked. Where the
evaluations outlast :data:`EVALUATION_SECONDS` the search stops: the best member found is still
a certified lower bound on the family's maximum (and so on every pair's supremum), but no
upper bound on the family is claimed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.validation import Problem
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import family
from gpu_rs.pairs.family import Member

SCREEN_WIDTH = 1e-2
"""Relative width at which candidate members are screened."""
SECONDS_PER_MEMBER = (3e-3, 4e-4)
"""Measured cost of one member's quick bound: ``a + b · L`` seconds (2-core CPU)."""
MAX_SECONDS = 30.0
"""Family searches whose screening is estimated to take longer than this are not started."""
EVALUATION_SECONDS = 60.0
"""Members are evaluated through the engine until this much time has passed; the rest are left open."""


@dataclass(frozen=True)
class FamilyMax:
    """The outcome of :func:`family_max`.

    Attributes
    ----------
    best : Member
        The member with the largest certified lower bound.
    bounds : Bounds
        Its certified bounds, at the width asked.
    upper : float or None
        An upper bound on every member's tail (both orders of every homogeneous background),
        None where the time budget left members unresolved.
    members, evaluated : int
        Members in the family, and members evaluated through the engine.
    """

    best: Member
    bounds: Bounds
    upper: float | None
    members: int
    evaluated: int


def estimate_seconds(bits: int) -> float:
    """Estimated time of the screening of :func:`family_max` for ``bits`` bits (any ``n``)."""
    count = sum((d + 1) * (bits - d + 1) for d in range(1, bits + 1))
    return count * (SECONDS_PER_MEMBER[0] + SECONDS_PER_MEMBER[1] * bits)


def check_time(bits: int, max_seconds: float = MAX_SECONDS) -> None:
    """Refuse up front a family search whose screening is estimated to exceed ``max_seconds``."""
    seconds = estimate_seconds(bits)
    if seconds > max_seconds:
        raise TimeBudgetError(
            f"the search over every homogeneous background at bits={bits} would take about {seconds:.0f} s "
            f"(at most {max_seconds:.0f} s is started)"
        )


def family_max(
    prob: Problem,
    inclusive: bool,
    plan: Plan,
    xp: Any,
    known: dict[Member, Bounds] | None = None,
    max_seconds: float = MAX_SECONDS,
) -> FamilyMax:
    """The member of largest tail, certified, and a bound on every member's (module docstring).

    ``known`` holds members already evaluated at the width asked (the seed's pair).
    """
    check_time(prob.bits, max_seconds)
    start = time.perf_counter()
    screen = Plan(max(plan.rel_width, SCREEN_WIDTH), plan.abs_width, plan.max_terms)
    done: dict[Member, Bounds] = dict(known or {})
    for seed in (Member(prob.bits, prob.bits, 0, 0), Member(prob.bits, prob.bits, prob.bits, 0)):
        if seed not in done:
            done[seed] = family.member_bounds(seed, prob, inclusive, plan, xp)
    best = max(b.lower for b in done.values())
    bounds = {m: family.quick_upper(m, prob, inclusive) for m in family.members(prob.bits) if m not in done}
    total = len(bounds) + len(done)
    evaluated = 0
    ceiling = 0.0
    complete = True
    for m in sorted(bounds, key=lambda m: -bounds[m]):
        if bounds[m] <= best:
            ceiling = max(ceiling, bounds[m])
            continue
        if time.perf_counter() - start > EVALUATION_SECONDS:
            complete = False
            break
        done[m] = family.member_bounds(m, prob, inclusive, screen, xp)
        evaluated += 1
        best = max(best, done[m].lower)
    top = max(done, key=lambda m: (done[m].lower, -m.d))
    if not plan.met(done[top]) and top not in (known or {}):
        done[top] = family.member_bounds(top, prob, inclusive, plan, xp)
    upper = max([b.upper for b in done.values()] + [ceiling]) if complete else None
    return FamilyMax(top, done[top], upper, total, evaluated)
