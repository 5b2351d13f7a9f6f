"""Chernoff bounds for ``Y = Z_1 + … + Z_m + W`` from the exact moment-generating functions.

``Z_i`` are i.i.d. copies of one finite-atom law (the zero vectors) and ``W``
has another (the outlier). These bounds choose the window of the inversion and
bound the mass outside it (SPEC §4, truncation and wrap-around). They run on
the host: a law has at most ``L + 1`` atoms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from .model import TINY, UNIT, split_exact


@dataclass(frozen=True)
class Law:
    """A finite-atom law: ``values`` with probabilities ``probs`` (normalized).

    ``rel_error[l]`` bounds the relative error of ``probs[l] + probs_lo[l]``;
    ``log_probs`` holds their logarithms, kept apart so that probabilities below
    the float64 range still count in the Chernoff bounds. ``exact`` holds the
    exact rational probabilities where known (``bits <= 128``).
    """

    values: np.ndarray
    log_probs: np.ndarray
    probs: np.ndarray
    rel_error: np.ndarray
    probs_lo: np.ndarray | None = None
    exact: tuple[Fraction, ...] | None = None

    @property
    def mean(self) -> float:
        return float(np.dot(self.probs, self.values))

    @property
    def max(self) -> float:
        return float(self.values.max())

    @property
    def min(self) -> float:
        return float(self.values.min())

    def log_mgf(self, theta: float) -> float:
        """``log E exp(theta * V)``, centred to keep accuracy for tiny ``theta``."""
        mu = self.mean
        x = theta * (self.values - mu)
        if np.max(np.abs(x)) < 30.0:
            return theta * mu + math.log1p(float(np.dot(self.probs, np.expm1(x))))
        return float(logsumexp(self.log_probs + theta * self.values))

    def tilted_mean(self, theta: float) -> float:
        """``E[V exp(theta V)] / E[exp(theta V)]``."""
        lw = self.log_probs + theta * self.values
        lw = lw - lw.max()
        w = np.exp(lw)
        return float(np.dot(w, self.values) / w.sum())


def exact_law(values: np.ndarray, kept: list[Fraction], log_fallback: np.ndarray) -> Law:
    """A law over ``values`` with the exact probabilities ``kept``, renormalized exactly.

    Each probability is carried as a high/low float pair with its relative error;
    ``log_fallback`` supplies the logs of those that underflow float64.
    """
    total = sum(kept, Fraction(0))
    norm = tuple(e / total for e in kept)
    hi, lo, err = (np.array(x) for x in zip(*(split_exact(e) for e in norm)))
    logs = np.where(hi > 0, np.log(np.where(hi > 0, hi, 1.0)), log_fallback)
    return Law(values.copy(), logs, hi, err, lo, norm)


@dataclass(frozen=True)
class SumLaw:
    """``m`` copies of ``zero`` plus one ``outlier``; ``slack`` widens every bound.

    ``slack`` is a log-factor covering the float error of the probabilities and
    of these evaluations: each returned probability bound is multiplied by
    ``exp(slack)``.
    """

    zero: Law
    outlier: Law
    m: int

    @property
    def prob_error(self) -> float:
        """Largest relative error of any probability."""
        return float(max(self.zero.rel_error.max(), self.outlier.rel_error.max()))

    @property
    def slack(self) -> float:
        return 1e-6 + 4.0 * (self.m + 1) * (self.prob_error + 4 * UNIT)

    @property
    def mean(self) -> float:
        return self.m * self.zero.mean + self.outlier.mean

    @property
    def max(self) -> float:
        return self.m * self.zero.max + self.outlier.max

    @property
    def min(self) -> float:
        return self.m * self.zero.min + self.outlier.min

    def log_mgf(self, theta: float) -> float:
        return self.m * self.zero.log_mgf(theta) + self.outlier.log_mgf(theta)

    def tilted_mean(self, theta: float) -> float:
        return self.m * self.zero.tilted_mean(theta) + self.outlier.tilted_mean(theta)

    def _scale(self) -> float:
        spread = max(self.max - self.min, 1e-300)
        return 1.0 / spread

    def _solve(self, c: float, sign: float) -> float | None:
        """Root ``theta = sign * s`` of ``theta K'(theta) - K(theta) = c``; None if unbounded."""

        def h(log_s: float) -> float:
            th = sign * math.exp(log_s)
            return th * self.tilted_mean(th) - self.log_mgf(th) - c

        lo = math.log(self._scale()) - 60.0
        hi = lo + 4.0
        while h(hi) < 0:
            hi += 4.0
            if hi - lo > 400.0:
                return None
        while h(lo) > 0:
            lo -= 20.0
        return sign * math.exp(brentq(h, lo, hi, xtol=1e-12, maxiter=200))

    def upper_quantile(self, delta: float) -> float:
        """A point ``x`` with ``P[Y >= x] <= delta`` (as small as Chernoff allows)."""
        theta = self._solve(math.log(1.0 / delta) + self.slack, 1.0)
        if theta is None:
            return self.max * (1 + 1e-12) + 1e-300
        return min(self.tilted_mean(theta), self.max * (1 + 1e-12) + 1e-300)

    def lower_quantile(self, delta: float) -> float:
        """A point ``x`` with ``P[Y <= x] <= delta``."""
        theta = self._solve(math.log(1.0 / delta) + self.slack, -1.0)
        if theta is None:
            return self.min * (1 - 1e-12) - 1e-300
        return max(self.tilted_mean(theta), self.min * (1 - 1e-12) - 1e-300)

    def upper_tail(self, x: float) -> float:
        """Chernoff bound on ``P[Y >= x]``."""
        if x > self.max * (1 + 1e-12):
            return 0.0
        if x <= self.mean:
            return 1.0
        return min(1.0, self._tail_at(x, 1.0))

    def lower_tail(self, x: float) -> float:
        """Chernoff bound on ``P[Y <= x]``."""
        if x < self.min * (1 - 1e-12):
            return 0.0
        if x >= self.mean:
            return 1.0
        return min(1.0, self._tail_at(x, -1.0))

    def _tail_at(self, x: float, sign: float) -> float:
        """``exp(K(θ) − θx + slack)`` at the θ of the given sign where ``K'(θ) = x``.

        Any θ of that sign gives a valid bound; the root gives the best one. Where
        no root is bracketed (``x`` near the edge of the support) the largest θ tried
        is used.
        """

        def g(log_s: float) -> float:
            return sign * (self.tilted_mean(sign * math.exp(log_s)) - x)

        lo = math.log(self._scale()) - 60.0
        hi = lo + 4.0
        while g(hi) < 0 and hi - lo <= 400.0:
            hi += 4.0
        log_s = brentq(g, lo, hi, xtol=1e-12, maxiter=200) if g(hi) >= 0 else hi
        theta = sign * math.exp(log_s)
        # Never 0: a bound that underflows still stands for a positive probability.
        return max(TINY, math.exp(min(0.0, self.log_mgf(theta) - theta * x) + self.slack))
