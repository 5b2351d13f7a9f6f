"""The characteristic function of ``Y`` at many frequencies, with error bounds.

For ``Y = Z_1 + … + Z_m + W`` (see :mod:`gpu_rs.chernoff`) and a window
``[a, a + P)``, this evaluates ``φ_k = E exp(2πik (Y − a)/P)`` for
``k = k0 … k1 − 1`` on the array namespace ``xp``. Each summand's
``log φ`` is formed as ``log1p(z)`` with ``z = Σ p_l (e^{iω d_l} − 1)`` and
``d_l`` the atom minus the summand's mean, so that no cancellation occurs in
the real part and the ``m``-fold power keeps its relative accuracy. Complex
numbers are carried as (real, imaginary) pairs of float64 arrays, which every
backend supports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .chernoff import Law, SumLaw
from .model import UNIT
from .phase import MAX_K, split, turns


@dataclass(frozen=True)
class Spectrum:
    """``φ_k`` for a block of frequencies: real and imaginary parts and an error bound.

    ``err[k]`` bounds ``|φ̂_k − φ_k|``, where ``φ_k`` is the characteristic
    function of the law with the exact (not float-rounded) probabilities.
    """

    re: Any
    im: Any
    err: Any
    modulus: Any


def _summand_log(xp: Any, k: Any, k_max: float, period: float, law: Law) -> tuple[Any, Any, Any, Any]:
    """``log φ`` of one summand at ``ω = 2πk/period``, centred at its mean.

    Returns (log-modulus, argument, error bound on the complex log, log of an upper
    bound on the true modulus).
    """
    mu = law.mean
    atoms = [(float(p), float(v), float(e)) for p, v, e in zip(law.probs, law.values, law.rel_error) if p > 0.0]
    # Every term p (e^{ix} - 1) has modulus 2 p |sin(x/2)|; recursive summation of the real
    # and imaginary parts errs by at most 2 len(atoms) u times the sum of those moduli.
    rounding = (2.0 * len(atoms) + 6.0) * UNIT
    re = xp.zeros_like(k)
    im = xp.zeros_like(k)
    e_z = xp.zeros_like(k)
    for p, v, rel in atoms:
        t, t_err = turns(xp, k, split((Fraction(v) - Fraction(mu)) / Fraction(period)), k_max)
        x = (2.0 * math.pi) * t
        s = xp.sin(x * 0.5)
        re = re - (2.0 * p) * (s * s)
        im = im + p * xp.sin(x)
        # |z_hat - z|: the probability's own error, the rounding of the terms and of the sum,
        # and the error of the reduced phase x (|x| <= pi).
        e_z = e_z + (2.0 * p * (rel + rounding)) * xp.abs(s) + p * ((2.0 * math.pi) * t_err + (2.0 * UNIT) * xp.abs(x))
    mod2m1 = 2.0 * re + re * re + im * im
    modulus = xp.sqrt(xp.maximum(1.0 + mod2m1, xp.zeros_like(mod2m1)))
    gap = modulus - e_z
    tiny = 1e-300
    good = gap > tiny
    # Where |1 + z| is not safely above its error (a zero of the characteristic function),
    # the log is not used: only |phi| <= modulus + e_z is, through `log_bound`.
    safe_mod = xp.where(good, mod2m1, xp.zeros_like(mod2m1))
    safe_gap = xp.where(good, gap, xp.ones_like(gap))
    log_mod = xp.where(good, 0.5 * xp.log1p(safe_mod), xp.full_like(mod2m1, -800.0))
    arg = xp.atan2(im, 1.0 + re)
    e_log = (
        e_z / safe_gap
        + (4.0 * UNIT) * (2.0 * xp.abs(re) + re * re + im * im) / (safe_gap * safe_gap)
        + (4.0 * UNIT) * (xp.abs(log_mod) + xp.abs(arg))
    )
    e_log = xp.where(good, e_log, xp.full_like(e_log, math.inf))
    log_bound = xp.log(modulus + e_z + tiny)
    return log_mod, arg, e_log, log_bound


def spectrum(xp: Any, law: SumLaw, a: float, period: float, k0: int, k1: int) -> Spectrum:
    """``φ_k`` of ``(Y − a)/period`` mod 1 for ``k0 <= k < k1``, with error bounds."""
    if k1 > MAX_K:
        raise ValueError(f"at most {MAX_K} frequencies are supported: asked for {k1}")
    k = xp.arange(k0, k1, dtype=xp.float64)
    k_max = float(k1)
    m = float(law.m)
    lm0, arg0, e0, lb0 = _summand_log(xp, k, k_max, period, law.zero)
    lm1, arg1, e1, lb1 = _summand_log(xp, k, k_max, period, law.outlier)
    # The centring constants add back exactly: (m mu_0 + mu_1 - a) / period as a rational.
    drift = (law.m * Fraction(law.zero.mean) + Fraction(law.outlier.mean) - Fraction(a)) / Fraction(period)
    t, t_err = turns(xp, k, split(drift), k_max)
    log_mod = m * lm0 + lm1
    phase = m * arg0 + arg1 + (2.0 * math.pi) * t
    e_tot = (
        m * e0
        + e1
        + (4.0 * UNIT) * (m * (xp.abs(lm0) + xp.abs(arg0)) + xp.abs(lm1) + xp.abs(arg1))
        + (2.0 * math.pi) * t_err
        + (4.0 * UNIT) * xp.abs(phase)
    )
    modulus = xp.exp(log_mod)
    re = modulus * xp.cos(phase)
    im = modulus * xp.sin(phase)
    finite = xp.isfinite(e_tot)
    e_cap = xp.where(finite, xp.minimum(e_tot, xp.full_like(e_tot, 700.0)), xp.zeros_like(e_tot))
    # Where the log's error is unbounded, fall back to |phi - phi_hat| <= |phi_hat| + bound on |phi|.
    fallback = modulus + xp.minimum(xp.exp(m * lb0 + lb1), xp.ones_like(modulus))
    err = xp.minimum(modulus * (xp.expm1(e_cap) + 4.0 * UNIT), fallback)
    err = xp.where(finite, err, fallback)
    return Spectrum(re, im, err, modulus)
