"""Exact moments of the k-randomization ratio R_k, the 3σ rule on them, and the precision σ(d̂).

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

The seed's own bounds (6.1), (6.2) and rule (6.3), kept for comparison, are in
:mod:`gpu_rs.reference.seed_krand`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from fractions import Fraction

from gpu_rs.common.bisection import bisect_true_end
from gpu_rs.common.limits import MAX_BITS, MAX_EPS, MAX_K, MAX_N
from gpu_rs.common.logspace import log_comb, log_expm1, logsumexp
from gpu_rs.common.validation import check_int, check_open

__all__ = ["k_log_moments", "k_moments", "three_sigma_q_k"]

_LOG_FLOAT_MAX = math.log(1.7976931348623157e308)
_Q_HI = 0.5 - 2.0**-40
"""Largest q tried by the 3σ searches (φ − 1 ≈ 4e-24 there)."""


def _check_q(q: object) -> float | Fraction:
    """``q`` in ``(0, 1/2)``: a ``Fraction`` stays exact, any other real becomes a float."""
    if isinstance(q, Fraction):
        if not 0 < q < Fraction(1, 2):
            raise ValueError(f"q must be a number in (0, 0.5): got {q}")
        return q
    return check_open("q", q, 0.0, 0.5)


def check_nbk(n: object, bits: object, k: object) -> tuple[int, int, int]:
    """``n``, ``bits`` and ``k`` checked against the limits of :mod:`gpu_rs.common.limits`."""
    return check_int("n", n, 1, MAX_N), check_int("bits", bits, 1, MAX_BITS), check_int("k", k, 1, MAX_K)


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
    log_cm = log_comb(M, k)
    log_mean_e = logsumexp([log_comb(k, r) + log_comb(n0, k - r) + r * la for r in range(k + 1)])
    terms = []
    for i in range(k + 1):
        for j in range(k + 1 - i):
            if i + j == 0:
                continue
            lc = log_comb(n0, j)
            if lc == -math.inf:
                continue
            a = k - i - j
            log_s = logsumexp(
                [log_comb(k - i, m) + log_comb(n0 - j, 2 * a - m) + m * la for m in range(min(k - i, 2 * a) + 1)]
            )
            # D = B^i A^j − A^(2i) = A^(2i) (exp(j log A + i log(B/A²)) − 1) ≥ 0
            log_d = 2 * i * la + log_expm1(j * la + i * ld)
            terms.append(log_comb(k, i) + lc + log_comb(2 * a, a) + log_s + log_d)
    return log_mean_e - log_cm, logsumexp(terms) - 2.0 * log_cm


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
        Randomizations per user (1 to ``MAX_K``; the cost is O(k³)).

    Returns
    -------
    (log_mean, log_var) : tuple of float
        ``log E R_k`` and ``log Var R_k`` under ``D_m^k`` (see the module docstring).
    """
    n, bits, k = check_nbk(n, bits, k)
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
        Randomizations per user (1 to ``MAX_K``; the cost is O(k³) terms).
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
    n, bits, k = check_nbk(n, bits, k)
    q = _check_q(q)
    if exact or isinstance(q, Fraction):
        return _moments_exact(n, bits, Fraction(q), k)
    log_mean, log_var = _log_moments_float(n, bits, q, k)
    return _to_float(log_mean, "E R_k"), _to_float(log_var, "Var R_k")


# --------------------------------------------------------------------------------------
# 3σ rules
# --------------------------------------------------------------------------------------
def log_mu_plus_3sigma(log_mean: float, log_var: float) -> float:
    return logsumexp([log_mean, math.log(3.0) + 0.5 * log_var])


def bisect_q(log_excess: Callable[[float], float], eps: float, rule: str, q_tol: float) -> float:
    """Smallest ``q`` in ``(0, 1/2)`` with ``log_excess(q) <= 0`` for a rule that decreases in ``q``.

    Returns the upper end of the final bracket: the rule holds there (within the float
    evaluation of the rule).
    """
    if log_excess(_Q_HI) > 0:
        raise ValueError(
            f"eps = {eps:.6g} is too small: {rule} exceeds e^eps = {math.exp(eps):.6g} "
            f"for every q in (0, 1/2) (tried up to q = 1/2 - 2^-40)"
        )
    return bisect_true_end(lambda q: log_excess(q) <= 0, 0.0, _Q_HI, tol=q_tol)


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
    n, bits, k = check_nbk(n, bits, k)
    eps = check_open("eps", eps, 0.0, MAX_EPS)

    def log_excess(q: float) -> float:
        lm, lv = _log_moments_float(n, bits, q, k)
        return log_mu_plus_3sigma(lm, lv) - eps

    return bisect_q(log_excess, eps, "E R_k + 3 sd(R_k)", q_tol)
