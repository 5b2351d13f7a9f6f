"""Certified intervals and their error budget, with the rules that combine them.

One frozen :class:`Bounds` value flows from the method that computed it to the
result the user sees. Each combination rule (complement, scaling by a bracketed
probability, intersection, widening, clipping to [0, 1]; the mixture of
conditioned branches lives in :mod:`gpu_rs.engine.conditioning`) says where its width
comes from, so that the parts of :class:`ErrorBudget` always add up to
``upper − lower``: rounding-level differences go to ``roundoff``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gpu_rs.common.floats import FLOOR, TINY, UNIT
from gpu_rs.common.serialize import ToDict

STRICT = False
"""When true (the test suite sets it), a budget that misses the width by more than
rounding raises instead of being settled: it would mean a combination rule is wrong."""
SETTLE_TOLERANCE = 1e-9
EXACT_WIDTH = 1e-9
"""Widest interval still called ``"exact"``: wider ones come from more than round-off."""


@dataclass(frozen=True)
class ErrorBudget(ToDict):
    """How much each certified approximation widened the interval; the parts add up to its width.

    Attributes
    ----------
    discretization : float
        Resolution of the inversion: the width of Vaaler's majorant and minorant
        (or of a grid), the part that more Fourier terms would shrink.
    truncation : float
        Mass outside the window, Chernoff tails answered outright, and improbable
        branches bounded by their probability.
    roundoff : float
        Floating-point error: of the characteristic function, the sums, the
        probabilities and the closed-form masses.
    relaxation : float
        Width from a proven inequality standing in for the exact quantity (the monotone
        bounds over backgrounds and the clone reduction of ``scope="all"``).
    """

    discretization: float = 0.0
    truncation: float = 0.0
    roundoff: float = 0.0
    relaxation: float = 0.0

    @property
    def total(self) -> float:
        return self.discretization + self.truncation + self.roundoff + self.relaxation

    def scaled(self, factor: float) -> ErrorBudget:
        """Every part multiplied by ``factor``."""
        return ErrorBudget(*(factor * getattr(self, f.name) for f in dataclasses.fields(self)))

    def plus(self, other: ErrorBudget) -> ErrorBudget:
        """Part by part sum."""
        return ErrorBudget(*(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self)))

    def add(self, **parts: float) -> ErrorBudget:
        """This budget with ``parts`` added to the named fields."""
        return dataclasses.replace(self, **{k: getattr(self, k) + v for k, v in parts.items()})


def settle(lower: float, upper: float, budget: ErrorBudget, *, shrunk: bool = False) -> ErrorBudget:
    """``budget`` made to add up to ``upper − lower`` exactly.

    A rounding-level shortfall is float error of the combination itself and goes to
    ``roundoff``. Where the interval was ``shrunk`` (clipped to [0, 1], or intersected
    with another certified interval) every part is scaled down in proportion.
    """
    width = upper - lower
    total = budget.total
    residual = width - total
    rounding = SETTLE_TOLERANCE * max(width, total) + 8.0 * UNIT * (abs(lower) + abs(upper)) + FLOOR
    if STRICT and abs(residual) > rounding and not (shrunk and residual < 0.0):
        raise RuntimeError(f"error budget {total!r} does not add up to the width {width!r}: {budget}")
    if width <= 0.0:
        return ErrorBudget()
    if residual >= 0.0:
        return budget.add(roundoff=residual)
    return budget.scaled(width / total)


@dataclass(frozen=True)
class Bounds:
    """A certified interval ``lower <= P <= upper`` with its budget and its cost.

    Attributes
    ----------
    method : str
        The method that produced the interval (see :mod:`gpu_rs.engine.dispatch`).
    terms : int
        Fourier frequencies, lattice points or count vectors used (0 for closed forms).
    memory : int
        Bytes the method held at its peak.
    """

    lower: float
    upper: float
    budget: ErrorBudget
    method: str
    terms: int = 0
    memory: int = 0

    @classmethod
    def make(
        cls,
        lower: float,
        upper: float,
        budget: ErrorBudget,
        method: str,
        terms: int = 0,
        memory: int = 0,
        *,
        shrunk: bool = False,
    ) -> Bounds:
        """An interval whose budget is settled against its width (see :func:`settle`).

        A method named ``"exact"`` whose interval has grown beyond round-off (for instance
        by an uncertain split-off mass) is renamed ``"crossing"``: "exact" is never a bracket.
        """
        if method == "exact" and upper - lower > EXACT_WIDTH:
            method = "crossing"
        return cls(lower, upper, settle(lower, upper, budget, shrunk=shrunk), method, terms, memory)

    @classmethod
    def point(cls, value: float, method: str = "exact") -> Bounds:
        """A value known exactly."""
        return cls(value, value, ErrorBudget(), method)

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def _like(self, lower: float, upper: float, budget: ErrorBudget, *, shrunk: bool = False) -> Bounds:
        return Bounds.make(lower, upper, budget, self.method, self.terms, self.memory, shrunk=shrunk)

    def complement(self) -> Bounds:
        """Bounds on ``1 − P``, widened by the rounding of ``1 − x`` (exact for ``x`` in {0} ∪ [1/2, 1])."""

        def err(x: float) -> float:
            return 0.0 if x == 0.0 or 0.5 <= x <= 1.0 else UNIT

        below, above = err(self.upper), err(self.lower)
        return self._like(1.0 - self.upper - below, 1.0 - self.lower + above, self.budget.add(roundoff=below + above))

    def crossed(self, k_lo: float, k_hi: float, gone_lo: float, gone_hi: float) -> Bounds:
        """Bounds on ``1 − K (1 − P) = (1 − K) + K P`` for ``K in [k_lo, k_hi]``.

        ``gone = 1 − K`` is passed bracketed (computed as ``−expm1(log K)``), so that a
        small ``P`` keeps its relative accuracy. The width is
        ``k_lo (P_hi − P_lo) + (gone_hi − gone_lo) − (k_hi − k_lo) P_lo``: this budget
        scaled, plus the error of ``K`` (round-off).
        """
        lower = gone_lo + k_hi * self.lower
        upper = gone_hi + k_lo * self.upper
        budget = self.budget.scaled(k_lo).add(roundoff=(gone_hi - gone_lo) - (k_hi - k_lo) * self.lower)
        return self._like(lower, upper, budget)

    def scaled(self, k_lo: float, k_hi: float) -> Bounds:
        """Bounds on ``K P`` for ``K in [k_lo, k_hi]`` (``P, K >= 0``).

        ``k_hi P_hi − k_lo P_lo = k_lo (P_hi − P_lo) + (k_hi − k_lo) P_hi``: the first
        term is this budget scaled, the second is the error of ``K`` (round-off).
        """
        lower = k_lo * self.lower
        upper = k_hi * self.upper
        if upper == 0.0 and k_hi > 0.0 and self.upper > 0.0:
            upper = TINY  # the product underflowed; the probability it bounds is positive
        budget = self.budget.scaled(k_lo).add(roundoff=(k_hi - k_lo) * self.upper)
        return self._like(lower, upper, budget)

    def widened(self, below: float, above: float, part: str) -> Bounds:
        """``lower − below``, ``upper + above``, both charged to the budget's ``part``."""
        return self._like(self.lower - below, self.upper + above, self.budget.add(**{part: below + above}))

    def rounded(self) -> Bounds:
        """Widened by 4 ulp on each side for the rounding of the last operation."""
        return self.widened(4.0 * UNIT * abs(self.lower), 4.0 * UNIT * abs(self.upper), "roundoff")

    def clipped(self) -> Bounds:
        """Clipped to ``[0, 1]``: a probability lies there, so this only drops impossible width."""
        lower, upper = max(0.0, self.lower), min(1.0, self.upper)
        if (lower, upper) == (self.lower, self.upper):
            return self
        return self._like(lower, upper, self.budget, shrunk=True)

    def intersect(self, other: Bounds) -> Bounds:
        """The intersection of two certified intervals for the same quantity.

        Its budget is that of the narrower interval, scaled to the intersection's width;
        its cost is the sum of both.
        """
        narrow = self if self.width <= other.width else other
        lower, upper = max(self.lower, other.lower), min(self.upper, other.upper)
        return Bounds.make(
            lower,
            upper,
            narrow.budget,
            narrow.method,
            self.terms + other.terms,
            max(self.memory, other.memory),
            shrunk=True,
        )
