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
"""Backgrounds evaluated together."""
RESOLVED = 1e10
"""A point mass counts as resolved where it exceeds the mass outside the windows this many times."""


@dataclass(frozen=True)
class Binomial:
    """``Bin(n, pi)`` on its window ``[lo, lo + len(pmf))``; ``rel`` bounds each value's relative error."""

    lo: int
    pmf: np.ndarray
    rel: float

    @property
    def hi(self) -> int:
        return self.lo + self.pmf.shape[0] - 1


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
    t = WINDOW_LOG / 3.0 + math.sqrt((WINDOW_LOG / 3.0) ** 2 + 2.0 * var * WINDOW_LOG)
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
    rel = 8.0 * UNIT * sum(abs(x) for x in terms) + 8.0 * UNIT + 6.0 * UNIT * max(hi - m, m - lo)
    return Binomial(lo, pmf, rel)


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
    """Bracketed ``P(B_a = k)`` and ``P(B_a >= k)`` for rows ``a = a0 + j`` and columns ``k = ks[t]``."""

    ks: np.ndarray
    point_lo: np.ndarray
    point_hi: np.ndarray
    tail_lo: np.ndarray
    tail_hi: np.ndarray
    resolved: np.ndarray


def block_masses(n: int, q: float, a0: int, m: int, span: tuple[int, int]) -> BlockMasses:
    """Masses of ``B_a`` for ``a = a0 … a0 + m − 1`` at ``k = span[0] … span[1]`` (see the module docstring)."""
    p = 1.0 - q
    x, y = binomial(a0, q), binomial(n - a0 - m, p)
    k0, k1 = span
    f_lo = k0 - (m - 1)  # F is needed on [k0 − m + 1, k1]
    # F(k) = Σ_x X(x) Y(k − x): a 'valid' convolution of X with the slice of Y it meets.
    y_start = f_lo - x.hi
    y_slice = np.zeros(k1 - f_lo + x.pmf.shape[0])
    a, b = max(y_start, y.lo), min(y_start + y_slice.shape[0] - 1, y.hi)
    if a <= b:
        y_slice[a - y_start : b - y_start + 1] = y.pmf[a - y.lo : b - y.lo + 1]
    f = np.convolve(y_slice, x.pmf, mode="valid")  # f[t] = F(f_lo + t), t = 0 … k1 − f_lo
    # P(F > k1) = Σ_x X(x) P(Y > k1 − x), from Y's upper tail within its window.
    sf_y = np.append(np.cumsum(y.pmf[::-1])[::-1], 0.0)
    idx = np.clip(k1 + 1 - np.arange(x.lo, x.hi + 1) - y.lo, 0, y.pmf.shape[0])
    f_above = float(np.dot(x.pmf, sf_y[idx]))
    f_tail = np.cumsum(f[::-1])[::-1] + f_above  # P(F >= k) on [f_lo, k1]
    rows, rel_s = small_parts(m, q)
    view = np.lib.stride_tricks.sliding_window_view
    width = k1 - k0 + 1
    points = rows @ view(f, m)[:width, ::-1].T
    tails = rows @ view(f_tail, m)[:width, ::-1].T
    rel = x.rel + y.rel + rel_s + (x.pmf.shape[0] + y.pmf.shape[0] + 2 * m + 8) * UNIT
    outside = 2.0 * OUTSIDE + m * FLOOR
    point_lo, point_hi = points * (1.0 - rel), points * (1.0 + rel) + outside
    return BlockMasses(
        np.arange(k0, k1 + 1),
        point_lo,
        point_hi,
        tails * (1.0 - rel),
        np.minimum(1.0, tails * (1.0 + rel) + outside),
        point_lo >= RESOLVED * outside,
    )
