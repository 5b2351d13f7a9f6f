"""Where the one-bit tail can dip below η: its pieces in ``q``, their proven floors, and the dips' search.

For one bit the tail of each order of the seed's pair is a binomial sum whose index jumps as
``q`` moves (docs/calibration.md): the forward tail ``f`` is nondecreasing in ``q`` between
the points ``q_m`` where the threshold ``c(q)`` crosses an integer ``m``, and drops there; the
reverse tail ``g`` is nonincreasing between the points ``q'_j`` where its threshold crosses ``j``
on its rising branch, and jumps up there. So ``f`` on the piece ``[q_m, q_{m+1})`` is at least
its value at ``q_m``, ``g`` on ``(q'_j, q'_{j+1}]`` at least its value at ``q'_{j+1}``: each
piece has a floor, bounded below here in closed form, and a piece whose floor exceeds η holds no
certified ``q`` of any scope that covers that order. What is left is searched with the
monotonicity inside each piece instead of a dense scan (:func:`lowest`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.floats import UNIT

MAX_ELEMENTS = 2_000_000
"""Most binomial terms evaluated for the floors (pieces times terms each); beyond, the dense scan is kept."""
MAX_LIVE = 20
"""Most intervals left to search after each reverse group's first query; beyond, the dense scan is kept."""
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

    def _forward_ends(self, top: float) -> np.ndarray:
        """``q_m`` for ``m = 1, 2, …`` below ``top``: the roots of ``(N − m) r² − Nλ r + m = 0``, ``r = q/p``."""
        n, lam = self.n, self.lam
        r_top = top / (1.0 - top)
        c_top = n * r_top * (lam - r_top) / (1.0 - r_top * r_top)
        m = np.arange(1, math.floor(c_top) + 3, dtype=np.float64)
        r = 2.0 * m / (n * lam + np.sqrt((n * lam) ** 2 - 4.0 * m * (n - m)))
        q = r / (1.0 + r)
        return q[q < top]

    def _reverse_ends(self, top: float) -> tuple[np.ndarray, bool]:
        """``q'_j`` on the rising branch below ``top``, and whether the branch's peak lies below ``top``."""
        n, mu = self.n, 1.0 / self.lam
        r_star = 1.0 / (self.lam + math.sqrt(self.lam * self.lam - 1.0))  # the peak of c'(r)
        peak = n * r_star * (mu - r_star) / (1.0 - r_star * r_star)
        j = np.arange(1, math.floor(peak) + 1, dtype=np.float64)
        disc = (n * mu) ** 2 - 4.0 * j * (n - j)
        j = j[disc >= 0]
        r = 2.0 * j / (n * mu + np.sqrt(np.maximum((n * mu) ** 2 - 4.0 * j * (n - j), 0.0)))
        q = r / (1.0 + r)
        return q[q < top], r_star / (1.0 + r_star) < top

    def candidates(self, top: float, eta: float) -> list[tuple[float, float, int, int]] | None:
        """Intervals ``(a, b, m, j)`` below ``top`` that may hold a certified ``q``, in increasing order.

        ``m`` is the forward piece, ``j`` the reverse group (``-1`` for ``scope="forward"``);
        ``a`` and ``b`` are points just inside the interval's ends. Everything below ``top``
        outside these intervals has a proven tail above ``eta`` (docs/calibration.md).
        """
        self.cuts, self.labels = [], []
        if eta >= 0.5 or not math.isfinite(self.n * self.lam * self.lam):
            return None
        fwd = self._forward_ends(top)
        rev, _ = self._reverse_ends(top) if self.scope != "forward" else (np.zeros(0), False)
        # Terms per floor: the binomial's mass beyond the threshold spreads over a few sqrt(N q).
        terms = min(4096, 16 + math.ceil(6.0 * math.sqrt(self.n * top)))
        if (fwd.size + rev.size) * terms > MAX_ELEMENTS:
            return None
        floor_f = self._forward_floors(fwd, terms)
        floor_g = self._reverse_floors(rev, terms)
        # The pieces' ends in order; piece 0 of the forward order (q < q_1) has tail >= 1/2 > eta.
        ends = sorted([(float(q), 0) for q in fwd] + [(float(q), 1) for q in rev])
        m, j = 0, 0
        found = []
        for k, (q, kind) in enumerate(ends):
            if kind == 0:
                m += 1
            else:
                j += 1
            right = ends[k + 1][0] if k + 1 < len(ends) else top
            # The reverse group j ends at q'_{j+1}; the last group (beyond the last end) has no floor.
            out = m == 0 or floor_f[m - 1] > eta or (j < rev.size and floor_g[j] > eta)
            self.cuts.append(q)
            self.labels.append((m, j, out))
            if m >= 1 and not out:
                a = q * (1.0 + INSIDE)
                b = right * (1.0 - INSIDE)
                found.append((a, max(a, b), m, j if self.scope != "forward" else -1))
        self.first = float(fwd[0]) if fwd.size else top
        return found

    def _forward_floors(self, ends: np.ndarray, terms: int) -> np.ndarray:
        """Lower bounds on ``f`` over each forward piece: ``P[K >= m + 1]`` at ``q_m (1 − MARGIN)``."""
        if ends.size == 0:
            return np.zeros(0)
        s = ends * (1.0 - MARGIN)
        m = np.arange(1, ends.size + 1)
        # P[K >= m + 1] >= (1 − s) P[B >= m], B ~ Bin(N − 1, s): the outlier's bit set.
        i = m[:, None] + np.arange(terms)[None, :]
        return (1.0 - s) * (1.0 - 2.0 * UNIT) * _sum_lower(_log_pmf(self.n - 1, s[:, None], i))

    def _reverse_floors(self, ends: np.ndarray, terms: int) -> np.ndarray:
        """Lower bounds on ``g`` over each reverse group ``j`` (ending at ``q'_{j+1}``): ``P[Bin(N, ·) <= j]`` there."""
        if ends.size == 0:
            return np.zeros(0)
        t = np.minimum(ends * (1.0 + MARGIN), 0.5)
        j = np.arange(ends.size)
        i = j[:, None] - np.arange(terms)[None, :]
        return _sum_lower(_log_pmf(self.n, t[:, None], i))

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
    found: list[tuple[float, float, int, int]],
    top: float,
    eta: float,
    q_tol: float,
    query: Any,
    secant: Callable[[float, float], float],
) -> float | None:
    """The lowest certified ``q`` in the candidate intervals below ``top − q_tol`` (``top`` if none).

    None if more than :data:`MAX_LIVE` intervals are left after each reverse group's first
    query: the caller keeps the dense scan then.

    Inside an interval ``f`` is nondecreasing and ``g`` nonincreasing (docs/calibration.md), so
    a point where the forward order fails to certify rules out the rest of its forward piece,
    and a point where the reverse order fails rules out its reverse group below it. Each
    group is first asked at its highest candidate point (often a point the search computed);
    then the intervals left are searched from below.
    """
    limit = top - q_tol
    live = [(a, min(b, limit), m, j) for a, b, m, j in found if a <= limit]

    def fails(q: float) -> tuple[bool, bool]:
        value = query.certifying.get(q, query.seen[q])
        uppers = {p.pair: p.upper for p in value.pairs}
        return uppers.get("forward", 0.0) > eta, uppers.get("reverse", 0.0) > eta

    dead_groups: dict[int, float] = {}
    for j in sorted({j for *_, j in live if j >= 0}, reverse=True):
        a, b, _, _ = max((iv for iv in live if iv[3] == j), key=lambda iv: iv[1])
        # The highest point computed in the interval stands for its end if within 1e-6 q_tol of it.
        x = max((s for s in query.seen if a <= s <= b + 1e-6 * q_tol), default=b)
        if not query.decide(x, eta, query.widths.get(x, 0.1)) and fails(x)[1]:
            dead_groups[j] = max(x, b) if x >= b - 1e-6 * q_tol else x
    live = [iv for iv in live if not (iv[3] in dead_groups and iv[1] <= dead_groups[iv[3]])]
    if len(live) > MAX_LIVE:
        return None
    dead_from: dict[int, float] = {}
    for a, b, m, _j in live:
        if m in dead_from and a >= dead_from[m]:
            continue
        b = min(b, dead_from.get(m, b))
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
            while hi - lo > q_tol:
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
