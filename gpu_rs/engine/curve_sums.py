"""Vaaler sums at many thresholds: ``P[U > α]`` and the hinge ``E[(U − α)_+]`` on the circle.

For ``U`` on ``[0, 1)`` with ``φ_k = E e^{2πikU}`` (``k = 1 … K``), Vaaler's trigonometric
polynomials ``S±_β`` bound ``1_(β,1)`` pointwise (:mod:`gpu_rs.engine.majorants`). Since
``(u − α)_+ = ∫_α^1 1_(β,1)(u) dβ`` on ``[0, 1)``, integrating them over ``β ∈ [α, 1]``
gives trigonometric polynomials that bound the hinge pointwise, so

    H±(α) = (1−α)²/2 + (1−α) E V(U) + I_V(α) ± [(1−α) E Δ(U) + I_Δ(α)] / (2K + 2),
    E V(U) = −Σ b_k Im φ_k,                 E Δ(U) = 1 + 2 Σ c_k Re φ_k,
    I_V(α) = −Σ b_k/(2πk) (Re(e^{2πikα} φ̄_k) − Re φ_k),
    I_Δ(α) = (1−α) + Σ c_k/(πk) (Im(φ_k e^{−2πikα}) − Im φ_k),

with ``E H−(α) <= E[(U − α)_+] <= E H+(α)``: no grid, no rounding of atoms. The width is
``[(1−α) E Δ(U) + I_Δ(α)]/(K + 1)``, about ``(P[U > α] + (1−α) f_U(0))/(K + 1)``. The
other hinge ``E[(α − U)_+]`` is the same with ``1 − U`` (conjugate ``φ``, ``1 − α``). One
spectrum serves every ``α``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.backend import to_numpy
from gpu_rs.common.floats import UNIT
from gpu_rs.engine.charfn import Spectrum
from gpu_rs.engine.majorants import vaaler_weights
from gpu_rs.engine.phase import SPLIT_BITS

CHUNK = 1 << 22
"""Most (threshold, frequency) pairs held at once."""


def split_many(alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each ``α`` as ``hi + lo`` with ``hi`` of 26 significant bits (``k hi`` exact for ``k < 2**27``)."""
    mant, exp = np.frexp(alphas)
    hi = np.ldexp(np.round(np.ldexp(mant, SPLIT_BITS)), exp - SPLIT_BITS)
    return hi, alphas - hi


def _angles(xp: Any, k: Any, alphas: np.ndarray, k_max: float) -> tuple[Any, Any]:
    """``2π k α mod 2π`` for a (threshold × frequency) block, and a bound on its error."""
    hi, lo = split_many(alphas)
    hi_x, lo_x = xp.asarray(hi)[:, None], xp.asarray(lo)[:, None]
    whole = k[None, :] * hi_x  # exact
    frac = whole - xp.round(whole)
    total = frac + k[None, :] * lo_x
    wraps = xp.round(total)
    reduced = total - wraps
    err = (2.0 * UNIT) * (xp.abs(reduced) + xp.abs(wraps) + k_max * xp.abs(lo_x))
    ang = (2.0 * math.pi) * reduced
    return ang, (2.0 * math.pi) * err + (4.0 * UNIT) * xp.abs(ang)


def circle_bounds(
    xp: Any, blocks: list[tuple[int, Spectrum]], K: int, alphas: np.ndarray, *, hinge: bool, reflect: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bounds at every ``α`` of ``P[U > α]`` (``hinge`` false) or ``E[(U − α)_+]`` (true).

    ``reflect`` uses ``1 − U`` for ``U`` (the conjugate spectrum). Returns host arrays
    ``(lower, upper, roundoff)``: ``lower − roundoff`` and ``upper + roundoff`` bound the value
    (the Vaaler width is ``upper − lower``).
    """
    m = alphas.shape[0]
    sgn = -1.0 if reflect else 1.0
    s_b_im = s_c_re = 0.0
    a1, a2 = np.zeros(m), np.zeros(m)
    term_err, magnitude = np.zeros(m), np.zeros(m)
    rows = max(1, CHUNK // max(1, min(K, 1 << 17)))
    for k0, spec in blocks:
        k1 = min(K + 1, k0 + int(spec.re.shape[0]))
        if k1 <= k0:
            break
        count = k1 - k0
        re, err, mod = spec.re[:count], spec.err[:count], spec.modulus[:count]
        im = sgn * spec.im[:count]
        k, b, c = vaaler_weights(xp, K, k0, k1)
        s_b_im += float(xp.sum(b * im))
        s_c_re += float(xp.sum(c * re))
        if hinge:
            wb, wc = b / (2.0 * math.pi * k), c / (math.pi * k)
            weight = 4.0 * wb + (4.0 * wc + 2.0 * c) / (K + 1.0) + 2.0 * b
        else:
            wb, wc = b, c
            weight = 2.0 * b + 2.0 * c / (K + 1.0)
        for start in range(0, m, rows):
            sl = slice(start, min(m, start + rows))
            ang, ang_err = _angles(xp, k, alphas[sl], float(K))
            ca, sa = xp.cos(ang), xp.sin(ang)
            if hinge:  # I_V and I_Δ sums
                x1 = xp.sum(wb * (ca * re + sa * im - re), axis=1)
                x2 = xp.sum(wc * (im * ca - re * sa - im), axis=1)
            else:  # E V(α − U) and E Δ(U − α) sums
                x1 = xp.sum(wb * (sa * re - ca * im), axis=1)
                x2 = xp.sum(wc * (re * ca + im * sa), axis=1)
            a1[sl] += to_numpy(x1)
            a2[sl] += to_numpy(x2)
            e = xp.sum(weight * (err + mod * (ang_err + 8.0 * UNIT)), axis=1)
            term_err[sl] += to_numpy(e)
            magnitude[sl] += float(xp.sum(weight * mod))
    ev0, ed0 = -s_b_im, 1.0 + 2.0 * s_c_re
    roundoff = term_err + (16.0 + 2.0 * math.log2(K + 1)) * UNIT * (magnitude + 4.0) * 2.0
    if hinge:
        rest = 1.0 - alphas
        centre = 0.5 * rest * rest + rest * ev0 - a1
        half = (rest * ed0 + rest + a2) / (2.0 * K + 2.0)
    else:
        centre = (1.0 - alphas) + ev0 - a1
        half = (ed0 + 1.0 + 2.0 * a2) / (2.0 * K + 2.0)
    return centre - half, centre + half, roundoff
