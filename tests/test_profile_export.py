"""``PrivacyProfile.to_dp_accounting``: a pessimistic dp_accounting PLD from the certified profile.

Oracles: the exact one-bit profile of both orders (``gpu_rs.reference.profile_exact``) and
dp_accounting's own PLD of the exact one-bit pmfs (``gpu_rs.reference.one_bit_pld``),
optimistic, which is below the truth.
"""

from __future__ import annotations

import math

import pytest

import gpu_rs
from gpu_rs.common.bisection import bisect_true_end
from gpu_rs.reference.profile_exact import delta_one_bit

pytest.importorskip("dp_accounting", reason="dp_accounting (the 'accounting' extra) is not installed")

from gpu_rs.reference.one_bit_pld import one_bit_pld

N, Q, DELTA = 1000, 0.1, 1e-6


def _exact_delta(eps: float, forward: bool) -> tuple[float, float]:
    """Bracket of the exact one-bit ``δ`` of one order at any real ``eps`` (negative through the other order)."""
    if eps > 0:
        return delta_one_bit(N, Q, eps, forward)
    lo, hi = delta_one_bit(N, Q, -eps, not forward)
    return -math.expm1(eps) + math.exp(eps) * lo, -math.expm1(eps) + math.exp(eps) * hi


def _exact_epsilon_lower(delta: float) -> float:
    """A lower end of the exact one-bit ``ε(δ)``: the largest bisection point where ``δ`` is surely above."""
    top = math.log((1 - Q) / Q)
    below = lambda e: max(_exact_delta(e, True)[0], _exact_delta(e, False)[0]) <= delta  # noqa: E731
    hi = bisect_true_end(below, 1e-9, top, steps=40)
    return hi - top * 2.0**-38


@pytest.fixture(scope="module")
def exported():
    profile = gpu_rs.privacy_profile(N, 1, Q, scope="homogeneous", backend="numpy")
    return profile, profile.to_dp_accounting()


def test_round_trip_is_above_the_truth_and_close_to_the_certified_epsilon(exported):
    profile, pld = exported
    certified = profile.epsilon(DELTA)
    eps = pld.get_epsilon_for_delta(DELTA)
    assert eps >= certified.lower and eps >= _exact_epsilon_lower(DELTA)
    # not absurdly larger: within two grid steps of the certified upper end (steps of eps_max / 100 < 0.02)
    assert eps <= certified.upper + 0.04, (eps, certified)


@pytest.mark.parametrize("eps", [-2.0, -0.4, -0.05, -1e-3, 1e-3, 0.05, 0.2, 0.4, 0.7])
def test_exported_curve_is_above_the_exact_curve_in_both_orders(exported, eps):
    _, pld = exported
    remove, add = pld._pmf_remove, pld._pmf_add  # the two orders dp_accounting composes separately
    assert remove.get_delta_for_epsilon(eps) >= _exact_delta(eps, True)[0] * (1 - 1e-12)
    assert add.get_delta_for_epsilon(eps) >= _exact_delta(eps, False)[0] * (1 - 1e-12)


def test_ten_fold_composition_is_above_the_optimistic_exact_composition(exported):
    _, pld = exported
    ours = pld.self_compose(10).get_epsilon_for_delta(DELTA)
    optimistic = one_bit_pld(N, Q, pessimistic=False).self_compose(10).get_epsilon_for_delta(DELTA)
    pessimistic = one_bit_pld(N, Q, pessimistic=True).self_compose(10).get_epsilon_for_delta(DELTA)
    assert ours >= optimistic
    assert ours <= 1.05 * pessimistic, (ours, pessimistic)  # and close to dp_accounting's own exact answer


def test_composes_with_another_pld(exported):
    from dp_accounting.pld import privacy_loss_distribution

    _, pld = exported
    other = privacy_loss_distribution.from_gaussian_mechanism(5.0, value_discretization_interval=1e-4)
    both = pld.compose(other)
    alone = max(pld.get_epsilon_for_delta(DELTA), other.get_epsilon_for_delta(DELTA))
    assert both.get_epsilon_for_delta(DELTA) >= alone


def test_all_pairs_export_is_above_the_exact_pair():
    every = gpu_rs.privacy_profile(N, 1, Q, scope="all", backend="numpy").to_dp_accounting(points=40)
    assert every.get_epsilon_for_delta(DELTA) >= _exact_epsilon_lower(DELTA)
    assert every._symmetric is False and every._pmf_remove.get_delta_for_epsilon(0.3) >= _exact_delta(0.3, False)[0]


def test_bad_arguments_name_the_argument():
    forward = gpu_rs.privacy_profile(N, 1, Q, scope="forward", backend="numpy")
    with pytest.raises(ValueError, match="scope"):
        forward.to_dp_accounting()
    homogeneous = gpu_rs.privacy_profile(N, 1, Q, backend="numpy")
    with pytest.raises(ValueError, match="points"):
        homogeneous.to_dp_accounting(points=1)
    with pytest.raises(ValueError, match="discretization"):
        homogeneous.to_dp_accounting(discretization=0.0)


@pytest.fixture(scope="module", params=[(N, 1, Q), (300, 2, 0.2)], ids=["L=1", "L=2"])
def exported_setting(request):
    n, bits, q = request.param
    profile = gpu_rs.privacy_profile(n, bits, q, scope="homogeneous", backend="numpy")
    return profile, profile.to_dp_accounting()


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9, 1e-12])
def test_exported_epsilon_is_never_below_the_certified_upper_epsilon(exported_setting, delta):
    profile, pld = exported_setting
    certified = profile.epsilon(delta, eps_tol=1e-8)  # the root of our certified upper δ, bracketed tightly
    assert pld.get_epsilon_for_delta(delta) >= certified.upper, (pld.get_epsilon_for_delta(delta), certified)


def test_exported_curves_are_above_the_certified_upper_curves_between_grid_points(exported_setting):
    import numpy as np

    profile, pld = exported_setting
    grid = np.linspace(0.013, 1.3, 57)  # off the export's grid points
    for d, remove, add in zip(
        profile.delta(grid),
        pld._pmf_remove.get_delta_for_epsilon(grid),
        pld._pmf_add.get_delta_for_epsilon(grid),
        strict=True,
    ):
        assert remove >= d.forward[1] and add >= d.reverse[1], (d, remove, add)


def test_an_all_pairs_export_is_a_pair_and_composes_like_gpu_rs():
    """The proven upper end at several bits is not convex in e^ε (the least of several bounds); its raw
    connect-the-dots masses summed to 5.7 at (1000, 5, 0.3) and 20-fold composition in dp_accounting gave
    ε(1e-6) = 18.2. The export is now the greatest convex minorant of the points: one pair's curve."""
    prof = gpu_rs.privacy_profile(1000, 5, 0.3, backend="numpy")
    pld = prof.to_dp_accounting(points=40)
    for pmf in (pld._pmf_remove, pld._pmf_add):
        mass = sum(pmf._loss_probs.values()) + pmf._infinity_mass
        assert min(pmf._loss_probs.values()) >= 0.0 and mass <= 1.0 + 1e-9
    theirs = pld.self_compose(20).get_epsilon_for_delta(1e-6)
    ours = gpu_rs.compose(prof, times=20).epsilon(1e-6)
    assert ours.lower <= theirs <= 1.1 * ours.upper


class _Curve:
    """A stand-in profile whose upper δ is a given function (scope "all": both orders the same)."""

    scope, rel_width = "all", 1e-3

    def __init__(self, delta):
        self.delta_of = delta

    def delta(self, eps):
        return [type("D", (), {"upper": float(self.delta_of(e))})() for e in eps]


def test_grid_end_moves_continuously_and_its_delta_is_at_most_the_floor():
    """δ = exp(−a ε²): as a grows the end moves by small steps (a scanned end halves or doubles), and δ there
    is at most the floor; where δ drops to 0 at once (1 − ε/2 below 2), the end is still at most the floor."""
    import numpy as np

    from gpu_rs.pairs.profile_grid import grid_end

    floor = 1e-15
    ends = []
    for a in np.linspace(40.0, 160.0, 61):
        end = grid_end(_Curve(lambda e, a=a: math.exp(-a * e * e)), 4.0, floor)
        assert math.exp(-a * end * end) <= floor
        ends.append(end)
    assert max(abs(np.diff(np.log(ends)))) < 0.05  # no jump between scanned points (a factor of 2 is 0.69)
    steep = _Curve(lambda e: max(0.0, 1.0 - e / 2.0))
    end = grid_end(steep, 2.0, floor)
    assert max(0.0, 1.0 - end / 2.0) <= floor
