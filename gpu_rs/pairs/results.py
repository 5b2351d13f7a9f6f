"""Result objects of the pairs layer.

``PairBound``: one pair's bounds on the way to a scope's answer; ``PairTail`` and ``PairSearch``: the
exact small-collection computations of :mod:`gpu_rs.pairs.exact` and :mod:`gpu_rs.pairs.worst`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gpu_rs.common.serialize import ToDict


@dataclass(frozen=True)
class PairBound(ToDict):
    """Certified bounds on one pair's tail, computed on the way to a scope's answer.

    ``pair`` names it: ``"forward"`` and ``"reverse"`` for the two orders of the
    homogeneous pair, or a background in words.
    """

    pair: str
    lower: float
    upper: float
    method: str


def estimate(lower: float, upper: float, known: tuple[float, float] | None = None) -> float:
    """The point a result reports inside its certified interval ``[lower, upper]`` (its ``estimate``).

    The midpoint, where the interval brackets one value: one pair's tail or ``δ``, or the exact
    maximum over every pair. Where it brackets none (``scope="all"`` at several bits: the lower end
    is the best pair known's value, the upper end a proven bound over every pair), the midpoint
    would be the value of no pair and estimate nothing; the estimate is then the midpoint of
    ``known``, the best pair known's own interval, held inside ``[lower, upper]`` (a rounding-level
    overlap of the two ends cannot move it out).
    """
    low, high = (lower, upper) if known is None else known
    return float(min(upper, max(lower, 0.5 * (low + high))))


@dataclass(frozen=True)
class Interval(ToDict):
    """``lower <= value <= upper``; ``exact`` is the rational value when every histogram was decided.

    ``undecided`` is the mass of histograms whose ratio lay too close to ``λ`` to compare in
    floating point: the whole width.
    """

    lower: float
    upper: float
    exact: Fraction | None = field(repr=False)
    undecided: float

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["exact"] = None if self.exact is None else str(self.exact)
        return out


@dataclass(frozen=True)
class PairTail(ToDict):
    """The exact tail ``P_{S ~ A(D_m)}[P(S|D_m)/P(S|D) > e^eps]`` of one ordered pair.

    Attributes
    ----------
    D, D_m : tuple of str
        The collections as bit strings; ``S`` is drawn from ``D_m``.
    q, eps : float
        Flip probability (taken at its exact binary value) and privacy level.
    inclusive : bool
        True for ``P[R >= e^eps]``.
    lower, upper : float
        The value rounded outwards to floats.
    exact : Fraction or None
        The value as a fraction, unless some ratio was too close to ``e^eps`` to decide.
    undecided : float
        Mass of the histograms left undecided (their ratio within rounding of ``e^eps``).
    histograms : int
        Output histograms enumerated.
    seconds : float
        Wall time.
    """

    D: tuple[str, ...]
    D_m: tuple[str, ...]
    q: float
    eps: float
    inclusive: bool
    lower: float
    upper: float
    exact: Fraction | None
    undecided: float
    histograms: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["exact"] = None if self.exact is None else str(self.exact)
        return out

    def __repr__(self) -> str:
        op = ">=" if self.inclusive else ">"
        return (
            f"PairTail(P[R {op} {math.exp(self.eps):.6g}] in [{self.lower:.6e}, {self.upper:.6e}], "
            f"D={list(self.D)}, D_m={list(self.D_m)}, q={self.q:.6g}; "
            f"{self.histograms} histograms, {self.seconds:.3g} s)"
        )


@dataclass(frozen=True)
class PairRecord(ToDict):
    """Both orders of one neighbouring pair: a background of ``n − 1`` users and a user at ``x`` or ``x_m``.

    ``forward`` draws ``S`` from ``background + x_m`` (ratio ``P(S|background + x_m)/P(S|background + x)``),
    ``reverse`` from ``background + x``.
    """

    background: tuple[str, ...]
    x: str
    x_m: str
    distance: int
    forward: Interval
    reverse: Interval

    @property
    def upper(self) -> float:
        """The larger upper end of the two orders."""
        return max(self.forward.upper, self.reverse.upper)

    @property
    def lower(self) -> float:
        """The larger lower end of the two orders."""
        return max(self.forward.lower, self.reverse.lower)


@dataclass(frozen=True)
class PairSearch(ToDict):
    """Every neighbouring pair of ``n`` users and ``bits`` bits, up to symmetry, by exact enumeration.

    Attributes
    ----------
    n, bits, q, eps, inclusive : int, int, float, float, bool
        The query.
    pairs : tuple of PairRecord
        One record per orbit of pairs under bit permutations and bit flips, largest tail first.
    homogeneous : PairRecord
        The pair of seed 003 §1.2: ``n − 1`` zero vectors, the user changing from zeros to ones.
    lower, upper : float
        Bounds on the largest tail over every pair and both orders.
    seconds : float
        Wall time.
    """

    n: int
    bits: int
    q: float
    eps: float
    inclusive: bool
    pairs: tuple[PairRecord, ...]
    homogeneous: PairRecord
    lower: float
    upper: float
    seconds: float

    def by_distance(self) -> dict[int, PairRecord]:
        """The pair with the largest tail at each Hamming distance of the changed user."""
        out: dict[int, PairRecord] = {}
        for rec in self.pairs:
            out.setdefault(rec.distance, rec)
        return out

    def __repr__(self) -> str:
        top = self.pairs[0]
        return (
            f"PairSearch(n={self.n}, bits={self.bits}, q={self.q:.6g}, eps={self.eps:.6g}: {len(self.pairs)} pairs; "
            f"worst tail in [{self.lower:.6e}, {self.upper:.6e}] at background {list(top.background)}, "
            f"{top.x} -> {top.x_m}; homogeneous pair {self.homogeneous.upper:.6e}; {self.seconds:.3g} s)"
        )
