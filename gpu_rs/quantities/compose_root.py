"""The composed profile's engine: ``δ(ε)`` from the four composed sides, ``ε(δ)`` by bisection."""

from __future__ import annotations

import numpy as np

from gpu_rs.common.bisection import bisect_bracket
from gpu_rs.common.floats import UNIT
from gpu_rs.common.limits import MAX_TILT_TERMS
from gpu_rs.engine.atoms import eps_top
from gpu_rs.engine.bounds import ErrorBudget
from gpu_rs.pairs.compose_pairs import NULL, LossPmf
from gpu_rs.pairs.compose_sides import Side
from gpu_rs.pairs.results import estimate
from gpu_rs.pairs.scopes.all_krand import AllKrand
from gpu_rs.quantities.profile_results import DeltaBound, EpsilonBound

LOOSE = 0.05
"""Relative width of the first try at each point of the root finder; narrowed where it cannot decide."""

Pairs = dict[str, list[tuple[tuple[LossPmf, LossPmf], int]]]


class Composition:
    """Both orders of the composed dominating and dominated pairs (:mod:`~gpu_rs.quantities.compose`)."""

    def __init__(self, pairs: Pairs, rel_width: float, abs_width: float, top: float) -> None:
        self.pairs, self.rel_width, self.abs_width = pairs, rel_width, abs_width
        made: dict[tuple, Side] = {}

        def side(which: int, name: str) -> Side:
            parts = [(pmfs[which], count) for pmfs, count in pairs[name]]
            key = tuple((p, c) for p, c in parts)
            if key not in made:
                made[key] = Side(parts, MAX_TILT_TERMS, np)
            return made[key]

        self.sides = {name: (side(0, name), side(1, name)) for name in pairs}
        self.top = max(float(top), max(s.law.max + s.shift for s, _ in self.sides.values()) * (1.0 + 1e-9) + 1e-9)

    def _each(self, eps: float, sides: list[Side], rel_width: float) -> dict[int, tuple[float, float]]:
        """``Side.delta`` of each distinct side once, under its ``id`` (the orders share a side where their
        laws are equal: ``scope="all"``, ``k`` reports)."""
        found: dict[int, tuple[float, float]] = {}
        for side in sides:
            if id(side) not in found:
                found[id(side)] = side.delta(eps, rel_width, self.abs_width)
        return found

    def _ends(self, eps: float, which: int, rel_width: float) -> tuple[float, float]:
        """``(max lower, max upper)`` over the orders of the dominating (0) or dominated (1) pair."""
        found = self._each(eps, [pair[which] for pair in self.sides.values()], rel_width).values()
        return max(f[0] for f in found), max(f[1] for f in found)

    bound_only = False

    def deltas(self, eps: list[float]) -> list[DeltaBound]:
        """Certified ``δ`` at each of ``eps``."""
        return [self.delta(e) for e in eps]

    def delta(self, eps: float) -> DeltaBound:
        """Certified ``δ(eps)`` after every release."""
        got = self._each(eps, [side for pair in self.sides.values() for side in pair], self.rel_width)
        found = {name: (*got[id(down)], *got[id(up)]) for name, (up, down) in self.sides.items()}
        lower, upper = max(v[0] for v in found.values()), max(v[3] for v in found.values())
        top = max(v[2] for v in found.values())
        disc = min(upper - top, upper - lower) if top <= upper else 0.0
        budget = ErrorBudget(discretization=disc, relaxation=upper - lower - disc)
        return DeltaBound(
            eps,
            lower,
            estimate(lower, upper, (top, upper)),
            upper,
            (found["forward"][0], found["forward"][3]),
            (found["reverse"][0], found["reverse"][3]),
            upper - top <= max(self.abs_width, self.rel_width * top),
            0,
            budget,
        )

    def _decide(self, eps: float, delta: float, which: int) -> tuple[float, float]:
        """The ends at ``eps``, narrowed to ``rel_width`` only where the loose ones straddle ``delta``."""
        lo, hi = self._ends(eps, which, max(LOOSE, self.rel_width))
        if lo <= delta < hi:
            lo, hi = self._ends(eps, which, self.rel_width)
        return lo, hi

    def epsilon(self, delta: float, eps_tol: float) -> EpsilonBound:
        """Certified ``ε(δ)``: bisection of the dominating pair's upper ``δ`` (the upper end), then of
        the dominated pair's lower ``δ`` (the lower end), each to ``eps_tol`` times the upper end."""
        floor = self._ends(self.top, 0, self.rel_width)[1]
        if floor > delta:
            raise ValueError(
                f"delta must exceed the composed export's infinity mass, {floor:.3e}: got {delta!r} "
                "(lower the profiles' delta_floor)"
            )
        u_lo, hi = bisect_bracket(lambda e: self._decide(e, delta, 0)[1] <= delta, 0.0, self.top, rel_tol=eps_tol)
        lo = bisect_bracket(lambda e: not self._decide(e, delta, 1)[0] > delta, 0.0, hi, tol=eps_tol * hi)[0]
        at_hi = self.delta(hi)
        at_lo = self.delta(lo) if lo > 0.0 else None
        met = hi - lo <= eps_tol * hi * (1.0 + 4.0 * UNIT)
        return EpsilonBound(delta, lo, estimate(lo, hi, (u_lo, hi)), hi, at_hi, at_lo, met)


def krand_composition(covers: AllKrand, rel_width: float, abs_width: float) -> Composition:
    """``scope="all"`` with ``k`` reports per user as a composition: the ``k``-fold dominating pair above,
    the pair of equal laws below (``δ`` of ``R_k``'s own pair is not computed: docs/composition.md §2)."""
    pairs: Pairs = {name: [((covers.pmf, NULL), covers.k)] for name in ("forward", "reverse")}
    return Composition(pairs, rel_width, abs_width, eps_top(covers.k * covers.bits, covers.q))
