"""The seed's k-randomization moment "bounds" (6.1), (6.2) and its rule (6.3), as printed.

Kept for comparison (docs/k-randomization.md, docs/seed-tables.md): they are **not** bounds
(seeds/README.md); the exact moments are :mod:`gpu_rs.quantities.krand_moments`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from gpu_rs.common.limits import MAX_EPS
from gpu_rs.common.logspace import log_expm1, log_softplus, logsumexp
from gpu_rs.common.validation import check_open
from gpu_rs.quantities.krand_moments import (
    _check_q,
    _exact_parts,
    _phi_parts,
    _to_float,
    bisect_q,
    check_nbk,
    log_mu_plus_3sigma,
)


def _seed_log_bounds(n: int, bits: int, q: float, k: int) -> tuple[float, float]:
    """Logs of (6.1) and (6.2); (6.2) is computed as (X − Y) Σ X^j Y^(k−1−j) (no cancellation)."""
    log_phi, log_ratio = _phi_parts(q)
    la = bits * log_phi
    ld = bits * log_ratio
    lm = math.log(k * n)
    log_mean = k * log_softplus(la - lm)
    # X = A/M + B/M², Y = 1/M + A²/M², X − Y = (A − 1)/M + (B − A²)/M² > 0
    log_x = logsumexp([la - lm, 2 * la + ld - 2 * lm])
    log_y = logsumexp([-lm, 2 * la - 2 * lm])
    log_xy = logsumexp([log_expm1(la) - lm, 2 * la + log_expm1(ld) - 2 * lm])
    log_var = log_xy + logsumexp([j * log_x + (k - 1 - j) * log_y for j in range(k)])
    return log_mean, log_var


def seed_k_moment_bounds(
    n: int, bits: int, q: float | Fraction, k: int, *, exact: bool = False
) -> tuple[float, float] | tuple[Fraction, Fraction]:
    """The seed's claimed upper bounds (6.1) and (6.2) on the mean and variance of ``R_k``.

    Transcribed from seed 003 §6 exactly as printed (``M = kN``, ``φ = (q³ + p³)/(qp)``,
    ``(q⁵ + p⁵)/(qp)² = φ² + φ − 1``):

    (6.1)  ``E R(S^k) ≤ (1 + φ^L / (kN))^k``

    (6.2)  ``Var R(S^k) ≤ [φ^L/(kN) + (φ² + φ − 1)^L/(kN)²]^k − [1/(kN) + φ^(2L)/(kN)²]^k``

    They are **not** bounds: with the exact moments (:func:`gpu_rs.quantities.krand_moments.k_moments`) the mean exceeds
    (6.1) and the variance exceeds (6.2) already for ``k = 2``, ``L = 1`` (docs/k-randomization.md
    §4).  For ``k = 1`` both hold.  The seed derives them from its normalisation
    ``(kN − k)!/(kN)!`` (8.20)–(8.22), which misses a factor ``k!``, and from
    ``Var Σ_S X_S = Σ_S Var X_S`` over overlapping k-subsets (the variance step after
    (8.37)), which drops every covariance; (8.34) also replaces ``(kN − k)!/(kN)!`` by its
    lower end ``(kN)^(−k)`` inside an upper bound.

    Parameters
    ----------
    n, bits, q, k, exact
        As in :func:`gpu_rs.quantities.krand_moments.k_moments`.

    Returns
    -------
    (mean_bound, var_bound) : tuple of float, or of Fraction in exact mode
        The right-hand sides of (6.1) and (6.2).  Float values beyond float64 range are
        ``inf`` with a ``RuntimeWarning``.
    """
    n, bits, k = check_nbk(n, bits, k)
    q = _check_q(q)
    if exact or isinstance(q, Fraction):
        A, B = _exact_parts(bits, Fraction(q))
        M = k * n
        mean_b = (1 + A / M) ** k
        var_b = (A / M + B / M**2) ** k - (Fraction(1, M) + A * A / M**2) ** k
        return mean_b, var_b
    log_mean, log_var = _seed_log_bounds(n, bits, q, k)
    return _to_float(log_mean, "(6.1)"), _to_float(log_var, "(6.2)")


def seed_three_sigma_q_k(n: int, bits: int, eps: float, k: int, *, q_tol: float = 1e-12) -> float:
    """The seed's k-randomization rule (6.3), as the seed states it.

    Seed 003 §6:

    ``(1 + φ^L/(kN))^k + 3 √( (φ^L/(kN) + (φ² + φ − 1)^L/(kN)²)^k − (1/(kN) + φ^(2L)/(kN)²)^k ) ≤ λ``

    "solved numerically for φ", and ``q`` from φ by (3.16) — i.e. the smallest ``q`` in
    ``(0, 1/2)`` (largest φ) meeting (6.3).  The left side is (6.1) + 3 √(6.2); both
    increase with φ, so bisection on ``q`` finds it.  Because (6.1) and (6.2) are not
    bounds, neither is this rule (compare :func:`gpu_rs.quantities.krand_moments.three_sigma_q_k`).

    Parameters
    ----------
    n, bits, k
        As in :func:`gpu_rs.quantities.krand_moments.k_moments`.
    eps : float
        ``λ = e^ε``, ``0 < eps < 700``.
    q_tol : float, optional
        Width of the final bisection bracket.

    Returns
    -------
    float
        The smallest ``q`` (within ``q_tol``, rounded up) meeting (6.3).

    Raises
    ------
    ValueError
        If an argument is out of range or no ``q`` meets (6.3) (``λ ≤ (1 + 1/(kN))^k``
        roughly); the message names ``eps``.
    """
    n, bits, k = check_nbk(n, bits, k)
    eps = check_open("eps", eps, 0.0, MAX_EPS)

    def log_excess(q: float) -> float:
        lm, lv = _seed_log_bounds(n, bits, q, k)
        return log_mu_plus_3sigma(lm, lv) - eps

    return bisect_q(log_excess, eps, "the left side of (6.3)", q_tol)
