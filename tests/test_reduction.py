"""The finer proven bounds for every pair (gpu_rs.pairs.reduction, gpu_rs.pairs.blanket).

Checked against the oracles of tests/oracles_pairs.py (which never import gpu_rs): the exact
δ of the reduced pairs, the exact δ and tail of every neighbouring pair of small populations,
and exact tails of homogeneous backgrounds at moderate N.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import oracles_pairs as op
import pytest

import gpu_rs
from gpu_rs.pairs import blanket, clones, counts, every_pair, reduction


@pytest.mark.parametrize(("n", "bits", "d", "q"), [(12, 3, 2, 0.2), (30, 2, 2, 0.25), (8, 3, 3, 0.15), (40, 3, 1, 0.3)])
def test_graded_clone_delta_against_the_exact_reduced_pair(n, bits, d, q):
    eps = np.array([-9.0, -0.2, 0.05, 0.3, 0.8])
    got = reduction.graded_delta(n, bits, q, d, eps)
    lo, hi = op.reduced_delta(n, bits, d, q, eps, kind="clone")
    assert np.all(got >= lo - 1e-12)
    # the graded pair is a post-processing of the collapsed one, so the collapsed bound is above the exact δ too,
    # also below every ratio (ε = −9), where it once gave 0
    eps0 = d * math.log((1 - q) / q) * (1 + 1e-15)
    collapsed = clones.reduced_deltas(n, clones.clone_probability(bits, q, d), eps0, eps)
    assert np.all(collapsed >= lo - 1e-12), (collapsed, lo)
    # lattice rounding (step 2e-3 on atoms in (0, 2)) moves the threshold by little
    assert np.all(got <= hi + 0.02), (got, hi)


@pytest.mark.parametrize(("n", "bits", "d", "q", "old"), [(1, 3, 2, 0.25, 0.5625), (30, 3, 2, 0.25, 0.1443)])
def test_graded_clone_delta_is_zero_beyond_the_largest_loss(n, bits, d, q, old):
    """At ``ε >= d log(p/q)`` the exact reduced pair's δ is 0; the lattice's rounding left ``old`` there on 2d396b0
    (its threshold past the top point still charged that point's mass). Just below, the bound still holds."""
    top = d * math.log((1.0 - q) / q)
    eps = np.array([top * (1.0 + 1e-12), top + 0.5, top - 0.05])
    lo, hi = op.reduced_delta(n, bits, d, q, eps, kind="clone")
    got = reduction.graded_delta(n, bits, q, d, eps)
    assert lo[0] == hi[0] == lo[1] == hi[1] == 0.0 and old > 0.0
    assert got[0] == got[1] == 0.0 and lo[2] <= got[2]


@pytest.mark.parametrize(("n", "bits", "d", "q"), [(12, 3, 2, 0.2), (30, 2, 2, 0.25), (8, 3, 3, 0.15), (20, 4, 4, 0.3)])
def test_graded_blanket_delta_against_the_exact_reduced_pair(n, bits, d, q):
    for eps in (0.05, 0.3, 0.8):
        got = blanket.blanket_delta(n, bits, q, d, eps)
        lo, hi = op.reduced_delta(n, bits, d, q, [eps], kind="blanket")
        assert got >= lo[0] - 1e-12
        # the spread adds noise of variance <= m s^2 / 4 to the sum: at most s / 2 to each delta_m
        h, w = blanket.report_values(bits, q, d, eps)
        kern = blanket.spread(h, w, blanket.clip_level(h, w, blanket.CELLS[0]), blanket.CELLS[0])
        assert got <= hi[0] + kern.step / 2.0 + kern.added + 1e-9, (eps, got, hi)


@pytest.mark.parametrize(
    ("n", "bits", "d", "q", "eps"), [(200, 3, 3, 0.25, 0.5), (1000, 5, 5, 0.2446, 0.416), (300, 4, 2, 0.2, 0.9)]
)
def test_spread_lattice_against_the_rounded_up_lattice(n, bits, d, q, eps):
    # the earlier lattice rounded every h up to a step of 2e-3: a float oracle of it (FFT)
    # brackets delta; the spread must stay above its lower end and not exceed its upper end
    got = blanket.blanket_delta(n, bits, q, d, eps)
    lo, hi = op.reduced_delta_grid(n, bits, d, q, [eps], kind="blanket", step=2e-3)
    assert lo[0] - 1e-9 <= got <= hi[0] * (1.0 + 1e-3) + 1e-9, (got, lo, hi)


def _every_pair(n, bits):
    """Every neighbouring pair with the changing user at 0…0 → 1…1 0…0 (d ones), by symmetry all."""
    vectors = ["".join(v) for v in itertools.product("01", repeat=bits)]
    for d in range(1, bits + 1):
        x, xp = "0" * bits, "1" * d + "0" * (bits - d)
        for bg in itertools.combinations_with_replacement(vectors, n - 1):
            yield d, [*bg, x], [*bg, xp]


@pytest.mark.parametrize(("n", "bits", "q"), [(3, 3, 0.2), (4, 2, 0.1), (4, 2, 0.3)])
def test_delta_bounds_cover_every_pair_of_a_small_population(n, bits, q):
    eps_grid = np.array([-0.3, 0.1, 0.5, 1.0])
    bound = {
        d: np.minimum(
            reduction.graded_delta(n, bits, q, d, eps_grid),
            [blanket.blanket_delta(n, bits, q, d, float(e)) for e in eps_grid],
        )
        for d in range(1, bits + 1)
    }
    for d, D, Dp in _every_pair(n, bits):
        for i, e in enumerate(eps_grid):
            exact = max(op.pair_delta(D, Dp, q, float(e)), op.pair_delta(Dp, D, q, float(e)))
            assert exact <= bound[d][i] + 1e-12, (D, Dp, e)


@pytest.mark.parametrize("bits", [2, 3])
@pytest.mark.parametrize(("n", "q", "eps"), [(4, 0.2, 0.5), (5, 0.1, 1.0), (6, 0.3, 0.2)])
def test_tail_bound_covers_every_enumerated_pair(n, bits, q, eps):
    if bits == 3 and n == 6:
        n = 5
    search = gpu_rs.worst_pairs(n, bits, q, eps)
    got = every_pair.Curve(n, bits, q).tail(eps)
    assert got.bound >= search.upper
    assert got.bound <= clones.collapsed_tail(n, bits, q, eps)[0]


@pytest.mark.parametrize(("v", "x", "xp"), [("111", "000", "100"), ("000", "000", "111"), ("011", "000", "110")])
def test_tail_bound_covers_homogeneous_backgrounds_at_moderate_n(v, x, xp):
    n, q, eps = 10, 0.15, 0.6
    got = every_pair.Curve(n, 3, q).tail(eps).bound
    for order in ("fwd", "rev"):
        lo, _ = op.homogeneous_v_tail(n, v, x, xp, q, math.exp(eps), order)
        assert lo <= got


@pytest.mark.slow
def test_improves_on_the_collapsed_clone_bound():
    n, bits, q, eps = 200, 3, 0.25, 0.7
    got = every_pair.Curve(n, bits, q).tail(eps)
    old = clones.collapsed_tail(n, bits, q, eps)[0]
    assert got.bound < 0.5 * old
    assert every_pair.Curve(n, bits, q, blankets=False).tail(eps).bound <= old


def test_distances_whose_ratio_cannot_exceed_the_threshold_are_skipped():
    # (p/q)^1 = 2.33 < e^1: a one-bit change never crosses; L = 1 has nothing else
    assert every_pair.Curve(50, 1, 0.3).tail(1.0).bound == 0.0


@pytest.mark.parametrize(("bits", "d", "q", "eps"), [(8, 8, 0.05, 0.5), (8, 4, 0.05, 0.5), (14, 14, 0.25, 2.0)])
def test_clipped_blanket_against_exact_enumeration(bits, d, q, eps):
    # h clipped to [-H, H] (E[(h - H)_+] added): at the level chosen, and at a quarter of max h
    h, w = blanket.report_values(bits, q, d, eps)
    types = op.reduced_types(bits, d, q, "blanket")
    for level in (blanket.clip_level(h, w, blanket.CELLS[0]), 0.25 * float(h.max())):
        kern = blanket.spread(h, w, level, blanket.CELLS[0])
        assert kern.added > 0.0 or level >= float(h.max())
        got, _, _ = blanket.deltas(kern, 4)
        for m in range(1, 5):
            exact = float(op._delta_m_exact(types, m, [math.exp(eps)])[0])
            assert exact <= got[m - 1] + 1e-12
            # clipping below -H loosens by at most E[(-H - h)_+]
            slack = kern.step / 2.0 + kern.added + float(np.dot(w, np.maximum(-level - h, 0.0)))
            assert got[m - 1] <= exact + slack + 1e-9, (m, got[m - 1], exact)


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(4, 2, 0.2, 0.3), (3, 3, 0.15, 0.8)])
def test_curve_delta_covers_every_pair_and_stays_below_the_clone_bound(n, bits, q, eps):
    got = float(every_pair.Curve(n, bits, q).deltas(np.array([eps]))[0])
    exact = max(max(op.pair_delta(D, Dp, q, eps), op.pair_delta(Dp, D, q, eps)) for _, D, Dp in _every_pair(n, bits))
    assert exact <= got <= clones.collapsed_delta(n, bits, q, eps)[0] * (1.0 + 1e-9) + 1e-12


@pytest.mark.parametrize(("n", "q", "eps", "eta"), [(1000, 0.25, 0.6931, 1e-3), (1000, 0.35, 0.6931, 1e-3)])
def test_tail_decide_skips_the_family_and_keeps_the_decision(n, q, eps, eta):
    """``tail(..., decide=eta)`` at L = 5 (scope ``all``): the upper end of the call without the search
    (nor the pools, which only the full call tries), the seed's pair as the lower end."""
    full = gpu_rs.tail(n, 5, q, eps)
    quick = gpu_rs.tail(n, 5, q, eps, decide=eta)
    assert quick.upper == gpu_rs.tail(n, 5, q, eps, search_seconds=0).upper >= full.upper
    assert quick.lower <= full.lower
    assert quick.pairs[0].pair.startswith("the seed's pair") and "a decision against" in quick.worst
    assert math.isclose(sum(quick.budget.to_dict().values()), quick.upper - quick.lower, rel_tol=1e-9)
    with pytest.raises(ValueError, match="decide"):
        gpu_rs.tail(n, 5, q, eps, decide=1.5)


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps"), [(1000, 2, 0.1, 1.0), (10**5, 3, 0.02, 1.0), (1000, 5, 0.3, 0.69), (1000, 40, 0.46, 1.0)]
)
def test_collapsed_clone_bound_with_a_floor_is_the_full_one_where_it_is_returned(n, bits, q, eps):
    full = clones.collapsed_tail(n, bits, q, eps)
    for floor in (full[0] * (1.0 + 1e-9), full[0] + 0.1, full[0], 0.5 * full[0], 2.0, math.inf):
        got = clones.collapsed_tail(n, bits, q, eps, floor)
        if full[0] < floor:
            assert got == full, (floor, got, full)  # the same floats, step and distance
        else:
            assert got == (1.0, 0.0, bits), (floor, got, full)  # the trivial bound, never taken


def test_collapsed_deltas_at_many_eps_are_the_scalar_floats():
    rng = np.random.default_rng(7)
    counts = [*range(40), 100, 999, 5000, 10**6]
    for eps0 in (0.05, 0.7, 3.0, 24.0):
        below = [-eps0 - 1.0, -eps0 * (1.0 + 1e-9), -0.5 * eps0]  # below every ratio of the pair, and between
        eps = np.concatenate([rng.uniform(1e-9, 1.3 * eps0, 25), [eps0, np.nextafter(eps0, 0.0)], below])
        lam = np.array([math.exp(e) for e in eps])
        want = [[clones.given_clones(c, eps0, float(e)) for e in eps] for c in counts]
        assert clones.given_clones_many(counts, eps0, eps, lam).tolist() == want, eps0
        # at ε < −ε₀ every output has P > e^ε Q: δ = 1 − e^ε exactly (it was 0 at every count)
        for c in counts:
            assert clones.given_clones(c, eps0, -eps0 - 1.0) >= -math.expm1(-eps0 - 1.0)


@pytest.mark.parametrize(
    ("n", "clone_prob", "eps0"), [(1000, 0.01, 1.0), (10**9, 0.002, 2.2), (5, 0.3, 0.5), (1, 0.1, 1.0)]
)
def test_reduced_deltas_are_the_scalar_floats(n, clone_prob, eps0):
    """The blocks' sum one ε at a time from the scalar given_clones, in the same order: the same floats."""

    def scalar(e):
        if e >= eps0:
            return 0.0
        if n == 1:
            return clones.given_clones(0, eps0, e)
        law = counts.binomial(n - 1, clone_prob)
        cdf, total, start = np.concatenate([[0.0], np.cumsum(law.pmf)]), counts.OUTSIDE, law.lo
        while start <= law.hi:
            stop = min(law.hi + 1, start + max(1, int(clones.BLOCK_SHARE * start)))
            mass = float(cdf[stop - law.lo] - cdf[start - law.lo]) * (1.0 + law.rel + (stop - law.lo) * 2.0**-53)
            total += mass * (clones.given_clones(start, eps0, e) if mass > clones.TRIVIAL else 1.0)
            start = stop
        return min(1.0, total * (1.0 + 4.0 * 2.0**-53))

    eps = np.concatenate([np.linspace(-eps0 - 2.0, 1.3 * eps0, 40), [eps0, np.nextafter(eps0, 0.0)]])
    want = [scalar(float(e)) for e in eps]
    assert clones.reduced_deltas(n, clone_prob, eps0, eps).tolist() == want


@pytest.mark.parametrize(("n", "bits", "q", "d", "eps"), [(1000, 5, 0.3, 5, 0.6), (10**5, 8, 0.3, 6, 1.0)])
def test_settled_blanket_keeps_the_decision_against_enough(n, bits, q, d, eps):
    free = blanket.blanket_delta(n, bits, q, d, eps)
    for enough in (1.5 * free, 1.01 * free, free, 0.99 * free, 0.5 * free):
        full = blanket.blanket_delta(n, bits, q, d, eps, enough)
        settled = blanket.blanket_delta(n, bits, q, d, eps, enough, settle=True)
        assert (settled <= enough) == (full <= enough), (enough, settled, full)
        assert settled >= full and (settled == full or settled <= enough), (enough, settled, full)


def test_spread_out_takes_every_item_once_coarse_to_fine():
    assert every_pair.spread_out([1, 2, 3, 4, 5, 6, 7]) == [4, 2, 6, 1, 3, 5, 7]
    assert sorted(every_pair.spread_out(list(range(1, 40)))) == list(range(1, 40))
    assert every_pair.spread_out([]) == []


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(1000, 5, 0.3, 0.69), (10**4, 12, 0.42, 1.0), (3000, 8, 0.3, 1.0)])
def test_order_of_distances_does_not_move_the_bound(n, bits, q, eps):
    # below the trivial bound 1 (where many distances tie at 1 and the one named depends on the order)
    grid = eps - np.array(every_pair.STEPS)
    factor = -np.expm1(-np.array(every_pair.STEPS))
    per_d = {d: reduction.graded_delta(n, bits, q, d, grid) / factor * (1.0 + 1e-15) for d in range(1, bits + 1)}
    ranked = sorted(per_d, key=lambda k: -float(per_d[k].min()))
    ways = [ranked, ranked[::-1], ranked[:1] + every_pair.spread_out(sorted(ranked[1:])), sorted(ranked)]
    curve = every_pair.Curve(n, bits, q)
    bound, names = curve.published(grid)
    cap = (bound / factor * (1.0 + 1e-15), names)
    got = {curve.largest(grid, order, per_d, cap) for order in ways}
    assert len(got) == 1, got
    assert got.pop().bound < 1.0


@pytest.mark.parametrize("seed", range(6))
def test_tail_at_is_the_tail_of_the_convolution_formed_in_full(seed):
    """The graded lattice's tails at the points asked, without the convolution, within their charged
    round-off of the tail of the convolution formed in exact rationals."""
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    s = rng.random(int(rng.integers(1, 60))) * (rng.random() < 0.5 or 1e-200)
    idx = np.sort(rng.choice(40, size=int(rng.integers(1, 6)), replace=False))
    law = rng.random(idx.shape[0])
    at = rng.integers(-5, s.shape[0] + 50, size=int(rng.integers(1, 12)))
    got = reduction.tail_at(s, idx, law, at)
    full = [Fraction(0)] * (s.shape[0] + int(idx.max()))
    for k, i in enumerate(idx):
        for j, v in enumerate(s):
            full[int(i) + j] += Fraction(float(law[k])) * Fraction(float(v))
    rounds = s.shape[0] + at.shape[0] * idx.shape[0] + idx.shape[0] + 2
    for value, i in zip(got, at, strict=True):
        exact = sum(full[max(int(i), 0) :], Fraction(0))
        assert abs(Fraction(float(value)) - exact) <= Fraction(rounds * 2**-53) * exact


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 300, 5000])
def test_leading_count_is_searchsorted_of_the_prefix_sums(n):
    from gpu_rs.pairs.lattice import leading_count

    rng = np.random.default_rng(n)
    x = rng.random(n) * np.logspace(-30, 0, n)
    for level in (0.0, 1e-25, 1e-16, 1e-3, 0.5, 1e9):
        assert leading_count(x, level) == int(np.searchsorted(np.cumsum(x), level, side="right"))
