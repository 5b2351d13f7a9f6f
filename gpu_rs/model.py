"""The model of seed 003 §3: atoms, their probabilities, and closed forms.

A randomized vector with ``l`` set bits contributes ``w_l = (q/p)**(L - 2l)``
to ``X``. The zero vector sets ``l ~ Bin(L, q)`` bits, the outlier
``l ~ Bin(L, p)``. Everything here is computed in log space so that
``L`` up to 1024 neither overflows nor silently underflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq

from .params import Problem, check_backend_name, check_int, check_open, resolve_eps

UNIT = float(np.finfo(np.float64).eps) / 2.0
TINY = 2.0**-1074
EXACT_BITS = 128
"""Up to this many bits the probabilities are computed exactly, as rationals."""


def split_exact(x: Fraction) -> tuple[float, float, float]:
    """``(hi, lo, rel)``: ``hi + lo`` approximates ``x`` with relative error at most ``rel``."""
    hi = float(x)
    if hi == 0.0:
        return 0.0, 0.0, math.inf
    lo = float(x - Fraction(hi))
    return hi, lo, 2.0 * UNIT * UNIT + TINY / hi


@dataclass(frozen=True)
class Atoms:
    """Atoms of one summand of ``X`` and their probabilities (host arrays).

    Attributes
    ----------
    log_r : float
        ``log(q/p) < 0``.
    log_w : ndarray
        ``log w_l`` for ``l = 0..L``.
    shifted : ndarray
        ``v_l = w_l - w_0 >= 0``: the atoms shifted by the smallest one.
    log_p0, log_p1 : ndarray
        Log-probabilities of ``l`` set bits for a zero vector and for the outlier.
    p0, p1 : ndarray
        The same probabilities as float64 (the nearest float where ``exact0`` is known).
    p0_lo, p1_lo : ndarray
        Low parts: ``p0 + p0_lo`` carries about 106 bits of the exact value (zero where
        ``exact0`` is None).
    exact0 : tuple of Fraction or None
        The exact probabilities of the zero vector (``bits <= 256``); ``q`` is a float,
        hence a rational, and so is every ``C(L, l) q^l p^(L-l)``.
    value_error : float
        Relative error bound of every ``shifted[l]`` and of ``w_0``.
    p0_error, p1_error : ndarray
        Relative error bound of each ``exp(log_p0[l])`` and ``exp(log_p1[l])``.
    """

    bits: int
    q: float
    log_r: float
    log_w: np.ndarray
    shifted: np.ndarray
    log_p0: np.ndarray
    log_p1: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    p0_lo: np.ndarray
    p1_lo: np.ndarray
    exact0: tuple[Fraction, ...] | None
    value_error: float
    p0_error: np.ndarray
    p1_error: np.ndarray

    @property
    def w0(self) -> float:
        """The smallest atom ``(q/p)**L``."""
        return math.exp(self.log_w[0])


def atoms(bits: int, q: float) -> Atoms:
    """Build the atoms for ``bits`` bits flipped with probability ``q``."""
    bits = check_int("bits", bits, 1, 1024)
    q = check_open("q", q, 0.0, 0.5)
    log_q = math.log(q)
    log_p = math.log1p(-q)
    log_r = log_q - log_p
    l = np.arange(bits + 1, dtype=np.float64)
    log_w = (bits - 2.0 * l) * log_r
    # v_l = w_0 * (r^(-2l) - 1), computed without cancellation.
    y = -2.0 * l[1:] * log_r  # > 0
    shifted = np.zeros(bits + 1)
    with np.errstate(over="ignore"):  # atoms beyond float64 are inf; they always cross the threshold
        shifted[1:] = np.exp(bits * log_r + y + np.log(-np.expm1(-y)))
    comb = [math.comb(bits, k) for k in range(bits + 1)]
    log_comb = np.array([math.log(c) for c in comb])
    log_p0 = log_comb + l * log_q + (bits - l) * log_p
    p0_error = 8.0 * UNIT * (2.0 + log_comb + bits * (abs(log_q) + abs(log_p)))
    p = 1.0 - q
    p0 = np.exp(log_p0)
    for k in range(bits + 1):
        if k * log_q + (bits - k) * log_p > -700.0:
            # Direct products are far more accurate than exp of a long log sum:
            # float(comb), two correctly rounded powers, p = 1 - q and two products.
            p0[k] = float(comb[k]) * (q**k * p ** (bits - k))
            log_p0[k] = math.log(p0[k])
            p0_error[k] = (bits + 8.0) * UNIT
    p0_lo = np.zeros_like(p0)
    exact0 = None
    if bits <= EXACT_BITS:
        qf = Fraction(q)
        pf = 1 - qf
        exact0 = tuple(comb[k] * qf**k * pf ** (bits - k) for k in range(bits + 1))
        for k, e in enumerate(exact0):
            p0[k], p0_lo[k], p0_error[k] = split_exact(e)
            log_p0[k] = math.log(p0[k]) if p0[k] > 0 else log_p0[k]
    log_p1 = log_p0[::-1].copy()
    p1 = p0[::-1].copy()
    p1_lo = p0_lo[::-1].copy()
    p1_error = p0_error[::-1].copy()
    value_error = 8.0 * UNIT * (2.0 + 2.0 * bits * abs(log_r))
    return Atoms(bits, q, log_r, log_w, shifted, log_p0, log_p1, p0, p1, p0_lo, p1_lo, exact0, value_error, p0_error, p1_error)


def log_phi(q: float) -> float:
    """``log φ`` with ``φ = (p³ + q³)/(pq) = 1 + (p - q)²/(pq)`` (seed 003, 3.14)."""
    p = 1.0 - q
    return math.log1p((p - q) ** 2 / (p * q))


def _moments_x(n: int, bits: int, q: float) -> tuple[float, float]:
    """Closed-form mean and variance of ``X`` (seed 003 §3.1, Appendix 1)."""
    lp = log_phi(q)
    phi = math.exp(lp)
    mean = (n - 1) + math.exp(bits * lp)
    var0 = math.expm1(bits * lp)
    # Var X1 = (φ² + φ − 1)^L − φ^(2L) = φ^(2L) · expm1(L log(1 + (φ − 1)/φ²)).
    var1 = math.exp(2 * bits * lp) * math.expm1(bits * math.log1p((phi - 1.0) / phi**2))
    return mean, (n - 1) * var0 + var1


def moments(n: int, bits: int, q: float, *, backend: str = "auto") -> tuple[float, float]:
    """Closed-form mean and variance of the privacy ratio ``R = X / n``.

    Parameters
    ----------
    n, bits, q
        See :class:`gpu_rs.params.Problem`.
    backend : {"auto", "numpy", "cupy"}
        Accepted for a uniform API (SPEC §2) and checked; a closed form runs on the host.

    Returns
    -------
    (mean, variance) : tuple of float
        ``inf`` where the value overflows float64 (very small ``q``, large ``bits``).
    """
    check_backend_name(backend)
    prob = Problem(n, bits, q, 1.0)
    try:
        mean, var = _moments_x(prob.n, prob.bits, prob.q)
    except OverflowError:
        return math.inf, math.inf
    return mean / prob.n, var / prob.n**2


def _q_from_phi(phi: float) -> float:
    """Invert (3.14) for ``q < 1/2`` (seed 003, 3.16)."""
    s = phi + 1.0
    return 1.0 / (1.0 + (s + math.sqrt(s * s - 4.0)) / 2.0)


def three_sigma_q(
    n: int, bits: int, eps: float | None = None, *, ratio: float | None = None, backend: str = "auto"
) -> float:
    """The seed's 3σ rule: the smallest ``q`` with ``μ + 3σ ≤ e^ε`` by (3.15).

    This does not bound the tail; :func:`gpu_rs.tail` at the returned ``q``
    says what it really risks. ``backend`` is accepted for a uniform API and
    checked; the rule is a scalar root-find on the host.

    Raises
    ------
    ValueError
        If no ``q`` in ``(0, 1/2)`` satisfies the rule (``e^ε ≤ 1 + 1/n``).
    """
    check_backend_name(backend)
    eps = resolve_eps(eps, ratio)
    prob = Problem(n, bits, 0.25, eps)
    nn, L, lam = prob.n, prob.bits, prob.ratio

    def excess(log_phi_: float) -> float:
        phi = math.exp(log_phi_)
        a = math.exp(L * log_phi_ - math.log(nn))
        cross = math.exp(2 * L * log_phi_) * math.expm1(L * math.log1p((phi - 1.0) / phi**2))
        return 1.0 + a + 3.0 * math.sqrt(a + cross / nn**2) - lam

    if excess(0.0) > 0:
        raise ValueError(
            f"ratio e^eps = {lam:.6g} must exceed 1 + 1/n = {1 + 1 / nn:.6g} for the 3-sigma rule"
        )
    hi = 1.0
    while excess(hi) <= 0:
        hi *= 2.0
        if hi > 700.0 / L:
            raise ValueError("the 3-sigma rule is met for every q: eps is too large")
    root = brentq(excess, 0.0, hi, xtol=1e-15, rtol=8 * UNIT)
    return _q_from_phi(math.exp(root))


def local_dp_q(bits: int, eps: float | None = None, *, ratio: float | None = None) -> float:
    """Flip probability for ε-local DP of an L-bit report: ``1/(1 + λ^(1/L))`` (seed 003, 4.2)."""
    eps = resolve_eps(eps, ratio)
    bits = check_int("bits", bits, 1, 1024)
    return 1.0 / (1.0 + math.exp(eps / bits))


def precision_sigma(n: int, q: float) -> float:
    """Standard deviation of the count estimate ``d̂``: ``√(qpN)/(p − q)`` (seed 003 §4)."""
    prob = Problem(n, 1, q, 1.0)
    p = 1.0 - prob.q
    return math.sqrt(prob.q * p * prob.n) / (p - prob.q)
