"""The enumeration method: exact tails for small sums by listing every count vector.

A part of ``m`` summands over ``A`` atoms falls into ``C(m + A − 1, A − 1)`` count
vectors. Where the product over the parts is small, ``Y`` is a finite sum over
them and the tail is a finite sum of multinomial probabilities: no window and no
Fourier series. Selberg majorants struggle exactly here, where ``Y`` is purely
atomic with atoms close to the threshold.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.floats import SMALLEST_NORMAL, UNIT
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.laws import Cut, Law, SumLaw

MAX_VECTORS = 1_000_000
"""Largest number of count vectors enumerated."""


def count_vectors(law: SumLaw) -> int:
    """Number of joint count vectors: ``Π_i C(m_i + A_i − 1, A_i − 1)``."""
    return math.prod(math.comb(m + part.size - 1, part.size - 1) for part, m in law.parts)


def _counts(m: int, parts: int) -> np.ndarray:
    """All count vectors (rows) of ``m`` items in ``parts`` bins, by stars and bars."""
    if parts == 1:
        return np.array([[m]], dtype=np.int64)
    bars = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(m + parts - 1), parts - 1)),
        dtype=np.int64,
    ).reshape(-1, parts - 1)
    edges = np.concatenate([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), m + parts - 1)], axis=1)
    return np.diff(edges, axis=1) - 1


def outcomes(law: Law, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Sum and log-probability of every count vector of ``m`` copies of ``law``, and their error scale."""
    counts = _counts(m, law.size)
    log_p = np.where(law.probs > 0, np.log(np.where(law.probs > 0, law.probs, 1.0)), law.log_probs)
    log_t = gammaln(m + 1) - gammaln(counts + 1).sum(axis=1) + counts @ log_p
    # Relative error of each probability: the log-sum's rounding (lgamma is accurate to a
    # few ulp), the probabilities' own errors (raised to the power m), and exp.
    scale = gammaln(m + 1) * 2 + m * float(np.abs(log_p).max()) + 4.0
    rel = 16.0 * UNIT * scale + m * float(law.rel_error.max())
    return counts.astype(np.float64) @ law.values, log_t, rel


def bound(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """Bounds on ``P[Y ∈ cut]`` by full enumeration; None where there are too many count vectors.

    The largest part is enumerated as arrays; the others' outcomes are combined in a
    Python loop. ``upper`` counts every outcome that might be in the event given the
    float error of its sum and of the threshold; ``lower`` only those certainly in it.
    """
    vectors = count_vectors(law)
    if vectors > MAX_VECTORS:
        return None
    order = sorted(law.parts, key=lambda pc: -math.comb(pc[1] + pc[0].size - 1, pc[0].size - 1))
    base, log_base, rel = outcomes(*order[0])
    rest_values, rest_logs = np.zeros(1), np.zeros(1)
    for part, m in order[1:]:
        v, lp, r = outcomes(part, m)
        rest_values = (rest_values[:, None] + v[None, :]).ravel()
        rest_logs = (rest_logs[:, None] + lp[None, :]).ravel()
        rel += r
    sum_err = (sum(p.size for p, _ in law.parts) + 2) * UNIT * len(law.parts)
    lo_total = hi_total = 0.0
    ops: dict[tuple[bool, bool], Any] = {
        (True, False): np.greater,
        (True, True): np.greater_equal,
        (False, False): np.less,
        (False, True): np.less_equal,
    }
    op = ops[cut.above, cut.inclusive]
    grow, shrink = (1.0 + sum_err, 1.0 - sum_err) if cut.above else (1.0 - sum_err, 1.0 + sum_err)
    for v1, lp1 in zip(rest_values, rest_logs, strict=True):
        x = base + v1
        prob = np.exp(log_base + lp1)
        hi_total += float(prob[op(x * grow, cut.upper_at)].sum())
        lo_total += float(prob[op(x * shrink, cut.lower_at)].sum())
    # Outcomes whose probability underflowed count with at most the smallest normal each.
    underflow = vectors * SMALLEST_NORMAL
    roundoff = (rel + (16.0 + 2.0 * math.log2(vectors + 1)) * UNIT) * hi_total
    budget = ErrorBudget(roundoff=2.0 * roundoff + underflow + (hi_total - lo_total))
    return Bounds.make(
        lo_total - roundoff, hi_total + roundoff + underflow, budget, "enumeration", vectors, vectors * 64
    )
