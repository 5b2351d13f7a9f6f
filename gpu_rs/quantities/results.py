"""Result objects: frozen dataclasses with a readable ``repr`` and ``to_dict``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpu_rs.common.serialize import ToDict
from gpu_rs.engine.bounds import ErrorBudget
from gpu_rs.pairs.guarantees import guarantee
from gpu_rs.pairs.results import PairBound


@dataclass(frozen=True)
class TailBound(ToDict):
    """Certified bounds on ``P[R > e^eps]`` (or ``>=`` when ``inclusive``).

    ``lower <= P <= upper`` holds with every approximation accounted for
    (SPEC §4); ``budget`` says what each approximation added, and its parts add up
    to ``upper − lower``. ``met`` says whether the requested width was reached.

    Attributes
    ----------
    n, bits, q, eps : int, int, float, float
        The query: users, bits per report, flip probability, privacy level.
    lower, estimate, upper : float
        The certified interval and a point inside it: its midpoint, except for ``scope="all"`` at
        several bits, where the interval runs from the best pair known's tail to a proven bound
        over every pair and the estimate is the best pair known's (the midpoint of ``pairs[0]``;
        :func:`gpu_rs.pairs.results.estimate`).
    scope : str
        Which pairs the bound covers: ``"forward"``, ``"homogeneous"`` or ``"all"`` (SPEC §1.1).
    guarantee : str
        The guarantee in words: what the interval is a bound of.
    k : int
        Randomized reports per user (SPEC §1.3).
    pairs : tuple of PairBound
        The pairs computed on the way (both orders, the worst background).
    worst : str
        The pair that attains the upper bound.
    inclusive : bool
        True for ``P[R >= e^eps]``.
    rel_width, abs_width : float
        The width asked: ``upper − lower <= max(rel_width · lower, abs_width)``.
    met : bool
        Whether that width was reached.
    method : str
        The method that answered (see :mod:`gpu_rs.engine.dispatch`).
    backend : str
        The array backend that ran.
    grid_points : int
        Fourier terms, lattice points or count vectors used (0 for closed forms).
    memory_bytes : int
        Peak memory the method held.
    seconds : float
        Wall time.
    budget : ErrorBudget
        The width, by source.
    provenance : dict
        Versions of gpu_rs, NumPy and SciPy, the backend, a UTC timestamp and the call's arguments.
    """

    n: int
    bits: int
    q: float
    eps: float
    lower: float
    estimate: float
    upper: float
    scope: str
    guarantee: str
    k: int
    pairs: tuple[PairBound, ...]
    worst: str
    inclusive: bool
    rel_width: float
    abs_width: float
    met: bool
    method: str
    backend: str
    grid_points: int
    memory_bytes: int
    seconds: float
    budget: ErrorBudget = field(default_factory=ErrorBudget)
    provenance: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def ratio(self) -> float:
        """The threshold λ = e^eps."""
        return math.exp(self.eps)

    @property
    def bound_only(self) -> bool:
        """Whether ``scope="all"`` is a proven bound here, not the exact maximum: the interval runs from
        the best pair known's tail (``pairs[0]``, whose midpoint is ``estimate``) to a proven bound
        over every pair, and no pair need have a tail near its midpoint."""
        return self.guarantee == guarantee("all", exact_all=False)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["width"] = self.width
        out["ratio"] = self.ratio
        return out

    def __repr__(self) -> str:
        rel = "" if self.met else f", NOT MET (asked rel_width={self.rel_width:g})"
        op = ">=" if self.inclusive else ">"
        k = f", k={self.k}" if self.k > 1 else ""
        return (
            f"TailBound(P[R {op} {self.ratio:.6g}] in [{self.lower:.6e}, {self.upper:.6e}], "
            f"estimate={self.estimate:.6e}, n={self.n}, bits={self.bits}, q={self.q:.6g}{k}, "
            f"scope={self.scope!r}{rel}; {self.method}, {self.backend}, {self.grid_points} points, "
            f"{self.seconds:.3g} s)"
        )
