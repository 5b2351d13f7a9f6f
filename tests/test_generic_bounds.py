"""The generic shuffle bounds (``gpu_rs.reference``) are upper bounds: never below our certified lower end.

They hold for every neighbouring pair, so in particular for the homogeneous pair, whose
``δ(ε)`` and ``ε(δ)`` gpu_rs certifies from below.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gpu_rs
from gpu_rs.pairs.clones import collapsed_delta
from gpu_rs.reference.blanket import bennett_delta, hoeffding_delta
from gpu_rs.reference.generic_bounds import (
    blanket_epsilon,
    closed_form_epsilon,
    fmt_delta,
    generic_curves,
    local_epsilon,
    numerical_epsilon,
    rr_variation_ratio_epsilon,
    variation_ratio_delta,
    variation_ratio_epsilon,
)
from gpu_rs.reference.profile_exact import delta_one_bit
from gpu_rs.reference.variation_ratio import rr_total_variation, rr_variation_ratio_delta, variation_ratio_delta_pbq

DELTA = 1e-6
CASES = [(1000, 1, 4.0), (10**4, 1, 4.0), (10**5, 1, 2.0), (300, 2, 3.0)]
DELTA_BOUNDS = (fmt_delta, variation_ratio_delta, hoeffding_delta, bennett_delta)


def _q(bits: int, eps0: float) -> float:
    return 1.0 / (1.0 + math.exp(eps0 / bits))


@pytest.mark.parametrize(("n", "bits", "eps0"), [c for c in CASES if c[0] <= 10**4])
def test_no_generic_epsilon_below_the_certified_lower_end(n, bits, eps0):
    q = _q(bits, eps0)
    assert math.isclose(local_epsilon(bits, q), eps0, rel_tol=1e-12)
    # Every pair at N = 1000; at N = 1e4 the seed's pair (its lower end is a lower end of the
    # worst case too): ε(δ) over every one-bit background costs ~20 s there.
    scope = "all" if n <= 1000 else "homogeneous"
    e = gpu_rs.privacy_profile(n, bits, q, rel_width=1e-2, scope=scope, backend="numpy").epsilon(DELTA, eps_tol=1e-2)
    for bound in (closed_form_epsilon, numerical_epsilon, variation_ratio_epsilon, blanket_epsilon):
        assert bound(n, eps0, DELTA) >= e.lower, bound.__name__
    assert rr_variation_ratio_epsilon(n, bits, q, DELTA) >= e.lower


@pytest.mark.parametrize(("n", "bits", "eps0"), CASES)
@pytest.mark.parametrize("eps", [0.05, 0.2, 0.5, 1.0])
def test_no_generic_delta_below_the_certified_lower_end(n, bits, eps0, eps):
    q = _q(bits, eps0)
    # Every pair up to N = 1e4; beyond, the seed's pair (its lower end is a lower end of the
    # worst case too), since the one-bit search over every background costs ~20 s a value there.
    scope = "all" if n <= 10**4 else "homogeneous"
    d = gpu_rs.privacy_profile(n, bits, q, rel_width=1e-2, scope=scope, backend="numpy").delta(eps)
    for bound in DELTA_BOUNDS:
        assert bound(n, eps0, eps) >= d.lower, bound.__name__
    assert rr_variation_ratio_delta(n, bits, q, eps) >= d.lower


@pytest.mark.parametrize(("n", "q"), [(50, 0.2), (1000, 0.1), (10**5, 0.05)])
def test_generic_delta_above_the_exact_one_bit_profile(n, q):
    eps0 = local_epsilon(1, q)
    for eps in np.linspace(0.02, eps0 * 0.99, 12):
        exact = max(delta_one_bit(n, q, float(eps), True)[0], delta_one_bit(n, q, float(eps), False)[0])
        for bound in DELTA_BOUNDS:
            assert bound(n, eps0, float(eps)) >= exact, (bound.__name__, eps)
        assert rr_variation_ratio_delta(n, 1, q, float(eps)) >= exact


def test_variation_ratio_is_the_clone_pair_at_full_distance():
    # generic (p, beta, q) = (e^eps0, tanh(eps0/2), e^eps0): the clone probability 2/(e^eps0 + 1) = ours at d = L
    n, bits, q, eps = 2000, 3, 0.2, 0.4
    eps0 = local_epsilon(bits, q)
    ours, _ = collapsed_delta(n, bits, q, eps)
    assert variation_ratio_delta(n, eps0, eps) <= ours * (1 + 1e-6)
    assert variation_ratio_delta(n, eps0, eps) <= fmt_delta(n, eps0, eps)  # more clones than e^-eps0
    # the general (p, beta, q) pair with generic parameters is the same clone pair (w = 0)
    general = variation_ratio_delta_pbq(n, math.exp(eps0), math.tanh(eps0 / 2), math.exp(eps0), eps)
    assert math.isclose(general, variation_ratio_delta(n, eps0, eps), rel_tol=1e-2)
    # L-bit randomized response's total variation: below the generic tanh(eps0 / 2) for L >= 2, equal for L = 1
    assert rr_total_variation(bits, q) < math.tanh(eps0 / 2)
    assert math.isclose(rr_total_variation(1, q), math.tanh(local_epsilon(1, q) / 2), rel_tol=1e-12)


def test_curves_for_the_plot():
    curves = generic_curves(1000, 1, 0.1)
    eps = np.array([0.1, 0.5])
    for name, curve in curves.items():
        values = curve(eps)
        assert values.shape == (2,) and np.all((values >= 0) & (values <= 1)) and values[0] >= values[1], name


def test_profile_plot_draws_the_generic_curves_beside_ours(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need matplotlib (the 'plot' extra)")
    profile = gpu_rs.privacy_profile(200, 1, 0.1, backend="numpy")
    path = tmp_path / "profile.png"
    ax = profile.plot(np.linspace(0.1, 1.0, 5), path=str(path), others=generic_curves(200, 1, 0.1))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert path.stat().st_size > 0 and "variation-ratio (Wang et al.)" in labels and len(labels) == 9
    # seven curves and bands, and the two floors marked as floors (issue 33 item 12)
    assert [x.split(" ")[:2] for x in labels if "floor" in x] == [["bound's", "floor:"], ["axis", "floor"]]


@pytest.mark.parametrize(("n", "bits", "q"), [(4, 2, 0.2), (3, 3, 0.1), (6, 2, 0.3), (5, 2, 0.1)])
def test_every_bound_covers_every_pair_by_enumeration(n, bits, q):
    # the worst delta over every neighbouring pair, both orders, by exact enumeration of the outputs
    import oracles_pairs as op

    eps0 = local_epsilon(bits, q)
    for eps in (0.1, 0.3, 1.0):
        found = op.search_pairs(n, bits, q, math.exp(eps), eps=eps, top=1)["worst_delta"][0]
        worst = max(found["delta_fwd"], found["delta_rev"])
        for bound in (*DELTA_BOUNDS, lambda n, e0, eps: rr_variation_ratio_delta(n, bits, q, eps)):
            assert bound(n, eps0, eps) >= worst * (1 - 1e-9), (bound, eps)
