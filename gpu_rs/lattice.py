"""Exact tails on an integer lattice (``L = 1``: ``X`` counts the vectors with a set bit).

For an integer-valued ``J`` whose mass lies, up to a Chernoff-bounded remainder,
in a window of ``M`` consecutive integers, the discrete Fourier transform of
length ``M`` inverts its characteristic function exactly: summing the pmf over
``j0 … j1 − 1`` is the finite sum ``(1/M) Σ_f φ_f G_f`` with ``G_f`` a
geometric sum in closed form. No grid rounding is involved at all.
"""

from __future__ import annotations

import math
from typing import Any

from .charfn import spectrum
from .chernoff import SumLaw
from .model import UNIT


def lattice_upper_sum(xp: Any, law: SumLaw, start: int, window_lo: int, size: int) -> tuple[float, float]:
    """``Σ_{j=start}^{window_lo+size−1} P[J ≡ j mod size]`` and its round-off bound.

    ``law`` must have integer values. ``start`` lies in ``[window_lo, window_lo + size]``.
    """
    count = window_lo + size - start
    if count <= 0:
        return 0.0, 0.0
    # J is integer-valued, so phi_{size-f} = conj(phi_f) and G_{size-f} = conj(G_f):
    # the terms f and size - f are equal and only f = 1 .. size/2 are evaluated.
    half = size // 2
    spec = spectrum(xp, law, float(window_lo), float(size), 1, half + 1)
    ff = xp.arange(1, half + 1, dtype=xp.float64)
    mult = xp.where(ff < half, xp.full_like(ff, 2.0), xp.ones_like(ff))
    offset = 2 * (start - window_lo) + count - 1
    # angle = -pi f offset / size, reduced modulo 2 pi exactly: f * offset < 2**53 is an
    # integer held exactly in float64, and so is its remainder.
    turns = xp.remainder(ff * float(offset), float(2 * size))
    angle = turns * (-math.pi / size)
    amp = xp.sin(xp.remainder(ff * float(count), float(2 * size)) * (math.pi / size)) / xp.sin(ff * (math.pi / size))
    g_re = amp * xp.cos(angle)
    g_im = amp * xp.sin(angle)
    terms = mult * (spec.re * g_re - spec.im * g_im)
    total = (count + float(xp.sum(terms))) / size
    g_abs = mult * xp.minimum(xp.abs(amp), xp.full_like(amp, float(count)))
    term_err = float(xp.sum(g_abs * (spec.err + spec.modulus * (64.0 * UNIT))))
    magnitude = float(xp.sum(g_abs * spec.modulus)) + count
    roundoff = (term_err + (16.0 + 2.0 * math.log2(size)) * UNIT * magnitude) / size + 4 * UNIT * abs(total)
    return total, roundoff


def lattice_tail(xp: Any, law: SumLaw, j_upper: int, j_lower: int, delta: float) -> tuple[float, float, float, float, int]:
    """Bounds on ``P[J >= j_upper]`` (upper) and ``P[J >= j_lower]`` (lower) for integer ``J``.

    Returns
    -------
    (lower, upper, truncation, roundoff, size)
    """
    lo = math.floor(law.lower_quantile(delta))
    hi = math.ceil(law.upper_quantile(delta)) + 1
    lo = max(min(lo, j_upper - 1), math.floor(law.min))
    hi = max(hi, j_lower + 1)
    size = 1 << max(4, math.ceil(math.log2(hi - lo + 1)))
    below = law.lower_tail(lo - 0.5)
    above = law.upper_tail(lo + size - 0.5)
    results = []
    rounds = []
    for start in (j_upper, j_lower):
        start = min(max(start, lo), lo + size)
        total, roundoff = lattice_upper_sum(xp, law, start, lo, size)
        results.append(total)
        rounds.append(roundoff)
    upper = results[0] + rounds[0] + above
    lower = results[1] - rounds[1] - above - below
    return lower, upper, above + below, max(rounds), size
