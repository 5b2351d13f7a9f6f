"""``δ(ε)`` of the homogeneous pair by exact enumeration of the count vectors of ``X′`` (small ``N`` and ``L``).

``X′ = Σ_l n_l w_l`` with ``(n_0, …, n_L)`` multinomial, so both hinges (docs/profile.md) are finite
sums of positive terms, formed in logs: ``δ`` keeps its relative accuracy at any size, down to
``1e-300``. Used where there are at most :data:`MAX_VECTORS` count vectors.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from gpu_rs.common.floats import TINY, UNIT
from gpu_rs.engine.atoms import ZERO, record_atoms

MAX_VECTORS = 1_000_000


def count_vectors(n: int, bits: int) -> int:
    """How many count vectors ``(n_0, …, n_L)`` sum to ``n``."""
    return math.comb(n + bits, bits)


class Enumerated:
    """Every count vector of ``N`` zero-vector records: ``log P`` and the value of ``X′``, sorted by value."""

    def __init__(self, n: int, bits: int, q: float) -> None:
        at = record_atoms(bits, q, ZERO)
        values = np.exp(at.log_values)
        log_p = np.where(at.probs > 0, np.log(np.where(at.probs > 0, at.probs, 1.0)), at.log_probs)
        counts = np.zeros((1, bits + 1), dtype=np.int64)
        left = np.array([n], dtype=np.int64)
        for level in range(bits, 0, -1):  # assign n_L, …, n_1; n_0 takes what is left
            reps = left + 1
            rows = np.repeat(np.arange(counts.shape[0]), reps)
            take = np.arange(rows.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
            counts = counts[rows]
            counts[:, level] = take
            left = left[rows] - take
        counts[:, 0] = left
        c = counts.astype(np.float64)
        lg = gammaln(c + 1.0)
        self.log_p = float(gammaln(n + 1.0)) - lg.sum(axis=1) + c @ log_p
        scale = abs(float(gammaln(n + 1.0))) + lg.sum(axis=1) + np.abs(c) @ np.abs(log_p)
        self.log_err = float(np.max(16.0 * UNIT * scale + c @ (at.prob_error + 4.0 * UNIT)))
        x = c @ values
        order = np.argsort(x)
        self.x, self.log_p = x[order], self.log_p[order]
        # Each value: a sum of L + 1 products of counts and atoms (relative error value_error + few u).
        self.x_err = self.x * (at.value_error + (bits + 4) * UNIT)
        self.n = n

    def hinge(self, t: float, t_err: float, above: bool) -> tuple[float, float]:
        """Bracketed ``E[(X′ − t)_+]`` (``above``) or ``E[(t − X′)_+]``."""
        gap = self.x - t if above else t - self.x
        slack = self.x_err + t_err
        sure = gap > slack
        maybe = gap > -slack
        lo = _log_sum(self.log_p[sure] + np.log(gap[sure] - slack[sure]))
        hi = _log_sum(self.log_p[maybe] + np.log(gap[maybe] + slack[maybe]))
        e = self.log_err + 8.0 * UNIT * (math.log2(self.x.shape[0] + 1) + 4.0)
        return (math.exp(lo - e - e * abs(lo)) if lo > -math.inf else 0.0), _exp_up(hi + e + e * abs(hi))

    def delta(self, eps: float, forward: bool) -> tuple[float, float]:
        """Certified ``(lower, upper)`` of ``δ(ε)`` in one order."""
        lam = math.exp(eps)
        t = self.n * lam if forward else self.n / lam
        lo, hi = self.hinge(t, 4.0 * UNIT * t, forward)
        scale_lo = (1.0 if forward else lam) / self.n * (1.0 - 8.0 * UNIT)
        scale_hi = (1.0 if forward else lam) / self.n * (1.0 + 8.0 * UNIT)
        return lo * scale_lo, min(1.0, hi * scale_hi if hi == 0.0 else max(TINY, hi * scale_hi))


def _log_sum(logs: np.ndarray) -> float:
    return float(logsumexp(logs)) if logs.size else -math.inf


def _exp_up(x: float) -> float:
    if x == -math.inf:
        return 0.0
    return max(TINY, math.exp(x))
