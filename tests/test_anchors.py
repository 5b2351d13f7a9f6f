"""Where the every-pair curve computes its blankets, and the convex bound between them (gpu_rs/pairs/anchors.py).

Oracle: the exact largest ``δ`` over every pair of small populations (every background, both orders,
every output histogram enumerated by ``oracles_pairs.pair_delta``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import oracles_pairs as op
import pytest

from gpu_rs.engine.atoms import largest_loss
from gpu_rs.pairs import every_pair
from gpu_rs.pairs.anchors import convex_bound, convex_max, next_anchor


def worst_deltas(n: int, bits: int, q: float, d: int, eps: np.ndarray) -> np.ndarray:
    """The exact largest ``δ(ε)`` over every pair at distance ``d``, both orders, at each ``ε``."""
    vectors = ["".join(v) for v in itertools.product("01", repeat=bits)]
    pairs = [
        (x, y) for x, y in itertools.permutations(vectors, 2) if sum(a != b for a, b in zip(x, y, strict=True)) == d
    ]
    backgrounds = list(itertools.combinations_with_replacement(vectors, n - 1))
    return np.array([max(op.pair_delta([*bg, x], [*bg, y], q, e) for bg in backgrounds for x, y in pairs) for e in eps])


def test_next_anchor_spreads_the_anchors_where_delta_is_not_negligible():
    values = np.logspace(-1, -40, 100)  # 1e-15 is crossed at index 35
    done: list[int] = []
    while (at := next_anchor(values, done)) is not None and len(done) < 16:
        done = sorted([*done, at])
    assert done[0] == 0 and done[-1] == 99  # the ends first: an export's last value is its mass at infinity
    assert [i for i in done if i > 36] == [49, 99]  # bisecting to the crossing costs two anchors beyond it
    assert len(done) == 16 and max(np.diff([i for i in done if i <= 36])) <= 3  # the rest evenly before it
    assert next_anchor(values, list(range(100))) is None


@pytest.mark.parametrize(("n", "bits", "q"), [(3, 2, 0.2), (4, 2, 0.15), (3, 3, 0.25)])
def test_convex_bound_covers_every_pair_between_and_beyond_the_points(n, bits, q):
    """Exact worst values at a few ε, nothing known (1) at the others: the convex bound stays above the
    exact worst δ everywhere, is 0 from the largest loss on, and is far below 1 between the points."""
    for d in range(1, bits + 1):
        top = largest_loss(d, q)
        eps = np.linspace(0.02, 1.2 * top, 13)
        truth = worst_deltas(n, bits, q, d, eps)
        known = np.zeros(eps.shape, dtype=bool)
        known[[0, 4, 8]] = True
        values = np.where(known, truth, 1.0)
        bound = convex_bound(eps, values, top)
        assert np.all(bound >= truth), (d, bound, truth)
        assert np.all(bound[eps >= top] == 0.0)
        between = ~known & (eps < top) & (eps > eps[0])
        assert np.all(bound[between] < 1.0)
        assert np.all(bound <= values)


def test_a_long_batch_stays_near_short_ones_where_delta_matters():
    """(10⁴, 5, 0.26), 100 values of ε up to the largest loss (as a k > 1 composition asks): the anchors are
    spread where δ exceeds 10⁻¹⁵ (ε below about 0.9), so no value above 10⁻⁹ is more than 6 times the same ε
    asked in a batch of ``ANCHORS`` (each its own anchor). Before, the anchors were spread over the whole
    range and each ε took the one below: 7.8 times at ε = 0.209, 15 000 times at ε = 0.628."""
    n, bits, q = 10**4, 5, 0.26
    top = bits * math.log((1 - q) / q)
    many = np.linspace(top / 100, top, 100)
    pick = slice(1, 2 * every_pair.ANCHORS, 2)
    batch = every_pair.Curve(n, bits, q).deltas(many)[pick]
    alone = every_pair.Curve(n, bits, q).deltas(many[pick])
    matters = alone > 1e-9
    assert matters.sum() >= 5
    assert np.all(batch[matters] <= alone[matters] * 6), batch / alone


def test_convex_max_is_the_maximum_of_every_distance_lowered():
    """Lowering only the distances that attain the maximum gives the maximum of all of them lowered."""
    rng = np.random.default_rng(3)
    eps = np.sort(rng.uniform(0.01, 3.0, 40))
    for _ in range(20):
        bounds = {d: np.minimum.accumulate(rng.uniform(0, 1, 40) ** rng.uniform(1, 8)) for d in range(1, 7)}
        tops = {d: float(rng.uniform(0.5, 3.5)) for d in bounds}
        full = np.max(np.stack([convex_bound(eps, v, tops[d]) for d, v in bounds.items()]), axis=0)
        assert np.array_equal(convex_max(eps, bounds, tops), full)


def test_convex_bound_past_the_largest_double():
    """Where e^ε overflows (ε >= 700, L = 1024 bits) the points keep their values; below, the bound works."""
    eps = np.array([0.5, 1.0, 650.0, 800.0, 1200.0])
    values = np.array([0.3, 0.3, 1e-300, 1e-300, 5.0])
    out = convex_bound(eps, values, 1000.0)
    assert out[0] <= 0.3 and out[1] <= 0.3 and out[2] <= 1e-300 and out[3] == 1e-300 and out[4] == 0.0


def test_a_shuffled_repeated_long_batch_covers_every_pair():
    """More values than ANCHORS, shuffled and repeated, some just below the largest loss: every value of
    the curve stays above the exact worst δ over every pair (every distance, both orders)."""
    n, bits, q = 4, 2, 0.2
    top = largest_loss(bits, q)
    eps = np.concatenate([np.linspace(0.03, 1.1 * top, 20), top * np.array([1 - 1e-3, 1 - 1e-6])])
    eps = np.random.default_rng(5).permutation(np.concatenate([eps, eps[::3]]))
    batch = every_pair.Curve(n, bits, q).deltas(eps)
    worst = np.max([worst_deltas(n, bits, q, d, eps) for d in range(1, bits + 1)], axis=0)
    assert np.all(batch >= worst), np.min(batch - worst)
    assert np.all(batch[eps >= top] == 0.0)


def test_convex_bound_on_a_line_rounds_outwards():
    """Points on the line δ = 1 − λ/2 (through (0, 1) and (2, 0) too): every value of the bound is at least
    the line's exact value at e^ε (50 digits), so the rounding of λ and of the result goes outwards."""
    import mpmath

    mpmath.mp.dps = 50
    eps = np.linspace(0.01, math.log(2) - 1e-3, 30)
    line = [1 - mpmath.exp(mpmath.mpf(float(e))) / 2 for e in eps]
    values = np.array([math.nextafter(float(v), 1.0) for v in line])  # at most 2 ulp above the line
    values[1::2] = 1.0  # unknown: the bound must come from the chords
    out = convex_bound(eps, values, math.log(2) * (1 + 1e-15))
    assert all(mpmath.mpf(float(v)) >= exact for v, exact in zip(out, line, strict=True))
    assert np.all(out[1::2] < 1.0)
