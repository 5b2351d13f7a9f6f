"""The window method: ``P[Y > y]`` from the characteristic function and Vaaler's majorants.

The window ``[a, a + P)`` comes from Chernoff quantiles at a small fraction of the
target width; ``U = (Y − a)/P mod 1`` and :func:`gpu_rs.engine.majorants.interval_bounds`
give ``E S− <= P[U in (α, 1)] <= E S+`` from ``φ_1 … φ_K``. Mass outside the window
aliases into it and is added (Chernoff), never dropped. ``K`` grows until the
width asked is reached or the memory budget is spent.
"""

from __future__ import annotations

import math
from typing import Any

from gpu_rs.common.floats import FLOOR
from gpu_rs.engine import chernoff
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.charfn import Spectrum, spectrum
from gpu_rs.engine.laws import Cut, SumLaw
from gpu_rs.engine.majorants import interval_bounds

BLOCK = 1 << 17
"""Frequencies evaluated per block (bounds the temporaries: about 100 bytes each)."""
BYTES_PER_TERM = 32
"""Memory kept per frequency: real part, imaginary part, error bound, modulus."""
FIRST_TERMS = 1 << 11
"""Frequencies of the first attempt; also the least a memory budget must allow."""
WINDOW_DELTA = 1e-3
"""The window leaves out mass of at most this fraction of the target on each side."""
MARGIN = 0.05
"""The window is widened by this fraction of its span on each side."""
ATOM_TERMS = 1 << 26
"""Most frequencies times atoms of a record in one spectrum: each costs about 1e-7 s (2-core CPU), so a
spectrum stays within about 7 s (``L <= 63``: 2^20 frequencies; ``L = 1024``: 65,472)."""


def terms_within(atoms: int, max_terms: int) -> int:
    """``max_terms``, lowered where a spectrum of a record with ``atoms`` atoms would exceed :data:`ATOM_TERMS`."""
    return max(FIRST_TERMS, min(max_terms, ATOM_TERMS // atoms))


def workspace_bytes(terms: int) -> int:
    """Memory held for ``terms`` frequencies, including one block of temporaries."""
    return terms * BYTES_PER_TERM + BLOCK * 100


class SpectrumCache:
    """``φ_k`` for ``k = 1 … K``, grown block by block as the resolution is refined."""

    def __init__(self, xp: Any, law: SumLaw, a: float, period: float) -> None:
        self.xp, self.law, self.a, self.period = xp, law, a, period
        self.blocks: list[Spectrum] = []
        self.size = 0

    def upto(self, K: int) -> list[tuple[int, Spectrum]]:
        """Blocks ``(first k, spectrum)`` covering at least ``k = 1 … K``."""
        while self.size < K:
            k0 = self.size + 1
            # Blocks double from 1024 terms: low frequencies, where the mass of |phi| lies,
            # get small blocks, so that more atoms count as "near" there (see charfn).
            k1 = k0 + min(BLOCK, max(1024, self.size), K - self.size)
            self.blocks.append(spectrum(self.xp, self.law, self.a, self.period, k0, k1))
            self.size = k1 - 1
        starts, k = [], 1
        for b in self.blocks:
            starts.append(k)
            k += int(b.re.shape[0])
        return list(zip(starts, self.blocks, strict=True))


def bound(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds:
    """Bounds on ``P[Y ∈ cut]`` of absolute width about ``target``.

    The majorants bound ``P[Y > y]`` and ``P[Y >= y]`` at once; a lower tail is the
    complement of the opposite event, whose absolute width is the same.
    """
    if not cut.above:
        return _above(law, cut.opposite(), target, max_terms, xp).complement()
    return _above(law, cut, target, max_terms, xp)


def _above(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds:
    delta = max(FLOOR, WINDOW_DELTA * target)
    a = min(chernoff.lower_quantile(law, delta), cut.lo)
    top = max(chernoff.upper_quantile(law, delta), cut.hi)
    span = top - a
    a, top = a - MARGIN * span, top + MARGIN * span
    period = top - a
    below, above = chernoff.lower_tail(law, a), chernoff.upper_tail(law, top)
    alphas = ((cut.lo - a) / period, (cut.hi - a) / period)
    cache = SpectrumCache(xp, law, a, period)
    K = FIRST_TERMS
    while True:
        lower, upper, roundoff = interval_bounds(xp, cache.upto(K), K, alphas)
        resolution = upper - lower
        outside = 2.0 * roundoff + 2.0 * above + below
        # Where round-off and truncation alone exceed the target, refine only until the
        # resolution matches them: more terms could not narrow the interval further.
        goal = max(target, 3.0 * outside)
        if resolution + outside <= goal or max_terms <= K:
            break
        grow = 1.25 * resolution / (goal - outside)
        K = int(min(max_terms, 8 * K, max(2 * K, math.ceil(K * grow))))
    budget = ErrorBudget(discretization=resolution, truncation=2.0 * above + below, roundoff=2.0 * roundoff)
    return Bounds.make(
        lower - roundoff - above - below, upper + roundoff + above, budget, "fourier", K, workspace_bytes(cache.size)
    )
