"""``scope="all"`` with ``k > 1`` reports per user (issue 31, docs/composition.md §2).

Oracle: brute force over every neighbouring pair of a tiny population, every user sending ``k``
reports, the multiset of all ``kN`` in exact rationals (``oracles_compose.krand_every_pair``): the
upper end must cover the worst pair's tail and ``δ``, and the lower end (the seed's pair with ``k``
reports) stay below it.
"""

from __future__ import annotations

from fractions import Fraction

import oracles_compose
import pytest

import gpu_rs


@pytest.mark.parametrize(
    ("n", "bits", "q", "k", "eps"), [(3, 2, 0.25, 2, 0.4), (2, 1, 0.2, 3, 0.6), (3, 1, 0.25, 2, 0.3)]
)
def test_every_pair_tail_and_delta_against_brute_force(n, bits, q, k, eps):
    tail, delta = oracles_compose.krand_every_pair(n, bits, Fraction(q), k, eps)
    b = gpu_rs.tail(n, bits, q, eps, k=k, backend="numpy")
    assert b.scope == "all" and "every neighbouring collection" in b.guarantee
    assert b.lower <= tail <= b.upper
    d = gpu_rs.privacy_profile(n, bits, q, k=k, backend="numpy").delta(eps)
    assert d.lower <= delta <= d.upper


def test_lower_end_is_the_seed_pair_with_k_reports():
    """The lower end is the homogeneous k tail, and the upper end is above its upper end too."""
    b = gpu_rs.tail(500, 2, 0.2, 1.0, k=2, backend="numpy")
    seed = gpu_rs.tail(500, 2, 0.2, 1.0, k=2, scope="homogeneous", backend="numpy")
    assert 0.5 * seed.lower <= b.lower <= seed.upper <= b.upper * (1 + 1e-12)


def test_profile_k_refuses_other_scopes():
    with pytest.raises(ValueError, match="scope must be 'all'"):
        gpu_rs.privacy_profile(100, 2, 0.2, k=2, scope="homogeneous")


def test_calibrate_delta_with_k_reports_is_for_every_pair():
    """``calibrate(delta=..., k=2)``: the composed every-pair δ at q meets the target, and says so."""
    c = gpu_rs.calibrate(50, 1, eps=1.0, delta=1e-3, k=2, q_tol=1e-3, backend="numpy")
    assert c.scope == "all" and c.k == 2 and "every neighbouring collection with k reports" in c.guarantee
    assert c.at_q.upper <= 1e-3
    assert gpu_rs.privacy_profile(50, 1, c.q, k=2, backend="numpy").delta(1.0).upper <= 1e-3
    below = gpu_rs.privacy_profile(50, 1, c.q - 2 * c.q_tol, k=2, backend="numpy").delta(1.0)
    assert below.upper > 1e-3  # q − q_tol does not certify (the search's own check, seen from outside)


def test_every_pair_tail_where_the_dominating_pair_has_a_mass_below_the_float_range():
    """At (1e4, 5, q = 0.3) one report's dominating pair has losses of mass below 2^-1022: the k = 2 tail
    was [0, 1] there, between 1.9e-6 at q = 0.29 and 1.1e-8 at 0.31. Now it lies between its neighbours."""
    import math

    ups = [gpu_rs.tail(10**4, 5, q, math.log(2.0), k=2, backend="numpy").upper for q in (0.29, 0.3, 0.31)]
    assert ups[0] > ups[1] > ups[2] > 0.0, ups
