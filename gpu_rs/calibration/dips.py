"""Where the one-bit tail can dip below η: its pieces in ``q``, their proven floors, and the dips' search.

For one bit the tail of each order of the seed's pair is a binomial sum whose index jumps as
``q`` moves (docs/calibration.md): the forward tail ``f`` is nondecreasing in ``q`` between
the points ``q_m`` where the threshold ``c(q)`` crosses an integer ``m``, and drops there; the
reverse tail ``g`` is nonincreasing between the points ``q'_j`` where its threshold crosses ``j``
on its rising branch, and jumps up there. So ``f`` from any ``s`` in the piece ``[q_m, q_{m+1})``
to its end is at least its value at ``s``, ``g`` on ``(q'_j, t]`` at least its value at ``t``:
floors, bounded below here in closed form, and an interval on which one exceeds η holds no
certified ``q`` of any scope that covers that order. The floors at each interval's ends exclude
most intervals, the floors inside narrow the rest, and what is left is searched with the
monotonicity inside each interval instead of a dense scan (:func:`lowest`).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.floats import UNIT

MAX_ELEMENTS = 2_000_000
"""Most binomial terms evaluated for the floors (pieces times terms each); beyond, the dense scan is kept."""
MAX_LIVE = 20
"""Most intervals searched with queries without a certified point; beyond, the dense scan is kept."""
RESOLUTION = 1e-12
"""Relative resolution of the closed-form narrowing of an interval (:func:`lowest`)."""
MARGIN = 1e-9
"""Relative offset of a floor's evaluation point from its piece end (float error of the end: ~1e-15)."""
INSIDE = 1e-10
"""Relative offset of a query point from a piece end, so that the engine sees the piece's own threshold."""


def _log_pmf(m: int, q: np.ndarray, i: np.ndarray) -> np.ndarray:
    """A lower bound on ``log P[Bin(m, q) = i]`` (rows of ``i`` for each ``q``; ``-inf`` outside ``0..m``)."""
    ok = (i >= 0) & (i <= m)
    j = np.where(ok, i, 0).astype(np.float64)
    terms = (gammaln(m + 1.0), gammaln(j + 1.0), gammaln(m - j + 1.0), j * np.log(q), (m - j) * np.log1p(-q))
    value = terms[0] - terms[1] - terms[2] + terms[3] + terms[4]
    # lgamma, log and the four sums to a few ulp each, relative to the terms' magnitudes.
    err = 16.0 * UNIT * (abs(terms[0]) + np.abs(terms[1]) + np.abs(terms[2]) + np.abs(terms[3]) + np.abs(terms[4]))
    return np.where(ok, value - err - 4.0 * UNIT, -np.inf)


def _sum_lower(logs: np.ndarray) -> np.ndarray:
    """A lower bound on each row's ``Σ e^x`` (exp and the sum to a few ulp each)."""
    return np.exp(logs).sum(axis=1) * (1.0 - 8.0 * (logs.shape[1] + 4) * UNIT)


class OneBitDips:
    """The pieces of the one-bit tail below an answer, for ``scope`` forward, homogeneous or all.

    ``candidates(top, eta)`` lists the intervals not excluded by a floor (None where no proof
    applies: η ≥ 1/2, too many pieces, a threshold out of float range); ``excluded(q)`` says
    whether ``q`` lies in an excluded piece (used by the dense scan of ``scope="all"``, which
    covers both orders, so its tail is at least either's); ``proves`` whether the candidates
    can be searched by monotonicity (forward and homogeneous: the tail is one order or the larger of both).
    """

    def __init__(self, n: int, eps: float, scope: str) -> None:
        self.n, self.lam, self.scope = n, math.exp(eps), scope
        self.proves = scope in ("forward", "homogeneous")
        self.cuts: list[float] = []
        self.labels: list[tuple[int, int, bool]] = []
        self.first = 0.0
        self.terms = 16
        r_star = 1.0 / (self.lam + math.sqrt(self.lam * self.lam - 1.0))  # the peak of c'(r)
        self.peak = r_star / (1.0 + r_star)

    def _forward_ends(self, top: float) -> np.ndarray:
        """``q_m`` for ``m = 1, 2, …`` below ``top``: the roots of ``(N − m) r² − Nλ r + m = 0``, ``r = q/p``."""
        n, lam = self.n, self.lam
        r_top = top / (1.0 - top)
        c_top = n * r_top * (lam - r_top) / (1.0 - r_top * r_top)
        m = np.arange(1, math.floor(c_top) + 3, dtype=np.float64)
        r = 2.0 * m / (n * lam + np.sqrt((n * lam) ** 2 - 4.0 * m * (n - m)))
        q = r / (1.0 + r)
        return q[q < top]

    def _reverse_ends(self, top: float) -> np.ndarray:
        """``q'_j`` on the rising branch below ``top`` (``c'`` rises up to :attr:`peak`)."""
        n, mu = self.n, 1.0 / self.lam
        r_top = min(top, self.peak) / (1.0 - min(top, self.peak))
        c_top = n * r_top * (mu - r_top) / (1.0 - r_top * r_top)  # c' at top, or its peak
        j = np.arange(1, math.floor(c_top) + 3, dtype=np.float64)
        disc = (n * mu) ** 2 - 4.0 * j * (n - j)
        j = j[disc >= 0]
        r = 2.0 * j / (n * mu + np.sqrt(np.maximum((n * mu) ** 2 - 4.0 * j * (n - j), 0.0)))
        q = r / (1.0 + r)
        return q[q < min(top, self.peak)]

    def candidates(self, top: float, eta: float) -> list[tuple[float, float, int, int]] | None:
        """Intervals ``(a, b, m, j)`` below ``top`` that may hold a certified ``q``, in increasing order.

        ``m`` is the forward piece, ``j`` the reverse group (``-1`` where no reverse floor
        applies: ``scope="forward"``, or past the peak of ``c'``); ``a`` and ``b`` are points just
        inside the interval's ends. Everything below ``top`` outside these intervals has a proven
        tail above ``eta`` (docs/calibration.md §4): on each interval the forward order's floor at its
        left end or the reverse order's at its right end exceeds ``eta``.
        """
        self.cuts, self.labels = [], []
        if eta >= 0.5 or not math.isfinite(self.n * self.lam * self.lam):
            return None
        fwd = self._forward_ends(top)
        rev = self._reverse_ends(top) if self.scope != "forward" else np.zeros(0)
        # Terms per floor: the binomial's mass beyond the threshold spreads over a few sqrt(N q).
        self.terms = min(4096, 16 + math.ceil(6.0 * math.sqrt(self.n * top)))
        if 2 * (fwd.size + rev.size) * self.terms > MAX_ELEMENTS:
            return None
        # The intervals between consecutive ends, labelled by their forward piece m and reverse group j.
        ends = sorted([(float(q), 0) for q in fwd] + [(float(q), 1) for q in rev])
        lefts = np.array([q for q, _ in ends])
        rights = np.append(lefts[1:], top)
        m = np.cumsum([kind == 0 for _, kind in ends])
        j = np.cumsum([kind == 1 for _, kind in ends])
        if self.scope == "forward":
            j = np.full_like(j, -1)
        else:  # past the peak of c' the reverse index falls: no floor there
            j = np.where(rights * (1.0 + MARGIN) < self.peak * (1.0 - MARGIN), j, -1)
        floor = np.maximum(
            self.forward_floor(lefts * (1.0 - MARGIN), m),
            self.reverse_floor(rights * (1.0 + MARGIN), j),
        )
        # Piece 0 of the forward order (q < q_1) has tail >= 1/2 > eta.
        out = (m == 0) | (floor > eta)
        self.cuts = lefts.tolist()
        self.labels = list(zip(m.tolist(), j.tolist(), out.tolist(), strict=True))
        self.first = float(fwd[0]) if fwd.size else top
        found = []
        for left, right, m_k, j_k, out_k in zip(lefts, rights, m, j, out, strict=True):
            if not out_k:
                a = float(left) * (1.0 + INSIDE)
                b = float(right) * (1.0 - INSIDE)
                found.append((a, max(a, b), int(m_k), int(j_k)))
        return found

    def forward_floor(self, s: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Lower bounds on ``P_s[K >= m + 1]``, hence on ``f`` from ``s`` to the end of piece ``m``
        (``s`` in the piece or below ``q_m``; 0 where ``m < 1``)."""
        s, m = np.atleast_1d(s), np.atleast_1d(m)
        # P[K >= m + 1] >= (1 − s) P[B >= m], B ~ Bin(N − 1, s): the outlier's bit set.
        i = m[:, None] + np.arange(self.terms)[None, :]
        floor = (1.0 - s) * (1.0 - 2.0 * UNIT) * _sum_lower(_log_pmf(self.n - 1, s[:, None], i))
        return np.where(m >= 1, floor, 0.0)

    def reverse_floor(self, t: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Lower bounds on ``P_t[Bin(N, t) <= j]``, hence on ``g`` over group ``j`` up to ``t`` (0 where ``j < 0``)."""
        t, j = np.atleast_1d(t), np.atleast_1d(j)
        i = j[:, None] - np.arange(self.terms)[None, :]
        return np.where(j >= 0, _sum_lower(_log_pmf(self.n, np.minimum(t, 0.5)[:, None], i)), 0.0)

    def excluded(self, q: float) -> bool:
        """Whether ``q`` lies in a piece whose floor exceeds η (after :meth:`candidates`), away from every end."""
        if not self.labels:
            return False
        if q < self.first * (1.0 - MARGIN):
            return True
        k = bisect.bisect_right(self.cuts, q) - 1
        if k < 0:
            return False
        near = [c for c in self.cuts[max(0, k) : k + 2] if abs(q - c) <= MARGIN * c]
        return not near and self.labels[k][2]


def lowest(
    pieces: OneBitDips,
    found: list[tuple[float, float, int, int]],
    top: float,
    eta: float,
    tol: Callable[[float], float],
    query: Any,
    secant: Callable[[float, float], float],
) -> float | None:
    """The lowest certified ``q`` in the candidate intervals below ``top − tol(top)`` (``top`` if none).

    None if more than :data:`MAX_LIVE` intervals needed queries and none certified: the caller
    keeps the dense scan then.

    Inside an interval ``f`` is nondecreasing and ``g`` nonincreasing (docs/calibration.md), so
    the floors of :meth:`OneBitDips.forward_floor` and :meth:`OneBitDips.reverse_floor`, evaluated
    inside it, first narrow it in closed form: below a point whose reverse floor exceeds η nothing
    certifies, nor from a point whose forward floor does. The intervals left are searched from
    below with queries: a point where the forward order fails to certify rules out the rest of its
    forward piece, and a point where the reverse order fails rules out the interval below it.
    """
    limit = top - tol(top)
    live = [(a, min(b, limit), m, j) for a, b, m, j in found if a <= limit]

    def fails(q: float) -> tuple[bool, bool]:
        value = query.certifying.get(q, query.seen[q])
        uppers = {p.pair: p.upper for p in value.pairs}
        return uppers.get("forward", 0.0) > eta, uppers.get("reverse", 0.0) > eta

    def reverse_above(j: int, t: float) -> bool:
        return bool(pieces.reverse_floor(np.array([t]), np.array([j]))[0] > eta)

    def forward_above(m: int, s: float) -> bool:
        return bool(pieces.forward_floor(np.array([s]), np.array([m]))[0] > eta)

    dead_from: dict[int, float] = {}
    searched = 0
    for a, b, m, j in live:
        if m in dead_from and a >= dead_from[m]:
            continue
        b = min(b, dead_from.get(m, b))
        # Closed-form narrowing: g > eta on (.., a] while its floor at a exceeds eta; f > eta on [b, ..).
        if reverse_above(j, b) or forward_above(m, a):
            continue
        if reverse_above(j, a):
            a = _boundary(a, b, functools.partial(reverse_above, j))[1]
        if forward_above(m, b):
            b = _boundary(a, b, functools.partial(forward_above, m))[0]
        searched += 1
        if searched > MAX_LIVE:
            return None
        if query.decide(a, eta):
            return a
        if fails(a)[0]:
            dead_from[m] = a
            continue
        if a >= b or not query.decide(b, eta, query.widths.get(b, 0.1)):
            if a >= b or fails(b)[1]:
                continue
            # Forward fails at b, reverse at a: a certified stretch may lie between; bisect.
            lo, hi = a, b
            while hi - lo > tol(lo):
                mid = 0.5 * (lo + hi)
                if query.decide(mid, eta):
                    return secant(lo, mid)
                f_mid, g_mid = fails(mid)
                if f_mid and g_mid:
                    break
                lo, hi = (lo, mid) if f_mid else (mid, hi)
            dead_from[m] = a
            continue
        return secant(a, b)
    return top


def _boundary(a: float, b: float, above: Callable[[float], bool]) -> tuple[float, float]:
    """``(lo, hi)`` within ``RESOLUTION`` of each other where ``above`` changes between ``a`` and ``b``
    (``above(a) != above(b)``): ``above(lo) == above(a)``, ``above(hi) == above(b)``."""
    lo, hi, side = a, b, above(a)
    while hi - lo > RESOLUTION * hi:
        mid = 0.5 * (lo + hi)
        if above(mid) == side:
            lo = mid
        else:
            hi = mid
    return lo, hi
