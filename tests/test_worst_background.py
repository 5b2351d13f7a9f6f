"""The research scripts of docs/worst-case.md §10 (issue 32) against exhaustive enumeration.

- ``scripts/background_search.py``: every background's δ, every d and both orders, against the
  exact δ of the same pair enumerated by ``oracles_pairs.pair_delta``.
- ``scripts/two_type.py``: the likelihood ratio of two-type backgrounds (a users at 0…0, b at 1…1, and
  c reports of the uniform law for ``ratio3``)
  from the tilted posterior count, against the exact ratio of every output histogram.

``scripts/pool_floor.py`` is checked in tests/test_pool_floor.py.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import sys

import numpy as np
import oracles_pairs as op
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))

import background_search
import two_type


def bits(v: int, L: int) -> str:
    return format(v, f"0{L}b")


@pytest.mark.parametrize(("N", "L", "q"), [(4, 2, 0.2), (3, 3, 0.15)])
def test_every_background_against_enumeration(N, L, q):
    eps = np.array([0.1, 0.7, 1.5])
    s = background_search.search(N, L, q, eps)
    assert len(s.backgrounds) == math.comb(N - 1 + 2**L - 1, 2**L - 1)
    for bg, row, err in zip(s.backgrounds, s.deltas, s.errors, strict=True):
        users = [bits(v, L) for v, c in enumerate(bg) for _ in range(c)]
        x = bits(0, L)
        for d in range(1, L + 1):
            xp = "1" * d + "0" * (L - d)
            for j, e in enumerate(eps):
                fwd = op.pair_delta([*users, x], [*users, xp], q, e)
                rev = op.pair_delta([*users, xp], [*users, x], q, e)
                assert abs(row[d - 1, 0, j] - fwd) <= err[d - 1, 0, j] + 1e-15
                assert abs(row[d - 1, 1, j] - rev) <= err[d - 1, 1, j] + 1e-15


def test_summary_finds_the_known_two_vector_worst_case():
    """N = 20, L = 2, q = 0.3, ε = 1.5: 18 users at 00 and one at 01 beat the homogeneous
    backgrounds by 11.8 % (issue 32)."""
    s = background_search.search(20, 2, 0.3, [1.5])
    (row,) = background_search.summarize(s)
    assert row["worst"] == "18×00, 1×01"
    assert row["two"] == row["delta"] > row["one"] * 1.11
    assert row["two_beats_three"] and not row["one_is_worst"]


@pytest.mark.parametrize(("a", "b", "L", "q"), [(3, 1, 3, 0.2), (0, 4, 3, 0.2), (4, 0, 2, 0.3), (2, 2, 3, 0.1)])
def test_two_type_ratio_is_exact(a, b, L, q):
    bg = [bits(0, L)] * a + [bits(2**L - 1, L)] * b
    P = op.pair_distribution([*bg, bits(0, L)], q)
    Pp = op.pair_distribution([*bg, bits(2**L - 1, L)], q)
    num: dict[tuple[int, ...], float] = {}
    den: dict[tuple[int, ...], float] = {}
    for key, pr in P.items():
        h = [0] * (L + 1)
        for z, c in enumerate(key):
            h[bin(z).count("1")] += c
        den[tuple(h)] = den.get(tuple(h), 0.0) + pr
        num[tuple(h)] = num.get(tuple(h), 0.0) + Pp[key]
    hs = list(den)
    exact = np.array([num[h] / den[h] for h in hs])
    assert np.allclose(two_type.ratio(np.array(hs), a, b, q), exact, rtol=1e-12, atol=0)


def test_two_type_monte_carlo_brackets_the_exact_delta():
    """The estimate's 4-standard-error interval holds the exact δ (N = 6, L = 3, both orders)."""
    a, b, L, q, eps = 3, 2, 3, 0.15, [0.3, 1.0]
    (f, fs), (r, rs) = two_type.deltas(a, b, L, q, eps, samples=20_000, seed=1)
    bg = [bits(0, L)] * a + [bits(7, L)] * b
    for j, e in enumerate(eps):
        fwd = op.pair_delta([*bg, "000"], [*bg, "111"], q, e)
        rev = op.pair_delta([*bg, "111"], [*bg, "000"], q, e)
        assert abs(f[j] - fwd) <= 4 * fs[j] + 1e-12
        assert abs(r[j] - rev) <= 4 * rs[j] + 1e-12


@pytest.mark.parametrize(
    ("a", "b", "c", "L", "q"), [(2, 1, 2, 3, 0.2), (1, 0, 3, 3, 0.2), (0, 2, 1, 2, 0.3), (3, 1, 1, 3, 0.1)]
)
def test_three_type_ratio_is_exact(a, b, c, L, q):
    """ratio3 (pools with uniform reports too) against the exact ratio of every histogram of weights."""
    w, wb = two_type.class_weights(L, q)
    beta = np.array([math.comb(L, t) for t in range(L + 1)]) / 2.0**L

    def law(na: int, nb: int, nc: int) -> dict[tuple[int, ...], float]:
        laws = [w] * na + [wb] * nb + [beta] * nc
        out: dict[tuple[int, ...], float] = {}
        for tup in itertools.product(range(L + 1), repeat=len(laws)):
            key = tuple(tup.count(t) for t in range(L + 1))
            out[key] = out.get(key, 0.0) + float(np.prod([lw[t] for lw, t in zip(laws, tup, strict=True)]))
        return out

    num, den = law(a, b + 1, c), law(a + 1, b, c)
    hs = list(den)
    exact = np.array([num[h] / den[h] for h in hs])
    assert np.allclose(two_type.ratio3(np.array(hs), a, b, c, q), exact, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("a", "b", "L", "q"), [(3, 1, 3, 0.2), (0, 3, 2, 0.3), (2, 2, 2, 0.1), (4, 0, 3, 0.15), (3, 2, 1, 0.2)]
)
def test_class_reveal_bounds_the_exact_delta(a, b, L, q):
    """The pair-class reduction is above the exact δ in both orders, and equal to it at L = 1 (one class)."""
    eps = [-0.3, 0.1, 0.7, 1.5]
    fwd, rev = two_type.class_reveal(a, b, L, q, eps)
    bg = [bits(0, L)] * a + [bits(2**L - 1, L)] * b
    x, xp = bits(0, L), bits(2**L - 1, L)
    for j, e in enumerate(eps):
        exact_f = op.pair_delta([*bg, x], [*bg, xp], q, e)
        exact_r = op.pair_delta([*bg, xp], [*bg, x], q, e)
        assert fwd[j] >= exact_f - 1e-12 and rev[j] >= exact_r - 1e-12
        if L == 1:
            assert fwd[j] == pytest.approx(exact_f, abs=1e-12) and rev[j] == pytest.approx(exact_r, abs=1e-12)
