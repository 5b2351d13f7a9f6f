"""Tiny ``δ`` to relative width under the exponentially tilted law (``engine/tilt.py``, issue 19 item 2).

Oracles: exact sums over every count vector in log space for ``L = 2`` at ``N`` where the
profile does not enumerate (``oracles.log_delta_L2``, written from SPEC §1 alone), and the
profile's exact enumeration route for ``L = 3`` at small ``N`` (itself checked against
``oracles_pairs`` in ``test_profile.py``), with the tilted route forced on.
"""

from __future__ import annotations

import math

import numpy as np
import oracles
import pytest

import gpu_rs
from gpu_rs.engine import tilt
from gpu_rs.engine.laws import Law, SumLaw
from gpu_rs.quantities.profile_curve import HingeCurve
from gpu_rs.quantities.profile_enumeration import MAX_VECTORS, Enumerated, count_vectors


def _inside(lo, hi, log_exact):
    """``exp(log_exact)`` in ``[lo, hi]``, compared in logs (the oracle's own error is ~1e-12)."""
    return math.log(lo) <= log_exact + 1e-10 and log_exact - 1e-10 <= math.log(hi)


@pytest.mark.parametrize(("n", "q", "eps"), [(1500, 0.2, 2.0), (2000, 0.2, 1.0), (2000, 0.25, 1.5), (3000, 0.2, 1.5)])
def test_l2_profile_tiny_delta_against_exact_sums(n, q, eps):
    """δ from 1e-35 to 1e-220 through the curve route (no enumeration): truth inside, width met."""
    assert count_vectors(n, 2) > MAX_VECTORS  # the curve route, then the tilt
    d = gpu_rs.privacy_profile(n, 2, q, scope="homogeneous", abs_width=1e-300, backend="numpy").delta(eps)
    fwd, rev = oracles.log_delta_L2(n, q, eps, True), oracles.log_delta_L2(n, q, eps, False)
    assert -510.0 < max(fwd, rev) < -69.0
    assert _inside(*d.reverse, rev)
    assert d.forward[0] <= math.exp(fwd) <= d.forward[1]  # may underflow to 0: compared as floats
    assert d.met and d.upper - d.lower <= 1e-3 * d.lower
    assert _inside(d.lower, d.upper, max(fwd, rev))


@pytest.mark.parametrize(
    ("n", "q", "eps", "forward"),
    [(1500, 0.2, 1.5, True), (2000, 0.2, 1.0, True), (3000, 0.25, 1.0, True), (3000, 0.25, 1.0, False)],
)
def test_l2_each_order_tilted_against_exact_sums(n, q, eps, forward):
    """Each order on its own, δ from 1e-86 to 1e-264: relative width 1e-3 however small."""
    exact = oracles.log_delta_L2(n, q, eps, forward)
    assert -610.0 < exact < -69.0
    found = HingeCurve(n, 2, q, 1 << 22, np).tilted(eps, forward, 1e-3, 1e-300)
    assert found is not None
    lo, hi = found
    assert _inside(lo, hi, exact) and hi - lo <= 1e-3 * lo


@pytest.mark.parametrize(("n", "q", "eps"), [(120, 0.2, 1.0), (300, 0.2, 2.0), (200, 0.25, 3.0)])
def test_l3_tilted_against_enumeration(n, q, eps):
    """L = 3, both orders, the tilted route forced on against exact enumeration (δ down to 1e-220)."""
    exact = Enumerated(n, 3, q)
    curve = HingeCurve(n, 3, q, 1 << 22, np)
    for forward in (True, False):
        e_lo, e_hi = exact.delta(eps, forward)
        found = curve.tilted(eps, forward, 1e-3, 1e-300)
        assert found is not None
        lo, hi = found
        assert lo <= e_hi and e_lo <= hi and hi - lo <= 1e-3 * lo


def test_budget_adds_up_and_where_no_tilt_applies():
    """The parts of the width add up to it; no tilt for a hinge whose threshold is not beyond the mean."""
    law = SumLaw(
        ((Law(np.array([0.0, 1.0, 3.5]), np.log([0.5, 0.3, 0.2]), np.array([0.5, 0.3, 0.2]), np.zeros(3)), 400),)
    )
    mean = law.mean
    found = tilt.hinge(law, 1.3 * mean, 1.3 * mean, True, 1e-3, 1e-300, 1 << 20, np)
    assert found is not None and found.lower > 0.0
    parts = found.discretization + found.truncation + found.roundoff
    assert parts == pytest.approx(found.upper - found.lower, rel=1e-9)
    assert tilt.hinge(law, 0.9 * mean, 0.9 * mean, True, 1e-3, 1e-300, 1 << 20, np) is None
    assert tilt.hinge(law, 1.1 * mean, 1.1 * mean, False, 1e-3, 1e-300, 1 << 20, np) is None
    put = tilt.hinge(law, 0.6 * mean, 0.6 * mean, False, 1e-3, 1e-300, 1 << 20, np)
    assert put is not None and put.upper - put.lower <= 1e-3 * put.lower


def test_one_tilt_serves_nearby_thresholds():
    """Thresholds within a tilted standard deviation share one spectrum, still exact inside and narrow."""
    n, q = 250, 0.2
    exact = Enumerated(n, 3, q)
    curve = HingeCurve(n, 3, q, 1 << 22, np)
    used = set()
    for eps in (1.50, 1.51, 1.52):  # thresholds 11 apart, the tilted sd about 240
        lo, hi = curve.tilted(eps, True, 1e-3, 1e-300)
        used.add(id(curve.tilts[True]))
        e_lo, e_hi = exact.delta(eps, True)
        assert lo <= e_hi and e_lo <= hi and hi - lo <= 1e-3 * lo
    assert len(used) == 1


def test_tilted_atoms_below_the_float_range_are_left_out_and_bounded():
    """L = 6, put far below the mean: the top atoms' tilted probabilities fall below e^-700."""
    n, q, eps = 30, 0.1, 8.0
    curve = HingeCurve(n, 6, q, 1 << 22, np)
    y = float(curve._thresholds(np.array([eps]), False)[0][0])
    found = tilt.tilt(curve.law, tilt.saddle(curve.law, y, -1.0))
    assert found is not None and found[0].parts[0][0].size < 7 and 0.0 < found[3] < 1e-300
    lo, hi = curve.tilted(eps, False, 1e-3, 1e-300)
    e_lo, e_hi = Enumerated(n, 6, q).delta(eps, False)
    assert lo <= e_hi and e_lo <= hi and hi - lo <= 1e-3 * lo


def test_a_look_at_few_terms_settles_a_tilt_that_cannot_move_the_caller():
    """(23623, 5, 0.01), reverse order near ε = 13: K(θ)'s error bound leaves the tilt far wider than the curve's
    ``[0, 3e-5]``. With the tilt's terms spent, a look at few terms shows that no number of terms brings the upper
    end below 3e-5 or the lower end above 1e-6, and the tilt is left as it was; a floor it could pass gets the
    full answer."""
    curve = HingeCurve(23623, 5, 0.01, 1 << 22, np)
    assert curve.tilted(12.99, False, 5e-4, 1e-9) is not None  # a new tilt: its terms spent
    near, terms, size = curve.tilts[False], curve.tilts[False].terms, curve.tilts[False].cache.size
    full = curve.tilted(13.0, False, 5e-4, 1e-9)
    looked = curve.tilted(13.0, False, 5e-4, 1e-9, keep=(1e-6, 3e-5))
    assert full is not None and looked is not None and looked != full
    assert min(full[1], looked[1]) >= 3e-5 and max(full[0], looked[0]) <= 1e-6
    assert curve.tilts[False] is near and (near.terms, near.cache.size) == (terms, size)
    assert curve.tilted(13.0, False, 5e-4, 1e-9, keep=(0.0, 3e-5)) == full  # a lower end above 0 is possible
