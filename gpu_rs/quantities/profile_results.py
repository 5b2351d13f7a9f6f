"""Result objects of :func:`gpu_rs.privacy_profile`: certified ``δ(ε)`` and ``ε(δ)`` intervals."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_rs.common.serialize import ToDict
from gpu_rs.engine.bounds import ErrorBudget


@dataclass(frozen=True)
class DeltaBound(ToDict):
    """Certified ``lower <= δ(ε) <= upper`` at one ``ε``.

    Attributes
    ----------
    eps : float
        The privacy level.
    lower, estimate, upper : float
        The interval and a point inside it: its midpoint, except for ``scope="all"`` at several
        bits (lower end the best pair known's, upper end a proven bound over every pair), where it
        is the best pair known's midpoint (:func:`gpu_rs.pairs.results.estimate`).
    forward, reverse : tuple of float or None
        ``(lower, upper)`` of each order of the homogeneous pair: ``δ_{P‖Q}`` with ``P`` the
        law under ``D_m`` (the seed's order) and ``δ_{Q‖P}``; None where not computed.
    met : bool
        Whether the width asked was reached.
    queries : int
        Tail queries made for this value (cached queries are not counted again).
    budget : ErrorBudget
        ``discretization``: the grid in ``r`` and the widths of the tail queries;
        ``roundoff``: float rounding of the sums; ``relaxation``: for ``scope="all"``, the
        gap between the homogeneous pair and the proven bound. The parts add up to the width.
    """

    eps: float
    lower: float
    estimate: float
    upper: float
    forward: tuple[float, float] | None
    reverse: tuple[float, float] | None
    met: bool
    queries: int
    budget: ErrorBudget

    def __repr__(self) -> str:
        return (
            f"DeltaBound(delta({self.eps:.6g}) in [{self.lower:.6e}, {self.upper:.6e}]"
            f"{'' if self.met else ', NOT MET'}; {self.queries} tail queries)"
        )


@dataclass(frozen=True)
class EpsilonBound(ToDict):
    """Certified ``lower <= ε(δ) <= upper``: ``δ(upper) <= delta`` and ``δ(lower) > delta``.

    ``ε(δ)`` is the smallest ``ε`` with ``δ(ε) <= delta``; ``δ`` is nonincreasing in ``ε``,
    so the two certified values of ``δ`` at the ends bracket it. ``lower = 0`` means
    ``δ(0) <= delta`` could not be excluded. ``estimate`` is the midpoint, except for
    ``scope="all"`` at several bits: there it is the midpoint of the homogeneous pair's own
    bracket of its ``ε(δ)`` (from ``lower`` to the least ``ε`` evaluated where that pair's upper
    ``δ`` is at most ``delta``).
    """

    delta: float
    lower: float
    estimate: float
    upper: float
    at_upper: DeltaBound
    at_lower: DeltaBound | None
    met: bool

    def __repr__(self) -> str:
        return (
            f"EpsilonBound(eps({self.delta:g}) in [{self.lower:.6g}, {self.upper:.6g}]"
            f"{'' if self.met else ', NOT MET'}; delta({self.upper:.6g}) <= {self.at_upper.upper:.4e})"
        )


def intersect(eps: float, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The intersection of two certified intervals ``a`` and ``b`` for ``δ(ε)``; disjoint ones are a bug."""
    if max(a[0], b[0]) > min(a[1], b[1]):
        raise RuntimeError(f"two certified intervals for delta({eps!r}) are disjoint: {a}, {b}")
    return max(a[0], b[0]), min(a[1], b[1])
