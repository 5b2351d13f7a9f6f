"""The largest tail over every homogeneous background (the family of :mod:`gpu_rs.pairs.family`).

Each member's tail has a cheap certified upper bound (:mod:`gpu_rs.pairs.family_screen`, a
truncated Chernoff bound conditioned on the user's report), computed for many members at once. The
seed's pair in both orders is evaluated first; every member is screened by a coarse pass against its
certified lower bound, and the members left above it by :data:`FINE_PASSES` fine passes. Then the members whose bound
still exceeds the best certified lower bound found so far are evaluated through the engine at a
loose width (:data:`SCREEN_WIDTH`), largest bound first, in rounds: the first with
:data:`FIRST_TERMS` Fourier terms, each next round with four times as many, for the members still
*open* (upper bound above the best lower bound, screening width not reached), until none is open,
the terms reach the plan's limit or the engine's time runs out: it has :data:`ENGINE_SHARE` of the
screening's time (at least :data:`ENGINE_SECONDS`; all of the search's limit where it is above the default), and
never past the search's limit. A member whose upper bound is
at most the best lower bound found cannot beat it.

Every member keeps a certified upper bound (its engine bounds or its screening bound), so the
answer always holds an upper bound on the whole family, and a best member whose certified lower
bound is a lower bound on the family's maximum (and on every pair's supremum). Where members are
left open (time out, or terms exhausted) the two need not meet, and the answer counts them.
The winner is evaluated again at the width asked if time remains.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.limits import FAMILY_SECONDS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import family
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.family_screen import COARSE, FINE, screen_uppers

SCREEN_WIDTH = 1e-2
"""Relative width at which candidate members are evaluated."""
FIRST_TERMS = 1 << 12
"""Fourier terms of a candidate's first evaluation; each later round asks four times as many."""
SECONDS_PER_MEMBER = (2e-5, 8e-8)
"""Measured cost of one member's screening bound, ``a + b · L²`` seconds (shared 2-core CPU; docs/benchmarks.md)."""
FINE_PASSES = 2
"""Fine screening passes over the members left above the best tail, each referred to the last one's bounds."""
ENGINE_SHARE, ENGINE_SECONDS = 0.1, 0.25
"""The engine's evaluations may take this share of the screening's time, and at least this long: the lower
end only needs one valid pair (the seed's is one), the upper end only the screening's bounds."""
MAX_SECONDS = FAMILY_SECONDS
"""Default time limit of a family search (screening and evaluations); estimated longer screenings are not started."""


@dataclass(frozen=True)
class FamilyMax:
    """The outcome of :func:`family_max`.

    Attributes
    ----------
    best : Member
        The member with the largest certified lower bound.
    bounds : Bounds
        Its certified bounds (at the width asked where time allowed, else at :data:`SCREEN_WIDTH`).
    upper : float
        An upper bound on every member's tail (both orders of every homogeneous background).
    members, evaluated, unresolved : int
        Members in the family, members evaluated through the engine (each once however many rounds
        it took, the seed's pair in ``known`` included, so at most ``members``), and members left
        open: upper bound above the best lower bound, not evaluated to :data:`SCREEN_WIDTH` (time or
        terms ran out).
        Members evaluated to that width may still overlap the best one; ``upper`` covers them all.
    seconds : float
        Time the search took.
    """

    best: Member
    bounds: Bounds
    upper: float
    members: int
    evaluated: int
    unresolved: int
    seconds: float


def member_count(bits: int) -> int:
    """How many members the family has for ``bits`` bits."""
    return sum((d + 1) * (bits - d + 1) for d in range(1, bits + 1))


def estimate_seconds(bits: int) -> float:
    """Estimated time of the screening of :func:`family_max` for ``bits`` bits (any ``n``)."""
    return member_count(bits) * (SECONDS_PER_MEMBER[0] + SECONDS_PER_MEMBER[1] * bits**2)


def check_time(bits: int, max_seconds: float = MAX_SECONDS) -> None:
    """Refuse up front a family search whose screening is estimated to exceed ``max_seconds``."""
    seconds = estimate_seconds(bits)
    if seconds > max_seconds:
        raise TimeBudgetError(
            f"the search over every homogeneous background at bits={bits} would take about {seconds:.3g} s "
            f"to screen, over search_seconds={max_seconds:g}"
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

    ``known`` holds members already evaluated at the width asked (the seed's pair); the search
    stops evaluating once ``max_seconds`` have passed (or would pass during the next evaluation), and,
    unless ``max_seconds`` exceeds the default, once the engine has taken :data:`ENGINE_SHARE` of the
    screening's time (at least :data:`ENGINE_SECONDS`).
    """
    check_time(prob.bits, max_seconds)
    start = time.perf_counter()
    done: dict[Member, Bounds] = dict(known or {})
    for seed in (Member(prob.bits, prob.bits, 0, 0), Member(prob.bits, prob.bits, prob.bits, 0)):
        if seed not in done:
            done[seed] = family.member_bounds(seed, prob, inclusive, plan, xp)
    best = max(b.lower for b in done.values())
    rest = [m for m in family.members(prob.bits) if m not in done]
    upper = screen_uppers(rest, prob, COARSE, dict.fromkeys(rest, best), xp=xp)
    for _ in range(FINE_PASSES):  # each referred to the bounds of the last
        above = [m for m in rest if upper[m] > best]
        for m, bound in screen_uppers(above, prob, FINE, dict(upper), start + max_seconds, xp).items():
            upper[m] = min(upper[m], bound)
    upper.update({m: b.upper for m, b in done.items()})
    screened = time.perf_counter()
    engine = max(ENGINE_SECONDS, ENGINE_SHARE * (screened - start)) if max_seconds <= MAX_SECONDS else max_seconds
    search = _Rounds(prob, inclusive, xp, min(start + max_seconds, screened + engine), done, upper)
    search.run(Plan(max(plan.rel_width, SCREEN_WIDTH), plan.abs_width, min(FIRST_TERMS, plan.max_terms)), plan)
    top = max(done, key=lambda m: (done[m].lower, -m.d))
    if not plan.met(done[top]) and top not in (known or {}) and search.fits(4.0 * search.cost):
        refined = family.member_bounds(top, prob, inclusive, plan, xp)
        if refined.lower >= done[top].lower:
            done[top], upper[top] = refined, min(upper[top], refined.upper)
    best = done[top].lower
    unresolved = sum(1 for m in upper if upper[m] > best and m not in search.settled)
    seconds = time.perf_counter() - start
    return FamilyMax(top, done[top], max(upper.values()), len(upper), len(done), unresolved, seconds)


class _Rounds:
    """The rounds of engine evaluations of :func:`family_max` (module docstring), updating ``done`` and ``upper``."""

    def __init__(
        self,
        prob: Problem,
        inclusive: bool,
        xp: Any,
        deadline: float,
        done: dict[Member, Bounds],
        upper: dict[Member, float],
    ) -> None:
        self.prob, self.inclusive, self.xp, self.deadline = prob, inclusive, xp, deadline
        self.done, self.upper = done, upper
        self.settled = set(done)
        self.cost = 0.0  # the slowest evaluation at the current terms, in seconds

    def fits(self, seconds: float) -> bool:
        """Whether work of ``seconds`` would end before the deadline."""
        return time.perf_counter() + seconds <= self.deadline

    def best(self) -> float:
        """The largest certified lower bound found."""
        return max(b.lower for b in self.done.values())

    def run(self, screen: Plan, plan: Plan) -> None:
        """Evaluate open members, four times the terms each round, until none is open or time or terms run out."""
        while True:
            best = self.best()
            candidates = [m for m in self.upper if self.upper[m] > best and m not in self.settled]
            if not candidates:
                return
            for m in sorted(candidates, key=lambda m: -self.upper[m]):
                if self.upper[m] <= self.best():
                    continue
                if not self.fits(self.cost):
                    return
                began = time.perf_counter()
                b = family.member_bounds(m, self.prob, self.inclusive, screen, self.xp)
                self.cost = max(self.cost, time.perf_counter() - began)
                self.done[m], self.upper[m] = b, min(self.upper[m], b.upper)
                if screen.met(b):
                    self.settled.add(m)
            if screen.max_terms >= plan.max_terms:
                return
            screen = Plan(screen.rel_width, screen.abs_width, min(4 * screen.max_terms, plan.max_terms))
            self.cost *= 4.0
