"""Finite-atom laws and sums of independent copies of them.

A :class:`Law` is one summand: non-negative values with probabilities, each
probability carrying its own relative error bound (and, where known, its exact
rational value). A :class:`SumLaw` is ``Σ_i (count_i copies of law_i)``: the
engine's inner problem is always a tail of such a sum. Everything here runs on
the host: a law has at most ``L + 1`` atoms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import logsumexp

from gpu_rs.common.floats import EXP_LIMIT, TINY, UNIT, split_exact


@dataclass(frozen=True)
class Law:
    """A finite-atom law: ``values`` (>= 0) with normalized probabilities ``probs``.

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

    @property
    def size(self) -> int:
        return int(self.values.shape[0])

    def log_mgf(self, theta: float) -> float:
        """``log E exp(theta V)``, centred to keep accuracy for tiny ``theta``."""
        mu = self.mean
        x = theta * (self.values - mu)
        if np.max(np.abs(x)) < 30.0:
            s = float(np.dot(self.probs, np.expm1(x)))
            if s > -0.5:  # else log1p gains nothing (and probabilities summing past 1 could take s below -1)
                return theta * mu + math.log1p(s)
        return float(logsumexp(self.log_probs + theta * self.values))

    def tilted_mean(self, theta: float) -> float:
        """``E[V exp(theta V)] / E[exp(theta V)]``."""
        lw = self.log_probs + theta * self.values
        w = np.exp(lw - lw.max())
        return float(np.dot(w, self.values) / w.sum())


POINT = Law(np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1), np.zeros(1), (Fraction(1),))
"""The law of a summand fixed at 0 (its value moved into a shift)."""


def exact_law(values: np.ndarray, kept: list[Fraction], log_fallback: np.ndarray) -> Law:
    """A law over ``values`` with the exact probabilities ``kept``, renormalized exactly.

    Each probability is carried as a high/low float pair with its relative error;
    ``log_fallback`` supplies the logs of those that underflow float64.
    """
    total = sum(kept, Fraction(0))
    norm = tuple(e / total for e in kept)
    hi, lo, err = (np.array(x) for x in zip(*(split_exact(e) for e in norm), strict=True))
    logs = np.where(hi > 0, np.log(np.where(hi > 0, hi, 1.0)), log_fallback)
    return Law(values.copy(), logs, hi, err, lo, norm)


def log_fraction(x: Fraction) -> float:
    """``log x`` for a positive rational, accurate even where ``float(x)`` underflows."""
    return math.log(x.numerator) - math.log(x.denominator)


def log_mass(log_probs: np.ndarray, probs: np.ndarray, rel: np.ndarray, keep: np.ndarray) -> tuple[float, float]:
    """``(log of the kept mass, bound on its absolute error)`` for float probabilities.

    Where the removed mass ``b`` is small the log is ``log1p(−b)`` (no cancellation:
    ``d log(1 − b) = db / (1 − b)``); otherwise a log-sum of the kept terms. Each float
    probability errs by ``rel · p`` plus ``2 TINY`` absolute: one that underflowed (to 0, with
    an infinite relative error) is below that.
    """
    if not keep.any():
        return -math.inf, 0.0
    gone = ~keep
    if not gone.any():
        return 0.0, 0.0
    with np.errstate(invalid="ignore"):
        abs_err = np.where(probs > 0.0, probs * rel, 0.0) + 2.0 * TINY
    removed = float(probs[gone].sum())
    removed_err = float(abs_err[gone].sum()) + 4.0 * UNIT * removed
    if removed < 0.5:
        return math.log1p(-removed), 2.0 * removed_err / (1.0 - removed - removed_err) + 2.0 * UNIT
    log_a = float(logsumexp(log_probs[keep]))
    kept_rel = math.exp(min(EXP_LIMIT, math.log(float(abs_err[keep].sum())) - log_a))
    return log_a, 2.0 * kept_rel + 16.0 * UNIT * (1.0 + abs(log_a))


def restricted(
    values: np.ndarray,
    log_probs: np.ndarray,
    probs: np.ndarray,
    rel: np.ndarray,
    exact: tuple[Fraction, ...] | None,
    keep: np.ndarray,
) -> Law:
    """The law of the atoms ``keep`` given that the atom is kept, renormalized.

    With exact rational probabilities the renormalization is exact; otherwise
    dividing by the kept mass adds its error bound to every probability's.
    """
    if exact is not None:
        kept = [e for e, k in zip(exact, keep, strict=True) if k]
        return exact_law(values[keep], kept, log_probs[keep] - log_fraction(sum(kept, Fraction(0))))
    log_a, log_a_err = log_mass(log_probs, probs, rel, keep)
    logs = log_probs[keep] - log_a
    extra = 2.0 * log_a_err + 4.0 * UNIT * (1.0 + abs(log_a))
    return Law(values[keep].copy(), logs, np.exp(logs), rel[keep] + extra)


def restrict(law: Law, keep: np.ndarray) -> Law:
    """``law`` conditioned on its atom being one of ``keep``."""
    return restricted(law.values, law.log_probs, law.probs, law.rel_error, law.exact, keep)


@dataclass(frozen=True)
class SumLaw:
    """``Σ_i`` of ``count_i`` independent copies of ``law_i``.

    ``slack`` is a log-factor covering the float error of the probabilities and of
    the evaluations of the moment-generating function: each Chernoff bound is
    multiplied by ``exp(slack)``.
    """

    parts: tuple[tuple[Law, int], ...]

    @property
    def count(self) -> int:
        """Total number of summands."""
        return sum(c for _, c in self.parts)

    @property
    def laws(self) -> tuple[Law, ...]:
        return tuple(law for law, _ in self.parts)

    @property
    def prob_error(self) -> float:
        """Largest relative error of any probability."""
        return max(float(law.rel_error.max()) for law, _ in self.parts)

    @property
    def slack(self) -> float:
        return 1e-6 + 4.0 * (self.count + 1) * (self.prob_error + 4 * UNIT)

    @property
    def mean(self) -> float:
        return sum(c * law.mean for law, c in self.parts)

    @property
    def sd(self) -> float:
        """Standard deviation of the sum (a float, for choosing windows and tilts; nothing certified rests on it;
        inf where atoms near the float range square past it)."""
        with np.errstate(over="ignore"):
            return math.sqrt(sum(c * float(np.dot(w.probs, (w.values - w.mean) ** 2)) for w, c in self.parts))

    @property
    def max(self) -> float:
        return sum(c * law.max for law, c in self.parts)

    @property
    def min(self) -> float:
        return sum(c * law.min for law, c in self.parts)

    @property
    def is_lattice(self) -> bool:
        """Whether every value is 0 or 1: the sum is an integer count."""
        return all(np.all((law.values == 0.0) | (law.values == 1.0)) for law, _ in self.parts)

    def log_mgf(self, theta: float) -> float:
        return sum(c * law.log_mgf(theta) for law, c in self.parts)

    def tilted_mean(self, theta: float) -> float:
        return sum(c * law.tilted_mean(theta) for law, c in self.parts)


@dataclass(frozen=True)
class Cut:
    """An event on a sum ``Y``: ``Y > y`` (``above``) or ``Y < y`` (``>=``/``<=`` when ``inclusive``).

    ``y`` is known to float accuracy only: the true threshold lies in ``[lo, hi]``, an
    interval that also covers the float error of the atoms themselves. A method's upper
    bound is taken at :attr:`upper_at`, its lower bound at :attr:`lower_at`.
    """

    lo: float
    hi: float
    inclusive: bool = False
    above: bool = True

    @property
    def upper_at(self) -> float:
        """The threshold that makes the event largest."""
        return self.lo if self.above else self.hi

    @property
    def lower_at(self) -> float:
        """The threshold that makes the event smallest."""
        return self.hi if self.above else self.lo

    def shifted(self, shift: float, rel: float) -> Cut:
        """The event left on ``Y − shift`` (``shift`` with relative error ``rel``)."""
        return Cut(self.lo - shift * (1.0 + rel), self.hi - shift * (1.0 - rel), self.inclusive, self.above)

    def opposite(self) -> Cut:
        """The complementary event (``Y <= y`` for ``Y > y``, and so on)."""
        return Cut(self.lo, self.hi, not self.inclusive, not self.above)
