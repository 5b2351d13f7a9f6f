"""Certified ``δ`` of the composition of discrete pairs: one engine hinge per ``ε`` (docs/composition.md).

For independent releases with privacy losses ``ℓ_1 … ℓ_T`` (under ``P̂``; each finite with
probability ``1 − ω_∞,i``, a finite loss of a mass below the float range counted infinite for the
upper end and as paying nothing for the lower: :meth:`LossPmf.small_at_infinity`), the composed pair's

    δ(ε) = E[(1 − e^{ε − Σ ℓ_i})_+] = (1 − A) + A · E[(1 − e^{y − Y})_+ | all finite],

``A = Π (1 − ω_∞,i)``, ``Y = Σ (ℓ_i − shift_i)`` (non-negative atoms) and ``y = ε − Σ shift_i``.
The conditional expectation is the engine's tilted hinge with the exponential payoff
(:mod:`gpu_rs.engine.kernels`), the float error of the atoms moving ``y`` within ``[lo, hi]``;
where the sums take at most :data:`MAX_OUTCOMES` values (few releases: ``k`` reports per user),
it is a finite sum over every one of them instead, its round-off bounded term by term.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine import chernoff, tilt
from gpu_rs.engine.laws import POINT, SumLaw
from gpu_rs.pairs.compose_pairs import LossPmf, infinity_factor

MAX_OUTCOMES = 1 << 24
"""Most outcomes of ``Y`` summed one by one; beyond, the tilted hinge."""
MAX_KEPT = 1 << 21
"""Most outcomes held at once (about 32 MB): the last summand's atoms are summed over in a loop."""

Listed = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, float]


def outcomes(law: SumLaw) -> Listed | None:
    """``(values, probs)`` of ``Y`` but its last summand, that summand's atoms, the values' round-off and
    the probabilities' relative error; None where ``Y`` has more than :data:`MAX_OUTCOMES` outcomes."""
    copies = [w for w, c in law.parts for _ in range(c)]
    if (
        math.prod(float(w.size) for w in copies) > MAX_OUTCOMES
        or math.prod(float(w.size) for w in copies[:-1]) > MAX_KEPT
    ):
        return None
    values, probs = np.zeros(1), np.ones(1)
    for w in copies[:-1]:
        values = (values[:, None] + w.values[None, :]).ravel()
        probs = (probs[:, None] * w.probs[None, :]).ravel()
    rel = sum(float(w.rel_error.max()) + 2.0 * UNIT for w in copies)
    last = copies[-1]
    return values, probs, last.values, last.probs, law.count * UNIT * law.max, rel


class Side:
    """One order of one composed pair (dominating or dominated): its sum law and its last tilt."""

    def __init__(self, pmfs: list[tuple[LossPmf, int]], max_terms: int, xp: Any) -> None:
        parts, shift, err = [], 0.0, 0.0
        settled = [(pmf.small_at_infinity(), times) for pmf, times in pmfs]
        for pmf, times in settled:
            if not pmf.probs:  # every loss infinite: A = 0 below, and δ = 1 whatever Y is
                continue
            law, s = pmf.law()
            parts.append((law, times))
            shift += times * s
            err += times * 2.0 * pmf.value_error
        self.law = SumLaw(tuple(parts) if parts else ((POINT, 1),))
        self.shift, self.err = shift, err + 8.0 * UNIT * abs(shift) * (len(pmfs) + 1)
        self.finite = infinity_factor(settled)  # every loss finite and of a float mass
        self.surely = infinity_factor(pmfs)  # every loss finite
        self.max_terms, self.xp = max_terms, xp
        self.near: tilt.Tilted | None = None
        self.sd = self.law.sd
        self.listed = outcomes(self.law)

    def _tilted(self, lo: float, hi: float) -> tilt.Tilted | None:
        """A tilt for thresholds ``[lo, hi]``: the last one where it fits, else the saddle point's.

        At or below the mean there is no saddle point of positive ``θ``; any ``θ`` is exact, and the
        one whose tilted mean is a standard deviation above the mean serves.
        """
        if self.near is not None and self.near.fits(lo, hi, True):
            return self.near
        y = 0.5 * (lo + hi)
        made = tilt.Tilted.make(self.law, y, True, self.xp)
        if made is None and y < self.law.mean + self.sd < self.law.max:
            theta = tilt.saddle(self.law, self.law.mean + self.sd, 1.0)
            tilted = None if theta is None else tilt.tilt(self.law, theta)
            if tilted is not None and theta is not None:
                made = tilt.Tilted(tilted, y, True, theta, self.xp)
        if made is not None:
            self.near = made
        return made

    def delta(self, eps: float, rel_width: float, abs_width: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` of the composed pair's ``δ(eps)``."""
        y = eps - self.shift
        lo, hi = y - self.err - 4.0 * UNIT * abs(y), y + self.err + 4.0 * UNIT * abs(y)
        h_lo, h_hi = 0.0, 0.0
        if self.listed is not None:
            h_lo, h_hi = _summed(self.listed, lo, hi)
        elif lo < self.law.max:  # Y <= max <= y: the payoff is 0; below 1{Y > y}, so below a Chernoff bound
            h_lo, h_hi = 0.0, min(1.0, chernoff.upper_tail(self.law, lo))
            near = self._tilted(lo, hi)
            found = None if near is None else near.hinge(lo, hi, rel_width, abs_width, self.max_terms, "exponential")
            if found is not None:
                h_lo, h_hi = found.lower, min(h_hi, found.upper)
        # The losses moved to infinity for their sub-float masses pay 1 above and 0 below.
        log_lo, log_hi = self.finite
        miss_lo = -math.expm1(self.surely[1]) * (1.0 - 4.0 * UNIT)
        miss_hi = -math.expm1(log_lo) * (1.0 + 4.0 * UNIT)
        a_lo, a_hi = math.exp(log_lo) * (1.0 - 4.0 * UNIT), min(1.0, math.exp(log_hi) * (1.0 + 4.0 * UNIT))
        lower = max(0.0, (miss_lo + a_lo * h_lo) * (1.0 - 4.0 * UNIT))
        return lower, min(1.0, (miss_hi + a_hi * h_hi) * (1.0 + 4.0 * UNIT))


def _summed(listed: Listed, lo: float, hi: float) -> tuple[float, float]:
    """``E[(1 − e^{y − Y})_+]`` over every outcome, at least its value at ``hi`` and at most at ``lo``.

    Each term errs by 8 units (``expm1`` and the products), the sum of ``n`` non-negative terms by
    ``n`` units in any order, the probabilities by ``rel``; the values' round-off ``err`` and that of
    the argument ``(y − v) − V`` (an error of the threshold: the payoff is monotone in it) widen
    ``[lo, hi]``.
    """
    values, probs, last, last_probs, err, rel = listed
    err += 4.0 * UNIT * (abs(lo) + abs(hi) + float(last.max()) + float(values.max()))
    rho = rel + (8.0 + values.size * last.size) * UNIT

    def at(y: float) -> float:
        total = 0.0
        for v, p in zip(last, last_probs, strict=True):
            above = values > y - v
            total += p * float(np.dot(probs[above], -np.expm1((y - v) - values[above])))
        return total

    return max(0.0, at(hi + err) * (1.0 - rho)), min(1.0, at(lo - err) * (1.0 + rho))
