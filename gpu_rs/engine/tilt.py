"""Tiny hinges to relative accuracy: ``E[(Y − y)_+]`` and ``E[(y − Y)_+]`` under the tilted law.

For ``θ`` of the hinge's sign (``s = ±1``, ``η = |θ|``) and ``K(θ) = log E e^{θY}``,

    E[(s(Y − y))_+] = e^{K(θ) − θy} E_θ[g(s(Y − y))],     g(u) = u_+ e^{−ηu},

``P_θ`` reweighting each atom by ``e^{θv}/M(θ)`` (in logs). At the saddle point ``K'(θ) = y``
an absolute error of ``E_θ[g]`` is a relative error of the hinge, however small. With
``w(t) = (1 − ηt) e^{−ηt}`` (``∫_0^u w = g(u)``), ``E_θ[g(s(Y − y))] = ∫_0^∞ w(t) P_θ[s(Y − y) > t] dt``;
on the window ``[a, a + P)`` (``U = (Y − a)/P``, or ``1 − U`` for the put; ``β = α + t/P``)
Vaaler's ``S±_β`` (:mod:`gpu_rs.engine.majorants`) bound ``P[U > β]`` by ``centre ± half``. Where
``w < 0`` the lower one serves the upper bound, so ``∫ w·centre ± ∫ |w|·half`` bound the integral,
and ``|w| <= m(t) = (1 − ηt + η²t²/2) e^{−ηt}`` (from ``|x| <= (x² + 1)/2``). Both are closed forms
in ``φ_k``, with ``ω = 2πk/P`` and ``z = η − iω``:

    ∫_0^∞ w·centre = 1/(Pη²) − Σ b_k Im(e^{2πikα} J_k φ̄_k),             J_k = −iω/z²,
    ∫_0^∞ m·half   = [(E Δ(U) + 1)/η + 2 Σ c_k Re(e^{−2πikα} φ_k J̄m_k)] / (2K + 2),   Jm_k = 1/z − η/z² + η²/z³.

Every other error (window, the window's end, round-off, the tilt's own) is bounded and added:
docs/profile.md, "Tiny δ". The width is about ``Pη/K`` relative: one spectrum of ``P_θ``.
The same route certifies any payoff whose ``w``, ``m`` and their transforms are closed forms
(:mod:`gpu_rs.engine.kernels`): the privacy-loss payoff ``(1 − e^{y − Y})_+`` of a composition too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from gpu_rs.common.floats import EXP_LIMIT, FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.fourier import MARGIN, SpectrumCache, workspace_bytes
from gpu_rs.engine.kernels import kernel, sums
from gpu_rs.engine.laws import Law, SumLaw

FIRST_TERMS = 1 << 13
"""Frequencies of the first attempt."""
WINDOW_MASS = 1e-10
"""The window leaves out at most this tilted mass on each side (Chernoff)."""
REACH = 60.0
"""The window reaches ``REACH / η`` beyond the threshold on the hinge's side (``e^{−60}`` left)."""


@dataclass(frozen=True)
class TiltedHinge:
    """Certified ``lower <= hinge <= upper`` and the parts of the width (absolute, in hinge units)."""

    lower: float
    upper: float
    discretization: float
    truncation: float
    roundoff: float
    terms: int
    memory: int


def saddle(law: SumLaw, y: float, sign: float) -> float | None:
    """``θ`` of the given sign with ``K'(θ) = y``, or None where ``y`` is not on that side of the mean."""
    if sign * (y - law.mean) <= 0.0 or not law.min < y < law.max:
        return None

    def f(log_s: float) -> float:
        return sign * (law.tilted_mean(sign * math.exp(log_s)) - y)

    lo = -math.log(max(law.max - law.min, FLOOR)) - 60.0
    hi = lo + 64.0
    while f(hi) < 0.0:
        hi += 16.0
        if hi > lo + 600.0:
            return None
    if f(lo) > 0.0:
        return None
    return sign * math.exp(brentq(f, lo, hi, xtol=1e-10, maxiter=200))


def tilt(law: SumLaw, theta: float) -> tuple[SumLaw, float, float, float] | None:
    """``(P_θ, K(θ), bound on the error of K(θ), dropped)``; None where fewer than two atoms are left.

    Each tilted log probability errs by at most the log errors of the original probability, of
    ``θv`` and of the log-sum; its relative error bound is carried by the tilted law. Atoms of
    tilted probability below ``e^{−700}`` are left out of ``P_θ`` (below the float range);
    ``dropped`` bounds the probability that any summand takes one, which moves ``E_θ[g]`` by at
    most ``dropped / (eη)`` and is added to the mass outside the window.
    """
    parts, k_total, k_err, dropped = [], 0.0, 0.0, 0.0
    for law1, count in law.parts:
        if float(law1.rel_error.max()) > 1e-3 or not np.all(np.isfinite(law1.log_probs)):
            return None
        lo = law1.probs_lo if law1.probs_lo is not None else np.zeros_like(law1.probs)
        safe = np.where(law1.probs > 0.0, law1.probs, 1.0)
        e_log = 2.0 * law1.rel_error + np.where(law1.probs > 0.0, np.abs(lo) / safe, 0.0)
        tv = theta * law1.values
        x = law1.log_probs + tv
        e_x = e_log + 4.0 * UNIT * (1.0 + np.abs(law1.log_probs) + np.abs(tv))
        log_m = float(logsumexp(x))
        e_m = float(e_x.max()) + 16.0 * UNIT * (1.0 + abs(log_m) + float(np.abs(x).max()))
        logs = x - log_m
        rel = 1.01 * (e_x + e_m + 2.0 * UNIT * np.abs(logs)) + 4.0 * UNIT
        keep = logs >= -700.0
        if keep.sum() < 2:
            return None
        if not keep.all():
            top = float(logsumexp(logs[~keep] + rel[~keep])) + math.log(count)
            dropped += math.exp(min(0.0, max(top, -700.0)))  # >= the true bound: never 0, at most 1 (L = 1024)
        parts.append((Law(law1.values[keep], logs[keep], np.exp(logs[keep]), rel[keep]), count))
        k_total += count * log_m
        k_err += count * e_m
    k_err += 4.0 * UNIT * (1.0 + abs(k_total)) * (len(parts) + 1)
    return SumLaw(tuple(parts)), k_total, k_err, dropped


class Tilted:
    """One tilt ``P_θ`` of ``Y``, its window and its spectrum, for hinges with thresholds near ``K'(θ)``.

    Thresholds within one tilted standard deviation of the saddle point share the spectrum (any
    ``θ`` is exact; the saddle point only makes the width small), as in the ``ε(δ)`` root finder.
    """

    def __init__(
        self, tilted: tuple[SumLaw, float, float, float], y: float, above: bool, theta: float, xp: Any
    ) -> None:
        self.law, self.k_log, self.k_err, dropped = tilted
        self.above, self.theta, self.eta, self.xp = above, theta, abs(theta), xp
        self.sd = self.law.sd
        self.centre = y
        reach = REACH / self.eta + self.sd
        a = min(chernoff.lower_quantile(self.law, WINDOW_MASS), y - self.sd - (0.0 if above else reach))
        top = max(chernoff.upper_quantile(self.law, WINDOW_MASS), y + self.sd + (reach if above else 0.0))
        span = top - a
        self.a, self.period = a - MARGIN * span, span * (1.0 + 2.0 * MARGIN)
        self.out = chernoff.lower_tail(self.law, self.a) + chernoff.upper_tail(self.law, self.a + self.period) + dropped
        self.cache = SpectrumCache(xp, self.law, self.a, self.period)
        self.terms = FIRST_TERMS

    @classmethod
    def make(cls, law: SumLaw, y: float, above: bool, xp: Any) -> Tilted | None:
        """The tilt at the saddle point of ``y``; None where none applies (module docstring)."""
        theta = saddle(law, y, 1.0 if above else -1.0)
        tilted = None if theta is None else tilt(law, theta)
        return None if tilted is None or theta is None else cls(tilted, y, above, theta, xp)

    def fits(self, lo: float, hi: float, above: bool) -> bool:
        """Whether ``[lo, hi]`` is within one tilted standard deviation of the saddle point, with room."""
        room = REACH / self.eta
        inside = hi + room < self.a + self.period if above else self.a + room < lo
        near = self.a < lo and hi < self.a + self.period and abs(0.5 * (lo + hi) - self.centre) <= self.sd
        return above == self.above and inside and near

    def hinge(
        self,
        lo: float,
        hi: float,
        rel_width: float,
        abs_width: float,
        max_terms: int,
        payoff: str = "linear",
        keep: tuple[float, float] | None = None,
    ) -> TiltedHinge | None:
        """Certified ``E[(Y − y)_+]`` (or the put) for every true ``y`` in ``[lo, hi]`` (see :func:`hinge`).

        ``payoff="exponential"`` (above the threshold only) certifies ``E[(1 − e^{y − Y})_+]`` instead
        (:mod:`gpu_rs.engine.kernels`). ``keep = (floor, ceiling)``: a caller that only needs to know whether
        the lower end can exceed ``floor`` or the upper end fall below ``ceiling``. Where this tilt's terms are
        spent already (``max_terms`` reached before), a look at :data:`FIRST_TERMS` terms comes first; where it
        shows that no number of terms could do either, its interval is returned (certified) and the
        tilt is left as it was.
        """
        a, period, eta, theta, above = self.a, self.period, self.eta, self.theta, self.above
        if not (math.isfinite(a) and math.isfinite(period) and period > 0.0 and eta * eta > 0.0):
            return None  # a degenerate tilt (θ near the float range's bottom, atoms near its top): none applies
        pay = kernel(payoff, eta)
        # α for the upper bound (hinge largest) and the lower; the threshold each stands for is exact.
        if above:
            alphas = ((lo - a) / period - 4.0 * UNIT, (hi - a) / period + 4.0 * UNIT)
            ys = [a + period * al for al in alphas]
        else:
            alphas = (1.0 - (hi - a) / period - 4.0 * UNIT, 1.0 - (lo - a) / period + 4.0 * UNIT)
            ys = [a + period * (1.0 - al) for al in alphas]
        y_err = [4.0 * UNIT * (abs(a) + period + abs(y)) for y in ys]
        logs = [self.k_log - theta * y for y in ys]
        l_err = [
            self.k_err + eta * e + 4.0 * UNIT * (abs(self.k_log) + abs(theta * y))
            for e, y in zip(y_err, ys, strict=True)
        ]
        if max(lg + e for lg, e in zip(logs, l_err, strict=True)) > EXP_LIMIT:
            return None
        f_up, f_lo = math.exp(logs[0] + l_err[0]) * (1 + 4 * UNIT), math.exp(logs[1] - l_err[1]) * (1 - 4 * UNIT)
        ends = [period * (1.0 - al) for al in alphas]  # T: the window's end beyond each threshold
        tails = [pay.beyond(T, period) for T in ends]
        outside = self.out * pay.variation * (1.0 + 1e-9)
        K = min(self.terms, max_terms)
        look = keep is not None and self.terms >= max_terms > FIRST_TERMS  # the loop would stop at once: look first
        while True:
            terms = FIRST_TERMS if look else K
            (c_up, h_up, r_up), (c_lo, h_lo, r_lo) = sums(self.xp, self.cache, terms, alphas, pay, not above)
            upper = f_up * (c_up + h_up + r_up + outside + tails[0]) * (1.0 + 8.0 * UNIT)
            lower = max(0.0, f_lo * (c_lo - h_lo - r_lo - outside - tails[1]) * (1.0 - 8.0 * UNIT))
            disc = f_up * h_up + f_lo * h_lo
            trunc = f_up * (outside + tails[0]) + f_lo * (outside + tails[1])
            goal = max(abs_width, rel_width * lower)
            if look and keep is not None:
                # E_θ[g] at each α lies in c ± (h + r + outside + tail) for any number of terms, so every upper
                # end is at least f_up times its least value there and every lower end at most f_lo times its most
                # (the differences' rounding charged to the size of their terms)
                spread = [
                    8.0 * UNIT * (abs(c) + h + r + outside + t)
                    for c, h, r, t in ((c_up, h_up, r_up, tails[0]), (c_lo, h_lo, r_lo, tails[1]))
                ]
                least = f_up * (c_up - h_up - r_up - outside - tails[0] - spread[0]) * (1.0 - 1e-9)
                most = f_lo * (c_lo + h_lo + r_lo + outside + tails[1] + spread[1]) * (1.0 + 1e-9)
                if most <= keep[0] and least >= keep[1]:
                    rest = max(0.0, upper - lower - disc - trunc)
                    return TiltedHinge(lower, upper, disc, trunc, rest, terms, workspace_bytes(self.cache.size))
                look = False
                continue
            if upper - lower <= goal or max_terms <= K:
                self.terms = max(self.terms, K)
                rest = max(0.0, upper - lower - disc - trunc)
                return TiltedHinge(lower, upper, disc, trunc, rest, K, workspace_bytes(self.cache.size))
            spare = goal - (upper - lower - disc)
            ratio = disc / spare if spare > 0.0 else 8.0
            K = int(min(max_terms, 8 * K, max(2 * K, math.ceil(1.25 * K * ratio))))


def hinge(
    law: SumLaw,
    lo: float,
    hi: float,
    above: bool,
    rel_width: float,
    abs_width: float,
    max_terms: int,
    xp: Any,
    payoff: str = "linear",
) -> TiltedHinge | None:
    """Certified ``E[(Y − y)_+]`` (``above``) or ``E[(y − Y)_+]`` for every true ``y`` in ``[lo, hi]``.

    The upper bound at the end of ``[lo, hi]`` that makes the hinge largest; ``K`` grows until
    ``upper − lower <= max(abs_width, rel_width · lower)`` or ``max_terms``. None where no tilt applies.
    ``payoff="exponential"``: ``E[(1 − e^{y − Y})_+]`` instead, above only (:mod:`gpu_rs.engine.kernels`).
    """
    found = Tilted.make(law, 0.5 * (lo + hi), above, xp)
    return None if found is None else found.hinge(lo, hi, rel_width, abs_width, max_terms, payoff)
