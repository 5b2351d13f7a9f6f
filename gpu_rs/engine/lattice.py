"""The lattice method: exact tails of an integer count (``L = 1``: ``X`` counts the set bits).

For an integer-valued ``J`` whose mass lies, up to a Chernoff-bounded remainder,
in a window of ``M`` consecutive integers, the discrete Fourier transform of
length ``M`` inverts its characteristic function exactly: summing the pmf over
``j0 … j1 − 1`` is the finite sum ``(1/M) Σ_f φ_f G_f`` with ``G_f`` a
geometric sum in closed form. No grid rounding is involved at all.
"""

from __future__ import annotations

import math
from typing import Any

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.charfn import spectrum
from gpu_rs.engine.fourier import BYTES_PER_TERM, WINDOW_DELTA
from gpu_rs.engine.laws import Cut, SumLaw


def lattice_sum(xp: Any, law: SumLaw, start: int, stop: int, window_lo: int, size: int) -> tuple[float, float]:
    """``Σ_{j=start}^{stop−1} P[J ≡ j mod size]`` and its round-off bound.

    ``law`` must have integer values; ``window_lo <= start <= stop <= window_lo + size``.
    """
    count = stop - start
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


def bound(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """Bounds on ``P[J > y]`` (or ``P[J < y]``) for an integer-valued sum ``J``; None for other sums.

    The window of ``M`` integers is chosen by Chernoff quantiles. The sum over the window's
    indices of the event counts mass aliased from outside; that mass is bounded and
    subtracted from the lower bound, and the event's own mass beyond the window is added
    to the upper bound. Nothing else is approximated but round-off.
    """
    if not law.is_lattice:
        return None
    if cut.above:  # J >= first index of the event
        first = (
            (math.ceil(cut.upper_at), math.ceil(cut.lower_at))
            if cut.inclusive
            else (math.floor(cut.upper_at) + 1, math.floor(cut.lower_at) + 1)
        )
        edges = first
    else:  # J <= last index of the event
        last = (
            (math.floor(cut.upper_at), math.floor(cut.lower_at))
            if cut.inclusive
            else (math.ceil(cut.upper_at) - 1, math.ceil(cut.lower_at) - 1)
        )
        edges = (last[0] + 1, last[1] + 1)
    delta = max(FLOOR, WINDOW_DELTA * target)
    lo = math.floor(chernoff.lower_quantile(law, delta))
    hi = math.ceil(chernoff.upper_quantile(law, delta)) + 1
    lo = max(min(lo, min(edges) - 1), math.floor(law.min))
    hi = max(hi, max(edges) + 1)
    size = 1 << max(4, math.ceil(math.log2(hi - lo + 1)))
    below = chernoff.lower_tail(law, lo - 0.5)
    above = chernoff.upper_tail(law, lo + size - 0.5)

    def event_sum(edge: int) -> tuple[float, float]:
        edge = min(max(edge, lo), lo + size)
        return (
            lattice_sum(xp, law, edge, lo + size, lo, size) if cut.above else lattice_sum(xp, law, lo, edge, lo, size)
        )

    (s_up, r_up), (s_lo, r_lo) = event_sum(edges[0]), event_sum(edges[1])
    beyond = above if cut.above else below
    # s_up - s_lo > 0 only where the float threshold lies within its error of a lattice point.
    budget = ErrorBudget(truncation=above + below + beyond, roundoff=r_up + r_lo + (s_up - s_lo))
    return Bounds.make(
        s_lo - r_lo - above - below, s_up + r_up + beyond, budget, "lattice", size, size * (BYTES_PER_TERM + 48)
    )
