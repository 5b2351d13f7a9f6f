"""The whole-curve engine (engine/curve*.py) and the fast profile against exact oracles.

Oracles: exact one-bit hinge sums (``gpu_rs.reference.profile_exact``), exact enumeration of
every output histogram for small N and L (``oracles_pairs.pair_delta``), the exact binomial
survival function, and the identity ``δ = hinge expectation of X′`` checked against them.
"""

from __future__ import annotations

import json
import math

import numpy as np
import oracles_pairs as op
import pytest
from scipy.stats import binom

import gpu_rs
from gpu_rs.engine.atoms import ZERO, record_atoms
from gpu_rs.engine.curve import Curve
from gpu_rs.engine.curve_heavy import HeavyCurve
from gpu_rs.engine.laws import SumLaw, restricted
from gpu_rs.quantities.profile_curve import HingeCurve
from gpu_rs.quantities.profile_enumeration import Enumerated
from gpu_rs.reference.profile_exact import delta_one_bit


def _law(n, bits, q):
    at = record_atoms(bits, q, ZERO)
    keep = np.ones(bits + 1, dtype=bool)
    return at, SumLaw(((restricted(at.gaps, at.log_probs, at.probs, at.prob_error, at.exact, keep), n),))


def _exact_one_bit(n, q, ys, kind):
    """sf / call / put of Y = s J, J ~ Bin(n, q), s = 1/r − r, at each y (float64 sums of exact pmf)."""
    at = record_atoms(1, q, ZERO)
    s = float(at.gaps[1])
    j = np.arange(n + 1)
    pmf = binom.pmf(j, n, q)
    out = []
    for y in ys:
        x = s * j
        values = {"sf": pmf[x > y].sum(), "call": (pmf * np.maximum(x - y, 0)).sum()}
        values["put"] = (pmf * np.maximum(y - x, 0)).sum()
        out.append(values[kind])
    return np.array(out)


@pytest.mark.parametrize("kind", ["sf", "call", "put"])
def test_curve_brackets_exact_one_bit_values(kind):
    n, q = 400, 0.2
    at, law = _law(n, 1, q)
    ys = np.linspace(0.6, 1.6, 9) * law.mean
    curve = Curve(law, ys.min(), ys.max(), 1e-18, at.value_error, 1 << 18, np)
    found = curve.evaluate(kind, ys, 1e-12 * ys, 1e-6 * np.ones_like(ys) * (law.mean if kind != "sf" else 1.0))
    exact = _exact_one_bit(n, q, ys, kind)
    assert np.all(found.lower <= exact * (1 + 1e-9) + 1e-15) and np.all(exact <= found.upper * (1 + 1e-9) + 1e-15)
    for i in range(ys.shape[0]):
        b = found.bounds(i)
        assert math.isclose(b.budget.total, b.width, rel_tol=1e-6, abs_tol=1e-300)


def test_heavy_curve_agrees_with_one_window():
    n, bits, q = 2000, 6, 0.12
    at, law = _law(n, bits, q)
    ys = law.mean * np.array([1.5, 2.0, 3.0])
    curve = Curve(law, ys.min(), ys.max(), 1e-16, at.value_error, 1 << 20, np)
    plain = curve.evaluate("call", ys, 1e-9 * ys, 1e-4 * ys)
    part = law.parts[0][0]
    heavy = part.values > ys.min() / 16
    split = HeavyCurve(part, n, heavy, 1e-16, at.value_error, 1 << 20, np).evaluate("call", ys, 1e-9 * ys, 1e-4 * ys)
    assert np.all(np.maximum(plain.lower, split.lower) <= np.minimum(plain.upper, split.upper) * (1 + 1e-12))


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(40, 3, 0.2, 0.3), (60, 2, 0.15, 0.5)])
def test_hinge_curve_both_orders_against_enumeration(n, bits, q, eps):
    found = HingeCurve(n, bits, q, 1 << 20, np).deltas(np.array([eps]), 1e-4, 1e-12)
    e = Enumerated(n, bits, q)
    for name, forward in (("forward", True), ("reverse", False)):
        lo, hi = found[name][0][0], found[name][1][0]
        ex_lo, ex_hi = e.delta(eps, forward)
        assert lo <= ex_hi * (1 + 1e-9) and ex_lo <= hi * (1 + 1e-9)
    if n <= 6:
        zeros = ["0" * bits] * n
        outlier = ["0" * bits] * (n - 1) + ["1" * bits]
        assert e.delta(eps, True)[0] <= op.pair_delta(zeros, outlier, q, eps) <= e.delta(eps, True)[1]


@pytest.mark.parametrize(("n", "q", "eps"), [(2000, 0.05, 1.2), (20000, 0.02, 1.0), (5000, 0.01, 3.5)])
def test_small_delta_one_bit_relative_width(n, q, eps):
    # δ far below 1e-16 keeps relative width 1e-3 (no absolute floor): checked against exact sums
    d = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy").delta(eps)
    for name, forward in (("forward", True), ("reverse", False)):
        lo, hi = getattr(d, name)
        ex = delta_one_bit(n, q, eps, forward)
        assert lo <= ex[1] and ex[0] <= hi
        if ex[0] > 0:
            assert hi - lo <= 1e-3 * lo
    assert d.upper > 0


def test_small_delta_targets_1e30_1e100_1e250():
    # exact one-bit values at delta about 1e-30, 1e-100 and 1e-250
    cases = [(1000, 0.1, 1.5, 1e-33, 1e-28), (20000, 0.1, 0.5, 1e-120, 1e-95), (20000, 0.05, 1.6, 1e-275, 1e-225)]
    for n, q, eps, low, high in cases:
        d = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy").delta(eps)
        ex = max(delta_one_bit(n, q, eps, True), delta_one_bit(n, q, eps, False))
        assert d.lower <= ex[1] and ex[0] <= d.upper and d.upper - d.lower <= 1e-3 * d.lower
        assert low < d.lower < high


@pytest.mark.parametrize(("n", "q", "eps"), [(300, 0.1, 1.0), (1000, 0.05, 1.5)])
def test_two_bits_below_1e100_against_enumeration(n, q, eps):
    d = gpu_rs.privacy_profile(n, 2, q, scope="homogeneous", backend="numpy").delta(eps)
    e = Enumerated(n, 2, q)
    for name, forward in (("forward", True), ("reverse", False)):
        lo, hi = getattr(d, name)
        ex = e.delta(eps, forward)
        assert lo <= ex[1] and ex[0] <= hi
    assert d.upper - d.lower <= 1e-3 * d.lower


@pytest.mark.parametrize(("n", "q", "delta"), [(1000, 0.1, 1e-6), (5000, 0.02, 1e-40)])
def test_epsilon_brackets_exact_one_bit(n, q, delta):
    e = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy").epsilon(delta)
    exact = lambda eps: max(delta_one_bit(n, q, eps, True), delta_one_bit(n, q, eps, False))  # noqa: E731
    assert exact(e.upper)[1] <= delta
    assert e.lower == 0 or exact(e.lower)[0] > delta


@pytest.mark.parametrize(("n", "q", "eps"), [(7, 0.2, 0.3), (6, 0.3, 0.1)])
def test_scope_all_one_bit_is_the_maximum_over_every_pair(n, q, eps):
    import itertools

    worst = 0.0
    for bg in itertools.combinations_with_replacement("01", n - 1):
        for x, y in itertools.permutations("01", 2):
            worst = max(worst, op.pair_delta([*bg, x], [*bg, y], q, eps))
    d = gpu_rs.privacy_profile(n, 1, q, scope="all", backend="numpy").delta(eps)
    assert d.lower <= worst * (1 + 1e-9) and worst <= d.upper * (1 + 1e-12)
    assert d.upper - d.lower <= 1e-9 * worst
    assert gpu_rs.privacy_profile(n, 1, q, scope="all").guarantee == "proven for every neighbouring collection"


def test_cli_profile_grid_csv_plot_json(tmp_path, capsys):
    from gpu_rs.cli.main import main as cli_main

    csv_path, png = tmp_path / "p.csv", tmp_path / "p.png"
    base = ["profile", "--n", "1000", "--bits", "1", "--q", "0.25", "--quiet"]
    assert cli_main([*base, "--eps-grid", "0.1:0.5:5", "--csv", str(csv_path), "--plot", str(png)]) == 0
    assert len(csv_path.read_text().splitlines()) == 6 and png.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    assert cli_main([*base, "--eps-grid", "0.2,0.4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("n", "bits", "q", "k", "scope", "guarantee", "backend", "seconds", "provenance"):
        assert key in out
    assert [d["eps"] for d in out["deltas"]] == [0.2, 0.4]
    for bad in (
        ["--eps-grid", "1:0:3"],
        ["--eps", "0.5", "--plot", str(tmp_path)],
        ["--eps", "0.5", "--k", "2", "--scope", "homogeneous"],
    ):
        assert cli_main([*base, *bad]) == 2
        assert capsys.readouterr().err.startswith("gpu-rs: error:")


def test_the_same_question_again_gets_the_same_floats():
    """A second pass at the same terms is served from ``Curve.last``: the floats of a fresh curve."""
    n, q = 400, 0.2
    at, law = _law(n, 1, q)
    ys = np.linspace(0.8, 1.4, 5) * law.mean
    asked = ("put", ys, 1e-12 * ys, 1e-6 * law.mean * np.ones_like(ys))
    curve = Curve(law, ys.min(), ys.max(), 1e-18, at.value_error, 1 << 18, np)
    first = curve.evaluate(*asked)
    curve.evaluate("call", ys, 1e-12 * ys, 1e-9 * law.mean * np.ones_like(ys))  # the other kind between
    again = curve.evaluate(*asked)
    fresh = Curve(law, ys.min(), ys.max(), 1e-18, at.value_error, 1 << 18, np).evaluate(*asked)
    assert curve.last["put"][1].lower is first.lower
    for name in ("lower", "upper", "discretization", "truncation", "roundoff"):
        assert np.array_equal(getattr(again, name), getattr(first, name))
        assert np.array_equal(getattr(fresh, name), getattr(first, name))
