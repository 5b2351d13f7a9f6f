"""Every argument check of the public API, in one place.

Each check returns the value in canonical form or raises ``ValueError`` with a
message that names the argument, shows the value and states the accepted range;
the CLI prints that message as its one-line error.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from gpu_rs.common.limits import BACKEND_NAMES, MAX_BITS, MAX_EPS, MAX_K, MAX_N, SCOPES, TEST_BACKENDS


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


def check_closed_open(name: str, value: object, lo: float, hi: float) -> float:
    """Return ``value`` as a finite ``float`` in ``[lo, hi)``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [{lo:g}, {hi:g}): got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and lo <= value < hi):
        raise ValueError(f"{name} must be a number in [{lo:g}, {hi:g}): got {value!r}")
    return value


def check_backend_name(backend: object) -> str:
    """Check a ``backend`` argument's spelling (availability is checked where arrays are made)."""
    if backend not in BACKEND_NAMES + TEST_BACKENDS:
        names = ", ".join(repr(b) for b in BACKEND_NAMES)
        raise ValueError(f"backend must be one of {names}: got {backend!r}")
    return str(backend)


def check_scope(scope: object) -> str:
    """Check a ``scope`` argument (SPEC §1.1)."""
    if scope not in SCOPES:
        names = ", ".join(repr(s) for s in SCOPES)
        raise ValueError(f"scope must be one of {names}: got {scope!r}")
    return str(scope)


def check_k(k: object) -> int:
    """Check the number of randomized reports per user (SPEC §1.3): ``1 <= k <= MAX_K``."""
    return check_int("k", k, 1, MAX_K)


def check_k_scope(k: int, scope: str) -> None:
    """Refuse ``scope="all"`` for ``k > 1``: no reduction to finitely many pairs is proven there."""
    if k > 1 and scope == "all":
        raise ValueError(
            f"scope='all' is not available for k={k}: the proof that bounds every neighbouring pair "
            "(the clone reduction, docs/worst-case.md) covers one report per user, not k; pass "
            "scope='homogeneous' (both orders of the seed's pair) or scope='forward'"
        )


def resolve_eps(eps: object, ratio: object) -> float:
    """Return ε from exactly one of ``eps`` in ``(0, 700)`` or ``ratio = e^ε`` in ``(1, e^700)``."""
    if (eps is None) == (ratio is None):
        raise ValueError("give exactly one of eps (a number in (0, 700)) or ratio (a number in (1, e^700))")
    if eps is not None:
        return check_open("eps", eps, 0.0, MAX_EPS)
    lam = check_open("ratio", ratio, 1.0, math.exp(MAX_EPS))
    return math.log(lam)


@dataclass(frozen=True)
class Problem:
    """The validated parameters of one query: ``n`` users, ``bits`` bits, flip probability ``q``, level ``eps``.

    Parameters
    ----------
    n : int
        Number of users, ``1 <= n <= 10**9``.
    bits : int
        Bits per report ``L``, ``1 <= bits <= 1024``.
    q : float
        Bit-flip probability, ``0 < q < 1/2``.
    eps : float
        Privacy level, ``0 < eps < 700``; the threshold on ``R`` is ``e**eps``.
    """

    n: int
    bits: int
    q: float
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_int("n", self.n, 1, MAX_N))
        object.__setattr__(self, "bits", check_int("bits", self.bits, 1, MAX_BITS))
        object.__setattr__(self, "q", check_open("q", self.q, 0.0, 0.5))
        object.__setattr__(self, "eps", check_open("eps", self.eps, 0.0, MAX_EPS))

    @property
    def ratio(self) -> float:
        """The threshold λ = e^ε on the privacy ratio ``R``."""
        return math.exp(self.eps)
