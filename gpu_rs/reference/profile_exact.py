"""Exact privacy profiles of the homogeneous pair for one and two bits, by sums in log space.

With one bit, the count ``J`` of set bits among the ``N − 1`` zero vectors is ``Bin(N − 1, q)``
and the user's own bit is ``Ber(p)`` (under ``D_m``) or ``Ber(q)`` (under ``D``), so with
``K = J + U`` the ratio at ``K = j`` is ``R_j = (p ρ_j + q)/(q ρ_j + p)``,
``ρ_j = P(J = j − 1)/P(J = j) = j p / ((N − j) q)``, in closed form. Then

    δ_{P‖Q}(ε) = Σ_{R_j > λ} P(J = j)(p ρ_j + q)(1 − λ / R_j),
    δ_{Q‖P}(ε) = Σ_{R_j < 1/λ} P(J = j)(q ρ_j + p)(1 − λ R_j),

every term positive and formed in logs, so ``δ`` keeps its relative accuracy down to
``1e-300``. With two bits the same holds given the number of vectors with both bits set,
summed over it (the reverse order draws all ``N`` users as zero vectors).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from gpu_rs.common.floats import UNIT


def _log_binomial(n: int, pi: float, j: np.ndarray) -> tuple[np.ndarray, float]:
    """``log P(Bin(n, pi) = j)`` and a bound on its absolute error (library ``lgamma`` to a few ulp)."""
    jf = j.astype(np.float64)
    terms = (gammaln(n + 1.0), gammaln(jf + 1.0), gammaln(n - jf + 1.0), jf * math.log(pi), (n - jf) * math.log1p(-pi))
    value = terms[0] - terms[1] - terms[2] + terms[3] + terms[4]
    scale = abs(terms[0]) + np.abs(terms[1]) + np.abs(terms[2]) + np.abs(terms[3]) + np.abs(terms[4])
    return value, float(8.0 * UNIT * np.max(scale))


def _sum(log_terms: np.ndarray, err: float) -> tuple[float, float]:
    """``Σ exp(log_terms)`` bracketed, each term with absolute log error ``err``."""
    if log_terms.size == 0:
        return 0.0, 0.0
    log_s = float(logsumexp(log_terms))
    e = err + 4.0 * UNIT * (abs(log_s) + math.log2(log_terms.size + 1) + 2)
    return math.exp(log_s - e), math.exp(log_s + e)


def delta_one_bit(n: int, q: float, eps: float, forward: bool) -> tuple[float, float]:
    """Exact ``δ(ε)`` for ``L = 1`` in one order of the homogeneous pair, bracketed by its round-off."""
    p, lam = 1.0 - q, math.exp(eps)
    m = n - 1
    if m == 0:
        rho = np.array([0.0, math.inf])
        log_b = np.array([0.0, -math.inf])
        err = 0.0
    else:
        j = np.arange(0, m + 2)  # K = J + U ranges over 0 .. n; J = j has P(J = j), j <= m
        log_b, err = _log_binomial(m, q, np.minimum(j, m))
        log_b = np.where(j <= m, log_b, -np.inf)
        with np.errstate(divide="ignore"):
            rho = np.where(j >= n, np.inf, j * p / np.maximum(n - j, 1) / q)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.isinf(rho), p / q, (p * rho + q) / (q * rho + p))
    # P(K = k) = P(J = k − 1) P(U = 1) + P(J = k) P(U = 0): with the log pmf of J shifted.
    log_j_prev = np.concatenate([[-np.inf], log_b[:-1]])
    if forward:
        log_k = np.logaddexp(math.log(p) + log_j_prev, math.log(q) + log_b)
        keep = ratio > lam
        with np.errstate(divide="ignore"):
            log_terms = log_k[keep] + np.log1p(-lam / ratio[keep])
    else:
        log_k = np.logaddexp(math.log(q) + log_j_prev, math.log(p) + log_b)
        keep = ratio * lam < 1.0
        with np.errstate(divide="ignore"):
            log_terms = log_k[keep] + np.log1p(-lam * ratio[keep])
    # The ratio's rounding can misplace a term at the boundary; such a term is below 8u of its mass.
    border = np.abs(np.log(ratio) - (eps if forward else -eps)) < 64 * UNIT * (1 + eps)
    slack = float(np.exp(logsumexp(log_k[border]))) * 64 * UNIT * (1 + eps) if border.any() else 0.0
    lo, hi = _sum(log_terms[np.isfinite(log_terms)], err + 8 * UNIT)
    return max(0.0, lo - slack), min(1.0, hi + slack)
