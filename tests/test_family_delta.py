"""The best pair known for δ (issue 29 item 6, docs/worst-case.md §9): certified δ of homogeneous members.

Oracles: exhaustive enumeration of every output histogram (tests/oracles_pairs.py, no gpu_rs), and the
seed's pair's own certified δ (a different route: one spectrum of the seed's ratio, gpu_rs.quantities).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracles_pairs import pair_delta

import gpu_rs
from gpu_rs.pairs import family_delta
from gpu_rs.pairs.family import Member

EPS = (0.05, 0.3, 1.0, 2.0)


def exact(member: Member, n: int, q: float, eps: float) -> float:
    """The member's δ by enumeration: ``δ_{bg + x′ ‖ bg + x}(ε)``."""
    y, x, xm = member.vectors()
    return pair_delta([y] * (n - 1) + [x], [y] * (n - 1) + [xm], q, eps)


def inside(truth: float, ends: tuple[float, float]) -> bool:
    return ends[0] <= truth * (1 + 1e-12) + 1e-15 and truth <= ends[1] * (1 + 1e-12) + 1e-15


SMALL = [(3, 2, 0.2), (4, 2, 0.3), (3, 3, 0.15), (5, 2, 0.1), (2, 4, 0.25), (6, 2, 0.35), (4, 3, 0.4)]


@pytest.mark.parametrize(("n", "bits", "q"), SMALL)
@pytest.mark.parametrize("route", ["enumerated", "tilted"])
def test_member_delta_contains_the_exact_delta(n, bits, q, route, monkeypatch):
    if route == "tilted":  # the hinge with heavy atoms split off, even where enumeration would do
        monkeypatch.setattr(family_delta, "MAX_COUNT_VECTORS", 0)
    members = [*family_delta.complement_members(bits), Member(bits, 1, 0, 0), Member(bits, bits, 1, 0)]
    for member in members:
        for eps in EPS:
            ends = family_delta.member_delta(member, n, q, eps)
            assert ends[0] <= ends[1]
            assert inside(exact(member, n, q, eps), ends), (member, eps, ends)
            if route == "enumerated":  # exact up to rounding
                assert ends[1] - ends[0] <= 1e-9 * max(ends[1], 1e-3)


@pytest.mark.parametrize(("n", "bits", "q"), [(1000, 5, 0.2446), (1000, 5, 0.1692), (10**4, 8, 0.3)])
def test_the_seed_members_agree_with_the_seed_pair(n, bits, q):
    """d = L, a = 0 and a = L are the seed's pair in its two orders, computed by the profile's own route."""
    profile = gpu_rs.privacy_profile(n, bits, q, scope="homogeneous")
    for eps in (0.3, 1.0, 2.0):
        found = profile.delta(eps)
        for member, order in ((Member(bits, bits, 0, 0), found.forward), (Member(bits, bits, bits, 0), found.reverse)):
            lo, hi = family_delta.member_delta(member, n, q, eps)
            assert lo <= order[1] * (1 + 1e-9) and order[0] <= hi * (1 + 1e-9), (member, eps, (lo, hi), order)
            if order[0] > 1e-12:  # the tilted route is within about REL_WIDTH here
                assert hi - lo <= 2 * family_delta.REL_WIDTH * order[0]


def test_heavy_atoms_keep_the_lower_end_close():
    """At (10⁷, 40, 0.351) the seed's member has atoms up to (p/q)^40: split off, the lower end stays within 15 %."""
    profile = gpu_rs.privacy_profile(10**7, 40, 0.351, scope="homogeneous")
    for eps in (0.5, 2.0):
        truth = profile.delta(eps).forward
        lo, hi = family_delta.member_delta(Member(40, 40, 0, 0), 10**7, 0.351, eps)
        assert 0.85 * truth[0] <= lo <= truth[1] <= hi


def test_complement_members_are_those_of_section_9():
    for bits in (1, 2, 5, 40):
        members = family_delta.complement_members(bits)
        assert len(members) == len(set(members)) == bits * (bits + 3) // 2
        assert all(m.b == bits - m.d for m in members)
        assert members[:2] == [Member(bits, bits, 0, 0), Member(bits, bits, bits, 0)]


def test_the_profile_lower_end_is_the_worst_homogeneous_background():
    """At (12, 3, 0.1), ε = 0.25 the δ-worst background of every pair is 11 users at 001 with 000 → 110
    (docs/worst-case.md §10.1, exhaustive): a complement member, not the seed's pair (0.72903)."""
    profile = gpu_rs.privacy_profile(12, 3, 0.1)
    found = profile.delta(0.25)
    truth = exact(Member(3, 2, 0, 1), 12, 0.1, 0.25)
    assert math.isclose(truth, 0.7322044, rel_tol=1e-6)
    assert found.lower <= truth <= found.upper
    assert found.lower >= truth * (1 - 1e-9)
    assert found.lower <= found.estimate <= found.upper
    assert math.isclose(sum(vars(found.budget).values()), found.upper - found.lower, rel_tol=1e-9, abs_tol=1e-15)
    assert "the best: background of 11 users at 001" in profile.engine.known_pair


def test_a_search_cut_short_still_answers():
    found = family_delta.search(1000, 5, 0.2446, 0.7, 1e-9)  # the seed's pair, then the limit is past
    assert found.evaluated == 2 and found.members == 20 and found.best is None
    assert "none above the seed's pair" in found.note(1000)
    skipped = family_delta.search(1000, 5, 0.2446, 0.7, 0.0)
    assert skipped.evaluated == 0 and "(search_seconds=0)" in skipped.note(1000)


def test_search_seconds_zero_leaves_the_seed_pair_as_lower_end():
    profile = gpu_rs.privacy_profile(12, 3, 0.1, search_seconds=0)
    assert math.isclose(profile.delta(0.25).lower, 0.7290338551, rel_tol=1e-9)
    assert "not searched (search_seconds=0)" in profile.known_pair


@pytest.mark.parametrize("bad", [-1.0, 86_400.0, float("nan"), "1"])
def test_profile_search_seconds_bad_input(bad):
    with pytest.raises(ValueError, match="search_seconds"):
        gpu_rs.privacy_profile(12, 3, 0.1, search_seconds=bad)


def test_beyond_64_bits_the_members_are_not_searched():
    found, lower, _ = family_delta.best_member(1000, 65, 0.45, np.array([1.0]), 1.0)
    assert found.evaluated == 0 and found.best is None and not lower.any()
    assert "not searched beyond 64 bits" in found.note(1000)


def test_no_member_at_one_bit_beyond_the_seed():
    found, lower, upper = family_delta.best_member(50, 1, 0.3, np.array([0.5, 1.0]), 1.0)
    assert found.best is None and not lower.any() and not upper.any()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(
    ("member", "n", "q", "eps"),
    [
        (Member(12, 10, 0, 2), 3521539, 0.001, 35.400095516458165),
        (Member(64, 63, 63, 1), 84245626, 0.4, 13.513316734572644),
        (Member(24, 21, 0, 3), 8770355, 0.05, 68.86665404711894),
        (Member(16, 11, 11, 5), 14, 0.1, 33.08246369661749),
        (Member(8, 8, 0, 0), 20278, 0.001, 47.71075842641351),
    ],
)
def test_members_near_the_float_range_answer(member, n, q, eps):
    """Members a random sweep found raising inside the engine (fixed there: Law.log_mgf), no exception caught here."""
    lo, hi = family_delta.member_delta(member, n, q, eps)
    assert 0.0 <= lo <= hi <= 1.0
