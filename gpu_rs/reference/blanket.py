"""The privacy blanket bound of Balle, Bell, Gascón and Nissim for a generic ``ε₀``-LDP randomizer.

Balle, Bell, Gascón and Nissim, "The privacy blanket of the shuffle model", CRYPTO 2019
(arXiv:1903.02837), §5: every ``ε₀``-LDP randomizer is a mixture, with probability
``γ >= e^−ε₀``, of an input-independent *blanket* law; the shuffled output is then bounded
through the privacy amplification random variable ``L`` of the blanket, whose range,
maximum and variance have generic bounds in ``ε₀`` and ``ε``:

    range ``b = (e^ε + 1)(e^ε₀ − e^−ε₀)``, maximum ``b₊ = e^ε₀ (1 − e^(ε − 2ε₀))``,
    variance ``v = e^ε₀ (e^2ε + 1) − 2γ e^(ε − 2ε₀)``, and ``a = e^ε − 1``.

- Hoeffding: ``δ(ε) <= b² / (4 a γ n) · (1 − γ (1 − e^(−2a²/b²)))^n``;
- Bennett: ``δ(ε) <= (1/(γ n)) E[e^(−M v/b₊² φ(a b₊/v))] / (log(1 + a b₊/v)/b₊)`` over
  ``M ~ Bin(n, γ)``, ``M >= 1``, with ``φ(u) = (1 + u) log(1 + u) − u``;

both as in the authors' code (BorjaBalle/amplification-by-shuffling,
``shuffleddp/amplification_bounds.py``, classes ``Hoeffding`` and ``BennettExact`` with
``LDPMechanism``'s generic parameters). Both are upper bounds, so :func:`blanket_delta`
takes the smaller. The Bennett expectation runs over the counts within ``WIDTH`` standard
deviations of ``nγ``; the mass outside is charged at the largest value of the summand there.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

WIDTH = 40.0
"""Half-width of the window of blanket counts ``M``, in standard deviations."""


def hoeffding_delta(n: int, eps0: float, eps: float) -> float:
    """The blanket's Hoeffding bound on ``δ(ε)`` (0 for ``ε >= ε₀``)."""
    if eps >= eps0:
        return 0.0
    gamma, a = math.exp(-eps0), math.expm1(eps)
    b = (math.exp(eps) + 1.0) * (math.exp(eps0) - math.exp(-eps0))
    log_rest = n * math.log1p(-gamma * -math.expm1(-2.0 * a * a / (b * b)))
    return b * b / (4.0 * a * gamma * n) * math.exp(log_rest) if a > 0 else math.inf


def bennett_delta(n: int, eps0: float, eps: float) -> float:
    """The blanket's Bennett bound on ``δ(ε)`` (0 for ``ε >= ε₀``)."""
    if eps >= eps0:
        return 0.0
    gamma, a = math.exp(-eps0), math.expm1(eps)
    if a <= 0:
        return math.inf
    b_plus = math.exp(eps0) * -math.expm1(eps - 2.0 * eps0)
    v = math.exp(eps0) * (math.exp(2.0 * eps) + 1.0) - 2.0 * gamma * math.exp(eps - 2.0 * eps0)
    u = a * b_plus / v
    rate = v / b_plus**2 * ((1.0 + u) * math.log1p(u) - u)
    scale = b_plus / math.log1p(u)
    sd = math.sqrt(n * gamma * (1.0 - gamma))
    lo, hi = max(1, math.floor(n * gamma - WIDTH * sd)), min(n, math.ceil(n * gamma + WIDTH * sd))
    m = np.arange(lo, hi + 1)
    inside = float(np.sum(binom.pmf(m, n, gamma) * np.exp(-m * rate)))
    # the summand decreases in m: below the window it is at most its value at 1, above at most at hi
    outside = float(binom.cdf(lo - 1, n, gamma) - binom.pmf(0, n, gamma)) * math.exp(-rate)
    outside += float(binom.sf(hi, n, gamma)) * math.exp(-hi * rate)
    return scale * (inside + outside) / (gamma * n)


def blanket_delta(n: int, eps0: float, eps: float) -> float:
    """The smaller of the blanket's Hoeffding and Bennett bounds on ``δ(ε)``."""
    return min(hoeffding_delta(n, eps0, eps), bennett_delta(n, eps0, eps))
