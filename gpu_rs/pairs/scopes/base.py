"""What a scope answers: the :class:`Scope` of one setting, and its tail, :class:`Scoped`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gpu_rs.common.limits import FAMILY_SECONDS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs.background_delta import WorstDelta
from gpu_rs.pairs.guarantees import guarantee
from gpu_rs.pairs.results import PairBound, estimate


def larger(a: Bounds, b: Bounds) -> Bounds:
    """Bounds on ``max(P_a, P_b)``: ``[max of the lowers, max of the uppers]``.

    The interval lies inside the one with the larger upper bound, whose budget it takes
    (scaled to its width).
    """
    top = a if a.upper >= b.upper else b
    return Bounds.make(
        max(a.lower, b.lower),
        top.upper,
        top.budget,
        top.method,
        a.terms + b.terms,
        max(a.memory, b.memory),
        shrunk=True,
    )


@dataclass(frozen=True)
class Scoped:
    """A scope's tail: the bounds, the pairs computed on the way, and the worst pair.

    ``known`` is the best pair known where ``bounds`` run from its tail to a proven bound over every
    pair (``scope="all"`` at several bits), else None; :attr:`estimate` is its midpoint there.
    """

    bounds: Bounds
    pairs: tuple[PairBound, ...]
    worst: str
    known: PairBound | None = None

    @property
    def estimate(self) -> float:
        """The point reported inside ``bounds`` (:func:`gpu_rs.pairs.results.estimate`)."""
        known = None if self.known is None else (self.known.lower, self.known.upper)
        return estimate(self.bounds.lower, self.bounds.upper, known)


Ends = tuple[list[WorstDelta] | None, np.ndarray | None]
"""The every-pair ends of ``δ`` a scope gives the profile: exact maxima, or proven upper bounds."""


@dataclass(frozen=True)
class KnownDeltas:
    """Certified ``[lower, upper]`` of one pair's ``δ`` at an array of ``ε``, and which pair (a sentence)."""

    lower: np.ndarray
    upper: np.ndarray
    pair: str

    def at(self, i: int) -> tuple[float, float]:
        """``[lower, upper]`` at the ``i``-th ``ε``."""
        return float(self.lower[i]), float(self.upper[i])


@dataclass(frozen=True)
class TailQuery:
    """One tail question to a scope: ``P[R > e^ε]`` (``>=`` if ``inclusive``) of ``prob``, to ``plan`` on ``xp``.

    ``decide > 0`` only decides ``upper <= decide``; ``search_seconds`` limits the search for the best
    pair known (``scope="all"`` at several bits, :func:`gpu_rs.pairs.scopes.all_bound.proven_all`).
    """

    prob: Problem
    inclusive: bool
    plan: Plan
    xp: object
    decide: float = 0.0
    search_seconds: float = FAMILY_SECONDS


def pair_bound(name: str, b: Bounds) -> PairBound:
    """The :class:`PairBound` of one pair's certified tail ``b``."""
    return PairBound(name, float(b.lower), float(b.upper), b.method)


@dataclass(frozen=True)
class Scope:
    """Which neighbouring pairs a result covers, for one setting, and how each quantity is computed for them.

    Made by :func:`gpu_rs.pairs.scopes.scope_for`, the only place that chooses between the scopes.
    ``orders`` names the orders of the seed's pair that the profile computes (its lower end, and the
    answer itself where the scope covers only that pair).
    """

    n: int
    bits: int
    q: float
    k: int = 1
    name: ClassVar[str]
    orders: ClassVar[tuple[str, ...]] = ("forward", "reverse")

    def exact(self, quantity: str) -> bool:
        """Whether the answer for ``quantity`` (``"tail"`` or ``"delta"``) is the exact maximum over the
        pairs covered, rather than a proven upper bound over them."""
        return True

    def guarantee(self, quantity: str) -> str:
        """The guarantee sentence of the answer for ``quantity`` (``"tail"`` or ``"delta"``)."""
        kind = "krand" if self.k > 1 else quantity
        return guarantee(self.name, exact_all=self.exact(quantity), quantity=kind)

    def tail(self, ask: TailQuery) -> Scoped:
        """The certified tail over the pairs covered (SPEC §1.1)."""
        raise NotImplementedError

    def every_pair_deltas(self, eps: np.ndarray, rel_width: float, abs_width: float, decide: float = 0.0) -> Ends:
        """For the profile, at each ``ε > 0`` of ``eps``: the exact maximum of ``δ`` over every pair (first), or a
        proven upper bound on it (second); ``(None, None)`` where the seed's pair is all the scope covers.
        ``decide > 0``: upper bounds need only decide ``<= decide``."""
        return None, None

    def known_deltas(self, eps: np.ndarray, seconds: float) -> KnownDeltas | None:
        """Where the profile's answer is a proven upper end: a pair beside the seed's whose certified ``δ`` may
        raise the lower end (the best found in about ``seconds``), at each ``ε > 0`` of ``eps``; None where the
        scope has none."""
        return None
