"""Exact moments of the k-randomization ratio R_k, the seed's bounds, and 3σ rules.

SPEC §1.3 (seed 003 §6, Appendix II).  ``n`` users each send ``k`` independent
randomizations of their L-bit vector; all ``M = k n`` records are shuffled together.
Under ``D^k`` every record is a randomized zero vector; under ``D_m^k`` the ``k`` records of
one user are randomized all-ones vectors.  With per-record ratios
``w_i = (q/p)^(L - 2 l_i)`` the privacy ratio is

    R_k = P(S | D_m^k) / P(S | D^k) = e_k(w_1, ..., w_M) / C(M, k),

``e_k`` the elementary symmetric polynomial (docs/k-randomization.md §1).

Notation used throughout: ``φ = (p³ + q³)/(pq) = 1 + (p − q)²/(pq)``, ``A = φ^L``
(= E w for an outlier record = E w² for a zero record), ``B = (φ² + φ − 1)^L``
(= E w² for an outlier record), ``n0 = M − k = k(n − 1)`` zero records.

Exact moments (proved in docs/k-randomization.md §2):

    E e_k   = Σ_{r=0}^{k} C(k, r) C(n0, k − r) A^r,
    Var e_k = Σ_{i,j ≥ 0, 1 ≤ i + j ≤ k} C(k, i) C(n0, j) C(2a, a) S(i, j) D(i, j),
              a = k − i − j,
              S(i, j) = Σ_m C(k − i, m) C(n0 − j, 2a − m) A^m,
              D(i, j) = B^i A^j − A^(2i)  (≥ 0),

and ``E R_k = E e_k / C(M, k)``, ``Var R_k = Var e_k / C(M, k)²``.  Every term is
non-negative, so the variance is computed without cancellation.

Two evaluation modes: exact rational arithmetic (``exact=True`` or a ``Fraction`` ``q``:
returns ``Fraction``) and log space (floats; ``L`` up to 1024 and ``n`` up to 1e9 neither
overflow nor lose accuracy; a value beyond float range is returned as ``inf`` with a
``RuntimeWarning`` that says so).  The cost is O(k³) terms.

This module is standalone: it imports nothing from the rest of ``gpu_rs``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from fractions import Fraction
from functools import lru_cache

__all__ = [
    "k_log_moments",
    "k_moments",
    "precision_sigma_k",
    "seed_k_moment_bounds",
    "seed_three_sigma_q_k",
    "three_sigma_q_k",
]

MAX_N = 10**9
MAX_BITS = 1024
MAX_K = 10**4
_LOG_FLOAT_MAX = math.log(1.7976931348623157e308)
_Q_HI = 0.5 - 2.0**-40
"""Largest q tried by the 3σ searches (φ − 1 ≈ 4e-24 there)."""


# --------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------
def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer in [{lo}, {hi}]: got {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]: got {value}")
    return value


def _check_q(q: object) -> float | Fraction:
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise ValueError(f"q must be a number in (0, 0.5): got {q!r}")
    if isinstance(q, Fraction):
        if not 0 < q < Fraction(1, 2):
            raise ValueError(f"q must be a number in (0, 0.5): got {q}")
        return q
    qf = float(q)
    if not (math.isfinite(qf) and 0.0 < qf < 0.5):
        raise ValueError(f"q must be a number in (0, 0.5): got {q!r}")
    return qf


def _check_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise ValueError(f"eps must be a number in (0, 700): got {eps!r}")
    e = float(eps)
    if not (math.isfinite(e) and 0.0 < e < 700.0):
        raise ValueError(f"eps must be a number in (0, 700): got {eps!r}")
    return e


def _check_nbk(n: object, bits: object, k: object) -> tuple[int, int, int]:
    return (
        _check_int("n", n, 1, MAX_N),
        _check_int("bits", bits, 1, MAX_BITS),
        _check_int("k", k, 1, MAX_K),
    )


# --------------------------------------------------------------------------------------
# log-space helpers
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=65536)
def _log_comb(n: int, j: int) -> float:
    """``log C(n, j)`` (``-inf`` outside ``0 <= j <= n``), accurate for any ``n``.

    ``math.comb`` is exact and ``math.log`` of a Python int is correctly computed even for
    ints beyond float range, so this has relative error ~1e-16 also for ``n = 1e10``
    (``lgamma`` differences would lose ~1e-5 there).
    """
    if j < 0 or j > n:
        return -math.inf
    return math.log(math.comb(n, j))


def _logsumexp(xs: list[float]) -> float:
    finite = [x for x in xs if x != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(math.fsum(math.exp(x - top) for x in finite))


def _log_expm1(x: float) -> float:
    """``log(e^x − 1)`` for ``x > 0`` without overflow or cancellation."""
    if x <= 0.0:
        return -math.inf
    if x > 30.0:
        return x + math.log1p(-math.exp(-x))
    return math.log(math.expm1(x))


def _log_softplus(x: float) -> float:
    """``log(1 + e^x)``."""
    if x > 30.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def _phi_parts(q: float) -> tuple[float, float]:
    """``(log φ, log(1 + (φ − 1)/φ²))`` for float ``q``, without cancellation near 1/2.

    ``φ − 1 = (p − q)²/(pq)``; ``(φ² + φ − 1)/φ² = 1 + (φ − 1)/φ²``.
    """
    # 1 − 2q is exact in binary floating point (Sterbenz), 1 − q need not be: using p − q
    # would cost ~1e-16/(1 − 2q) relative accuracy near q = 1/2.
    d = (1.0 - 2.0 * q) ** 2 / ((1.0 - q) * q)  # φ − 1
    log_phi = math.log1p(d)
    # (φ − 1)/φ² = d/(1 + d)², computed in logs in case φ is huge
    log_ratio = math.log1p(math.exp(math.log(d) - 2.0 * log_phi)) if d > 0 else 0.0
    return log_phi, log_ratio


def _to_float(log_value: float, what: str) -> float:
    if log_value > _LOG_FLOAT_MAX:
        warnings.warn(
            f"{what} = exp({log_value:.6g}) overflows float64; returning inf "
            "(use k_log_moments or exact=True for the value)",
            RuntimeWarning,
            stacklevel=3,
        )
        return math.inf
    return math.exp(log_value)


# --------------------------------------------------------------------------------------
# exact moments
# --------------------------------------------------------------------------------------
def _exact_parts(bits: int, q: Fraction) -> tuple[Fraction, Fraction]:
    p = 1 - q
    phi = (p**3 + q**3) / (p * q)
    return phi**bits, (phi * phi + phi - 1) ** bits


def _moments_exact(n: int, bits: int, q: Fraction, k: int) -> tuple[Fraction, Fraction]:
    A, B = _exact_parts(bits, q)
    M = k * n
    n0 = M - k
    mean_e = sum((math.comb(k, r) * math.comb(n0, k - r) * A**r for r in range(k + 1)), Fraction(0))
    Apow = [A**m for m in range(2 * k + 1)]
    var_e = Fraction(0)
    for i in range(k + 1):
        for j in range(k + 1 - i):
            if i + j == 0:
                continue
            c = math.comb(n0, j)
            if c == 0:
                continue
            a = k - i - j
            s = sum(math.comb(k - i, m) * math.comb(n0 - j, 2 * a - m) * Apow[m] for m in range(min(k - i, 2 * a) + 1))
            d = B**i * Apow[j] - Apow[2 * i]
            var_e += math.comb(k, i) * c * math.comb(2 * a, a) * s * d
    cm = math.comb(M, k)
    return mean_e / cm, var_e / cm**2


def _log_moments_float(n: int, bits: int, q: float, k: int) -> tuple[float, float]:
    log_phi, log_ratio = _phi_parts(q)
    la = bits * log_phi  # log A
    ld = bits * log_ratio  # log(B / A²)
    M = k * n
    n0 = M - k
    log_cm = _log_comb(M, k)
    log_mean_e = _logsumexp([_log_comb(k, r) + _log_comb(n0, k - r) + r * la for r in range(k + 1)])
    terms = []
    for i in range(k + 1):
        for j in range(k + 1 - i):
            if i + j == 0:
                continue
            lc = _log_comb(n0, j)
            if lc == -math.inf:
                continue
            a = k - i - j
            log_s = _logsumexp(
                [_log_comb(k - i, m) + _log_comb(n0 - j, 2 * a - m) + m * la for m in range(min(k - i, 2 * a) + 1)]
            )
            # D = B^i A^j − A^(2i) = A^(2i) (exp(j log A + i log(B/A²)) − 1) ≥ 0
            log_d = 2 * i * la + _log_expm1(j * la + i * ld)
            terms.append(_log_comb(k, i) + lc + _log_comb(2 * a, a) + log_s + log_d)
    return log_mean_e - log_cm, _logsumexp(terms) - 2.0 * log_cm


def k_log_moments(n: int, bits: int, q: float, k: int) -> tuple[float, float]:
    """Natural logarithms of the exact mean and variance of ``R_k`` (never overflows).

    Parameters
    ----------
    n : int
        Number of users ``N`` (1 to 1e9).
    bits : int
        Vector length ``L`` (1 to 1024).
    q : float
        Flip probability in ``(0, 1/2)``.
    k : int
        Randomizations per user (1 to 1e4; the cost is O(k³)).

    Returns
    -------
    (log_mean, log_var) : tuple of float
        ``log E R_k`` and ``log Var R_k`` under ``D_m^k`` (see the module docstring).
    """
    n, bits, k = _check_nbk(n, bits, k)
    qf = float(_check_q(q))
    return _log_moments_float(n, bits, qf, k)


def k_moments(
    n: int, bits: int, q: float | Fraction, k: int, *, exact: bool = False
) -> tuple[float, float] | tuple[Fraction, Fraction]:
    """Exact mean and variance of the k-randomization ratio ``R_k`` under ``D_m^k``.

    ``R_k = e_k(w_1, ..., w_M) / C(M, k)`` with ``M = k n`` records, ``k`` of them from the
    outlier (SPEC §1.3).  With ``A = φ^L``, ``B = (φ² + φ − 1)^L``, ``n0 = k(n − 1)``:

    ``E R_k = Σ_r C(k, r) C(n0, k − r) A^r / C(M, k)``,

    ``Var R_k = Σ_{1 ≤ i + j ≤ k} C(k, i) C(n0, j) C(2a, a) S(i, j) (B^i A^j − A^(2i))
    / C(M, k)²`` with ``a = k − i − j`` and
    ``S(i, j) = Σ_m C(k − i, m) C(n0 − j, 2a − m) A^m``
    (``i`` outlier and ``j`` zero records shared by the two k-subsets of ``E e_k²``;
    derivation in docs/k-randomization.md §2).  ``k = 1`` gives the moments of ``X/n``.

    Parameters
    ----------
    n : int
        Number of users ``N`` (1 to 1e9).
    bits : int
        Vector length ``L`` (1 to 1024).
    q : float or Fraction
        Flip probability in ``(0, 1/2)``.  A ``Fraction`` selects exact arithmetic.
    k : int
        Randomizations per user (1 to 1e4; the cost is O(k³) terms).
    exact : bool, optional
        Compute with rationals (``Fraction(q)`` is the exact value of a float ``q``) and
        return ``Fraction``.  Exact mode is meant for small ``bits`` and ``k``.

    Returns
    -------
    (mean, var) : tuple of float, or of Fraction in exact mode
        In float mode a value beyond float64 range is ``inf`` and a ``RuntimeWarning``
        says so; :func:`k_log_moments` gives its logarithm.

    Raises
    ------
    ValueError
        If an argument is out of range; the message names it.
    """
    n, bits, k = _check_nbk(n, bits, k)
    q = _check_q(q)
    if exact or isinstance(q, Fraction):
        return _moments_exact(n, bits, Fraction(q), k)
    log_mean, log_var = _log_moments_float(n, bits, q, k)
    return _to_float(log_mean, "E R_k"), _to_float(log_var, "Var R_k")


# --------------------------------------------------------------------------------------
# the seed's bounds (6.1), (6.2) and rule (6.3)
# --------------------------------------------------------------------------------------
def _seed_log_bounds(n: int, bits: int, q: float, k: int) -> tuple[float, float]:
    """Logs of (6.1) and (6.2); (6.2) is computed as (X − Y) Σ X^j Y^(k−1−j) (no cancellation)."""
    log_phi, log_ratio = _phi_parts(q)
    la = bits * log_phi
    ld = bits * log_ratio
    lm = math.log(k * n)
    log_mean = k * _log_softplus(la - lm)
    # X = A/M + B/M², Y = 1/M + A²/M², X − Y = (A − 1)/M + (B − A²)/M² > 0
    log_x = _logsumexp([la - lm, 2 * la + ld - 2 * lm])
    log_y = _logsumexp([-lm, 2 * la - 2 * lm])
    log_xy = _logsumexp([_log_expm1(la) - lm, 2 * la + _log_expm1(ld) - 2 * lm])
    log_var = log_xy + _logsumexp([j * log_x + (k - 1 - j) * log_y for j in range(k)])
    return log_mean, log_var


def seed_k_moment_bounds(
    n: int, bits: int, q: float | Fraction, k: int, *, exact: bool = False
) -> tuple[float, float] | tuple[Fraction, Fraction]:
    """The seed's claimed upper bounds (6.1) and (6.2) on the mean and variance of ``R_k``.

    Transcribed from seed 003 §6 exactly as printed (``M = kN``, ``φ = (q³ + p³)/(qp)``,
    ``(q⁵ + p⁵)/(qp)² = φ² + φ − 1``):

    (6.1)  ``E R(S^k) ≤ (1 + φ^L / (kN))^k``

    (6.2)  ``Var R(S^k) ≤ [φ^L/(kN) + (φ² + φ − 1)^L/(kN)²]^k − [1/(kN) + φ^(2L)/(kN)²]^k``

    They are **not** bounds: with the exact moments (:func:`k_moments`) the mean exceeds
    (6.1) and the variance exceeds (6.2) already for ``k = 2``, ``L = 1`` (docs/k-randomization.md
    §4).  For ``k = 1`` both hold.  The seed derives them from its normalisation
    ``(kN − k)!/(kN)!`` (8.20)–(8.22), which misses a factor ``k!``, and from
    ``Var Σ_S X_S = Σ_S Var X_S`` over overlapping k-subsets (the variance step after
    (8.37)), which drops every covariance; (8.34) also replaces ``(kN − k)!/(kN)!`` by its
    lower end ``(kN)^(−k)`` inside an upper bound.

    Parameters
    ----------
    n, bits, q, k, exact
        As in :func:`k_moments`.

    Returns
    -------
    (mean_bound, var_bound) : tuple of float, or of Fraction in exact mode
        The right-hand sides of (6.1) and (6.2).  Float values beyond float64 range are
        ``inf`` with a ``RuntimeWarning``.
    """
    n, bits, k = _check_nbk(n, bits, k)
    q = _check_q(q)
    if exact or isinstance(q, Fraction):
        A, B = _exact_parts(bits, Fraction(q))
        M = k * n
        mean_b = (1 + A / M) ** k
        var_b = (A / M + B / M**2) ** k - (Fraction(1, M) + A * A / M**2) ** k
        return mean_b, var_b
    log_mean, log_var = _seed_log_bounds(n, bits, q, k)
    return _to_float(log_mean, "(6.1)"), _to_float(log_var, "(6.2)")


# --------------------------------------------------------------------------------------
# 3σ rules
# --------------------------------------------------------------------------------------
def _log_mu_plus_3sigma(log_mean: float, log_var: float) -> float:
    return _logsumexp([log_mean, math.log(3.0) + 0.5 * log_var])


def _bisect_q(log_excess, name: str, lam: float, rule: str, q_tol: float) -> float:
    """Smallest ``q`` in ``(0, 1/2)`` with ``log_excess(q) <= 0`` for a decreasing rule.

    Returns the upper end of the final bracket: the rule holds there (within the float
    evaluation of the rule).
    """
    hi = _Q_HI
    if log_excess(hi) > 0:
        raise ValueError(
            f"{name} = {math.log(lam):.6g} is too small: {rule} exceeds e^{name} = {lam:.6g} "
            f"for every q in (0, 1/2) (tried up to q = 1/2 - 2^-40)"
        )
    lo = 0.0
    while hi - lo > q_tol:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if log_excess(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return hi


def three_sigma_q_k(n: int, bits: int, eps: float, k: int, *, q_tol: float = 1e-12) -> float:
    """The 3σ rule ``E R_k + 3 sd(R_k) ≤ e^ε`` with the exact moments of :func:`k_moments`.

    Both moments decrease as ``q`` increases on ``(0, 1/2)`` (every term of the closed
    forms is a non-decreasing function of ``φ``, and ``φ`` decreases in ``q``;
    docs/k-randomization.md §4), so the smallest admissible ``q`` is found by bisection.
    Like the seed's rule this bounds no tail; it is the seed's criterion with correct
    moments.

    Parameters
    ----------
    n, bits, k
        As in :func:`k_moments`.
    eps : float
        Privacy level, ``λ = e^ε``, ``0 < eps < 700``.
    q_tol : float, optional
        Width of the final bisection bracket.

    Returns
    -------
    float
        The smallest ``q`` (to within ``q_tol``, rounded up) with ``μ + 3σ ≤ e^ε``.

    Raises
    ------
    ValueError
        If an argument is out of range, or if no ``q`` in ``(0, 1/2)`` meets the rule
        (then ``eps`` is named: it is too small).
    """
    n, bits, k = _check_nbk(n, bits, k)
    eps = _check_eps(eps)
    lam = math.exp(eps)

    def log_excess(q: float) -> float:
        lm, lv = _log_moments_float(n, bits, q, k)
        return _log_mu_plus_3sigma(lm, lv) - eps

    return _bisect_q(log_excess, "eps", lam, "E R_k + 3 sd(R_k)", q_tol)


def seed_three_sigma_q_k(n: int, bits: int, eps: float, k: int, *, q_tol: float = 1e-12) -> float:
    """The seed's k-randomization rule (6.3), as the seed states it.

    Seed 003 §6:

    ``(1 + φ^L/(kN))^k + 3 √( (φ^L/(kN) + (φ² + φ − 1)^L/(kN)²)^k − (1/(kN) + φ^(2L)/(kN)²)^k ) ≤ λ``

    "solved numerically for φ", and ``q`` from φ by (3.16) — i.e. the smallest ``q`` in
    ``(0, 1/2)`` (largest φ) meeting (6.3).  The left side is (6.1) + 3 √(6.2); both
    increase with φ, so bisection on ``q`` finds it.  Because (6.1) and (6.2) are not
    bounds, neither is this rule (compare :func:`three_sigma_q_k`).

    Parameters
    ----------
    n, bits, k
        As in :func:`k_moments`.
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
    n, bits, k = _check_nbk(n, bits, k)
    eps = _check_eps(eps)
    lam = math.exp(eps)

    def log_excess(q: float) -> float:
        lm, lv = _seed_log_bounds(n, bits, q, k)
        return _log_mu_plus_3sigma(lm, lv) - eps

    return _bisect_q(log_excess, "eps", lam, "the left side of (6.3)", q_tol)


# --------------------------------------------------------------------------------------
# precision of the count estimate
# --------------------------------------------------------------------------------------
def precision_sigma_k(n: int, q: float, k: int) -> float:
    """Standard deviation of the count estimate ``d̂`` from ``k n`` records: ``√(qpN/k)/(p − q)``.

    Derivation.  Fix one bit position; ``d`` of the ``N`` users have it set.  Each user
    reports it ``k`` times, independently flipped with probability ``q``, so the number
    ``M`` of reported set bits is a sum of ``k d`` Bernoulli(p) and ``k (N − d)``
    Bernoulli(q) variables:

    ``E M = k (p d + q (N − d))``, ``Var M = k d p q + k (N − d) q p = k N p q``.

    The seed's estimator ``d̂ = (M/k − q N)/(p − q)`` is unbiased, and

    ``Var d̂ = Var M / (k² (p − q)²) = N p q / (k (p − q)²)``,
    ``σ(d̂) = √(q p N / k) / (p − q)``.

    Seed 003 §6 prints ``σ(d̂) = √((N/k) · √(qp)/(p − q))``: the square root is misplaced
    (that expression scales as ``(qp)^(1/4) (p − q)^(-1/2)`` instead of
    ``(qp)^(1/2) (p − q)^(-1)``).  ``k = 1`` is seed §4's ``√(Npq)/(p − q)``.

    Parameters
    ----------
    n : int
        Number of users ``N`` (1 to 1e9).
    q : float
        Flip probability in ``(0, 1/2)``.
    k : int
        Randomizations per user (>= 1).

    Returns
    -------
    float
    """
    n = _check_int("n", n, 1, MAX_N)
    k = _check_int("k", k, 1, MAX_K)
    qf = float(_check_q(q))
    p = 1.0 - qf
    return math.sqrt(qf * p * n / k) / (1.0 - 2.0 * qf)
