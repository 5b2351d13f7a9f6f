"""The certified privacy profile (SPEC §1.2) against exact oracles.

Oracles: the exact one-bit profile of both orders (sums in log space,
``gpu_rs.reference.profile_exact``), and exact enumeration of every output histogram for
small N and L (``oracles_pairs.pair_delta``), including every neighbouring pair
for ``scope="all"``.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import oracles_pairs as op
import pytest

import gpu_rs
from gpu_rs.cli.main import main as cli_main
from gpu_rs.reference.profile_exact import delta_one_bit


def _contains(bounds, exact_lo, exact_hi, slack=1e-12):
    lo, hi = bounds
    return lo <= exact_hi * (1 + slack) + 1e-300 and exact_lo * (1 - slack) <= hi


@pytest.mark.parametrize(
    ("n", "q", "eps"),
    [(1000, 0.1, 0.25), (1000, 0.1, 0.5), (50, 0.2, 0.4), (10**5, 0.3, 0.05), (10**6, 0.1, 0.01), (10**6, 0.3, 0.003)],
)
def test_one_bit_both_orders_against_exact_sums(n, q, eps):
    p = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy")
    d = p.delta(eps)
    fwd, rev = delta_one_bit(n, q, eps, True), delta_one_bit(n, q, eps, False)
    assert _contains(d.forward, *fwd) and _contains(d.reverse, *rev)
    assert d.lower <= max(fwd[1], rev[1]) and max(fwd[0], rev[0]) <= d.upper
    assert d.met and (d.upper - d.lower <= 1e-3 * d.lower * 1.001 or d.upper < 1e-9)
    assert math.isclose(d.budget.total, d.upper - d.lower, rel_tol=1e-9, abs_tol=1e-300)


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(4, 2, 0.2, 0.3), (5, 3, 0.15, 0.6), (3, 4, 0.25, 0.2)])
def test_both_orders_against_enumeration(n, bits, q, eps):
    zeros = ["0" * bits] * n
    outlier = ["0" * bits] * (n - 1) + ["1" * bits]
    fwd = op.pair_delta(zeros, outlier, q, eps)  # delta_{P||Q}, P = the law under D_m
    rev = op.pair_delta(outlier, zeros, q, eps)
    d = gpu_rs.privacy_profile(n, bits, q, scope="homogeneous", backend="numpy").delta(eps)
    assert _contains(d.forward, fwd, fwd, 1e-9) and _contains(d.reverse, rev, rev, 1e-9)
    f = gpu_rs.privacy_profile(n, bits, q, scope="forward", backend="numpy").delta(eps)
    assert f.reverse is None and _contains((f.lower, f.upper), fwd, fwd, 1e-9)


def test_forward_delta_lies_below_the_forward_tail():
    # delta_{P||Q}(eps) <= P[R > e^eps]: the forward delta lies below the certified forward tail
    n, bits, q, eps = 1000, 5, 0.2446, 0.5
    d = gpu_rs.privacy_profile(n, bits, q, rel_width=1e-2, scope="homogeneous", backend="numpy").delta(eps)
    t = gpu_rs.tail(n, bits, q, eps, scope="forward", backend="numpy")
    assert 0 < d.forward[0] <= d.forward[1] <= t.upper
    assert d.met and d.upper - d.lower <= 1e-2 * d.lower * 1.001


@pytest.mark.parametrize("order", ["forward", "reverse"])
@pytest.mark.parametrize(("n", "q", "eps"), [(1000, 0.1, 0.25), (60, 0.2, 0.5)])
def test_integral_route_against_exact_sums(order, n, q, eps):
    # the fallback for strong cancellation: the integral of certified tails over a dyadic grid
    p = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy")
    lo, hi, queries = p.engine.orders[order].integral(eps, 1e-2, 1e-12, 400)
    exact = delta_one_bit(n, q, eps, order == "forward")
    assert _contains((lo, hi), *exact) and queries > 0
    assert hi - lo <= max(1e-12, 1e-2 * lo) * 1.001


@pytest.mark.parametrize(("n", "q", "delta"), [(1000, 0.1, 1e-6), (1000, 0.25, 1e-3), (200, 0.05, 1e-9)])
def test_epsilon_of_delta_is_bracketed(n, q, delta):
    e = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy").epsilon(delta)
    assert e.met and e.lower <= e.estimate <= e.upper
    exact_at = lambda eps: max(delta_one_bit(n, q, eps, True)[1], delta_one_bit(n, q, eps, False)[1])  # noqa: E731
    assert exact_at(e.upper) <= delta
    if e.lower > 0:
        assert max(delta_one_bit(n, q, e.lower, True)[0], delta_one_bit(n, q, e.lower, False)[0]) > delta


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps"),
    [(4, 2, 0.2, 0.3), (3, 3, 0.1, 1.0), (5, 1, 0.3, 0.2), (6, 2, 0.15, 0.6), (5, 2, 0.3, 0.1), (3, 3, 0.25, 0.4)],
)
def test_scope_all_covers_every_pair(n, bits, q, eps):
    vectors = ["".join(v) for v in itertools.product("01", repeat=bits)]
    worst = 0.0
    for bg in itertools.combinations_with_replacement(vectors, n - 1):
        for x, y in itertools.permutations(vectors, 2):
            worst = max(worst, op.pair_delta([*list(bg), x], [*list(bg), y], q, eps))
    d = gpu_rs.privacy_profile(n, bits, q, scope="all", backend="numpy").delta(eps)
    assert d.lower <= worst * (1 + 1e-9) and worst <= d.upper
    assert math.isclose(d.budget.total, d.upper - d.lower, rel_tol=1e-9, abs_tol=1e-300)


def test_vectorized_and_to_dict():
    p = gpu_rs.privacy_profile(300, 2, 0.2, scope="homogeneous", backend="numpy")
    found = p.delta([0.2, 0.4, 0.8])
    assert len(found) == 3 and all(a.upper >= b.upper for a, b in itertools.pairwise(found))
    out = json.loads(json.dumps(gpu_rs.common.serialize.plain(p.to_dict())))
    assert out["scope"] == "homogeneous" and len(out["evaluated"]) == 3


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: gpu_rs.privacy_profile(0, 1, 0.1), "n"),
        (lambda: gpu_rs.privacy_profile(10, 1, 0.7), "q"),
        (lambda: gpu_rs.privacy_profile(10, 1, 0.1, scope="some"), "scope"),
        (lambda: gpu_rs.privacy_profile(10, 1, 0.1).delta(-1.0), "eps"),
        (lambda: gpu_rs.privacy_profile(10, 1, 0.1).epsilon(1.5), "delta"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_cli_profile(capsys):
    assert (
        cli_main(
            [
                "profile",
                "--n",
                "1000",
                "--bits",
                "1",
                "--q",
                "0.25",
                "--delta",
                "1e-6",
                "--backend",
                "numpy",
                "--scope",
                "homogeneous",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "eps(1e-06)" in out and "scope     homogeneous" in out
    assert (
        cli_main(
            ["profile", "--n", "100", "--bits", "2", "--q", "0.2", "--eps", "0.5", "--json", "--scope", "homogeneous"]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    assert d["lower"] <= d["upper"] and d["eps"] == 0.5
    assert cli_main(["profile", "--n", "100", "--bits", "2", "--q", "0.2"]) == 2
    assert "exactly one of" in capsys.readouterr().err


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "profile.png"
    gpu_rs.privacy_profile(300, 1, 0.2, scope="homogeneous", backend="numpy").plot([0.1, 0.3, 0.6], path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("n", "eps", "delta"), [(1000, 0.5, 1e-6), (300, 1.0, 1e-4)])
def test_calibrate_to_delta_against_exact_sums(n, eps, delta):
    c = gpu_rs.calibrate(n, 1, eps, delta=delta, scope="homogeneous", backend="numpy")
    assert isinstance(c, gpu_rs.ProfileCalibration) and c.scope == "homogeneous"
    assert c.at_q.upper <= delta and 0 < c.q < 0.5
    exact = max(delta_one_bit(n, c.q, eps, True)[1], delta_one_bit(n, c.q, eps, False)[1])
    assert exact <= delta
    below = gpu_rs.privacy_profile(n, 1, c.q - c.q_tol, scope="homogeneous", backend="numpy").delta(eps)
    assert below.upper > delta  # q - q_tol does not certify
    assert json.loads(json.dumps(gpu_rs.common.serialize.plain(c.to_dict())))["q"] == c.q


def test_calibrate_to_delta_input_and_cli(capsys):
    with pytest.raises(ValueError, match="exactly one"):
        gpu_rs.calibrate(100, 1, 0.5, 1e-3, delta=1e-6)
    with pytest.raises(ValueError, match="delta"):
        gpu_rs.calibrate(100, 1, 0.5, delta=1.5)
    args = [
        "calibrate",
        "--n",
        "1000",
        "--bits",
        "1",
        "--eps",
        "0.5",
        "--delta",
        "1e-6",
        "--quiet",
        "--scope",
        "homogeneous",
    ]
    assert cli_main(args) == 0
    assert "certified delta(0.5) <=" in capsys.readouterr().out
    assert cli_main([*args, "--eta", "1e-3"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize(("n", "bits", "eps0"), [(1000, 1, 4.0), (10**5, 1, 4.0), (300, 2, 3.0)])
def test_generic_bounds_never_below_the_certified_profile(n, bits, eps0):
    # the generic shuffle bounds hold for every pair, so for the homogeneous pair too
    from gpu_rs.reference.generic_bounds import closed_form_epsilon, local_epsilon, numerical_epsilon

    q = 1.0 / (1.0 + math.exp(eps0 / bits))
    assert math.isclose(local_epsilon(bits, q), eps0, rel_tol=1e-12)
    e = gpu_rs.privacy_profile(n, bits, q, rel_width=1e-2, scope="homogeneous", backend="numpy").epsilon(
        1e-6, eps_tol=1e-2
    )
    assert closed_form_epsilon(n, eps0, 1e-6) >= e.lower
    assert numerical_epsilon(n, eps0, 1e-6) >= e.lower


def test_sufficient_dp_and_delta_relations():
    # in each order: delta(eps) <= P[R > e^eps], and P[R > e^eps'] <= delta(eps) / (1 - e^(eps - eps'))
    n, bits, q, eps, eps2 = 2000, 2, 0.1, 0.3, 0.6
    p = gpu_rs.privacy_profile(n, bits, q, scope="homogeneous", backend="numpy")
    d, d2 = p.delta(eps), p.delta(eps2)
    t = {x.pair: x for x in gpu_rs.tail(n, bits, q, eps, backend="numpy").pairs}
    t2 = {x.pair: x for x in gpu_rs.tail(n, bits, q, eps2, backend="numpy").pairs}
    for name in ("forward", "reverse"):
        assert getattr(d, name)[0] <= t[name].upper
        assert getattr(d2, name)[0] <= t2[name].upper
        assert t2[name].lower <= getattr(d, name)[1] / -math.expm1(eps - eps2)


@pytest.mark.parametrize(("n", "bits", "q"), [(1000, 2, 0.1192), (50, 3, 0.2)])
def test_scope_all_upper_end_is_the_graded_clone_bound(n, bits, q):
    """The proven upper end is never above the collapsed clone bound, and below it somewhere."""
    from gpu_rs.pairs import clones

    found = gpu_rs.privacy_profile(n, bits, q, scope="all", backend="numpy").delta([0.2, 0.5, 1.0])
    collapsed = [clones.collapsed_delta(n, bits, q, d.eps)[0] for d in found]
    assert all(d.upper <= c * (1 + 1e-12) for d, c in zip(found, collapsed, strict=True))
    assert any(d.upper < 0.9 * c for d, c in zip(found, collapsed, strict=True)), (found, collapsed)
    assert all(math.isclose(d.budget.total, d.upper - d.lower, rel_tol=1e-9) for d in found)


def test_scope_all_upper_end_is_the_proven_bound_even_where_the_pair_known_is_unresolved():
    """The every-pair upper end is the proven curve's value, as for tails: where the seed's pair's own
    interval is wider (δ(0.5) at (10⁹, 64, 0.362) is [0, 1] without tail queries) it takes the proven
    bound too (its δ is at most every pair's), and the budget still adds up to the width."""
    p = gpu_rs.privacy_profile(1000, 5, 0.2446, backend="numpy")
    p.engine.hinge = None  # the pair known's intervals below as given (no tilted refinement)
    for proven, seed in ((0.3, (0.0, 1.0)), (0.3, (0.01, 0.02)), (1e-3, (2e-3, 0.5))):
        d = p.engine._one(0.5, {"forward": seed, "reverse": seed}, proven, None)
        assert d.upper == max(proven, seed[0]) and d.lower == seed[0]
        assert math.isclose(d.budget.total, d.upper - d.lower, rel_tol=1e-12, abs_tol=1e-300)


def test_scope_all_takes_the_graded_blanket_and_a_long_batch_still_covers_every_pair():
    """For L >= 2 the proven upper end is the least of the clone bounds and the graded blanket
    (pairs/every_pair.py): at L = 5, N = 1e4, q = 0.31 the blanket is far below the graded clone
    bound. A batch longer than ANCHORS takes the blanket of the anchor below each ε (δ does not
    increase with ε), lowered to the convex bound through every value (pairs/anchors.py): it stays
    above the exact worst δ of every pair (N = 4, L = 2), and here never below the values computed
    one ε at a time."""
    from gpu_rs.pairs import every_pair

    eps = np.array([0.25, 0.3])
    blanket = [float(every_pair.Curve(10**4, 5, 0.31).deltas(np.array([e]))[0]) for e in eps]
    clone = [float(every_pair.Curve(10**4, 5, 0.31, blankets=False).deltas(np.array([e]))[0]) for e in eps]
    assert all(b < 0.2 * c for b, c in zip(blanket, clone, strict=True)), (blanket, clone)
    n, bits, q = 4, 2, 0.2
    many = np.linspace(0.05, 1.2, every_pair.ANCHORS + 9)
    batch = every_pair.Curve(n, bits, q).deltas(many)
    vectors = ["".join(v) for v in itertools.product("01", repeat=bits)]
    for e, up in zip(many, batch, strict=True):
        worst = max(
            op.pair_delta([*bg, x], [*bg, y], q, e)
            for bg in itertools.combinations_with_replacement(vectors, n - 1)
            for x, y in itertools.permutations(vectors, 2)
        )
        assert worst <= up and every_pair.Curve(n, bits, q).deltas(np.array([e]))[0] <= up * (1 + 1e-12)


@pytest.mark.parametrize(("n", "bits", "q", "delta"), [(1000, 2, 0.1192, 1e-6), (2000, 1, 0.05, 1e-4)])
def test_scope_all_epsilon_is_a_tight_root_of_each_end(n, bits, q, delta):
    p = gpu_rs.privacy_profile(n, bits, q, scope="all", backend="numpy")
    e = p.epsilon(delta, eps_tol=1e-4)
    assert e.at_upper.upper <= delta and e.at_lower is not None and e.at_lower.lower > delta
    # each end is a root to the tolerance: just below the upper end the proven δ is still above delta,
    # just above the lower end the certified lower δ is no longer above it
    assert p.delta(e.upper * (1 - 2e-4)).upper > delta
    assert p.delta(e.lower * (1 + 2e-4) + 1e-12).lower <= delta


def test_max_queries_zero_returns_the_curve_as_it_is():
    """``max_queries=0`` (the default) makes no tail query; ``met`` says whether the width was reached."""
    p = gpu_rs.privacy_profile(2000, 3, 0.2, scope="homogeneous", rel_width=1e-3, backend="numpy")
    for d in p.delta([0.2, 0.6, 1.2, 2.5]):
        assert d.queries == 0
        assert d.met == (d.upper - d.lower <= max(1e-12, 1e-3 * d.lower))


def test_one_bit_every_pair_beyond_the_search_budget_falls_back_to_the_proven_bound(monkeypatch):
    """Where the search over every one-bit background would take too long (N = 1e9), scope "all"
    answers with the proven bound (not a refusal), and says so; with the search forced off (N = 1e6)
    the bound contains the homogeneous pair; where both run (N = 1e4) it lies above the search's maximum."""
    from gpu_rs.pairs import background_delta

    assert not background_delta.fits(10**9, 0.01799)
    assert gpu_rs.privacy_profile(10**9, 1, 0.01799, backend="numpy").guarantee.startswith("proven upper bound")
    exact = gpu_rs.privacy_profile(10**4, 1, 0.01799, backend="numpy")
    assert exact.guarantee == "proven for every neighbouring collection"
    monkeypatch.setattr(background_delta, "fits", lambda n, q: False)
    p = gpu_rs.privacy_profile(10**6, 1, 0.01799, backend="numpy")
    assert p.guarantee.startswith("proven upper bound")
    h = gpu_rs.privacy_profile(10**6, 1, 0.01799, scope="homogeneous", backend="numpy")
    e, eh = p.epsilon(1e-6, eps_tol=1e-3), h.epsilon(1e-6, eps_tol=1e-3)
    assert e.upper >= eh.upper and e.lower <= eh.upper
    bound = gpu_rs.privacy_profile(10**4, 1, 0.01799, backend="numpy")
    for eps in (0.1, 0.3, 0.6):
        b, x = bound.delta(eps), exact.delta(eps)
        assert b.upper >= x.upper and b.lower <= x.upper, (eps, b, x)
