"""Validated parameters of the worst-case collection (SPEC §1).

Every public entry point funnels its arguments through :func:`check_problem`
(or one of the smaller checks below) so that bad input fails early, with a
``ValueError`` that names the argument, the value and the accepted range.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

MAX_N = 10**9
MAX_BITS = 1024


def check_int(name: str, value: object, lo: int, hi: int) -> int:
    """Return ``value`` as an ``int`` in ``[lo, hi]`` or raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer in [{lo}, {hi}]: got {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]: got {value}")
    return value


def check_open(name: str, value: object, lo: float, hi: float) -> float:
    """Return ``value`` as a finite ``float`` in the open interval ``(lo, hi)``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in ({lo:g}, {hi:g}): got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and lo < value < hi):
        raise ValueError(f"{name} must be a number in ({lo:g}, {hi:g}): got {value!r}")
    return value


BACKEND_NAMES = ("auto", "numpy", "cupy", "array_api_strict")


def check_backend_name(backend: object) -> str:
    """Check a ``backend`` argument's spelling (availability is checked where arrays are made)."""
    if backend not in BACKEND_NAMES:
        raise ValueError(f"backend must be one of 'auto', 'numpy', 'cupy': got {backend!r}")
    return str(backend)


def resolve_eps(eps: float | None, ratio: float | None) -> float:
    """Return ε from exactly one of ``eps`` (> 0) or ``ratio`` = e^ε (> 1)."""
    if (eps is None) == (ratio is None):
        raise ValueError("give exactly one of eps (> 0) or ratio (> 1)")
    if eps is not None:
        return check_open("eps", eps, 0.0, 700.0)
    lam = check_open("ratio", ratio, 1.0, math.exp(700.0))
    return math.log(lam)


@dataclass(frozen=True)
class Problem:
    """The worst case of seed 003 §3: ``n - 1`` zero vectors and one outlier.

    Parameters
    ----------
    n : int
        Number of users, ``1 <= n <= 10**9``.
    bits : int
        Bits per report ``L``, ``1 <= bits <= 1024``.
    q : float
        Bit-flip probability, ``0 < q < 1/2``.
    eps : float
        Privacy level; the threshold on ``R`` is ``e**eps``.
    """

    n: int
    bits: int
    q: float
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_int("n", self.n, 1, MAX_N))
        object.__setattr__(self, "bits", check_int("bits", self.bits, 1, MAX_BITS))
        object.__setattr__(self, "q", check_open("q", self.q, 0.0, 0.5))
        object.__setattr__(self, "eps", check_open("eps", self.eps, 0.0, 700.0))

    @property
    def ratio(self) -> float:
        """The threshold λ = e^ε on the privacy ratio ``R``."""
        return math.exp(self.eps)

    @property
    def log_threshold(self) -> float:
        """log of the threshold on ``X = N R``: ``log n + eps``."""
        return math.log(self.n) + self.eps
