"""The every-pair upper ends are never above a published every-pair bound (issue 29, item 4).

The published bounds, each proven for every neighbouring pair of an ``ε₀``-LDP randomizer
(``ε₀ = L log(p/q)`` for L-bit randomized response), evaluated by ``gpu_rs.reference``:

* Feldman, McMillan and Talwar's numerical clone bound (FOCS 2021), ``fmt_delta``;
* the stronger clone bound, i.e. Wang et al.'s variation ratio with generic parameters,
  ``variation_ratio_delta``.

``δ(ε)`` is compared directly; the tail through docs/worst-case.md §8.3 on the grid of steps the
curve uses, ``P[R > e^ε] <= δ(ε') / (1 − e^(ε' − ε))`` at its best ``ε'``. Both sides are computed
with outward rounding, so the comparison allows round-off: a relative ``1e-9`` and the absolute
floor of the certified arithmetic (``FLOOR``), where both sides are below about ``1e-15``.

Expected cost: ~30-60 s (56 settings of δ, 14 of the tail, and the public API at the settings of
the issue).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gpu_rs
from gpu_rs.pairs import every_pair
from gpu_rs.reference.generic_bounds import fmt_delta, local_epsilon, variation_ratio_delta

REL = 1e-9
FLOOR = 2e-15
"""The certified clone bounds carry an absolute round-off term of about 9e-16 (``clones.given_clones``)."""
ISSUE = [(10**5, 40, 0.475, 0.06), (2 * 10**6, 64, 0.47, 0.2), (3 * 10**4, 12, 0.4, 0.3), (10**7, 40, 0.351, 2.0)]
"""The settings of issue 29 where a published bound beat the every-pair upper end by orders of magnitude."""


def _settings(count: int, seed: int = 29) -> list[tuple[int, int, float, float]]:
    """``count`` settings spanning L = 2 … 64, N = 10 … 1e9, q = 0.05 … 0.49, ε inside ``(0, ε₀)``."""
    rng = np.random.default_rng(seed)
    out = list(ISSUE)
    while len(out) < count:
        bits = int(rng.choice([2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 40, 48, 64]))
        n = int(rng.choice([10, 100, 1000, 10**4, 10**5, 10**6, 10**7, 10**9]))
        q = float(rng.choice([0.05, 0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.47, 0.49]))
        eps = round(float(rng.uniform(0.02, 0.8)) * bits * math.log((1 - q) / q), 4)
        if eps <= 8.0:
            out.append((n, bits, q, eps))
    return out


def published(n: int, bits: int, q: float, eps: float) -> float:
    """The least published every-pair ``δ(ε)``."""
    eps0 = local_epsilon(bits, q)
    return min(fmt_delta(n, eps0, eps), variation_ratio_delta(n, eps0, eps))


def published_tail(n: int, bits: int, q: float, eps: float) -> float:
    """The least published ``δ`` turned into a tail by §8.3, at the curve's steps."""
    steps = np.array(every_pair.STEPS)
    return min(published(n, bits, q, eps - s) / -math.expm1(-s) for s in steps)


def below(ours: float, theirs: float) -> bool:
    return ours <= theirs * (1.0 + REL) + FLOOR


@pytest.mark.parametrize(("n", "bits", "q", "eps"), _settings(56))
def test_every_pair_delta_never_above_a_published_bound(n, bits, q, eps):
    ours = float(every_pair.Curve(n, bits, q).deltas(np.array([eps]))[0])
    assert below(ours, published(n, bits, q, eps)), (ours, published(n, bits, q, eps))


CHEAP_TAILS = [s for s in _settings(56) if s[0] <= 10**4 and s[1] <= 24 and s[2] <= 0.45][:14]


@pytest.mark.parametrize(("n", "bits", "q", "eps"), CHEAP_TAILS)
def test_every_pair_tail_never_above_a_published_bound(n, bits, q, eps):
    ours = every_pair.Curve(n, bits, q).tail(eps).bound
    assert below(ours, published_tail(n, bits, q, eps)), (ours, published_tail(n, bits, q, eps))


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [*ISSUE[2:], (1000, 5, 0.2446, math.log(2.0))])
def test_public_api_under_scope_all(n, bits, q, eps):
    """``privacy_profile(...).delta`` and ``tail(...)`` under the default scope, at the issue's settings."""
    d = gpu_rs.privacy_profile(n, bits, q).delta(eps)
    assert d.lower <= d.upper and below(d.upper, published(n, bits, q, eps))
    t = gpu_rs.tail(n, bits, q, eps, search_seconds=0)
    assert t.lower <= t.upper and below(t.upper, published_tail(n, bits, q, eps))


def test_the_profile_uses_the_blanket_at_forty_bits():
    """δ(2) at L = 40, N = 1e7 (issue 29): the graded blanket is used beyond L = 16."""
    assert gpu_rs.privacy_profile(10**7, 40, 0.351).delta(2.0).upper <= 0.22
    assert gpu_rs.privacy_profile(10**7, 40, 0.3754).delta(2.0).upper <= 1e-4
