"""``δ(ε)`` of the homogeneous pair at one bit: the hinge expectations summed exactly in log space.

Under ``D`` (``N`` zero vectors) the ratio is ``R = X′/N`` with ``X′ = N r + s J``,
``J ~ Bin(N, q)``, ``r = q/p``, ``s = 1/r − r``; and (docs/profile.md)

    δ_{P‖Q}(ε) = E[(X′ − Nλ)_+] / N,      δ_{Q‖P}(ε) = λ E[(N/λ − X′)_+] / N.

So ``δ_{P‖Q} = (s/N) Σ_{j > j_t} P(J = j)(j − j_t)`` with ``j_t = (Nλ − N r)/s``, and likewise
below ``N/λ``: every term positive, formed in logs, so ``δ`` keeps its relative accuracy down to
``1e-300`` (no absolute floor). Terms are summed outward from the threshold until they fall
below ``e^-80`` of the largest; the rest is bounded by a geometric series.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from gpu_rs.common.binomial import log_pmf_terms
from gpu_rs.common.floats import TINY, UNIT
from gpu_rs.engine.atoms import log_r

SPAN = 4096
"""Terms evaluated per step outward from the threshold."""
CUT = 80.0
"""Terms below ``e^-CUT`` of the largest end the sum (the rest is bounded)."""


def _log_pmf(n: int, q: float, j: np.ndarray) -> tuple[np.ndarray, float]:
    """``log P(Bin(n, q) = j)`` and a bound on its absolute error."""
    terms = log_pmf_terms(n, j, math.log(q), math.log1p(-q))
    scale = sum(np.max(np.abs(t)) for t in terms)
    return terms[0] - terms[1] - terms[2] + terms[3] + terms[4], float(16.0 * UNIT * scale)


def _log_hinge(n: int, q: float, j_t: float, j_err: float, above: bool) -> tuple[float, float]:
    """``log Σ P(J = j) |j − j_t|`` over ``j > j_t`` (``above``) or ``j < j_t``, and its absolute log error."""
    step = 1 if above else -1
    first = math.floor(j_t) + 1 if above else math.ceil(j_t) - 1
    logs: list[np.ndarray] = []
    err = 0.0
    start = first
    while 0 <= start <= n:
        stop = min(n, start + SPAN - 1) if above else max(0, start - SPAN + 1)
        j = np.arange(start, stop + step, step, dtype=np.float64)
        lp, e = _log_pmf(n, q, j)
        dist = np.abs(j - j_t)
        logs.append(lp + np.log(dist))
        err = max(err, e + 2.0 * j_err / float(dist[0]) + 4.0 * UNIT)
        start = stop + step
        best = max(float(np.max(x)) for x in logs)
        ratio = (n - stop) * q / ((stop + 1) * (1 - q)) if above else stop * (1 - q) / ((n - stop + 1) * q)
        if float(logs[-1][-1]) < best - CUT and ratio < 1.0:
            # P(J = j) falls by at least ``ratio`` per later term and |j − j_t| grows by 1, so the rest is at most
            # the last term times ρ/(1 − ρ) + ρ/((1 − ρ)² D), D = |stop − j_t| (3 for ρ <= 1/2, D >= 1); it is
            # charged e^(best − CUT) · 4 below. At large N the pmf falls that slowly for millions of terms.
            scale = ratio / (1.0 - ratio) + ratio / ((1.0 - ratio) ** 2 * float(dist[-1]))
            if scale == 0.0 or float(logs[-1][-1]) + math.log(scale) <= best - CUT + math.log(4.0):
                break
    if not logs:
        return -math.inf, 0.0
    total = np.concatenate(logs)
    log_s = float(logsumexp(total))
    rest = best - CUT + math.log(4.0) if 0 <= start <= n else -math.inf  # bound on what was not summed
    log_all = float(np.logaddexp(log_s, rest))
    return log_all, err + (log_all - log_s) + 4.0 * UNIT * (abs(log_s) + math.log2(total.size + 1) + 2)


def delta_one_bit(n: int, q: float, eps: float, forward: bool) -> tuple[float, float]:
    """Certified ``(lower, upper)`` of ``δ(ε)`` at one bit for one order of the homogeneous pair."""
    lr = log_r(q)
    r, s = math.exp(lr), -2.0 * math.sinh(lr)  # s = 1/r − r, without cancellation
    lam = math.exp(eps)
    t = n * lam if forward else n / lam
    j_t = (t - n * r) / s
    if (forward and j_t >= n) or (not forward and j_t <= 0):
        return 0.0, 0.0
    # Error of j_t: λ, r and s to a few ulp each (relative), the subtraction and the division.
    j_err = 16.0 * UNIT * (t + n * r) / s + 4.0 * UNIT * abs(j_t) + 16.0 * UNIT * (1.0 + abs(lr)) * (t + n * r) / s
    log_h, err = _log_hinge(n, q, j_t, j_err, forward)
    if not math.isfinite(log_h):
        return 0.0, 0.0
    log_d = log_h + math.log(s) - math.log(n) + (0.0 if forward else eps)
    err += 8.0 * UNIT * (abs(log_d) + abs(math.log(s)) + abs(math.log(n)) + eps + 4.0) + 8.0 * UNIT * (1 + abs(lr))
    # δ > 0 here: an upper end that underflows stands as the smallest positive float.
    return math.exp(min(0.0, log_d - err)), max(TINY, math.exp(min(0.0, log_d + err)))  # err may be huge (q near 1/2)
