"""The generic shuffle-amplification bounds, for comparison with the certified profile.

Each treats L-bit randomized response as an arbitrary ``ε₀``-LDP randomizer with
``ε₀ = L log(p/q)`` and bounds ``δ(ε)`` (or ``ε(δ)``) over every neighbouring pair, in
both orders. They are upper bounds, so none may fall below gpu_rs's certified lower end
(tests/test_generic_bounds.py checks it):

- :func:`closed_form_epsilon`: Feldman, McMillan and Talwar, "Hiding among the clones: a
  simple and nearly optimal analysis of privacy amplification by shuffling", FOCS 2021,
  Theorem 3.1, in the sharpened form of the authors' reference implementation
  (apple/ml-shuffling-amplification, ``closedformanalysis``): for
  ``ε₀ <= log(n / (16 log(4/δ)))``, with ``a = 8 sqrt(e^ε₀ log(4/δ) / n)``, ``c = 8 e^ε₀ / n``,
  ``ε = log(1 + (1 − e^−ε₀) / (1 + e^(−ε₀ − log(1 + a + c))) · (a + c))``; outside that regime
  it gives no amplification (``ε = ε₀``);
- :func:`fmt_delta`: their numerical bound, the clone pair (:mod:`gpu_rs.pairs.clones`) with
  the generic clone probability ``e^−ε₀``: ``C ~ Bin(n − 1, e^−ε₀)`` clones, each a fair coin
  between the two reports, ``δ(ε)`` bounded by :func:`gpu_rs.pairs.clones.reduced_delta`;
- :func:`variation_ratio_delta`: the variation-ratio reduction of Wang, Peng, Li, Wen, Li, Yu,
  Wang and Yang, "Privacy amplification via shuffling: unified, simplified, and tightened",
  PVLDB 17 (2024) (code: wangsw/PrivacyAmplification, ``amplificationUB``). A randomizer with
  ``(p, β, q)``-variation (likelihood ratio ``<= p`` and total variation ``<= β`` between the
  two inputs, ratio ``<= q`` against any other input) is dominated by the pair in which the
  changed user reports ``0``, ``1``, ``*`` with probabilities ``(pα, α, 1 − α − pα)`` or
  ``(α, pα, 1 − α − pα)``, ``α = β/(p − 1)``, and every other user ``0`` or ``1`` with
  probability ``αp/q`` each. For a generic ``ε₀``-LDP randomizer ``p = q = e^ε₀`` and
  ``β = (e^ε₀ − 1)/(e^ε₀ + 1)``, so ``1 − α − pα = 0`` and this is the clone pair with clone
  probability ``2/(e^ε₀ + 1)`` (their "strong clone"), again bounded by ``reduced_delta``;
- the same reduction with L-bit randomized response's own total variation ``β`` (smaller than the
  generic one for ``L >= 2``): :mod:`gpu_rs.reference.variation_ratio`;
- the privacy blanket of Balle, Bell, Gascón and Nissim: :mod:`gpu_rs.reference.blanket`.

``ε(δ)`` of a ``δ(ε)`` bound is the upper end of a bisection on ``[0, ε₀]``: ``δ(ε₀) = 0``
for every pair (the likelihood ratio is at most ``e^ε₀``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gpu_rs.common.bisection import bisect_true_end
from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs.clones import reduced_delta
from gpu_rs.reference.blanket import blanket_delta
from gpu_rs.reference.variation_ratio import rr_variation_ratio_delta

BISECTIONS = 40
"""Bisection steps for ``ε(δ)`` of a numerical bound (to ``2^−40 ε₀``)."""


def local_epsilon(bits: int, q: float) -> float:
    """``ε₀ = L log(p/q)``: the local privacy of one L-bit report."""
    return -bits * log_r(q)


def closed_form_epsilon(n: int, eps0: float, delta: float) -> float:
    """The closed-form ``ε`` of Feldman, McMillan and Talwar (``ε₀`` outside its regime)."""
    if n < 2 or eps0 > math.log(n / (16.0 * math.log(4.0 / delta))):
        return eps0
    a = 8.0 * math.sqrt(math.exp(eps0) * math.log(4.0 / delta) / n)
    c = 8.0 * math.exp(eps0) / n
    shrink = (1.0 - math.exp(-eps0)) / (1.0 + math.exp(-eps0 - math.log1p(a + c)))
    return min(eps0, math.log1p(shrink * (a + c)))


def fmt_delta(n: int, eps0: float, eps: float) -> float:
    """Feldman, McMillan and Talwar's numerical ``δ(ε)``: clone probability ``e^−ε₀``."""
    return reduced_delta(n, math.exp(-eps0), eps0, eps)


def variation_ratio_delta(n: int, eps0: float, eps: float) -> float:
    """Wang et al.'s variation-ratio ``δ(ε)`` for a generic ``ε₀``-LDP randomizer: clone probability ``2/(e^ε₀ + 1)``.

    The probability is rounded down (fewer clones still give an upper bound).
    """
    return reduced_delta(n, 2.0 / (math.exp(eps0) + 1.0) * (1.0 - 8.0 * UNIT), eps0, eps)


def epsilon_of(delta_of: Callable[[float], float], eps0: float, delta: float) -> float:
    """The smallest ``ε`` (to ``2^−40 ε₀``, from above) with ``delta_of(ε) <= delta``."""
    return bisect_true_end(lambda eps: delta_of(eps) <= delta, 0.0, eps0, steps=BISECTIONS)


def numerical_epsilon(n: int, eps0: float, delta: float) -> float:
    """``ε(δ)`` of Feldman, McMillan and Talwar's numerical bound."""
    return epsilon_of(lambda eps: fmt_delta(n, eps0, eps), eps0, delta)


def variation_ratio_epsilon(n: int, eps0: float, delta: float) -> float:
    """``ε(δ)`` of Wang et al.'s variation-ratio bound (generic parameters)."""
    return epsilon_of(lambda eps: variation_ratio_delta(n, eps0, eps), eps0, delta)


def blanket_epsilon(n: int, eps0: float, delta: float) -> float:
    """``ε(δ)`` of Balle et al.'s privacy blanket (the better of its Hoeffding and Bennett bounds)."""
    return epsilon_of(lambda eps: blanket_delta(n, eps0, eps), eps0, delta)


def rr_variation_ratio_epsilon(n: int, bits: int, q: float, delta: float) -> float:
    """``ε(δ)`` of Wang et al.'s variation-ratio bound with L-bit randomized response's own ``β``."""
    return epsilon_of(lambda eps: rr_variation_ratio_delta(n, bits, q, eps), local_epsilon(bits, q), delta)


def generic_curves(n: int, bits: int, q: float) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The generic ``δ(ε)`` bounds as curves, for ``PrivacyProfile.plot(others=...)``."""
    eps0 = local_epsilon(bits, q)

    def curve(bound: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda eps: np.array([min(1.0, bound(float(e))) for e in np.ravel(eps)])

    return {
        "FMT numerical (clones)": curve(lambda e: fmt_delta(n, eps0, e)),
        "variation-ratio (Wang et al.)": curve(lambda e: variation_ratio_delta(n, eps0, e)),
        "variation-ratio, β of L-bit RR (not a bound for every pair)": curve(
            lambda e: rr_variation_ratio_delta(n, bits, q, e)
        ),
        "privacy blanket (Balle et al.)": curve(lambda e: blanket_delta(n, eps0, e)),
    }
