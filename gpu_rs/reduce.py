"""Reduce ``P[X > t]`` to a tail of a sum of bounded summands.

A vector whose atom alone exceeds ``t = n e^ε`` makes ``X > t`` certain (all
atoms are positive). With ``A`` the event that no vector has such an atom,

    P[X > t] = 1 − P[A] · (1 − P[Y > y | A]),

where, given ``A``, the summands are independent with their laws truncated to
the remaining atoms, ``Y = X − n w_0`` is ``X`` shifted by its smallest atom,
and ``y = n (e^ε − w_0)``. ``P[A] = a_0^{n−1} a_1`` is computed in closed
form, so single vectors with many flipped bits are treated exactly and apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .chernoff import Law, SumLaw, exact_law
from .model import UNIT, Atoms
from .params import Problem


@dataclass(frozen=True)
class Reduced:
    """The truncated problem.

    Attributes
    ----------
    law : SumLaw or None
        Law of ``Y`` given ``A``; None where ``P[A] = 0`` (some law has only big atoms).
    log_keep : float
        ``log P[A]`` as computed; ``keep_error`` bounds its absolute error.
    y : float
        Threshold on ``Y`` (on ``J`` for a lattice); the true threshold and the float-rounded atoms are
        covered by the relative ``slack``: use ``y (1 − slack)`` for upper
        bounds and ``y (1 + slack)`` for lower bounds.
    step : float
        For ``bits = 1`` the lattice step ``v_1``: ``Y = step · J`` with
        integer ``J``, and ``law`` and ``y`` are in units of the step; 0 otherwise.
    """

    law: SumLaw | None
    log_keep: float
    keep_error: float
    y: float
    slack: float
    step: float

    @property
    def y_upper(self) -> float:
        """Threshold to use for an upper bound on the tail."""
        return self.y * (1.0 - self.slack)

    @property
    def y_lower(self) -> float:
        """Threshold to use for a lower bound on the tail."""
        return self.y * (1.0 + self.slack)


def _truncate(log_p: np.ndarray, probs: np.ndarray, rel: np.ndarray, small: np.ndarray) -> tuple[float, float]:
    """(log of the kept mass, bound on the absolute error of that log)."""
    if not small.any():
        return -math.inf, 0.0
    big_mass = float(probs[~small].sum()) if (~small).any() else 0.0
    if big_mass == 0.0:
        return 0.0, 0.0
    if big_mass < 0.5:
        # log1p(-b) with b = sum of the removed probabilities: d log(1 - b) = db / (1 - b).
        return math.log1p(-big_mass), 2.0 * (float(rel[~small].max()) + 4.0 * UNIT) * big_mass / (1.0 - big_mass) + 2.0 * UNIT
    log_a = float(logsumexp(log_p[small]))
    return log_a, 2.0 * float(rel[small].max()) + 16.0 * UNIT * (1.0 + abs(log_a))


def reduce_problem(prob: Problem, at: Atoms) -> Reduced:
    """Split off the atoms that alone cross the threshold (see module docstring)."""
    log_t = prob.log_threshold
    margin = at.value_error + 8.0 * UNIT * (1.0 + abs(log_t))
    small = at.log_w <= log_t + margin
    m = prob.n - 1
    log_a0, err0 = _truncate(at.log_p0, at.p0, at.p0_error, small)
    log_a1, err1 = _truncate(at.log_p1, at.p1, at.p1_error, small)
    y = prob.n * (math.exp(prob.eps) - at.w0)
    if not math.isfinite(y):
        raise ValueError(f"eps is too large: n * e^eps overflows float64 (eps={prob.eps:g})")
    slack = at.value_error + 8.0 * UNIT * (4.0 + abs(prob.eps))
    if not math.isfinite(log_a1) or (m > 0 and not math.isfinite(log_a0)):
        return Reduced(None, -math.inf, 0.0, y, slack, 0.0)
    log_keep = (m * log_a0 if m else 0.0) + log_a1
    err = m * (err0 + 2.0 * UNIT * abs(log_a0)) + err1 + 4.0 * UNIT * abs(log_keep)

    values = at.shifted
    step = float(values[1]) if prob.bits == 1 else 0.0
    if step:
        # Work in units of the lattice step: Y = step * J with integer J.
        values = np.array([0.0, 1.0])
        y /= step
        slack += 4.0 * UNIT

    zero = truncated_law(at, False, small, values) if m else Law(np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1))
    outlier = truncated_law(at, True, small, values)
    return Reduced(SumLaw(zero, outlier, m), log_keep, err, y, slack, step)


def truncated_law(at: Atoms, outlier: bool, small: np.ndarray, values: np.ndarray) -> Law:
    """The law of one summand restricted to the atoms ``small``, renormalized.

    With exact rational probabilities the renormalization is exact too, and the
    law carries them and a high/low float split; otherwise dividing by the kept
    mass adds its error to every probability's bound.
    """
    log_p, probs, rel = (at.log_p1, at.p1, at.p1_error) if outlier else (at.log_p0, at.p0, at.p0_error)
    log_a, log_a_err = _truncate(log_p, probs, rel, small)
    if at.exact0 is not None:
        exact = at.exact0[::-1] if outlier else at.exact0
        return exact_law(values[small], [e for e, keep in zip(exact, small) if keep], log_p[small] - log_a)
    extra = 2.0 * log_a_err + 4.0 * UNIT * (1.0 + abs(log_a))
    return Law(values[small].copy(), log_p[small] - log_a, np.exp(log_p[small] - log_a), rel[small] + extra)
