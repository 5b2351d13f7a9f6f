"""The U-resampling theorem (issue 29 item 6, docs/worst-case.md §9) against exact δ of small pairs.

On a bit where x and x′ agree, redrawing every report's bit from the changing user's law for it is a
post-processing that sets that bit of every background user to x's: δ (both orders) never rises. So in
the homogeneous family the δ maximum over b sits at b = L − d (y = complement of x off the changed bits).
Oracle: the exhaustive enumeration of every output histogram (tests/oracles_pairs.py, no gpu_rs).
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
from oracles_pairs import pair_delta, pair_tail

from gpu_rs.pairs import family

EPS = (0.1, 0.5, 1.0, 2.0)


def deltas(background, x, xm, q):
    """``(δ_{D_m‖D}, δ_{D‖D_m})`` at each ε of :data:`EPS`, exactly enumerated."""
    d, dm = [*background, x], [*background, xm]
    return [(pair_delta(d, dm, q, e), pair_delta(dm, d, q, e)) for e in EPS]


@pytest.mark.parametrize(("n", "bits", "q", "seed"), [(3, 3, 0.2, 0), (4, 2, 0.3, 1), (3, 3, 0.1, 2), (2, 4, 0.25, 3)])
def test_resampling_an_agreeing_bit_never_raises_delta(n, bits, q, seed):
    """Random mixed backgrounds: setting bit j of every background user to x's, on a bit where x and x′
    agree, gives a δ at most the original one, in both orders and at every ε."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(6):
        x = tuple(rng.randint(0, 1) for _ in range(bits))
        xm = tuple(b ^ (i == 0 or rng.random() < 0.3) for i, b in enumerate(x))  # bit 0 always changes
        background = [tuple(rng.randint(0, 1) for _ in range(bits)) for _ in range(n - 1)]
        before = deltas(background, x, xm, q)
        for j in (i for i in range(bits) if x[i] == xm[i]):
            resampled = [(*y[:j], x[j], *y[j + 1 :]) for y in background]
            after = deltas(resampled, x, xm, q)
            for (b1, b2), (a1, a2) in zip(before, after, strict=True):
                assert a1 <= b1 + 1e-12 and a2 <= b2 + 1e-12, (background, x, xm, j, before, after)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize(("n", "bits", "q"), [(3, 3, 0.2), (4, 2, 0.15), (2, 4, 0.3)])
def test_homogeneous_delta_maximum_has_the_complement_background(n, bits, q):
    """Over every member of the homogeneous family (both orders of every homogeneous background), δ at each
    ε is largest at a member with b = L − d: the L(L + 3)/2 complement members hold the maximum, and for each
    (d, a) δ never falls as b grows."""
    table = {}
    for m in family.members(bits):
        y, x, xm = m.vectors()
        table[m] = [pair_delta([y] * (n - 1) + [x], [y] * (n - 1) + [xm], q, e) for e in EPS]
    complement = [m for m in table if m.b == bits - m.d]
    assert len(complement) == bits * (bits + 3) // 2
    for i in range(len(EPS)):
        assert max(table[m][i] for m in complement) == pytest.approx(max(v[i] for v in table.values()), abs=1e-13)
        for m in table:
            if m.b < bits - m.d:
                assert table[m][i] <= table[family.Member(bits, m.d, m.a, m.b + 1)][i] + 1e-12


def test_tails_are_not_monotone_under_resampling():
    """What the theorem does not say (docs/worst-case.md §9): a tail P[R > λ] can fall as background users
    disagree with x more: post-processing does not order tails. Found by enumeration at a small member."""
    q, n, bits = 0.2, 3, 3
    lams = [math.exp(e) for e in (0.25, 0.5, 1.0, 1.5, 2.0)]
    falls = 0
    for m, lam in itertools.product(family.members(bits), lams):
        if m.b < bits - m.d:
            y, x, xm = m.vectors()
            y2 = family.Member(bits, m.d, m.a, m.b + 1).vectors()[0]
            low = pair_tail([y] * (n - 1) + [x], [y] * (n - 1) + [xm], q, lam)
            high = pair_tail([y2] * (n - 1) + [x], [y2] * (n - 1) + [xm], q, lam)
            falls += high < low - 1e-9
    assert falls > 0
