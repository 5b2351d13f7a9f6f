"""``scope="all"`` for one bit: the worst background over every neighbouring pair, certified.

With ``L = 1`` every collection is "``a`` zeros and ``c`` ones". A user who changes
0 → 1 against a background of ``a`` zeros and ``c = N − 1 − a`` ones gives
``D = bg + {0}``, ``D' = bg + {1}``; the global complement maps the other order and
the other change onto another ``a``, so the supremum over all pairs is
``max_a T(a)`` with ``T(a) = P_{S ~ D'}[R > λ]``. With ``B_a = Bin(a, q) + Bin(c, p)``
the background's count of ones and ``K = B_a + U`` (``U ~ Ber(p)`` under ``D'``),

    R(k) = (p ρ(k) + q) / (q ρ(k) + p),    ρ(k) = P(B_a = k − 1) / P(B_a = k),

and ``B_a`` is log-concave, so ``R`` increases in ``k`` and ``T(a) = P'_a[K >= k*(a)]``,
``k*(a) = min{k : ρ_a(k) > θ}``, ``θ = (λp − q)/(p − λq)``. Two likelihood-ratio orders
(``B_{a+1} <=_lr B_a <=_lr B_{a+1} + 1``) give, for ``a1 <= a <= a2``,

    k*(a2) <= k*(a) <= k*(a1),   k*(a) + a nondecreasing,
    T(a) <= min(P'_{a1}[K >= k*(a2)], P'_{a2}[K >= k*(a1) − (a2 − a1)]),

and where ``k*(a1) = k*(a2)`` the first bound is ``T(a1)`` itself. So an interval of
backgrounds is bounded from its two ends (docs/worst-case.md has the proofs). ``K + a`` is
stochastically nondecreasing in ``a``, so on a *tooth* (a run with the same ``k*(a) + a``) ``T``
is nondecreasing and the second bound is exactly ``T(a2)``.
:mod:`gpu_rs.pairs.counts` evaluates blocks of consecutive backgrounds at once.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.pairs.counts import BLOCK, BlockMasses, block_masses, block_size

WHOLE = 16 * BLOCK
"""Intervals of at most this many backgrounds whose bound is too large are evaluated whole, where
their teeth are narrow (:data:`TOOTH`)."""
TOOTH = 32
"""An interval is split rather than evaluated whole where it holds more than this many backgrounds
per tooth (a run of backgrounds with the same ``k*(a) + a``, on which ``T`` rises: module docstring)."""


class Evaluated(NamedTuple):
    """One background, evaluated: ``k*(a)`` in ``[k_lo, k_hi]`` and its tail ``T(a)`` in ``[lower, upper]``."""

    k_lo: int
    k_hi: int
    lower: float
    upper: float


@dataclass(frozen=True)
class Worst:
    """The outcome of :meth:`WorstBackground.search`.

    Attributes
    ----------
    zeros : int
        The best background found: ``zeros`` zero vectors and ``n − 1 − zeros`` ones, the
        user changing 0 → 1, ``S`` drawn with the user at 1.
    lower, upper : float
        ``lower <= T(zeros) <= max_a T(a) <= upper``.
    evaluated : int
        Backgrounds evaluated.
    complete : bool
        Whether every interval was resolved to the goal (False if the budget ran out).
    """

    zeros: int
    lower: float
    upper: float
    evaluated: int
    complete: bool


class WorstBackground:
    """``max_a T(a)`` for ``n`` users at flip probability ``q`` and threshold ``lam`` (module docstring)."""

    def __init__(self, n: int, q: float, lam: float, inclusive: bool) -> None:
        self.n, self.q, self.p = n, q, 1.0 - q
        self.block = block_size(n, q)
        self.inclusive = inclusive
        p = self.p
        num, den = lam * p - q, p - lam * q
        # R <= p/q: at or above it the strict event is empty (up to the rounding of λ, see θ).
        self.never = den <= 0.0
        # θ = num/den with the rounding of λ (a few u, from exp), of num and of den.
        err = 16.0 * UNIT * (1.0 + (lam * p + q) / num + (p + lam * q) / den) if not self.never else 0.0
        theta = num / den if not self.never else math.inf
        self.theta = (theta * (1.0 - err), theta * (1.0 + err))
        self.evaluated: dict[int, Evaluated] = {}
        """Every background evaluated so far, by its number of zeros ``a``."""
        self._tails: dict[tuple[int, int], float] = {}

    def _guess(self, a: int) -> float:
        """The normal approximation of ``k*(a)``: ``E B + 1/2 + Var B log θ``."""
        mean = a * self.q + (self.n - 1 - a) * self.p
        return mean + 0.5 + (self.n - 1) * self.p * self.q * math.log(self.theta[0])

    def evaluate(self, a0: int, m: int = 1) -> None:
        """Evaluate the backgrounds ``a0 … a0 + m − 1`` in blocks (:func:`~gpu_rs.pairs.counts.block_size`)."""
        for start in range(a0, a0 + m, self.block):
            size = min(self.block, a0 + m - start)
            if all(a in self.evaluated for a in range(start, start + size)):
                continue
            if self.never:
                for a in range(start, start + size):
                    self.evaluated[a] = Evaluated(self.n + 1, self.n + 1, 0.0, 0.0)
                continue
            spread = 4.0 + 0.05 * math.sqrt(self.n * self.p * self.q)
            for margin in (spread, 8.0 * spread + 64.0, math.inf):
                top = self._guess(start) + margin + 2.0
                bottom = self._guess(start + size - 1) - margin - 2.0
                # The guess may lie beyond 0 … n (far tails): keep a span of at least two columns.
                k1 = min(self.n, max(1, math.ceil(top))) if math.isfinite(top) else self.n
                k0 = max(0, min(math.floor(bottom), k1 - 1)) if math.isfinite(bottom) else 0
                span = (k0, k1)
                if self._read(block_masses(self.n, self.q, start, size, span), start, size, last=margin == math.inf):
                    break

    def _read(self, masses: BlockMasses, a0: int, m: int, *, last: bool) -> bool:
        """Each row's ``k*`` bracket and ``T`` bracket; False where a row needs a wider span.

        ``ρ`` is nondecreasing. The column after the last one where ``ρ`` is certified
        at most ``θ`` lies at or below ``k*``; any column where "ρ surely exceeds θ" lies
        at or above it. Columns whose mass is not resolved count as
        "may exceed"; ``ρ(n) = ∞`` since ``B <= n − 1``.
        """
        th_lo, th_hi = self.theta
        n, ks = self.n, masses.ks
        rows = masses.point_lo.shape[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            r_lo = masses.point_lo[:, :-1] / masses.point_hi[:, 1:]
            r_hi = np.where(masses.point_lo[:, 1:] > 0, masses.point_hi[:, :-1] / masses.point_lo[:, 1:], np.inf)
        # Column t holds ρ(ks[t]); ρ at the span's first k is unknown unless it is 0 (ρ(0) = 0).
        first = np.full((rows, 1), ks[0] > 0)
        top = ks[1:] >= n
        maybe = np.concatenate(
            [first, (r_hi >= th_lo if self.inclusive else r_hi > th_lo) | ~masses.resolved[:, 1:] | top], axis=1
        )
        surely = np.concatenate([~first & False, (r_lo >= th_hi if self.inclusive else r_lo > th_hi) | top], axis=1)
        # ρ is nondecreasing, so k* lies above the last column certified at or below θ.
        last_below = np.where(~maybe, np.arange(ks.size)[None, :], -1).max(axis=1)
        has_turn = (last_below >= 0) & (last_below < ks.size - 1)
        if not last and not has_turn.all():
            return False
        i_lo = np.where(has_turn, last_below + 1, 0)
        k_lo = np.where(has_turn, ks[i_lo], 0)  # nothing certified below θ: k* may be as low as 0
        after = surely & (np.arange(ks.size)[None, :] >= i_lo[:, None])
        has_sure = after.any(axis=1)
        if not last and not has_sure.all():
            return False
        k_hi = np.where(has_sure, ks[after.argmax(axis=1)], n)
        lower = self._tails_at(masses, k_hi, upper=False)
        upper = self._tails_at(masses, k_lo, upper=True)
        for j in range(m):
            self.evaluated[a0 + j] = Evaluated(int(k_lo[j]), int(k_hi[j]), float(lower[j]), float(upper[j]))
        return True

    def _tails_at(self, masses: BlockMasses, k: np.ndarray, *, upper: bool) -> np.ndarray:
        """Row by row, ``P'[K >= k] = p P(B >= k − 1) + q P(B >= k)``, one side of its bracket."""
        tail = masses.tail_hi if upper else masses.tail_lo
        i = k - int(masses.ks[0])
        inside = (i - 1 >= 0) & (i < tail.shape[1])
        rows = np.arange(tail.shape[0])
        i0, i1 = np.clip(i - 1, 0, tail.shape[1] - 1), np.clip(i, 0, tail.shape[1] - 1)
        value = self.p * tail[rows, i0] + self.q * tail[rows, i1]
        if upper:
            found = np.where(inside, np.minimum(1.0, value * (1.0 + 4.0 * UNIT)), 1.0)
        else:
            found = np.where(inside, np.maximum(0.0, value * (1.0 - 4.0 * UNIT)), 0.0)
        return np.where(k <= 0, 1.0, found)

    def tail_upper(self, a: int, k: int) -> float:
        """An upper bound on ``P'_a[K >= k]``."""
        if k <= 0:
            return 1.0
        if k > self.n:
            return 0.0
        if (a, k) not in self._tails:
            masses = block_masses(self.n, self.q, a, 1, (k - 1, k))
            self._tails[a, k] = float(self._tails_at(masses, np.array([k]), upper=True)[0])
        return self._tails[a, k]

    def interval_upper(self, a1: int, a2: int) -> float:
        """An upper bound on ``T(a)`` for every ``a`` in ``[a1, a2]``, from its two ends."""
        k1_lo, k1_hi, _, up1 = self.evaluated[a1]
        k2_lo, k2_hi, _, _ = self.evaluated[a2]
        if self.never:
            return 0.0
        if k1_lo == k1_hi == k2_lo == k2_hi:
            return up1
        first = self.tail_upper(a1, k2_lo)
        return first if first <= self.best + FLOOR else min(first, self.tail_upper(a2, max(k1_lo, k2_lo) - (a2 - a1)))

    @property
    def best(self) -> float:
        return max(v.lower for v in self.evaluated.values())

    def teeth(self, a1: int, a2: int) -> int:
        """How many times ``k*(a) + a`` may step up between ``a1`` and ``a2`` (both evaluated)."""
        return self.evaluated[a2].k_hi + a2 - self.evaluated[a1].k_lo - a1

    def worth_splitting(self, a1: int, a2: int) -> bool:
        """Whether splitting ``[a1, a2]`` is likely cheaper than evaluating it whole (speed only).

        Across a tooth the interval bound loses about a factor ``θ``, so a part spanning
        ``log(best / T) / log θ`` teeth, ``T`` the larger end's tail, may already be pruned;
        splitting pays where such parts, or single teeth, hold more than :data:`TOOTH` backgrounds.
        """
        top, best = max(self.evaluated[a1].upper, self.evaluated[a2].upper), self.best
        reach = 1.0
        if best > top:
            reach = math.inf if top <= 0.0 else max(1.0, math.log(best / top) / math.log(self.theta[0]))
        return (a2 - a1) * reach > TOOTH * (self.teeth(a1, a2) + 1)

    def search(self, goal: float, budget: int, cap: float = 1.0, seconds: float = math.inf) -> Worst:
        """The best background and an upper bound on every ``T(a)``.

        Intervals of backgrounds are split at their middle while their bound exceeds the best
        lower bound by more than ``goal``; an interval of at most :data:`WHOLE` backgrounds
        is evaluated whole. No background is left without a bound covering it. ``cap`` is a
        bound proven for every background (the clone bound); it ends the search where the
        tails are all too small for the interval bounds to resolve. Where ``budget`` backgrounds
        have been evaluated or ``seconds`` have passed, the intervals left are bounded from their
        ends and the search is not complete.

        On a run of backgrounds with the same ``k*(a) + a`` (a *tooth*), ``T`` is nondecreasing,
        so the interval bound is exact there: at small ``q``, where teeth hold many backgrounds,
        splitting finds their ends in a few evaluations each, and only narrow teeth are evaluated whole.
        """
        deadline = time.perf_counter() + seconds
        n = self.n
        for a in sorted({0, n - 1}):
            self.evaluate(a)
        stack = [(0, n - 1)]
        pending: list[float] = []
        complete = True
        while stack:
            a1, a2 = stack.pop()
            if a2 - a1 <= 1:
                continue
            bound = min(cap, self.interval_upper(a1, a2))
            if bound <= self.best + goal:
                pending.append(bound)
            elif len(self.evaluated) >= budget or time.perf_counter() > deadline:
                complete = False
                pending.append(bound)
            elif a2 - a1 - 1 <= WHOLE and not self.worth_splitting(a1, a2):
                self.evaluate(a1 + 1, a2 - a1 - 1)
            else:
                mid = (a1 + a2) // 2
                self.evaluate(mid)
                stack.extend([(mid, a2), (a1, mid)])
        a_best = max(self.evaluated, key=lambda a: self.evaluated[a].lower)
        upper = min(cap, max([v.upper for v in self.evaluated.values()] + pending))
        return Worst(a_best, self.evaluated[a_best].lower, upper, len(self.evaluated), complete)
