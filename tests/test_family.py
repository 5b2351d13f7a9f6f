"""Homogeneous backgrounds for several bits (issue 23): background_tail and the family's maximum.

Oracles: an exact-rational enumeration of every report tuple (written here, independent of
the library), ``tail``'s own pairs where the background is the seed's, and Monte Carlo with a
confidence interval at the seed's operating point.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import gpu_rs
from gpu_rs.pairs import family


def _m(v: tuple[int, ...], z: tuple[int, ...], q: Fraction) -> Fraction:
    h = sum(a != b for a, b in zip(v, z, strict=True))
    return q**h * (1 - q) ** (len(v) - h)


def exact_tails(n: int, y: str, x: str, xm: str, q: float, lam: float) -> tuple[Fraction, Fraction]:
    """``(P[R > λ], P[R >= λ])`` with ``S`` drawn from ``n − 1`` users at ``y`` plus one at ``xm``,
    by enumerating every tuple of reports (exact rationals; λ taken at its float value)."""
    qf, lf = Fraction(q), Fraction(lam)
    vy, vx, vm = (tuple(int(c) for c in s) for s in (y, x, xm))
    outs = list(itertools.product((0, 1), repeat=len(y)))
    gt = ge = Fraction(0)
    for reports in itertools.product(outs, repeat=n):
        # the probability of the ordered tuple, user last; the ratio is that of the histograms
        prob = _m(vm, reports[-1], qf)
        for z in reports[:-1]:
            prob *= _m(vy, z, qf)
        a = sum(_m(vm, z, qf) / _m(vy, z, qf) for z in reports)
        b = sum(_m(vx, z, qf) / _m(vy, z, qf) for z in reports)
        gt += prob if a > lf * b else 0
        ge += prob if a >= lf * b else 0
    return gt, ge


CASES = [
    (2, "01", "00", "11", 0.1, 2.5),
    (3, "10", "00", "01", 0.2, 1.7),
    (3, "11", "01", "10", 0.15, 3.0),
    (2, "110", "000", "100", 0.1, math.e),
    (3, "011", "000", "111", 0.2, 2.0),
]


@pytest.mark.parametrize(("n", "y", "x", "xm", "q", "lam"), CASES)
def test_background_tail_contains_exact_both_orders(n, y, x, xm, q, lam):
    b = gpu_rs.background_tail(n, q, ratio=lam, background=y, before=x, after=xm, backend="numpy")
    fwd, rev = b.pairs
    for found, (before, after) in ((fwd, (x, xm)), (rev, (xm, x))):
        gt, ge = exact_tails(n, y, before, after, q, lam)
        assert found.lower <= float(ge) * (1 + 1e-12) + 1e-15
        assert found.upper >= float(gt) * (1 - 1e-12) - 1e-15
        assert found.upper - found.lower <= 1e-3 * float(gt) + 1e-12
    assert b.lower == max(fwd.lower, rev.lower)
    assert b.upper == max(fwd.upper, rev.upper)


def test_inclusive_matches_pair_tail():
    for n, y, x, xm, q, lam in CASES[:3]:
        b = gpu_rs.background_tail(n, q, ratio=lam, background=y, before=x, after=xm, inclusive=True)
        ex = gpu_rs.pair_tail([y] * (n - 1) + [x], [y] * (n - 1) + [xm], q, ratio=lam, inclusive=True)
        assert b.pairs[0].lower <= ex.upper and ex.lower <= b.pairs[0].upper


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(1000, 5, 0.2446, math.log(2)), (300, 3, 0.1, 1.0)])
def test_seed_background_equals_tail_pairs(n, bits, q, eps):
    t = gpu_rs.tail(n, bits, q, eps, scope="homogeneous")
    zeros, ones = "0" * bits, "1" * bits
    fwd, rev = gpu_rs.background_tail(n, q, eps, background=zeros, before=zeros, after=ones).pairs
    for mine, theirs in ((fwd, t.pairs[0]), (rev, t.pairs[1])):
        assert mine.lower <= theirs.upper and theirs.lower <= mine.upper


def _monte_carlo(n, y, x, xm, q, lam, samples, rng):
    """Independent simulation: multinomial counts of the 2^L report values."""
    bits = len(y)
    outs = list(itertools.product((0, 1), repeat=bits))

    def law(v):
        return np.array([float(_m(tuple(int(c) for c in v), z, Fraction(q))) for z in outs])

    my, mx, mm = law(y), law(x), law(xm)
    atoms = mm / my - lam * mx / my
    counts = rng.multinomial(n - 1, my / my.sum(), size=samples)
    user = rng.choice(len(outs), size=samples, p=mm / mm.sum())
    total = counts @ atoms + atoms[user]
    return float(np.mean(total > 0))


def test_monte_carlo_at_the_seed_operating_point():
    """N = 1000, L = 5, q = 0.1692, λ = e²: 999 users at 00011, a user 00000 -> 11100 (≈ 0.0063)."""
    rng = np.random.default_rng(23)
    b = gpu_rs.background_tail(1000, 0.1692, 2.0, background="00011", before="00000", after="11100")
    samples = 400_000
    p = _monte_carlo(1000, "00011", "00000", "11100", 0.1692, math.exp(2.0), samples, rng)
    half = 4.0 * math.sqrt(p * (1 - p) / samples)  # 99.99 %
    assert p - half <= b.pairs[0].upper and b.pairs[0].lower <= p + half
    assert b.pairs[0].lower > 1.6 * gpu_rs.tail(1000, 5, 0.1692, 2.0, scope="homogeneous").upper


def test_members_cover_both_orders():
    m = family.member_of("00011", "00000", "11100")
    assert m == family.Member(5, 3, 0, 2)
    assert family.member_of("11100", "11111", "00011") == family.Member(5, 3, 0, 2)  # flipped by x
    assert m.reverse().reverse() == m
    assert sum(1 for _ in family.members(5)) == sum((d + 1) * (6 - d) for d in range(1, 6))


def test_bad_vectors_are_refused():
    with pytest.raises(ValueError, match="background"):
        gpu_rs.background_tail(10, 0.1, 1.0, background="012", before="000", after="111")
    with pytest.raises(ValueError, match="differ"):
        gpu_rs.background_tail(10, 0.1, 1.0, background="01", before="00", after="00")
    with pytest.raises(ValueError, match="same length"):
        gpu_rs.background_tail(10, 0.1, 1.0, background="01", before="000", after="111")


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(3, 2, 0.1, 1.0), (4, 2, 0.2, 0.5), (3, 3, 0.15, 1.0)])
def test_scope_all_brackets_the_family_and_every_pair(n, bits, q, eps):
    b = gpu_rs.tail(n, bits, q, eps, scope="all")
    best = max(
        float(exact_tails(n, *m.vectors(), q, math.exp(eps))[0]) for m in family.members(bits) if n <= 3 or bits == 2
    )
    assert b.lower >= best * (1 - 2e-3) - 1e-12
    search = gpu_rs.worst_pairs(n, bits, q, eps)
    assert b.upper >= search.upper
    assert b.pairs[0].lower == b.lower


def test_scope_all_is_the_default():
    b = gpu_rs.tail(100, 2, 0.2, 1.0)
    assert b.scope == "all" and len(b.pairs) == 3
