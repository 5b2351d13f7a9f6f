"""Closed forms of seed 003: moments of ``R``, the 3σ rule, local DP, the estimate's spread.

These are host-side scalar formulas; they take ``backend=`` only for a uniform API.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq

from gpu_rs.common.floats import EXP_LIMIT, UNIT
from gpu_rs.common.limits import MAX_BITS, MAX_K
from gpu_rs.common.logspace import log_expm1, logsumexp
from gpu_rs.common.validation import Problem, check_backend_name, check_int, check_k, resolve_eps
from gpu_rs.quantities.krand_moments import k_moments, three_sigma_q_k


def log_phi(q: float) -> float:
    """``log φ`` with ``φ = (p³ + q³)/(pq) = 1 + (p − q)²/(pq)`` (seed 003, 3.14)."""
    p = 1.0 - q
    return math.log1p((p - q) ** 2 / (p * q))


def _moments_x(n: int, bits: int, q: float) -> tuple[float, float]:
    """Closed-form mean and variance of ``X`` (seed 003 §3.1, Appendix 1)."""
    lp = log_phi(q)
    phi = math.exp(lp)
    mean = (n - 1) + math.exp(bits * lp)
    var0 = math.expm1(bits * lp)
    # Var X1 = (φ² + φ − 1)^L − φ^(2L) = φ^(2L) · expm1(L log(1 + (φ − 1)/φ²)).
    var1 = math.exp(2 * bits * lp) * math.expm1(bits * math.log1p((phi - 1.0) / phi**2))
    return mean, (n - 1) * var0 + var1


def moments(n: int, bits: int, q: float, *, k: int = 1, backend: str = "auto") -> tuple[float, float]:
    """Closed-form mean and variance of the privacy ratio ``R = X / n`` (forward order).

    Parameters
    ----------
    n, bits, q
        See :func:`gpu_rs.tail`.
    k : int, optional
        Randomized reports per user, ``1 <= k <= MAX_K``: for ``k > 1`` the exact moments of ``R_k``
        (:func:`gpu_rs.quantities.krand_moments.k_moments`, in log space, cost O(k³)), which also serve
        ``k = 1`` where its direct closed form overflows on the way.
    backend : {"auto", "numpy", "cupy"}
        Accepted for a uniform API (SPEC §2) and checked; a closed form runs on the host.

    Returns
    -------
    (mean, variance) : tuple of float
        ``inf`` where the value overflows float64 (very small ``q``, large ``bits``), with a
        ``RuntimeWarning`` that says so; nothing overflows on the way.
    """
    check_backend_name(backend)
    prob = Problem(n, bits, q, 1.0)
    k = check_k(k)
    if k == 1:
        try:
            mean, var = _moments_x(prob.n, prob.bits, prob.q)
            return mean / prob.n, var / prob.n**2
        except OverflowError:
            pass  # φ^L or φ² beyond float64 on the way (tiny q, large bits): the same moments in log space
    mean_k, var_k = k_moments(prob.n, prob.bits, prob.q, k)
    return float(mean_k), float(var_k)


def _q_from_log_phi(t: float) -> float:
    """Invert (3.14) for ``q < 1/2`` from ``t = log φ`` (seed 003, 3.16), without overflow for large ``φ``.

    ``φ − 1 = (1 − 2q)²/(q(1 − q))`` is the quadratic ``(4 + D) q² − (4 + D) q + 1 = 0`` in ``q``
    (``D = φ − 1``), whose smaller root is ``(1 − s)/2 = 2 / ((4 + D)(1 + s))``, ``s = √(D/(4 + D))``.
    """
    big = math.expm1(t)
    return 2.0 / ((4.0 + big) * (1.0 + math.sqrt(big / (4.0 + big))))


def three_sigma_q(
    n: int,
    bits: int,
    eps: float | None = None,
    *,
    ratio: float | None = None,
    k: int = 1,
    backend: str = "auto",
) -> float:
    """The seed's 3σ rule: the smallest ``q`` with ``μ + 3σ ≤ e^ε`` by (3.15).

    With ``k > 1`` reports per user the rule uses the exact moments of ``R_k``
    (:func:`gpu_rs.quantities.krand_moments.three_sigma_q_k`, cost O(k³) per evaluation),
    not the seed's (6.1)–(6.3), which are not bounds (docs/k-randomization.md §4).

    This does not bound the tail; :func:`gpu_rs.tail` at the returned ``q``
    says what it really risks. ``backend`` is accepted for a uniform API and
    checked; the rule is a scalar root-find on the host.

    Raises
    ------
    ValueError
        If no ``q`` in ``(0, 1/2)`` satisfies the rule: as ``q → 1/2`` the rule's left side
        falls to ``1 + 1/n + 3/√n``, so it needs ``e^ε > 1 + 1/n + 3/√n``.
    """
    check_backend_name(backend)
    eps = resolve_eps(eps, ratio)
    prob = Problem(n, bits, 0.25, eps)
    k = check_k(k)
    if k > 1:
        return three_sigma_q_k(prob.n, prob.bits, eps, k, q_tol=1e-9)
    nn, L, eps = prob.n, prob.bits, prob.eps
    log_n = math.log(nn)

    def excess(t: float) -> float:
        """``log(μ + 3σ) − ε`` at ``t = log φ``, all in logs (no overflow for ``L`` up to 1024, ``ε`` up to 700)."""
        log_a = L * t - log_n  # φ^L / n
        # Var X1 / n² = φ^(2L) expm1(L log1p((φ − 1)/φ²)) / n², with (φ − 1)/φ² = e^−t (1 − e^−t).
        log_cross = 2 * L * t + log_expm1(L * math.log1p(-math.expm1(-t) * math.exp(-t))) - 2.0 * log_n
        return logsumexp([0.0, log_a, math.log(3.0) + 0.5 * logsumexp([log_a, log_cross])]) - eps

    if excess(0.0) > 0:
        floor = 1.0 + 1.0 / nn + 3.0 / math.sqrt(nn)
        raise ValueError(
            f"ratio e^eps = {prob.ratio:.6g} must exceed 1 + 1/n + 3/sqrt(n) = {floor:.6g} for the 3-sigma rule "
            f"(no q < 1/2 meets it at n={nn})"
        )
    hi = 1.0
    while excess(hi) <= 0:
        if hi >= EXP_LIMIT:
            raise ValueError(
                f"eps is too large for the 3-sigma rule: it is met for every q down to {_q_from_log_phi(hi):.3g} "
                f"(n={nn}, bits={L})"
            )
        hi = min(2.0 * hi, EXP_LIMIT)
    return _q_from_log_phi(brentq(excess, 0.0, hi, xtol=1e-15, rtol=8 * UNIT))


def local_dp_q(bits: int, eps: float | None = None, *, ratio: float | None = None) -> float:
    """Flip probability for ε-local DP of an L-bit report: ``1/(1 + λ^(1/L))`` (seed 003, 4.2)."""
    eps = resolve_eps(eps, ratio)
    bits = check_int("bits", bits, 1, MAX_BITS)
    return 1.0 / (1.0 + math.exp(eps / bits))


def precision_sigma(n: int, q: float, k: int = 1) -> float:
    """Standard deviation of the count estimate ``d̂``: ``√(qpN/k)/(p − q)`` (seed 003 §4, §6).

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
        Number of users ``N``.
    q : float
        Flip probability in ``(0, 1/2)``.
    k : int, optional
        Randomized reports per user, ``1 <= k <= MAX_K``.
    """
    prob = Problem(n, 1, q, 1.0)
    k = check_int("k", k, 1, MAX_K)
    p = 1.0 - prob.q
    return math.sqrt(prob.q * p * prob.n / k) / (p - prob.q)
