"""Exact ties: ``ε`` at or within a few ulps of ``d log(p/q)``, where a report's largest likelihood
ratio equals ``e^ε`` (issue 29: ``privacy_profile(5, 2, 0.49).delta(log(0.51/0.49))`` raised
``ZeroDivisionError``).

Every quantity and scope must answer there, and its interval must still contain the maximum over
every neighbouring pair, computed by exhaustive enumeration (``oracles_pairs.search_pairs``).

Expected cost: ~20-40 s (hypothesis: 30 examples of a few small calls each).
"""

from __future__ import annotations

import math

import numpy as np
import oracles_pairs as OP
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

SCOPES = ("forward", "homogeneous", "all")
N = 4
"""Users in the property test: small enough for every pair to be enumerated."""
SLACK = 1e-12
"""Float error of the enumeration oracle's δ, relative to 1."""
MARGIN = 1e-9
"""The enumeration's float log-ratios err by far less than this: a ratio it finds above ``(1 + MARGIN) e^ε``
is truly above ``e^ε`` (near a tie it may put a ratio on the wrong side of ``e^ε`` itself)."""


def tie(q: float, d: int, ulps: int) -> float:
    """``d log(p/q)`` moved by ``ulps`` units in the last place."""
    eps = d * math.log((1.0 - q) / q)
    step = math.inf if ulps > 0 else -math.inf
    for _ in range(abs(ulps)):
        eps = math.nextafter(eps, step)
    return eps


@pytest.mark.parametrize(
    "n,bits,q,eps",
    [
        (5, 2, 0.49, math.log(0.51 / 0.49)),
        (1000, 2, 0.45, 0.20067069546215124),
        (5, 2, 0.35, 1.2380784168124475),
    ],
)
def test_issue_ties_answer(gpu_rs, n, bits, q, eps):
    """The three settings of issue 29 that raised ``ZeroDivisionError`` in ``clones.given_clones``."""
    for scope in SCOPES:
        d = gpu_rs.privacy_profile(n, bits, q, scope=scope).delta(eps)
        assert 0.0 <= d.lower <= d.upper <= 1.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    q=st.sampled_from([0.05, 0.1, 0.1692, 0.2446, 0.3, 0.35, 0.4, 0.45, 0.49]),
    bits=st.integers(2, 3),
    d=st.integers(1, 3),
    ulps=st.integers(-3, 3),
)
@example(q=0.45, bits=2, d=2, ulps=2)  # just above the float tie, below or above the true one
@example(q=0.49, bits=3, d=1, ulps=0)
@example(q=0.05, bits=3, d=3, ulps=-3)
def test_ties_every_quantity(gpu_rs, q, bits, d, ulps):
    """At and near each tie, ``δ`` and the tail answer in every scope and contain the every-pair truth."""
    d = min(d, bits)
    eps = tie(q, d, ulps)
    truth = OP.search_pairs(N, bits, q, math.exp(eps) * (1.0 + MARGIN), eps=eps)
    worst_delta = max(max(r["delta_fwd"], r["delta_rev"]) for r in truth["pairs"])
    surely_below = max(max(r["tail_fwd"], r["tail_rev"]) for r in truth["pairs"])  # <= the true tail
    for scope in SCOPES:
        delta = gpu_rs.privacy_profile(N, bits, q, scope=scope).delta(eps)
        tail = gpu_rs.tail(N, bits, q, eps, scope=scope, search_seconds=0)
        for b in (delta, tail):
            assert np.isfinite(b.lower) and np.isfinite(b.upper)
            assert 0.0 <= b.lower <= b.upper <= 1.0
    # scope "all" covers every pair: its upper ends are at least the enumerated maximum
    assert delta.upper >= worst_delta - SLACK
    assert tail.upper >= surely_below
