"""Point masses and upper tails of ``B_a = Bin(a, q) + Bin(n − 1 − a, p)``, a block of ``a`` at once.

For ``a = a0 … a0 + m − 1`` the counts share a base ``F = Bin(a0, q) + Bin(n − a0 − m, p)``
and differ by a small part: ``B_{a0+j} = F + S_j`` with ``S_j = Bin(j, q) + Bin(m − 1 − j, p)``
on ``0 … m − 1``. So ``F`` is computed once, on the span of ``k`` asked plus ``m``, and
every row is one matrix product: ``P(B = k) = Σ_i S_j(i) F(k − i)``, and likewise for
``P(B >= k)``. All sums have positive terms, so every value keeps a relative error
bound; each binomial's mass outside its window (Bernstein's inequality) is added.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.floats import FLOOR, UNIT

WINDOW_LOG = math.log(1e40)
"""Each binomial's window leaves out at most ``e^-WINDOW_LOG`` of mass on each side."""
OUTSIDE = 2.0 * math.exp(-WINDOW_LOG)
BLOCK = 256
"""Backgrounds evaluated together (at most)."""
NARROW_WINDOW = 600.0
"""Counts whose windows are at most this wide are evaluated in blocks of :data:`NARROW_BLOCK`."""
NARROW_BLOCK = 32
RESOLVED = 1e10
"""A point mass counts as resolved where it exceeds the mass outside the windows this many times."""


@dataclass(frozen=True)
class Binomial:
    """``Bin(n, pi)`` on its window ``[lo, lo + len(pmf))``; ``rel`` bounds each value's relative error,
    of which ``anchor`` (the mode's, from log-gamma) is one factor shared by every value."""

    lo: int
    pmf: np.ndarray
    rel: float
    anchor: float = 0.0

    @property
    def hi(self) -> int:
        return self.lo + self.pmf.shape[0] - 1


def half_width(var: float) -> float:
    """Bernstein's deviation ``t`` beyond which a binomial of variance ``var`` leaves at most
    ``e^-WINDOW_LOG`` of mass on each side: ``P(B − E B > t) <= exp(−t² / (2 var + 2t/3))``, and
    likewise below."""
    return WINDOW_LOG / 3.0 + math.sqrt((WINDOW_LOG / 3.0) ** 2 + 2.0 * var * WINDOW_LOG)


def binomial(n: int, pi: float, *, whole: bool = False) -> Binomial:
    """``Bin(n, pi)`` on the window that Bernstein's inequality certifies up to ``OUTSIDE / 2`` a side
    (on all of ``0 … n`` if ``whole``).

    The mode's probability comes from log-gamma (its log errs by at most ``8 u`` times the
    sum of its terms' magnitudes, library functions being accurate to a few ulp); the others
    are products of the exact ratios ``b(j+1)/b(j) = (n − j) π / ((j + 1)(1 − π))``, each
    adding at most ``6 u`` of relative error per step away from the mode.
    """
    if n == 0:
        return Binomial(0, np.ones(1), 0.0)
    var = n * pi * (1.0 - pi)
    t = half_width(var)
    lo, hi = (0, n) if whole else (max(0, math.floor(n * pi - t)), min(n, math.ceil(n * pi + t)))
    m = min(max(math.floor((n + 1) * pi), lo), hi)
    terms = (
        float(gammaln(n + 1.0)),
        -float(gammaln(m + 1.0)),
        -float(gammaln(n - m + 1.0)),
        m * math.log(pi),
        (n - m) * math.log1p(-pi),
    )
    anchor = math.exp(math.fsum(terms))
    odds = pi / (1.0 - pi)
    up = np.arange(m, hi, dtype=np.float64)
    down = np.arange(m, lo, -1, dtype=np.float64)
    above = anchor * np.cumprod((n - up) / (up + 1.0) * odds)
    below = anchor * np.cumprod(down / (n - down + 1.0) / odds)
    pmf = np.concatenate([below[::-1], [anchor], above])
    shared = 8.0 * UNIT * sum(abs(x) for x in terms) + 8.0 * UNIT
    return Binomial(lo, pmf, shared + 6.0 * UNIT * max(hi - m, m - lo), shared)


def block_size(n: int, q: float) -> int:
    """Backgrounds per block for the tail search: a block costs about ``m²`` per column and its
    columns grow with ``m``, so narrow windows (small ``n q``) favour small blocks (measured:
    32 is 3–7× faster than 256 where the window is a few hundred counts, slower where it is wide)."""
    return NARROW_BLOCK if 2.0 * half_width(n * q * (1.0 - q)) <= NARROW_WINDOW else BLOCK


@lru_cache(maxsize=16)
def small_parts(m: int, q: float) -> tuple[np.ndarray, float]:
    """Rows ``S_j = Bin(j, q) + Bin(m − 1 − j, 1 − q)`` on ``0 … m − 1``, and their relative error.

    Values below the float range underflow to 0; they are below ``1e-300`` and enter the
    absolute error instead (see :func:`block_masses`).
    """
    rows = np.zeros((m, m))
    for j in range(m):
        rows[j] = np.convolve(binomial(j, q, whole=True).pmf, binomial(m - 1 - j, 1.0 - q, whole=True).pmf)
    rel = 2.0 * binomial(m, q, whole=True).rel + (m + 4) * UNIT
    return rows, rel


@dataclass(frozen=True)
class BlockMasses:
    """Bracketed ``P(B_a = k)`` and ``P(B_a >= k)`` for rows ``a = a0 + j`` and columns ``k = ks[t]``.

    The brackets come from ``points``: ``P(B_a = k) = s (points (1 + η) + x)`` with one factor
    ``s`` shared by every value, ``|s − 1| <= scale`` to first order (the log-gamma anchors),
    ``|η| <= rel`` per value and ``0 <= x <= outside / s`` (the mass outside the windows). A sum of
    differences of masses of one row keeps ``scale`` as a factor, not amplified by cancellation.
    """

    ks: np.ndarray
    point_lo: np.ndarray
    point_hi: np.ndarray
    tail_lo: np.ndarray
    tail_hi: np.ndarray
    resolved: np.ndarray
    points: np.ndarray
    rel: float
    scale: float
    outside: float


def block_masses(n: int, q: float, a0: int, m: int, span: tuple[int, int]) -> BlockMasses:
    """Masses of ``B_a`` for ``a = a0 … a0 + m − 1`` at ``k = span[0] … span[1]`` (see the module docstring).

    The span is cut to the binomials' windows plus one column on each side (``ks`` says which
    columns were computed): outside them every mass is at most the outside bound, so the columns
    cut carry nothing the caller can resolve.
    """
    p = 1.0 - q
    x, y = binomial(a0, q), binomial(n - a0 - m, p)
    # Beyond the windows every mass is only the outside bound: one column past each end is enough.
    k0 = min(max(span[0], x.lo + y.lo - 1), span[1] - 1)
    k1 = max(min(span[1], x.hi + y.hi + m + 1), k0 + 1)
    f_lo = k0 - (m - 1)  # F is needed on [k0 − m + 1, k1]
    # F = X * Y on its windows' support [s0, s0 + len − 1] (cost len(X) len(Y), not the span's length),
    # and P(F >= k) by a reversed cumulative sum; below the support it is the windows' whole mass.
    full = np.convolve(x.pmf, y.pmf)
    s0 = x.lo + y.lo
    at = np.arange(f_lo, k1 + 1) - s0
    f = np.where((at >= 0) & (at < full.shape[0]), full[np.clip(at, 0, full.shape[0] - 1)], 0.0)
    f_tail = np.append(np.cumsum(full[::-1])[::-1], 0.0)[np.clip(at, 0, full.shape[0])]  # P(F >= k) on [f_lo, k1]
    rows, rel_s = small_parts(m, q)
    view = np.lib.stride_tricks.sliding_window_view
    width = k1 - k0 + 1
    points = rows @ view(f, m)[:width, ::-1].T
    tails = rows @ view(f_tail, m)[:width, ::-1].T
    # Each F(k) sums at most min(len X, len Y) products and each P(F >= k) at most len X + len Y of
    # them (positive terms: relative error at most u per operation); the rows' products add 2m.
    lengths = x.pmf.shape[0] + y.pmf.shape[0]
    rel = x.rel + y.rel + rel_s + (2 * lengths + 2 * m + 8) * UNIT
    scale = x.anchor + y.anchor
    outside = 2.0 * OUTSIDE + m * FLOOR
    point_lo, point_hi = points * (1.0 - rel), points * (1.0 + rel) + outside
    return BlockMasses(
        np.arange(k0, k1 + 1),
        point_lo,
        point_hi,
        tails * (1.0 - rel),
        np.minimum(1.0, tails * (1.0 + rel) + outside),
        point_lo >= RESOLVED * outside,
        points,
        rel - scale,
        scale,
        outside,
    )
