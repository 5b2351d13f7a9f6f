"""Every argument check of the public API, in one place.

Each check returns the value in canonical form or raises ``ValueError`` with a
message that names the argument, shows the value and states the accepted range;
the CLI prints that message as its one-line error. A value of the wrong type
(a string or ``None`` where a number is expected) raises
:class:`~gpu_rs.common.errors.ArgumentTypeError`, both a ``TypeError`` and a ``ValueError``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from gpu_rs.common.errors import ArgumentTypeError
from gpu_rs.common.limits import (
    BACKEND_NAMES,
    MAX_BITS,
    MAX_EPS,
    MAX_K,
    MAX_N,
    MAX_Q_TOL,
    MIN_EPS,
    MIN_Q_TOL,
    MIN_REL_WIDTH,
    MIN_TARGET,
    SCOPES,
    TEST_BACKENDS,
)


def _real(name: str, value: object, accepted: str) -> float:
    """``value`` as a float, or ``ArgumentTypeError`` when it is not a real number (bools are not)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a number {accepted}: got {value!r} of type {type(value).__name__}")
    return float(value)


def check_int(name: str, value: object, lo: int, hi: int) -> int:
    """Return ``value`` as an ``int`` in ``[lo, hi]`` (integral floats such as ``1e7`` too)."""
    accepted = f"an integer in [{lo}, {hi}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise ArgumentTypeError(f"{name} must be {accepted}: got {value!r} of type {type(value).__name__}")
        if not (math.isfinite(float(value)) and float(value).is_integer()):
            raise ValueError(f"{name} must be {accepted}: got {value!r}")
        value = int(float(value))
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be {accepted}: got {value}")
    return value


def check_open(name: str, value: object, lo: float, hi: float) -> float:
    """Return ``value`` as a finite ``float`` in the open interval ``(lo, hi)``."""
    accepted = f"in ({lo:g}, {hi:g})"
    x = _real(name, value, accepted)
    if not (math.isfinite(x) and lo < x < hi):
        raise ValueError(f"{name} must be a number {accepted}: got {x!r}")
    return x


def check_closed_open(name: str, value: object, lo: float, hi: float) -> float:
    """Return ``value`` as a finite ``float`` in ``[lo, hi)``."""
    accepted = f"in [{lo:g}, {hi:g})"
    x = _real(name, value, accepted)
    if not (math.isfinite(x) and lo <= x < hi):
        raise ValueError(f"{name} must be a number {accepted}: got {x!r}")
    return x


def check_real(name: str, value: object) -> float:
    """Return ``value`` as a ``float``: any real number but NaN (``±inf`` allowed)."""
    x = _real(name, value, "(not NaN)")
    if math.isnan(x):
        raise ValueError(f"{name} must be a number (not NaN): got {x!r}")
    return x


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (NumPy bools too); anything else is refused."""
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise ArgumentTypeError(f"{name} must be True or False: got {value!r} of type {type(value).__name__}")
    return bool(value)


def check_rel_width(value: object, name: str = "rel_width") -> float:
    """A relative width asked of a tail, in ``[MIN_REL_WIDTH, 1)``."""
    return check_closed_open(name, value, MIN_REL_WIDTH, 1.0)


def check_q_tol(value: object, name: str = "q_tol") -> float:
    """A bisection tolerance on ``q``, in ``[MIN_Q_TOL, MAX_Q_TOL)``."""
    return check_closed_open(name, value, MIN_Q_TOL, MAX_Q_TOL)


def check_target(name: str, value: object) -> float:
    """A calibration target ``eta`` or ``delta``, in ``[MIN_TARGET, 1)``."""
    return check_closed_open(name, value, MIN_TARGET, 1.0)


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


def check_eps(eps: object, name: str = "eps") -> float:
    """``eps`` in ``[MIN_EPS, MAX_EPS)``: ``e^eps`` must exceed 1 and stay finite in float64."""
    return check_closed_open(name, eps, MIN_EPS, MAX_EPS)


def check_ratio(ratio: object, name: str = "ratio") -> float:
    """``ratio = e^eps`` in ``(1, e^MAX_EPS)``."""
    return check_open(name, ratio, 1.0, math.exp(MAX_EPS))


def resolve_eps(eps: object, ratio: object) -> float:
    """Return ε from exactly one of ``eps`` in ``[2^-52, 700)`` or ``ratio = e^ε`` in ``(1, e^700)``."""
    if (eps is None) == (ratio is None):
        raise ValueError(
            f"give exactly one of eps (a number in [{MIN_EPS:g}, {MAX_EPS:g})) "
            f"or ratio (a number in (1, e^{MAX_EPS:g}))"
        )
    if eps is not None:
        return check_eps(eps)
    lam = check_ratio(ratio)
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
        Privacy level, ``2^-52 <= eps < 700``; the threshold on ``R`` is ``e**eps``.
    """

    n: int
    bits: int
    q: float
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_int("n", self.n, 1, MAX_N))
        object.__setattr__(self, "bits", check_int("bits", self.bits, 1, MAX_BITS))
        object.__setattr__(self, "q", check_open("q", self.q, 0.0, 0.5))
        object.__setattr__(self, "eps", check_eps(self.eps))

    @property
    def ratio(self) -> float:
        """The threshold λ = e^ε on the privacy ratio ``R``."""
        return math.exp(self.eps)
