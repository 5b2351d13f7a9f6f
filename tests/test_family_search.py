"""The screening bound of the family search and the search's time limit (issue 23 item 2).

Oracles: the exact-rational enumeration of :mod:`test_family` (every report tuple, small N),
and the engine's certified lower bounds where N is too large to enumerate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_family import exact_tails

import gpu_rs
from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.limits import FAMILY_SECONDS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import family, family_screen, family_search
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.family_screen import screen_upper

PLAN = Plan(1e-3, 1e-12, 1 << 20)


@pytest.mark.parametrize(
    ("n", "bits", "q", "lam"),
    [(3, 2, 0.1, 2.5), (3, 2, 0.3, math.e), (2, 3, 0.15, 1.7), (3, 3, 0.2, math.e), (4, 2, 0.25, 1.3)],
)
def test_screen_upper_contains_exact_tails(n, bits, q, lam):
    """Every member (both orders of every homogeneous background): the bound is above the exact tail
    ``P[R >= λ]`` (so above ``P[R > λ]`` too)."""
    prob = Problem(n, bits, q, math.log(lam))
    useful = 0
    for m in family.members(bits):
        y, x, xm = m.vectors()
        _, ge = exact_tails(n, y, x, xm, q, lam)
        bound = screen_upper(m, prob)
        assert bound >= float(ge) * (1 - 1e-12), (m, bound, float(ge))
        useful += bound < 1.0
    assert useful > 0


@pytest.mark.parametrize(("n", "bits", "q", "lam"), [(3, 3, 0.2, math.e), (4, 2, 0.25, 1.3), (2, 4, 0.3, 2.0)])
@pytest.mark.parametrize("run", [family_screen.COARSE, family_screen.FINE])
@pytest.mark.parametrize("cells", [1 << 22, 300])
def test_batched_screen_contains_exact_tails(monkeypatch, n, bits, q, lam, run, cells):
    """Issue 30 item 1: every member screened in one batched call (members of every size padded together,
    or split into slabs and chunks of few cells), at tight and loose cut levels: each bound is above the
    exact tail."""
    monkeypatch.setattr(family_screen, "CELLS", cells)
    monkeypatch.setattr(family_screen, "SLAB", cells // 8)  # atoms made a few members at a time
    prob = Problem(n, bits, q, math.log(lam))
    everyone = list(family.members(bits))
    exact = {m: float(exact_tails(n, *m.vectors(), q, lam)[1]) for m in everyone}
    for reference in (1e-9, 0.5):
        found = family_screen.screen_uppers(everyone, prob, run, dict.fromkeys(everyone, reference))
        assert set(found) == set(everyone)
        for m in everyone:
            assert found[m] >= exact[m] * (1 - 1e-12), (m, found[m], exact[m])


def test_batched_screen_on_every_backend(backend):
    """Issue 30 item 1: the batched screening on the array namespace gives NumPy's bounds, above the exact tails."""
    from gpu_rs.common.backend import get_backend

    xp = get_backend(backend).xp
    prob = Problem(3, 3, 0.2, 1.0)
    everyone = list(family.members(3))
    for run in (family_screen.COARSE, family_screen.FINE):
        ref = dict.fromkeys(everyone, 1e-3)
        on_host = family_screen.screen_uppers(everyone, prob, run, ref)
        found = family_screen.screen_uppers(everyone, prob, run, ref, xp=xp)
        for m in everyone:
            assert found[m] == pytest.approx(on_host[m], rel=1e-12)
            assert found[m] >= float(exact_tails(3, *m.vectors(), 0.2, math.e)[1]) * (1 - 1e-12)


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(60, 3, 0.15, 1.0), (500, 4, 0.3, 2.0), (2000, 5, 0.1692, 2.0)])
def test_screen_upper_above_certified_lower_bounds(n, bits, q, eps):
    """At N too large to enumerate: the bound is above each member's certified lower bound, both tails."""
    prob = Problem(n, bits, q, eps)
    loose = Plan(1e-2, 1e-12, 1 << 16)
    for m in family.members(bits):
        bound = screen_upper(m, prob)
        for inclusive in (False, True):
            b = family.member_bounds(m, prob, inclusive, loose, np)
            assert bound >= b.lower * (1 - 1e-12), (m, inclusive, bound, b.lower)


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps", "member"),
    [
        (10**5, 16, 0.3, 2.0, (8, 0, 8)),
        (10**5, 16, 0.3, 2.0, (6, 0, 10)),
        (10**4, 10, 0.25, 1.5, (5, 0, 5)),
        (10**4, 10, 0.25, 1.5, (3, 0, 7)),
    ],
)
def test_screen_upper_where_the_cut_is_nearly_tight(n, bits, q, eps, member):
    """Members whose tail is mostly the user's own report: the cut bound is within a few per cent of
    the certified tail (the plain Chernoff bound was 2 to 4 times it), and above its lower bound."""
    prob = Problem(n, bits, q, eps)
    m = Member(bits, *member)
    bound = screen_upper(m, prob)
    for inclusive in (False, True):
        b = family.member_bounds(m, prob, inclusive, PLAN, np)
        assert b.lower * (1 - 1e-12) <= bound <= 1.1 * b.upper


def test_cut_atoms_make_far_backgrounds_prunable():
    """A background far from both vectors has atoms up to (p/q)^L: the plain Chernoff bound is 1 there,
    the truncated one is below 1 % and still above the member's certified lower bound."""
    prob = Problem(10**7, 40, 0.351, 2.0)
    m = Member(40, 11, 0, 29)
    bound = screen_upper(m, prob)
    assert bound < 1e-2
    assert bound >= family.member_bounds(m, prob, False, Plan(1e-2, 1e-12, 1 << 12), np).lower


@pytest.mark.parametrize(("n", "bits", "q", "lam"), [(3, 2, 0.1, 2.5), (3, 3, 0.2, math.e)])
def test_family_max_brackets_the_exact_maximum(n, bits, q, lam):
    prob = Problem(n, bits, q, math.log(lam))
    exact = {m: exact_tails(n, *m.vectors(), q, lam) for m in family.members(bits)}
    found = family_search.family_max(prob, False, PLAN, np)
    top = max(float(gt) for gt, _ in exact.values())
    assert found.bounds.lower <= float(exact[found.best][1]) * (1 + 1e-12)
    assert found.bounds.lower >= top * (1 - 2e-2)  # within the screening width of the maximum
    assert found.upper >= top * (1 - 1e-12)
    assert found.members == family_search.member_count(bits) == len(exact)


def test_time_limit_keeps_the_bounds_certified():
    """A search cut short by its time limit still brackets the family's maximum (found by a full search)."""
    prob = Problem(1000, 8, 0.2, 2.0)
    full = family_search.family_max(prob, False, PLAN, np, max_seconds=600.0)
    assert full.unresolved == 0 and full.upper <= full.bounds.upper * (1 + 1e-9)
    short = family_search.family_max(prob, False, PLAN, np, max_seconds=family_search.estimate_seconds(8) * 1.01)
    assert short.evaluated <= full.evaluated
    assert short.bounds.lower <= full.upper
    assert short.upper >= full.bounds.lower
    assert short.unresolved == 0 or short.upper > short.bounds.lower


def test_screening_estimated_too_long_is_refused():
    seconds = family_search.estimate_seconds(40)
    assert family_search.estimate_seconds(64) < FAMILY_SECONDS  # issue 30: the default searches L = 64
    assert family_search.estimate_seconds(64) > 4 * seconds  # grows like L^5
    prob = Problem(10**7, 40, 0.351, 2.0)
    limit = seconds / 2
    with pytest.raises(TimeBudgetError, match=f"search_seconds={limit:g}"):
        family_search.family_max(prob, False, PLAN, np, max_seconds=limit)


def test_tail_search_seconds_zero_skips_the_search():
    slow = gpu_rs.tail(1000, 3, 0.15, 2.0, backend="numpy")
    skip = gpu_rs.tail(1000, 3, 0.15, 2.0, backend="numpy", search_seconds=0)
    assert "not searched" in skip.worst and "search_seconds=0" in skip.worst
    assert "homogeneous backgrounds evaluated" in slow.worst
    assert slow.upper <= skip.upper and slow.lower >= skip.lower  # with the time, the pools may lower the upper end


@pytest.mark.parametrize("bad", [-1.0, 86400.0, math.nan, math.inf, "30", None])
def test_tail_search_seconds_bad_input(bad):
    with pytest.raises(ValueError, match=r"search_seconds must be"):
        gpu_rs.tail(100, 2, 0.2, 1.0, search_seconds=bad)


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(1000, 3, 0.01, 3.0), (10**6, 3, 0.01, 0.1)])
def test_evaluated_counts_members_once(monkeypatch, n, bits, q, eps):
    """Issue 33 item 13 ("96 of 50 homogeneous backgrounds evaluated"): a member evaluated again with
    more terms, or refined at the end, is one member; the count is of distinct members given engine
    bounds (the two seed members included), never more than the family holds."""
    calls = []
    member_bounds = family.member_bounds

    def counted(m, *args, **kwargs):
        calls.append(m)
        return member_bounds(m, *args, **kwargs)

    monkeypatch.setattr(family, "member_bounds", counted)
    found = family_search.family_max(Problem(n, bits, q, eps), False, PLAN, np, max_seconds=600.0)
    assert len(calls) > len(set(calls))  # the setting evaluates some member more than once
    assert found.evaluated == len(set(calls)) <= found.members == family_search.member_count(bits)
