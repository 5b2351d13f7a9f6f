"""The characteristic function of ``Y`` at many frequencies, with error bounds.

For a sum ``Y`` of independent summands (a :class:`~gpu_rs.engine.laws.SumLaw`) and a window
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

import numpy as np

from gpu_rs.common.floats import EXP_LIMIT, FLOOR, LOG_ZERO, UNIT
from gpu_rs.engine.laws import Law, SumLaw
from gpu_rs.engine.phase import MAX_K, split, turns

LINEAR = 0.49
"""Atoms with ``k_max |ρ| <= LINEAR`` turns enter as ``sin x − x``: below the 1/2 turn up to which
:func:`~gpu_rs.engine.phase.turns` returns ``kρ`` unreduced, so that ``x = 2πkρ`` exactly and the
linear parts added back through the centre's residual are the ones taken out. (With a
reduced phase, ``x`` would differ from ``2πkρ`` by a whole turn: an error of ``2π p``.)"""


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


def _sin_minus_x(xp: Any, x: Any) -> tuple[Any, Any]:
    """``sin(x) − x`` for ``|x| <= π`` with an error bound: a series where it would cancel."""
    x2 = x * x
    poly = 1.0 - x2 / 210.0
    for d in (156.0, 110.0, 72.0, 42.0, 20.0):
        poly = 1.0 - (x2 / d) * poly
    series = -(x * x2 / 6.0) * poly
    small = xp.abs(x) < 0.5
    direct = xp.sin(x) - x
    value = xp.where(small, series, direct)
    err = xp.where(small, (32.0 * UNIT) * xp.abs(series), (4.0 * UNIT) * (1.0 + xp.abs(x)))
    return value, err


def _summand_log(xp: Any, k: Any, k_max: float, period: float, law: Law) -> tuple[Any, Any, Any, Any, Fraction]:
    """``log φ`` of one summand at ``ω = 2πk/period``, centred near its mean.

    ``z = φ e^{−iωc} − 1 = Σ p_l (e^{i x_l} − 1)`` with ``x_l = ω (v_l − c)``. The real
    part ``−2 Σ p_l sin²(x_l/2)`` has terms of one sign, so its relative error is a
    few ``u``. Atoms whose phase stays below ``π`` in this block ("near" atoms) enter the
    imaginary part as ``sin x_l − x_l = O(x³)``, and the centre ``c`` is their exact mean,
    so that ``Σ p_l x_l`` over them is (nearly) zero; far atoms enter as ``sin x_l`` of an
    exactly reduced phase. This keeps the error far below ``ω`` where ``|φ|`` matters,
    which is what keeps the ``(n − 1)``-th power accurate.

    Returns (log-modulus, argument, error bound on the complex log, log of an upper
    bound on the true modulus, the centre ``c``).
    """
    lo_parts = law.probs_lo if law.probs_lo is not None else np.zeros_like(law.probs)
    exact = law.exact
    if exact is None:
        exact = tuple(Fraction(float(p)) + Fraction(float(q)) for p, q in zip(law.probs, lo_parts, strict=True))
    values = [Fraction(float(v)) for v in law.values]
    mean = Fraction(law.mean)
    near = [k_max * abs(v - mean) <= 0.5 * period for v in values]
    near_mass = sum((e for e, nr in zip(exact, near, strict=True) if nr), Fraction(0))
    if near_mass > 0:
        centre = Fraction(
            float(sum((e * v for e, v, nr in zip(exact, values, near, strict=True) if nr), Fraction(0)) / near_mass)
        )
    else:
        centre = mean
    rhos = [(v - centre) / Fraction(period) for v in values]
    # Atoms entering as sin x − x: near ones whose phase stays small around the centre. Only
    # their linear parts are added back through the residual; every other atom enters whole.
    linear = [nr and k_max * abs(float(rho)) <= LINEAR for nr, rho in zip(near, rhos, strict=True)]
    residual = sum((e * rho for e, rho, lin in zip(exact, rhos, linear, strict=True) if lin), Fraction(0))
    atoms = [
        (float(p), float(plo), rho, float(rel), lin)
        for p, plo, rho, rel, lin in zip(law.probs, lo_parts, rhos, law.rel_error, linear, strict=True)
        if p > 0.0
    ]
    n_terms = 2 * len(atoms) + 4
    re = xp.zeros_like(k)
    im = xp.zeros_like(k)
    e_re = xp.zeros_like(k)
    e_im = xp.zeros_like(k)
    abs_im = xp.zeros_like(k)
    mean_err = 0.0
    for p, plo, rho, rel, is_linear in atoms:
        t, t_err = turns(xp, k, split(rho), k_max)
        x = (2.0 * math.pi) * t
        dx = (2.0 * math.pi) * t_err + (2.0 * UNIT) * xp.abs(x)
        s = xp.sin(x * 0.5)
        sq = s * s
        re = re - (2.0 * p) * sq - (2.0 * plo) * sq
        e_re = e_re + (2.0 * p) * ((rel + 4.0 * UNIT) * sq + xp.abs(s) * dx)
        if is_linear:
            g, g_err = _sin_minus_x(xp, x)
            g_err = g_err + xp.minimum(0.5 * x * x, xp.full_like(x, 2.0)) * dx
            if law.exact is None:
                mean_err += rel * p * abs(float(rho))
        else:
            g = xp.sin(x)
            g_err = dx + (4.0 * UNIT) * xp.abs(g)
        im = im + p * g + plo * g
        e_im = e_im + p * ((rel + 4.0 * UNIT) * xp.abs(g) + g_err)
        abs_im = abs_im + p * xp.abs(g)
    # Near atoms' phases sum to omega times the (exact, tiny) residual of the centre.
    drift = k * (2.0 * math.pi * float(residual))
    im = im + drift
    e_im = e_im + (4.0 * UNIT) * xp.abs(drift) + (2.0 * math.pi * mean_err) * k
    e_re = e_re + (n_terms * UNIT) * xp.abs(re)
    e_im = e_im + (n_terms * UNIT) * (abs_im + xp.abs(drift))
    mod2m1 = 2.0 * re + re * re + im * im
    modulus = xp.sqrt(xp.maximum(1.0 + mod2m1, xp.zeros_like(mod2m1)))
    gap = modulus - e_re - e_im
    good = gap > FLOOR
    # Where |1 + z| is not safely above its error (a zero of the characteristic function),
    # the log is not used: only |phi| <= modulus + error is, through `log_bound`.
    safe_mod = xp.where(good, mod2m1, xp.zeros_like(mod2m1))
    safe_gap2 = xp.where(good, gap * gap, xp.ones_like(gap))
    log_mod = xp.where(good, 0.5 * xp.log1p(safe_mod), xp.full_like(mod2m1, LOG_ZERO))
    arg = xp.atan2(im, 1.0 + re)
    one_re = xp.abs(1.0 + re)
    abs_im_z = xp.abs(im)
    e_log = (
        (one_re * (e_re + e_im) + abs_im_z * (e_re + e_im)) / safe_gap2
        + (2.0 * UNIT) * (2.0 * xp.abs(re) + re * re + im * im) / safe_gap2
        + (4.0 * UNIT) * (xp.abs(log_mod) + xp.abs(arg))
    )
    e_log = xp.where(good, e_log, xp.full_like(e_log, math.inf))
    log_bound = xp.log(modulus + e_re + e_im + FLOOR)
    return log_mod, arg, e_log, log_bound, centre


def spectrum(xp: Any, law: SumLaw, a: float, period: float, k0: int, k1: int) -> Spectrum:
    """``φ_k`` of ``(Y − a)/period`` mod 1 for ``k0 <= k < k1``, with error bounds.

    ``log φ = Σ_i count_i log φ_i`` over the parts; the parts' centres add back
    exactly, as the rational ``(Σ_i count_i c_i − a)/period`` reduced modulo 1.
    """
    if k1 > MAX_K:
        raise ValueError(f"at most {MAX_K} frequencies are supported: asked for {k1}")
    k = xp.arange(k0, k1, dtype=xp.float64)
    k_max = float(k1)
    log_mod = phase = e_tot = log_bound = None
    drift = -Fraction(a)
    for part, count in law.parts:
        lm, arg, e, lb, centre = _summand_log(xp, k, k_max, period, part)
        m = float(count)
        drift += count * centre
        terms = (m * lm, m * arg, m * e + (4.0 * UNIT) * m * (xp.abs(lm) + xp.abs(arg)), m * lb)
        if log_mod is None:
            log_mod, phase, e_tot, log_bound = terms
        else:
            log_mod, phase, e_tot, log_bound = (
                s + t for s, t in zip((log_mod, phase, e_tot, log_bound), terms, strict=True)
            )
    t, t_err = turns(xp, k, split(drift / Fraction(period)), k_max)
    phase = phase + (2.0 * math.pi) * t
    e_tot = e_tot + (2.0 * math.pi) * t_err + (4.0 * UNIT) * xp.abs(phase)
    modulus = xp.exp(log_mod)
    re = modulus * xp.cos(phase)
    im = modulus * xp.sin(phase)
    finite = xp.isfinite(e_tot)
    e_cap = xp.where(finite, xp.minimum(e_tot, xp.full_like(e_tot, EXP_LIMIT)), xp.zeros_like(e_tot))
    # Where the log's error is unbounded, fall back to |phi - phi_hat| <= |phi_hat| + bound on |phi|.
    fallback = modulus + xp.exp(xp.minimum(log_bound, xp.zeros_like(log_bound)))  # min(e^lb, 1), no overflow
    err = xp.minimum(modulus * (xp.expm1(e_cap) + 4.0 * UNIT), fallback)
    err = xp.where(finite, err, fallback)
    return Spectrum(re, im, err, modulus)
