"""``compose``: the certified profile of ``T`` releases (issue 31, docs/composition.md).

Oracles (``tests/oracles_compose.py``, no gpu_rs): the exact ``T``-fold composition of one-bit
pairs in rationals, for every background (the upper end must cover the worst, the lower end
stay below the seed's pair), and Monte Carlo of the composed loss of the dominating pair.
dp_accounting is a comparison: our upper ``ε`` is never below its optimistic composition of the
exact pair and close to its pessimistic composition of the same export.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction

import numpy as np
import oracles_compose
import pytest

import gpu_rs
from gpu_rs.quantities.compose import compose

EPS = [0.2, 0.6, 1.2]
RELEASES = ["--releases", "3", "--backend", "numpy", "--quiet"]


def _truths(n: int, q: Fraction, times: int) -> tuple[list[float], list[float]]:
    """``(seed's pair, worst pair)`` composed exactly at each of ``EPS``, the larger order each."""
    worst = [0.0] * len(EPS)
    seed = [0.0] * len(EPS)
    for ones in range(n):
        p, qq = oracles_compose.one_bit_pair(n, q, ones)
        both = [
            max(a, b)
            for a, b in zip(*(oracles_compose.composed_delta(*o, times, EPS) for o in ((p, qq), (qq, p))), strict=True)
        ]
        worst = [max(w, b) for w, b in zip(worst, both, strict=True)]
        if ones == 0:
            seed = both
    return seed, worst


@pytest.mark.parametrize(("n", "times"), [(8, 3), (4, 12)])
def test_one_bit_composed_exactly(n, times):
    """Scope all at one bit: the upper end is above every pair's exact composition, the lower below the seed's."""
    profile = gpu_rs.privacy_profile(n, 1, 0.25, scope="all", backend="numpy")
    composed = compose(profile, times=times)
    seed, worst = _truths(n, Fraction(1, 4), times)
    for d, s, w in zip(composed.delta(EPS), seed, worst, strict=True):
        assert d.lower <= s * (1 + 1e-9) and w <= d.upper
        assert d.budget.total == pytest.approx(d.upper - d.lower, rel=1e-9, abs=1e-300)


def test_heterogeneous_round_against_exact_products():
    """Two different releases per round: the product of their exact pairs, composed twice."""
    a = gpu_rs.privacy_profile(5, 1, 0.25, scope="homogeneous", backend="numpy")
    b = gpu_rs.privacy_profile(3, 1, 0.2, scope="homogeneous", backend="numpy")
    composed = compose([a, b], times=2)
    pa, qa = oracles_compose.one_bit_pair(5, Fraction(1, 4), 0)
    pb, qb = oracles_compose.one_bit_pair(3, Fraction(1, 5), 0)
    p = [x * y for x in pa for y in pb]
    q = [x * y for x in qa for y in qb]
    exact = [
        max(u, v) for u, v in zip(*(oracles_compose.composed_delta(*o, 2, EPS) for o in ((p, q), (q, p))), strict=True)
    ]
    for d, t in zip(composed.delta(EPS), exact, strict=True):
        assert d.lower <= t * (1 + 1e-9) and t <= d.upper


def test_dominating_pair_against_monte_carlo():
    """The engine's certified δ of the composed dominating pair against sampling of its loss."""
    profile = gpu_rs.privacy_profile(40, 1, 0.2, scope="homogeneous", backend="numpy")
    composed = compose(profile, times=20)
    side = composed.engine.sides["forward"][0]
    pmf = composed.engine.pairs["forward"][0][0][0]
    probs = np.array([float(p) for p in pmf.probs])
    for eps in (0.5, 1.0):
        lo, hi = side.delta(eps, 1e-3, 1e-15)
        mean, half = oracles_compose.monte_carlo_delta(pmf.losses, probs, float(pmf.infinity), 20, eps, 200_000, 7)
        assert lo - 1e-12 <= mean + half and mean - half <= hi + 1e-12


@pytest.mark.parametrize(("n", "q", "times"), [(1000, 0.1, 30), (2000, 0.01798620996209156, 50)])
def test_against_dp_accounting(n, q, times):
    """Never below dp_accounting's optimistic composition of the exact pair; at most 5 % above its
    pessimistic composition of the same export. (At ε₀ = 4 the root finder once met a threshold at
    the top of the support, where no tilt applies: the bound there is a Chernoff bound, not 1.)"""
    pytest.importorskip("dp_accounting")
    from gpu_rs.reference.one_bit_pld import one_bit_pld

    delta = 1e-6
    profile = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy")
    found = compose(profile, times=times).epsilon(delta)
    theirs = profile.to_dp_accounting().self_compose(times).get_epsilon_for_delta(delta)
    exact = one_bit_pld(n, q, pessimistic=False).self_compose(times).get_epsilon_for_delta(delta)
    assert exact <= found.upper <= 1.05 * theirs
    assert found.lower <= exact


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"times": 0}, "times must be an integer in [1, 100000]"),
        ({"times": 2.5}, "times must be an integer"),
        ({"times": 10**6}, "times must be an integer in [1, 100000]"),
    ],
)
def test_bad_times(kwargs, words):
    profile = gpu_rs.privacy_profile(5, 1, 0.25, scope="homogeneous", backend="numpy")
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        compose(profile, **kwargs)


def test_bad_lists():
    """Mixed scopes, a forward-only profile, too many releases in all, a list of no profiles."""
    a = gpu_rs.privacy_profile(5, 1, 0.25, scope="homogeneous", backend="numpy")
    b = gpu_rs.privacy_profile(5, 1, 0.25, scope="all", backend="numpy")
    with pytest.raises(ValueError, match="scope"):
        compose([a, b])
    with pytest.raises(ValueError, match="scope"):
        compose(gpu_rs.privacy_profile(5, 1, 0.25, scope="forward", backend="numpy"))
    with pytest.raises(ValueError, match="at most 100000"):
        compose([a, a], times=60_000)
    with pytest.raises(ValueError, match="profiles must be"):
        compose([])
    with pytest.raises(ValueError, match=r"points must be an integer in \[2, 100000\]: got 0"):
        compose(a, points=0)
    with pytest.raises(ValueError, match="delta_floor must be a number in"):
        compose(a, delta_floor=0.0)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--releases", "0"], "--releases must be an integer in [1, 100000]: got 0"),
        (["--releases", "2.5"], "--releases must be an integer in [1, 100000]: got 2.5"),
        (["--releases", "200000"], "--releases must be an integer in [1, 100000]: got 200000"),
    ],
)
def test_cli_releases_refused_in_one_line(extra, words):
    import subprocess
    import sys

    for command in (["profile", "--q", "0.2", "--delta", "1e-6"], ["calibrate", "--eps", "1", "--delta", "1e-6"]):
        out = subprocess.run(
            [sys.executable, "-m", "gpu_rs", *command, "--n", "50", "--bits", "1", *extra],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 2 and out.stderr.strip() == f"gpu-rs: error: {words}"


def test_releases_need_delta_and_profile_cli_composes():
    import subprocess
    import sys

    with pytest.raises(ValueError, match="releases must be 1 with eta"):
        gpu_rs.calibrate(50, 1, eps=1.0, eta=1e-3, releases=3)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_rs",
            "profile",
            "--n",
            "8",
            "--bits",
            "1",
            "--q",
            "0.25",
            "--eps",
            "1.2",
            *RELEASES,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and "after 3 releases" in out.stdout
    _, worst = _truths(8, Fraction(1, 4), 3)
    upper = float(out.stdout.split("in [")[1].split(",")[1].split("]")[0])
    assert worst[EPS.index(1.2)] <= upper * (1 + 1e-6)


def test_composed_profile_plots_exports_and_serializes(tmp_path):
    """The composed profile has the single profile's interface: plot, to_dp_accounting, to_dict."""
    pytest.importorskip("matplotlib")
    profile = gpu_rs.privacy_profile(8, 1, 0.25, scope="homogeneous", backend="numpy")
    composed = compose(profile, times=3)  # few outcomes: summed one by one
    composed.plot(np.linspace(0.5, 2.0, 3), path=str(tmp_path / "c.png"))
    assert (tmp_path / "c.png").stat().st_size > 0
    out = composed.to_dict()
    assert out["times"] == 3 and len(out["evaluated"]) == 3
    composed.epsilon(1e-2)  # as for one release, epsilon lists the delta at its upper end
    assert len(composed.to_dict()["evaluated"]) == 4
    if importlib.util.find_spec("dp_accounting") is not None:  # one composed δ per grid point: a coarse grid
        pld = composed.to_dp_accounting(points=4, eps_max=4.0)
        assert pld.get_epsilon_for_delta(1e-3) >= composed.epsilon(1e-3).upper
    k2 = gpu_rs.privacy_profile(8, 1, 0.25, k=2, backend="numpy")
    k2.plot(np.linspace(0.1, 2.0, 4), path=str(tmp_path / "k.png"))
    e = k2.epsilon(1e-3)
    assert e.lower == 0.0 and k2.delta(e.upper).upper <= 1e-3


def test_delta_below_the_infinity_mass_is_refused():
    """δ after T releases is at least 1 − (1 − ω_∞)^T: ε(δ) below that does not exist, and says so."""
    from gpu_rs.pairs.compose_pairs import NULL, pessimistic
    from gpu_rs.quantities.compose_root import Composition

    pmf = pessimistic([Fraction(2)], np.array([1e-6]))  # loss log 2 with mass 1 − 1e-6, +∞ with 1e-6
    assert pmf.infinity == Fraction(1e-6) and sum(pmf.probs) + pmf.infinity == 1
    engine = Composition({name: [((pmf, NULL), 10)] for name in ("forward", "reverse")}, 1e-3, 1e-15, 10.0)
    floor = -np.expm1(10 * np.log1p(-1e-6))
    assert floor <= engine.delta(20.0).upper <= floor * (1 + 1e-9)
    with pytest.raises(ValueError, match="delta must exceed the composed export's infinity mass"):
        engine.epsilon(1e-6, 1e-3)
    found = engine.epsilon(1e-4, 1e-3)  # loss 10 log 2 unless infinite: δ = 1 − A + A (1 − e^ε / 2^10)_+
    a = 1.0 - floor
    true = 10 * np.log(2) + np.log1p(-(1e-4 - floor) / a)
    assert found.lower <= true <= found.upper <= true + 1.01e-3 * found.upper


def test_calibrate_delta_after_releases_against_exact_compositions():
    """``calibrate(delta=..., releases=3)``: at the q found, every pair's exact 3-fold δ meets the target."""
    c = gpu_rs.calibrate(8, 1, eps=1.0, delta=1e-2, releases=3, q_tol=1e-3, backend="numpy")
    assert c.releases == 3 and c.at_q.upper <= 1e-2 and "after 3 round(s)" in c.guarantee
    worst = 0.0
    for ones in range(8):
        p, q = oracles_compose.one_bit_pair(8, Fraction(c.q), ones)
        worst = max(worst, *(oracles_compose.composed_delta(*o, 3, [1.0])[0] for o in ((p, q), (q, p))))
    assert worst <= c.at_q.upper


@pytest.mark.parametrize("times", [1, 2, 3])
def test_composition_with_a_mass_below_the_float_range(times):
    """A loss whose mass underflows float64 (an every-pair pair at (1e4, 5, 0.3) has one) is left out of the
    listed sum and bounded by its mass: the interval holds the exact δ (50 digits) and stays narrow, where
    its infinite relative error once made the upper end 1."""
    import itertools
    import math

    import mpmath

    from gpu_rs.pairs.compose_pairs import LossPmf
    from gpu_rs.pairs.compose_sides import Side

    tiny = Fraction(1, 10**400)
    x = (Fraction(3, 2), Fraction(5), Fraction(40))
    probs = (Fraction(1, 2) - tiny, Fraction(1, 2), tiny)
    side = Side([(LossPmf(x, probs, Fraction(0)), times)], 1 << 20, np)
    mpmath.mp.dps = 50
    for eps in (0.1, 1.0, 2.5, 4.0):
        exact = mpmath.mpf(0)
        for pick in itertools.product(range(3), repeat=times):
            joint = math.prod((probs[i] for i in pick), start=Fraction(1))
            mass = mpmath.mpf(joint.numerator) / joint.denominator
            ratio = mpmath.mpf(1)
            for i in pick:
                ratio *= mpmath.mpf(x[i].numerator) / x[i].denominator
            exact += mass * max(mpmath.mpf(0), 1 - mpmath.e**eps / ratio)
        lower, upper = side.delta(eps, 1e-3, 1e-15)
        assert lower <= exact <= upper, (eps, lower, float(exact), upper)
        assert upper - lower <= 1e-12 * float(exact) + 1e-300
