"""Where the calibration's search asks (gpu_rs/calibration/steps.py, docs/calibration.md §8).

Oracles: the spec's tolerance written out here (SPEC §2: ``1e-5 · min(q, 1/2 − q)``), closed-form
roots of lines and parabolas, and synthetic targets whose crossings are known.
"""

from __future__ import annotations

import math

import pytest
from oracles_pairs import search_pairs

import gpu_rs
from gpu_rs.calibration.steps import Q_MAX, Grid, bracket, root


def spec_tol(q: float) -> float:
    return 1e-5 * min(q, 0.5 - q)


@pytest.mark.parametrize("top", [1e-9, 3e-4, 0.01, 0.2246, 0.2499, 0.2501, 0.3754, 0.45, 0.4999])
def test_relative_grid_neighbours_lie_one_tolerance_apart(top):
    """From every grid point the next one down is that point minus its own tolerance (the pair the
    check of ``q − q_tol`` needs), and positions and points invert each other."""
    grid = Grid(None)
    q = top
    for m in range(1, 6):
        below = grid.point(top, m)
        assert below < q
        assert abs((q - below) - spec_tol(q)) <= 1e-7 * spec_tol(q)
        assert abs(grid.offset(top, below) - m) <= 1e-6
        q = below
    assert grid.spacing(top) == spec_tol(top)


def test_absolute_grid_is_uniform():
    grid = Grid(1e-6)
    assert [grid.point(0.3, m) for m in range(3)] == [0.3, 0.3 - 1e-6, 0.3 - 2e-6]
    assert grid.offset(0.3, 0.3 - 2.5e-6) == pytest.approx(2.5)
    assert grid.spacing(0.1) == grid.spacing(0.4) == 1e-6


def test_root_is_exact_on_lines_and_parabolas():
    def line(q):
        return 3.0 - 10.0 * q

    assert root([(0.0, line(0.0)), (0.1, line(0.1))]) == pytest.approx(0.3, rel=1e-12)

    def para(q):  # roots 0.3 and -2: the one nearest the last point
        return (q - 0.3) * (q + 2.0)

    pts = [(q, para(q)) for q in (0.1, 0.2, 0.25)]
    assert root(pts) == pytest.approx(0.3, rel=1e-12)
    assert root([(0.1, 1.0), (0.2, 1.0)]) is None  # flat: no crossing
    assert root([(0.1, math.inf), (0.2, 1.0)]) is None
    # A parabola without a real root falls back to the line through the last two points.
    flat = [(0.0, 1.0), (0.1, 0.5), (0.2, 1.0)]
    assert root(flat) == root(flat[1:])


@pytest.mark.parametrize("answer", [0.01, 0.2247, 0.3754, 0.49])
@pytest.mark.parametrize("guess", [0.005, 0.18, 0.35, 0.48])
@pytest.mark.parametrize("shape", ["concave", "sawtooth"])
def test_bracket_holds_its_invariant(answer, guess, shape):
    """``hi`` certifies and ``lo`` does not (or is 0), for a smooth target and a non-monotone one."""

    def gap(q: float) -> float:  # log(value / target): positive where q does not certify
        smooth = -40.0 * (q - answer) - 300.0 * (q - answer) ** 2 * (q > answer)
        return smooth + (0.3 * math.sin(q * 4000.0) if shape == "sawtooth" else 0.0)

    calls: list[float] = []

    def ok(q: float) -> bool:
        calls.append(q)
        return gap(q) <= 0.0

    assert ok(Q_MAX)
    lo, hi = bracket(guess, ok, gap)
    assert lo < hi and ok(hi) and (lo == 0.0 or not ok(lo))
    assert len(calls) < 40


@pytest.mark.parametrize(("n", "bits", "eps"), [(4, 3, 0.5), (5, 2, 1.0)])
def test_every_pair_bound_carries_to_larger_q(n, bits, eps):
    """docs/calibration.md §8.1: every pair's δ(ε) falls as q grows, so the every-pair tail bound at q₁
    (a δ bound turned into a tail) bounds every pair's tail at every q₂ ≥ q₁; exact enumeration of every
    pair, both orders (tests/oracles_pairs.py)."""
    lam = math.exp(eps)
    exact = {q: search_pairs(n, bits, q, lam) for q in (0.1, 0.12, 0.2, 0.3, 0.45)}
    for i, q1 in enumerate(sorted(exact)):
        upper = gpu_rs.tail(n, bits, q1, eps, scope="all").upper
        worst_delta_q1 = max(max(r["delta_fwd"], r["delta_rev"]) for r in exact[q1]["pairs"])
        for q2 in sorted(exact)[i:]:
            pairs = exact[q2]["pairs"]
            assert max(max(r["tail_fwd"], r["tail_rev"]) for r in pairs) <= upper
            # pair by pair: the same pair's δ at q₂ is at most its δ at q₁
            before = {(r["bg"], r["x"], r["xp"]): r for r in exact[q1]["pairs"]}
            for r in pairs:
                old = before[r["bg"], r["x"], r["xp"]]
                assert r["delta_fwd"] <= old["delta_fwd"] + 1e-12
                assert r["delta_rev"] <= old["delta_rev"] + 1e-12
            assert max(max(r["delta_fwd"], r["delta_rev"]) for r in pairs) <= worst_delta_q1 + 1e-12
