"""Result objects: frozen dataclasses with a readable ``repr`` and ``to_dict``."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _plain(value: Any) -> Any:
    """Convert a field value into something ``json.dumps`` accepts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON-ready Python values."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class ErrorBudget(_ToDict):
    """How much each certified approximation widened the interval.

    Each entry is an absolute probability that was added to ``upper`` and/or
    subtracted from ``lower``.
    """

    discretization: float = 0.0
    """Width from rounding atoms to the grid (threshold shift plus its failure probability)."""
    truncation: float = 0.0
    """Mass outside the FFT window, bounded by Chernoff bounds."""
    roundoff: float = 0.0
    """Floating-point error of the FFT, the power and the summation."""


@dataclass(frozen=True)
class TailBound(_ToDict):
    """Certified bounds on ``P[R > e^eps]`` (or ``>=`` when ``inclusive``).

    ``lower <= P <= upper`` holds with every approximation accounted for
    (SPEC §4). ``met`` says whether the requested width was reached.
    """

    n: int
    bits: int
    q: float
    eps: float
    lower: float
    estimate: float
    upper: float
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

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def ratio(self) -> float:
        """The threshold λ = e^eps."""
        return math.exp(self.eps)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["width"] = self.width
        out["ratio"] = self.ratio
        return out

    def __repr__(self) -> str:
        rel = "" if self.met else f", NOT MET (asked rel_width={self.rel_width:g})"
        op = ">=" if self.inclusive else ">"
        return (
            f"TailBound(P[R {op} {self.ratio:.6g}] in [{self.lower:.6e}, {self.upper:.6e}], "
            f"estimate={self.estimate:.6e}, n={self.n}, bits={self.bits}, q={self.q:.6g}{rel}; "
            f"{self.method}, {self.backend}, {self.grid_points} points, {self.seconds:.3g} s)"
        )
