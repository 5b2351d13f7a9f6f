"""Wang et al.'s variation-ratio bound with L-bit randomized response's own ``β``, certified.

Wang, Peng, Li, Wen, Li, Yu, Wang and Yang (PVLDB 17, 2024): a randomizer with ``(p, β, q)``-variation
has, for every neighbouring pair in either order, ``δ(ε)`` at most that of the pair where the
changing user reports ``0, 1, *`` with probabilities ``(Pα, α, W)`` or ``(α, Pα, W)``, each of the
``n − 1`` others ``0`` or ``1`` with probability ``α`` each, and only the counts of ``0`` and ``1``
are seen; L-bit randomized response has ``p = q = P = (p/q)^L``, ``α = β/(P − 1)``,
``W = 1 − (P + 1)α``. With ``m`` the count of ``0``/``1`` reports, ``B`` the law of the others'
count ``C ~ Bin(n − 1, 2α)``, ``ρ_m = B(m)/B(m − 1)`` and ``S_c(j) = P(Bin(c, 1/2) >= j)``,

    δ = Σ_m B(m − 1) max_j T_m(j),   T_m(j) = c₁ S_{m−1}(j − 1) + c₂ S_{m−1}(j)
                                        = (c₁ + c₂) S_{m−1}(j) + c₁ h_{m−1}(j − 1),
    c₁ = α(P − λ) + ρ_m W (1 − λ)/2,   c₁ + c₂ = (1 − λ)(α(P + 1) + ρ_m W),

``h_c`` the masses of ``Bin(c, 1/2)``; the maximum is at ``j = ⌊a*(m)⌋ + 1``, ``a*`` linear in ``m``.
docs/worst-case.md §8.7 has the derivation and the bound on every rounding: ``P`` and ``β`` from
exact rationals rounded up, ``λ`` down, normalized binomial windows, ``a*`` with an error bound
(every integer it allows is tried), the tails walked along ``j = a*(m)`` by Pascal's rule
(Hoeffding's bound where the walk underflows), counts outside the window charged their whole mass.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import log_ndtr

from gpu_rs.common.floats import EXP_LIMIT, FLOOR, UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs.counts import OUTSIDE, Binomial, binomial

UNDERFLOW = 1e-280
"""Walked point masses below this are not trusted (a product that may have lost relative accuracy)."""
OFFSETS = range(-3, 2)
"""Offsets ``i − P`` from the walked index ``P`` at which point masses are formed."""
STEP_REL = 40.0 * UNIT
"""Relative error added to a walked point mass per step (a few exact-ratio products and sums)."""


@dataclass(frozen=True)
class Parameters:
    """The pair's parameters as floats: ``ratio`` ``P >= (p/q)^L``, ``alpha`` ``α`` with ``(P − 1)α >= β``
    (exact rational checks); ``W = 1 − (P + 1)α`` lies in ``[w_lo, w_hi]``."""

    ratio: float
    alpha: float
    w_lo: float
    w_hi: float


def _up(x: Fraction) -> float:
    """The least float at or above ``x`` (``_up(-x)`` negated: the largest at or below)."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


@functools.lru_cache(maxsize=64)
def parameters(bits: int, q: float) -> Parameters:
    """``P``, ``α`` and ``W`` of L-bit randomized response (``0 < q < 1/2``), from exact rationals.

    ``β`` is the total variation between two complementary vectors,
    ``Σ_{l < L/2} C(L, l)(q^l p^{L−l} − p^l q^{L−l})``, the largest over pairs (it does not decrease
    with the distance: dropping a bit is a post-processing). ``P`` is moved up by an ulp at a time
    while ``W`` would be negative (only at one bit, where ``β = (P − 1)/(P + 1)`` exactly).
    """
    qe = Fraction(q)
    pe = 1 - qe
    tv = sum(math.comb(bits, k) * (qe**k * pe ** (bits - k) - pe**k * qe ** (bits - k)) for k in range((bits + 1) // 2))
    ratio = _up((pe / qe) ** bits)
    while True:
        alpha = _up(tv / (Fraction(ratio) - 1))
        w = 1 - (Fraction(ratio) + 1) * Fraction(alpha)
        if w >= 0:
            return Parameters(ratio, alpha, -_up(-w), _up(w))
        ratio = math.nextafter(ratio, math.inf)


def _normalized(law: Binomial) -> tuple[np.ndarray, np.ndarray, float]:
    """A window's masses and upper tails divided by their computed total, and relative error bounds.

    The true mass in the window lies in ``[1 − OUTSIDE, 1]``, so dividing by the computed total
    bounds the shared factor of the log-gamma anchor; what is left is each value's own error
    (``rel − anchor``) and the rounding of the sums. Returns the masses, the upper tails
    ``P(X >= lo + i)`` (without the mass above the window, at most ``OUTSIDE / 2``) and, for each,
    the relative half-width ``e`` of the bracket ``[x (1 − OUTSIDE)(1 − e), x (1 + e)]``.
    """
    own = law.rel - law.anchor
    tails = np.cumsum(law.pmf[::-1])[::-1]
    total = float(tails[0])
    size = law.pmf.shape[0]
    e = 2.0 * own / (1.0 - own) + 3.0 * (size + 4) * UNIT
    return law.pmf / total, tails / total, e


@functools.lru_cache(maxsize=8)
def _others(n: int, alpha: float) -> tuple[int, np.ndarray]:
    """``B(k) = P(C = k)``, ``C ~ Bin(n − 1, 2α)``, bounded above on its window ``lo, lo + 1, …``; and ``lo``."""
    law = binomial(n - 1, 2.0 * alpha)
    pmf, _, e = _normalized(law)
    return law.lo, pmf * (1.0 + e) * (1.0 + 2.0 * UNIT)


@dataclass(frozen=True)
class _Walk:
    """The walk of :func:`_walk`: ``h_c(P + k)/h_c(P)`` for ``k`` in :data:`OFFSETS`, the masses
    ``h_c(P)`` and their relative error, the tails ``S_c(P)`` and their absolute error, and where
    they are trusted (no underflow on the way from the start)."""

    ratios: dict[int, np.ndarray]
    h: np.ndarray
    h_rel: np.ndarray
    s: np.ndarray
    s_err: np.ndarray
    trusted: np.ndarray


def _hoeffding(c: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S_c(i) = P(Bin(c, 1/2) >= i)`` bracketed by Hoeffding's inequality (and ``[0, 1]``)."""
    cf = np.maximum(c, 1).astype(float)

    def beyond(t: np.ndarray) -> np.ndarray:  # exp(−2t²/c) rounded up; 1 where t <= 0
        return np.where(
            t > 0.0, np.minimum(1.0, np.exp(-2.0 * t**2 / cf * (1.0 - 4.0 * UNIT)) * (1.0 + 4.0 * UNIT)), 1.0
        )

    exact = np.where(i <= 0, 1.0, 0.0)  # Bin(0, 1/2) is 0
    return np.where(c == 0, exact, 1.0 - beyond(cf / 2.0 - (i - 1.0))), np.where(c == 0, exact, beyond(i - cf / 2.0))


def _chain(c: np.ndarray, top: np.ndarray) -> dict[int, np.ndarray]:
    """``h_c(P + k) / h_c(P)`` for ``k`` in :data:`OFFSETS` (0 where ``P + k`` is outside ``0 … c``).

    Exact ratios ``h(i + 1)/h(i) = (c − i)/(i + 1)``; each value errs by at most ``12 u`` relative.
    """
    out = {0: np.ones(c.shape)}
    for k in range(1, max(OFFSETS) + 1):
        i = top + k - 1
        out[k] = np.where(i + 1 <= c, out[k - 1] * (c - i) / np.maximum(i + 1, 1), 0.0)
    for k in range(-1, min(OFFSETS) - 1, -1):
        i = top + k + 1
        out[k] = np.where(i - 1 >= 0, out[k + 1] * i / np.maximum(c - i + 1, 1), 0.0)
    return out


def _walk(c: np.ndarray, top: np.ndarray, start: int) -> _Walk | None:
    """``h_c(P)`` and ``S_c(P)`` along the path ``(c_t, P_t)`` (``c_{t+1} = c_t + 1``), from ``start``.

    Between two steps ``h_{c+1}(P') = h_c(P' − 1)(c + 1)/(2P')`` and ``S_{c+1}(P') = S_c(P') +
    h_c(P' − 1)/2``, with ``S_c(P')`` from ``S_c(P)`` by adding or removing the masses between
    (Pascal's rule); steps of ``P`` beyond ``±2`` end the trusted part. ``None`` where ``P`` at the
    start lies outside the binomial's window (every tail on the path is then negligible).
    """
    law = binomial(int(c[start]), 0.5)
    at = int(top[start]) - law.lo
    if not 0 <= at < law.pmf.shape[0]:
        return None
    pmf, tails, e = _normalized(law)
    h0, s0 = float(pmf[at]), float(tails[at])
    e0 = e + OUTSIDE
    s0_err = s0 * e0 + OUTSIDE / 2.0
    ratios = _chain(c, top)
    step = np.diff(top)
    grow = np.full(step.shape, np.nan)  # h_{c+1}(P') / h_c(P)
    kappa = np.full(step.shape, np.nan)  # (S_{c+1}(P') − S_c(P)) / h_c(P)
    for delta in (-2, -1, 0, 1, 2):
        below = ratios[delta - 1][:-1]  # h_c(P' − 1) / h_c(P)
        removed = sum((ratios[k][:-1] for k in range(delta)), np.zeros(step.shape))
        added = sum((ratios[k][:-1] for k in range(delta, 0)), np.zeros(step.shape))
        here = step == delta
        grow = np.where(here, below * (c[:-1] + 1) / (2.0 * np.maximum(top[1:], 1)), grow)
        kappa = np.where(here, below / 2.0 - removed + added, kappa)
    size = c.shape[0]
    distance = np.abs(np.arange(size) - start)
    h_rel = e0 + STEP_REL * distance * (1.0 + STEP_REL * distance)
    h = np.empty(size)
    h[start] = h0
    h[start + 1 :] = h0 * np.cumprod(grow[start:])  # forward: h_{t+1} = h_t grow_t
    h[:start] = (h0 / np.cumprod(grow[:start][::-1]))[::-1]  # backward: h_t = h_{t+1} / grow_t
    inc = kappa * h[:-1]  # S_{t+1} − S_t
    own = np.abs(inc) * (h_rel[:-1] + STEP_REL)
    s = np.empty(size)
    s_err = np.empty(size)
    # each partial sum's rounding is at most u times itself; the sums of errors have positive terms
    s[start:] = np.cumsum(np.concatenate([[s0], inc[start:]]))
    s_err[start:] = s0_err + np.cumsum(np.concatenate([[0.0], own[start:] + UNIT * np.abs(s[start + 1 :])]))
    s[:start] = np.cumsum(np.concatenate([[s0], -inc[:start][::-1]]))[1:][::-1]
    s_err[:start] = s0_err + np.cumsum(own[:start][::-1] + UNIT * np.abs(s[:start][::-1]))[::-1]
    s_err *= 1.0 + 2.0 * (size + 2) * UNIT
    ok = np.isfinite(h) & (h >= UNDERFLOW) & np.isfinite(s_err)
    trusted = np.ones(size, dtype=bool)
    trusted[start:] = np.minimum.accumulate(ok[start:])
    trusted[: start + 1] = np.minimum.accumulate(ok[: start + 1][::-1])[::-1]
    return _Walk(ratios, h, h_rel, s, s_err, trusted)


def _tails(c: np.ndarray, i: np.ndarray, top: np.ndarray, walk: _Walk | None) -> tuple[np.ndarray, ...]:
    """``S_c(i)`` and ``h_c(i − 1)`` bracketed (low, high, low, high): exact outside ``0 … c``, from the
    walk at ``i = P − 2 … P`` (``S_c(P + k) = S_c(P + k + 1) + h_c(P + k)``) where it is trusted, else by
    Hoeffding (``h_c(i − 1) <= min(S_c(i − 1), 1 − S_c(i))``)."""
    s_lo, s_hi = _hoeffding(c, i)
    h_lo, h_hi = np.zeros(c.shape), np.minimum(_hoeffding(c, i - 1)[1], 1.0 - s_lo)
    if walk is not None:
        off = i - top
        value, added, mass = walk.s.copy(), np.zeros(c.shape), np.where(off == 1, walk.h, 0.0)
        for k in range(-1, min(OFFSETS) - 1, -1):
            add = walk.ratios[k] * walk.h
            value, added = value + np.where(off <= k, add, 0.0), added + np.where(off <= k, add, 0.0)
            mass = np.where(off - 1 == k, add, mass)
        err = walk.s_err + added * (walk.h_rel + STEP_REL) + 4.0 * UNIT * np.abs(value)
        usable = walk.trusted & (off <= 0) & (off >= min(OFFSETS) + 1)
        s_lo = np.where(usable, np.maximum(s_lo, value - err), s_lo)
        s_hi = np.where(usable, np.minimum(s_hi, value + err), s_hi)
        usable = walk.trusted & (off <= 1) & (off >= min(OFFSETS) + 1)
        h_lo = np.where(usable, mass * (1.0 - walk.h_rel - STEP_REL), h_lo)
        h_hi = np.where(usable, mass * (1.0 + walk.h_rel + STEP_REL), h_hi)
    s_lo, s_hi = (np.where(i <= 0, 1.0, np.where(i > c, 0.0, x)) for x in (s_lo, s_hi))
    h_lo, h_hi = (np.where((i - 1 < 0) | (i - 1 > c), 0.0, x) for x in (h_lo, h_hi))
    return s_lo, s_hi, h_lo, h_hi


def _delta_one(n: int, prm: Parameters, others: tuple[int, np.ndarray], lam: float) -> float:
    """An upper bound on ``δ`` of the variation-ratio pair at ``λ`` (module docstring)."""
    big, alpha = prm.ratio, prm.alpha
    if lam >= big:
        return 0.0  # every ratio of the pair is at most P
    if lam * big <= 1.0:
        return min(1.0, (1.0 - lam) * (1.0 + 2.0 * UNIT))  # every ratio is at least 1/P: δ = 1 − λ
    lo, upper = others
    w = prm.w_hi if lam < 1.0 else prm.w_lo  # the unfavourable end: δ grows with W exactly where λ < 1
    # m = 0: only (0, 0), where P − λQ = (1 − λ) W B(0); m = lo >= 1: charged its whole mass (W B(lo)
    # and the part below the window); every other count outside the window: at most OUTSIDE in all
    total = OUTSIDE + (max(0.0, 1.0 - lam) * w if lo == 0 else prm.w_hi) * (float(upper[0]) + FLOOR)
    ms = np.arange(max(1, lo + 1), lo + upper.shape[0] + 1)  # m − 1 runs over the window
    c = ms - 1
    rho = (n - ms) / ms * (2.0 * alpha) / (1.0 - 2.0 * alpha)  # B(m) / B(m − 1), 0 at m = n
    shared = rho * w * (1.0 - lam) / 2.0
    first = alpha * (big - lam)
    c1 = first + shared + 12.0 * UNIT * (abs(first) + np.abs(shared))
    total_c = (1.0 - lam) * (alpha * (big + 1.0) + rho * w)
    total_c = total_c + 8.0 * UNIT * np.abs(total_c)
    den = (big - 1.0) * (1.0 + lam) * (1.0 - 2.0 * alpha)
    w_mid = 0.5 * (prm.w_lo + prm.w_hi)
    cross = (ms * (lam * big - 1.0) * (1.0 - 2.0 * alpha) + (lam - 1.0) * w_mid * (n - ms)) / den
    err = 64.0 * UNIT * (ms * (lam * big + 1.0) + (lam + 1.0) * (n - ms) + den) / den
    err = (err + abs(lam - 1.0) * (n - ms) * (prm.w_hi - prm.w_lo) / den) * (1.0 + 1e-3)
    if np.any(err >= 0.5):
        raise ArithmeticError(f"variation-ratio crossing not resolved: error {float(err.max())} at n = {n}")
    j_lo = np.floor(cross - err).astype(np.int64) + 1
    j_hi = np.floor(cross + err).astype(np.int64) + 1
    top = np.clip(j_hi, 1, np.maximum(c, 1))
    walk = None
    if c[-1] >= 1:
        # start where the tail at the crossing may carry the most (a float estimate; any start is valid)
        score = np.log(np.maximum(upper[c - lo], 1e-300)) + log_ndtr(
            -(top - 0.5 - c / 2.0) / np.sqrt(np.maximum(c, 1) / 4.0)
        )
        start = int(np.argmax(np.where(c >= 1, score, -np.inf)))
        walk = _walk(c, top, start)  # at c = 0 (the first count, if any) every tail is exact
    best = np.zeros(ms.shape)
    for j in (j_lo, j_lo + 1):
        # T = (c₁ + c₂) S(j) + c₁ h(j − 1), with c₁ + c₂ = (1 − λ)(α(P + 1) + ρW): no cancellation near λ = 1
        s_lo, s_hi, h_lo, h_hi = _tails(c, j, top, walk)
        x = total_c * np.where(total_c > 0.0, s_hi, s_lo)
        y = c1 * np.where(c1 > 0.0, h_hi, h_lo)
        bracket = x + y + 4.0 * UNIT * (np.abs(x) + np.abs(y))
        best = np.where(j <= j_hi, np.maximum(best, bracket), best)
    terms = (upper[c - lo] + FLOOR) * best * (1.0 + 2.0 * UNIT)  # masses below FLOOR may have underflowed
    total += float(np.sum(terms)) * (1.0 + (terms.shape[0] + 4) * UNIT)
    return min(1.0, total * (1.0 + 4.0 * UNIT))


def delta_upper(n: int, bits: int, q: float, eps: np.ndarray) -> np.ndarray:
    """Wang et al.'s variation-ratio ``δ(ε)`` with L-bit randomized response's ``β``, rounded up: a proven
    upper bound over every neighbouring pair of ``n`` users, at every distance and in either order.

    Parameters
    ----------
    n : int
        Users (the changing one included).
    bits : int
        Bits per report ``L``.
    q : float
        Flip probability of each bit, ``0 < q < 1/2``.
    eps : ndarray
        Any real privacy levels (``λ = e^ε`` is rounded down: δ does not increase with ``λ``).

    Returns
    -------
    ndarray
        The bound at each ``ε`` (the shape of ``eps``), at most 1.
    """
    eps = np.asarray(eps, dtype=float)
    if bits * -log_r(q) > EXP_LIMIT:
        return np.ones(eps.shape)  # P beyond the float range: α ≈ 0 and Pα ≈ β, the bound is about β anyway
    prm, lams = parameters(bits, q), [math.exp(e) * (1.0 - 4.0 * UNIT) for e in eps.ravel().tolist()]
    return np.array([_delta_one(n, prm, _others(n, prm.alpha), lam) for lam in lams]).reshape(eps.shape)
