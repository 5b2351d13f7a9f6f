"""The generic shuffle-amplification bounds, for comparison with the certified profile.

They treat L-bit randomized response as an arbitrary ``ε₀``-LDP randomizer with
``ε₀ = L log(p/q)`` and bound every neighbouring pair:

- the closed form of Feldman, McMillan and Talwar ("Hiding among the clones", FOCS 2021,
  Theorem 3.1, in the sharpened form of the authors' reference implementation): for
  ``ε₀ <= log(n / (16 log(4/δ)))``, with ``a = 8 sqrt(e^ε₀ log(4/δ) / n)``, ``c = 8 e^ε₀ / n``,
  ``ε = log(1 + (1 − e^−ε₀) / (1 + e^(−ε₀ − log(1 + a + c))) · (a + c))``; outside that regime it
  gives no amplification (``ε = ε₀``);
- their numerical bound: the same clone reduction as :mod:`gpu_rs.pairs.clones` with the generic
  clone probability ``e^−ε₀`` (ours uses ``2 r^L / (1 + r^d)`` and the distance ``d`` of the
  change, which is larger), ``δ(ε)`` bounded by :func:`gpu_rs.pairs.clones.reduced_delta`.
"""

from __future__ import annotations

import math

from gpu_rs.common.bisection import bisect_true_end
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs.clones import reduced_delta

BISECTIONS = 40
"""Bisection steps for ``ε(δ)`` of the numerical bound."""


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


def numerical_epsilon(n: int, eps0: float, delta: float) -> float:
    """The smallest ``ε`` (to ``2^−40 ε₀``) whose generic clone bound ``δ(ε)`` is ``<= delta``."""
    return bisect_true_end(
        lambda eps: reduced_delta(n, math.exp(-eps0), eps0, eps) <= delta, 0.0, eps0, steps=BISECTIONS
    )
