"""Exact tails for small ``n`` by enumerating every count vector of the multinomial.

With ``L'`` atoms left after the split of :mod:`gpu_rs.reduce`, the ``n − 1`` zero
vectors fall into ``C(n − 2 + L', L' − 1)`` count vectors. Where that is small,
``X`` is a finite sum over them and the tail is a finite sum of probabilities:
no window and no Fourier series. Selberg majorants struggle exactly here, where
``X`` is purely atomic with atoms close to the threshold.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import gammaln

from .chernoff import SumLaw
from .model import UNIT

MAX_VECTORS = 1_000_000
"""Largest number of count vectors enumerated."""


def count_vectors(m: int, parts: int) -> int:
    """Number of ways to put ``m`` vectors into ``parts`` atoms."""
    return math.comb(m + parts - 1, parts - 1)


def enumerable(law: SumLaw) -> bool:
    """Whether :func:`enumerate_tail` can run within :data:`MAX_VECTORS`."""
    return count_vectors(law.m, law.zero.values.shape[0]) <= MAX_VECTORS


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


def enumerate_tail(law: SumLaw, y_upper: float, y_lower: float, inclusive: bool) -> tuple[float, float, float]:
    """Bounds on ``P[Y > y]`` (``>=`` when ``inclusive``) by full enumeration.

    Returns
    -------
    (lower, upper, roundoff)
        ``upper`` counts every outcome that might exceed ``y_upper`` given the
        float error of its sum; ``lower`` only those certainly above ``y_lower``.
    """
    zero, out = law.zero, law.outlier
    parts = zero.values.shape[0]
    counts = _counts(law.m, parts)
    log_p = np.where(zero.probs > 0, np.log(np.where(zero.probs > 0, zero.probs, 1.0)), zero.log_probs)
    log_t = gammaln(law.m + 1) - gammaln(counts + 1).sum(axis=1) + counts @ log_p
    base = counts.astype(np.float64) @ zero.values
    # Relative error of each computed probability: the log-sum's rounding (lgamma is
    # accurate to a few ulp), the probabilities' own errors, and exp.
    scale = gammaln(law.m + 1) * 2 + law.m * float(np.abs(log_p).max()) + 4.0
    rel = 16.0 * UNIT * scale + law.m * float(zero.rel_error.max()) + float(out.rel_error.max())
    sum_err = (parts + 2) * UNIT
    lo_total = hi_total = 0.0
    for v1, lp1 in zip(out.values, out.log_probs):
        x = base + v1
        prob = np.exp(log_t + lp1)
        if inclusive:
            maybe = x * (1.0 + sum_err) >= y_upper
            sure = x * (1.0 - sum_err) >= y_lower
        else:
            maybe = x * (1.0 + sum_err) > y_upper
            sure = x * (1.0 - sum_err) > y_lower
        hi_total += float(prob[maybe].sum())
        lo_total += float(prob[sure].sum())
    # Outcomes whose probability underflowed count with at most the smallest normal each.
    underflow = counts.shape[0] * out.values.shape[0] * 2.3e-308
    roundoff = (rel + (16.0 + 2.0 * math.log2(counts.shape[0] + 1)) * UNIT) * hi_total * 2.0 + underflow
    return lo_total, hi_total, roundoff
