"""The two-type pool's floors over every labelling (scripts/two_type_floor.py; docs/worst-case.md §10.5).

Each step against exact rationals: the vertex sets of F(y) against a linear program and against random
feasible points; Hoeffding's upper-tail comparison on random Poisson-binomial counts; the corners above
the mean counts of random labellings; and the floors below the exact pooled value E[δ₂(A, B, C)] of
random labellings of small backgrounds, every output histogram and every label assignment enumerated.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import random
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))

import pool_floor as pf
import two_type_floor as tf


def dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def feasible(L: int, q: float, w: int, f) -> bool:
    return all(dot(g, f) <= m for g, m in tf.constraints(L, q, w)) and min(f) >= 0


def random_point(L: int, q: float, w: int, rng: random.Random) -> tuple[Fraction, ...]:
    """A random point of F(y): a random convex combination of its vertices."""
    vs = tf.vertices(L, q, w)
    ws = [Fraction(rng.randint(0, 9)) for _ in vs]
    total = sum(ws) or Fraction(1)
    return tuple(sum((c / total * v[k] for c, v in zip(ws, vs, strict=True)), Fraction(0)) for k in range(3))


@pytest.mark.parametrize(("L", "q"), [(2, 0.1), (3, 0.3), (5, 0.285), (5, 0.45)])
def test_vertices_are_the_polytope(L, q):
    """Every vertex is feasible, exactly; the largest n·v over them is the linear program's maximum over
    F(y) in random directions; random feasible points never beat it."""
    rng = random.Random(L * 100 + int(q * 1000))
    for w in range(L + 1):
        vs = tf.vertices(L, q, w)
        assert all(feasible(L, q, w, v) for v in vs)
        rows = tf.constraints(L, q, w)
        G = np.array([[float(x) / float(m) for x in g] for g, m in rows])
        for _ in range(6):
            n = [Fraction(rng.randint(0, 20), rng.randint(1, 20)) for _ in range(3)]
            best = max(dot(n, v) for v in vs)
            lp = optimize.linprog(
                -np.array([float(x) for x in n]), A_ub=G, b_ub=np.ones(len(rows)), bounds=[(0, None)] * 3
            )
            assert lp.status == 0
            assert abs(float(best) + lp.fun) <= 1e-9 * (1 + abs(lp.fun))
            for _ in range(5):
                f = tuple(Fraction(rng.randint(0, 1000), 1000) * v for v in (max(v[k] for v in vs) for k in range(3)))
                if feasible(L, q, w, f):
                    assert dot(n, f) <= best


def exact_count(probs: list[Fraction]) -> list[Fraction]:
    law = [Fraction(1)]
    for pr in probs:
        law = [(law[k] if k < len(law) else 0) * (1 - pr) + (law[k - 1] * pr if k else 0) for k in range(len(law) + 1)]
    return law


def test_hoeffding_upper_tail():
    """P(X > c) ≤ P(Bin(n, μ̄/n) > c) for every c ≥ μ̄ ≥ μ = E X, X Poisson-binomial (exact rationals)."""
    rng = random.Random(7)
    for _ in range(60):
        n = rng.randint(1, 12)
        probs = [
            rng.choice([Fraction(0), Fraction(1)]) if rng.random() < 0.3 else Fraction(rng.randint(0, 100), 100)
            for _ in range(n)
        ]
        mu = sum(probs, Fraction(0))
        law = exact_count(probs)
        for extra in (Fraction(0), Fraction(rng.randint(0, 30), 10)):
            bar = min(mu + extra, Fraction(n))
            binl = exact_count([bar / n] * n)
            for c in range(math.ceil(bar), n + 1):
                assert sum(law[c + 1 :], Fraction(0)) <= sum(binl[c + 1 :], Fraction(0))


@pytest.mark.parametrize(("L", "q", "per_weight"), [(3, 0.2, {0: 3, 1: 3, 3: 1}), (5, 0.285, {0: 9, 2: 40})])
def test_corners_cover_every_labelling(L, q, per_weight):
    """The mean label counts of random labellings (every user a random point of its F(y)) lie below a corner."""
    rng = random.Random(3)
    cs = tf.corners(L, q, per_weight, 2)
    for _ in range(40):
        mu = [Fraction(0)] * 3
        for w, c in per_weight.items():
            for _ in range(c):
                f = random_point(L, q, w, rng) if rng.random() < 0.7 else rng.choice(tf.vertices(L, q, w))
                mu = [a + b for a, b in zip(mu, f, strict=True)]
        assert any(all(a >= b for a, b in zip(corner, mu, strict=True)) for corner in cs)


def pool_delta(cls: pf.Classes, a: int, b: int, c: int, lam: Fraction, forward: bool) -> Fraction:
    """δ₂(a, b, c) in one order, exactly: every ordered tuple of the reports' classes."""
    x, xp, uni = cls.exact["x"], cls.exact["xp"], cls.exact["uniform"]
    laws = [x] * a + [xp] * b + [uni] * c
    K = len(x)
    P1: dict[tuple[int, ...], Fraction] = {}
    P0: dict[tuple[int, ...], Fraction] = {}
    for tup in itertools.product(range(K), repeat=len(laws) + 1):
        base = math.prod((law[t] for law, t in zip(laws, tup[:-1], strict=True)), start=Fraction(1))
        key = tuple(sorted(tup))
        P1[key] = P1.get(key, Fraction(0)) + base * xp[tup[-1]]
        P0[key] = P0.get(key, Fraction(0)) + base * x[tup[-1]]
    first, second = (P1, P0) if forward else (P0, P1)
    return sum((max(first[k] - lam * second[k], Fraction(0)) for k in first), Fraction(0))


def pooled_value(cls, labels: list[tuple[Fraction, ...]], lam: Fraction, forward: bool, cache: dict) -> Fraction:
    """E[δ₂(A, B, C)] for users labelled x, x′, u with probabilities ``labels`` (every assignment)."""
    total = Fraction(0)
    for assign in itertools.product(range(4), repeat=len(labels)):
        pr = math.prod(
            ((f[k] if k < 3 else 1 - sum(f, Fraction(0))) for f, k in zip(labels, assign, strict=True)),
            start=Fraction(1),
        )
        if pr == 0:
            continue
        key = (*(assign.count(k) for k in range(3)), lam, forward)
        if key not in cache:
            cache[key] = pool_delta(cls, *key[:3], lam, forward)
        total += pr * cache[key]
    return total


def assert_below_labellings(
    L: int, q: float, users: list[int], lams: np.ndarray, floors: dict[bool, list[float]], seed: int, count: int
) -> None:
    """Each order's floor at each e^ε is at most E[δ₂] of ``count`` random vertex labellings and ``count``
    random interior ones of users at weights ``users`` (exactly), and some floor is positive."""
    cls = pf.classes(L, q, 0)
    rng = random.Random(seed)
    cache: dict = {}
    labellings = [[rng.choice(tf.vertices(L, q, w)) for w in users] for _ in range(count)]
    labellings += [[random_point(L, q, w, rng) for w in users] for _ in range(count)]
    for fwd in (True, False):
        for lam, low in zip(lams, floors[fwd], strict=True):
            values = [pooled_value(cls, lab, Fraction(float(lam)), fwd, cache) for lab in labellings]
            assert Fraction(low) <= min(values)
    assert max(floors[True] + floors[False]) > 0


@pytest.mark.parametrize(("L", "q", "per_weight"), [(2, 0.3, {0: 2, 1: 2}), (2, 0.15, {0: 1, 1: 2, 2: 1})])
def test_floor_is_below_every_labelling(L, q, per_weight):
    """In each order and at each e^ε, the floor is at most E[δ₂] of random labellings (and of the ones at
    vertices, where counts are largest), exactly; and it is not vacuous."""
    N = sum(per_weight.values()) + 1
    lams = np.array([1.2, 2.0])
    floors = tf.order_floors(N, L, q, per_weight, lams, step=1, cells=64)
    assert_below_labellings(L, q, [w for w, c in per_weight.items() for _ in range(c)], lams, floors, 11, 4)


def test_floor_refuses_a_wrong_background():
    with pytest.raises(ValueError, match="N - 1"):
        tf.order_floors(10, 2, 0.2, {0: 3}, np.array([2.0]))


@pytest.mark.parametrize("L", [2, 3, 5, 8])
@pytest.mark.parametrize("q", [0.05, 0.1692, 0.285, 0.45])
def test_every_polytope_is_the_simplex_of_its_axis_points(L, q):
    """docs/worst-case.md §10.5: F(y) = {f ≥ 0 : f_A/r^w + f_B/r^(L−w) + f_C/(2q)^L ≤ 1} at weight w, exactly."""
    qf = Fraction(q)
    r = qf / (1 - qf)
    zero = Fraction(0)
    for w in range(L + 1):
        axes = {(zero, zero, zero), (r**w, zero, zero), (zero, r ** (L - w), zero), (zero, zero, (2 * qf) ** L)}
        assert set(tf.vertices(L, q, w)) == axes


@pytest.mark.parametrize(("L", "q", "m0", "w", "n"), [(2, 0.3, 2, 1, 2), (2, 0.2, 1, 2, 3)])
def test_vertex_floor_is_below_every_labelling(L, q, m0, w, n):
    """The vertex-labelling floor (§10.5) is at most E[δ₂] of random labellings, vertices and interior
    points alike, in each order (exact rationals), and not vacuous."""
    lams = np.array([1.2, 2.0])
    floors = tf.vertex_floors(m0 + n + 1, L, q, m0, w, lams, [True, False], step=1)
    assert_below_labellings(L, q, [0] * m0 + [w] * n, lams, floors, 5, 5)
