"""Certified interval probabilities from the characteristic function.

Vaaler's trigonometric polynomial ``V_K`` approximates the sawtooth
``ψ(x) = x − ⌊x⌋ − 1/2`` with ``|ψ − V_K| ≤ Δ_K / (2K + 2)``, where ``Δ_K`` is
the Fejér kernel (J. D. Vaaler, *Some extremal functions in Fourier analysis*,
Bull. AMS 12 (1985); H. L. Montgomery, *Ten Lectures*, ch. 1). Since
``1_(α,1)(u) = (1 − α) + ψ(u) + ψ(α − u)``, the polynomials

    S±(u) = (1 − α) + V(u) + V(α − u) ± (Δ(u) + Δ(u − α)) / (2K + 2)

satisfy ``S− ≤ 1_(α,1) ≤ S+`` on the circle, pointwise, including the end
points. Their expectations need only ``φ_k = E e^{2πikU}`` for ``k ≤ K``. So
``E S−(U) ≤ P[U ∈ (α, 1)] ≤ E S+(U)`` without rounding any atom to a grid:
the only approximation is the width ``E[Δ(U) + Δ(U − α)]/(K + 1)``, which
falls like ``1/K`` where ``U`` has a density.
"""

from __future__ import annotations

import math
from typing import Any

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.charfn import Spectrum
from gpu_rs.engine.phase import split, turns


def vaaler_weights(xp: Any, K: int, k0: int, k1: int) -> tuple[Any, Any, Any]:
    """``k``, the sine weights ``b_k`` of ``−V_K`` and the Fejér weights ``c_k``, ``k0 <= k < k1``."""
    k = xp.arange(k0, k1, dtype=xp.float64)
    u = k / (K + 1.0)
    f = math.pi * u * (1.0 - u) * xp.cos(math.pi * u) / xp.sin(math.pi * u) + u
    return k, f / (math.pi * k), 1.0 - u


def interval_bounds(
    xp: Any, blocks: list[tuple[int, Spectrum]], K: int, alphas: tuple[float, float]
) -> tuple[float, float, float]:
    """Bounds on ``P[U ∈ (α, 1)]`` from ``φ_1 … φ_K``.

    Parameters
    ----------
    blocks : list of (first k, Spectrum)
        ``φ_k`` in consecutive blocks covering at least ``k = 1..K``.
    alphas : (alpha_upper, alpha_lower)
        The upper bound is taken at ``alpha_upper``, the lower at ``alpha_lower``
        (``alpha_upper <= alpha_lower`` widens the interval for float error in
        the threshold itself).

    Returns
    -------
    (lower, upper, roundoff)
        ``lower - roundoff <= P[U ∈ (alpha_lower, 1)]`` and
        ``P[U ∈ (alpha_upper, 1)] <= upper + roundoff``.
    """
    sums = [0.0] * 6
    term_err = magnitude = 0.0
    for k0, spec in blocks:
        k1 = min(K + 1, k0 + int(spec.re.shape[0]))
        if k1 <= k0:
            break
        count = k1 - k0
        re, im, err, mod = (x[:count] for x in (spec.re, spec.im, spec.err, spec.modulus))
        k, b, c = vaaler_weights(xp, K, k0, k1)
        sums[0] += float(xp.sum(b * im))
        sums[1] += float(xp.sum(c * re))
        angle_err = xp.zeros_like(k)
        for i, alpha in enumerate(alphas):
            t, t_err = turns(xp, k, split(alpha), float(K))
            ang = (2.0 * math.pi) * t
            angle_err = xp.maximum(angle_err, (2.0 * math.pi) * t_err + (4.0 * UNIT) * xp.abs(ang))
            ca, sa = xp.cos(ang), xp.sin(ang)
            sums[2 + 2 * i] += float(xp.sum(b * (sa * re - ca * im)))
            sums[3 + 2 * i] += float(xp.sum(c * (re * ca + im * sa)))
        weight = 2.0 * b + 2.0 * c / (K + 1.0)
        term_err += float(xp.sum(weight * (err + mod * (angle_err + 8.0 * UNIT))))
        magnitude += float(xp.sum(weight * mod))
    ev0, ed0 = -sums[0], 1.0 + 2.0 * sums[1]
    out = []
    for i, (alpha, sign) in enumerate(zip(alphas, (1.0, -1.0), strict=True)):
        eva, eda = -sums[2 + 2 * i], 1.0 + 2.0 * sums[3 + 2 * i]
        out.append((1.0 - alpha) + ev0 + eva + sign * (ed0 + eda) / (2.0 * K + 2.0))
    roundoff = term_err + (16.0 + 2.0 * math.log2(K + 1)) * UNIT * (magnitude + 3.0) * 2.0
    upper, lower = out
    return lower, upper, roundoff
