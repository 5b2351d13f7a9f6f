"""Wang et al.'s variation-ratio bound with the parameters of L-bit randomized response.

Wang, Peng, Li, Wen, Li, Yu, Wang and Yang, "Privacy amplification via shuffling: unified,
simplified, and tightened", PVLDB 17 (2024); code: wangsw/PrivacyAmplification
(``amplificationUB``). A randomizer has ``(p, β, q)``-variation when, for every two inputs
``x⁰, x¹`` and every third ``x``, the likelihood ratio of ``x⁰`` to ``x¹`` is at most ``p``, their
total variation at most ``β``, and the ratio of ``x⁰`` (or ``x¹``) to ``x`` at most ``q``. With
``α = β/(p − 1)`` and ``r = αp/q``, the shuffled output is then a post-processing of the counts
``(a, b)`` of reports ``0`` and ``1`` in the pair where the changed user reports ``0, 1, *`` with
probabilities ``(pα, α, w)`` or ``(α, pα, w)``, ``w = 1 − α − pα``, and each of the ``n − 1``
others reports ``0`` or ``1`` with probability ``r`` each (``*`` otherwise). Both orders have the
same ``δ`` (swap the labels ``0`` and ``1``).

For L-bit randomized response (every pair of inputs, any distance): ``p = q = e^ε₀``,
``ε₀ = L log(p/q)``, and ``β`` the total variation between the all-zeros and all-ones inputs,
``Σ_{l < L/2} C(L, l)(q^l p^{L−l} − p^l q^{L−l})``, the largest over pairs (it grows with the
distance). A generic ``ε₀``-LDP randomizer has ``β = (e^ε₀ − 1)/(e^ε₀ + 1)``, ``w = 0``. With L-bit
randomized response's own ``β`` (``w > 0``) the result is **not** a bound for every pair: the seed's
pair lies above it at N = 4, L = 3, q = 0.05 near ``ε₀`` (docs/worst-case.md §8.8). It is kept here
for comparison only; gpu_rs's every-pair bound does not use it.

``δ(ε)``: with ``m = a + b`` the count of ``0``/``1`` reports, the ratio of the two laws at
``(m, a)`` is ``(K(pa + m − a) + w) / (K(a + p(m − a)) + w)``, ``K = (1 − 2r)/((n − m) r)`` ·
``α``/``α``, increasing in ``a``; so ``δ = Σ_m max_j Σ_{a >= j} (P − λQ)(m, a)``, each inner sum
a combination of ``Bin(m, 1/2)`` and ``Bin(m − 1, 1/2)`` tails, maximized over the integers
around the crossing point. Counts ``m`` outside ``WIDTH`` standard deviations of the mean are
charged their whole mass.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import comb
from scipy.stats import binom

WIDTH = 40.0
"""Half-width of the window of counts ``m``, in standard deviations."""
SLACK = 1e-12
"""Relative allowance for the float evaluation of the binomial tails (scipy, not certified)."""


def rr_total_variation(bits: int, q: float) -> float:
    """``β``: total variation between L-bit randomized response of the all-zeros and all-ones vectors."""
    p = 1.0 - q
    ls = np.arange(0, (bits + 1) // 2)  # l < L/2
    return float(np.sum(comb(bits, ls) * (q**ls * p ** (bits - ls) - p**ls * q ** (bits - ls))))


def variation_ratio_delta_pbq(n: int, p: float, beta: float, q: float, eps: float) -> float:
    """``δ(ε)`` of the variation-ratio pair with parameters ``(p, β, q)`` (module docstring)."""
    lam = math.exp(eps)
    if lam >= p:
        return 0.0
    alpha = beta / (p - 1.0)
    r = alpha * p / q
    w = max(0.0, 1.0 - alpha - p * alpha)
    if n == 1:
        return max(0.0, (p * alpha - lam * alpha)) + max(0.0, alpha - lam * p * alpha)  # one report, no others
    law = binom(n - 1, 2.0 * r)
    mean, sd = (n - 1) * 2.0 * r, math.sqrt((n - 1) * 2.0 * r * (1.0 - 2.0 * r)) + 1.0
    lo, hi = max(0, math.floor(mean - WIDTH * sd)), min(n, math.ceil(mean + WIDTH * sd) + 1)
    m = np.arange(lo, hi + 1)
    b_now, b_prev = law.pmf(m), law.pmf(m - 1)  # P(C = m), P(C = m − 1): the user adds a 0/1 or not
    outside = float(law.cdf(lo - 2) + law.sf(hi))
    # crossing point of the ratio in a: K α [(p − 1)(1 + λ) a + m (1 − λ p)] = w (λ − 1), K α = (1 − 2r) α / ((n − m) r)
    with np.errstate(divide="ignore", invalid="ignore"):
        k_alpha = np.where(m < n, (1.0 - 2.0 * r) * alpha / (np.maximum(n - m, 1) * r), np.inf)
        star = (w * (lam - 1.0) / k_alpha + m * (lam * p - 1.0)) / ((p - 1.0) * (1.0 + lam))
    base = np.floor(np.nan_to_num(star, nan=0.0, posinf=float(n), neginf=0.0))
    best = np.zeros_like(b_now)
    for shift in (-1.0, 0.0, 1.0, 2.0):
        j = np.clip(base + shift, 0, m + 1)
        s_prev_jm1 = binom.sf(j - 2, m - 1, 0.5)  # P(Bin(m − 1, 1/2) >= j − 1)
        s_prev_j = binom.sf(j - 1, m - 1, 0.5)
        s_now_j = binom.sf(j - 1, m, 0.5)
        value = (
            (p * alpha - lam * alpha) * b_prev * s_prev_jm1
            + (alpha - lam * p * alpha) * b_prev * s_prev_j
            + (1.0 - lam) * w * b_now * s_now_j
        )
        best = np.maximum(best, np.nan_to_num(value, nan=0.0))
    total = float(np.sum(best)) * (1.0 + SLACK) + outside + SLACK * float(np.sum(b_now + b_prev)) * 1e-3
    return min(1.0, total)


def rr_variation_ratio_delta(n: int, bits: int, q: float, eps: float) -> float:
    """Wang et al.'s ``δ(ε)`` with L-bit randomized response's own ``β``."""
    e0 = bits * math.log((1.0 - q) / q)
    return variation_ratio_delta_pbq(n, math.exp(e0), rr_total_variation(bits, q), math.exp(e0), eps)
