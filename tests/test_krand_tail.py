"""Certified tails for k reports per user (SPEC §1.3, docs/k-randomization.md §5) against exact oracles.

Oracles (tests/oracles_krand.py, never importing gpu_rs): ``shuffled_law`` (every output
multiset, exact rationals, tiny cases), ``tail_counts`` / ``tail_counts_reverse`` (exact
thresholds on the level counts, L = 1, 2, N up to ~1000).
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import pytest
from oracles_krand import shuffled_law, tail_counts, tail_counts_reverse

import gpu_rs
from gpu_rs.quantities.krand_moments import k_moments, three_sigma_q_k

CASES = [
    # n, bits, k, q, lam
    (1000, 2, 3, 0.2, 1.5),
    (1000, 2, 2, 0.1, 3.0),
    (1000, 1, 3, 0.2, 1.5),
    (1000, 1, 2, 0.3, 1.2),
    (300, 2, 3, 0.1, 3.0),
    (200, 1, 3, 0.1, 2.0),
    (50, 2, 2, 0.25, 2.0),
    (5, 2, 3, 0.3, 1.5),
    (2, 1, 2, 0.2, 2.0),
]


def _contains(b, value):
    return b.lower <= value <= b.upper


@pytest.mark.parametrize(("n", "bits", "k", "q", "lam"), CASES)
def test_interval_contains_exact_tail(n, bits, k, q, lam):
    fwd = tail_counts(n, bits, q, k, lam)
    rev = tail_counts_reverse(n, bits, q, k, lam)
    f = gpu_rs.tail(n, bits, q, ratio=lam, k=k, scope="forward", backend="numpy")
    h = gpu_rs.tail(n, bits, q, ratio=lam, k=k, scope="homogeneous", backend="numpy")
    assert _contains(f, fwd), (f.lower, fwd, f.upper)
    assert _contains(h, max(fwd, rev)), (h.lower, max(fwd, rev), h.upper)
    pairs = {p.pair: p for p in h.pairs}
    assert pairs["reverse"].lower <= rev <= pairs["reverse"].upper
    for b in (f, h):
        assert b.k == k
        assert math.isclose(b.budget.total, b.upper - b.lower, rel_tol=1e-6, abs_tol=1e-15)
        assert b.met == (b.upper - b.lower <= max(b.rel_width * b.lower, b.abs_width))


@pytest.mark.parametrize(
    ("n", "bits", "k", "q", "lam"),
    [
        (2, 1, 2, Fraction(1, 4), Fraction(3, 2)),
        (3, 2, 2, Fraction(1, 5), Fraction(2)),
        (2, 2, 3, Fraction(3, 10), Fraction(3, 2)),
    ],
)
@pytest.mark.parametrize("inclusive", [False, True])
def test_tiny_cases_against_every_output(n, bits, k, q, lam, inclusive):
    law = shuffled_law(n, bits, q, k)

    def hit(x, y):
        return x >= y if inclusive else x > y

    fwd = float(sum(pm for pm, p0 in law.values() if hit(pm, lam * p0)))
    rev = float(sum(p0 for pm, p0 in law.values() if hit(p0, lam * pm)))
    b = gpu_rs.tail(n, bits, float(q), ratio=float(lam), k=k, scope="homogeneous", inclusive=inclusive, backend="numpy")
    pairs = {p.pair: p for p in b.pairs}
    assert pairs["forward"].lower <= fwd <= pairs["forward"].upper
    assert pairs["reverse"].lower <= rev <= pairs["reverse"].upper


def test_k1_path_unchanged():
    a = gpu_rs.tail(1000, 2, 0.2, ratio=1.5, k=1, scope="forward", backend="numpy")
    assert _contains(a, tail_counts(1000, 2, 0.2, 1, 1.5))


def test_scope_all_is_the_default_and_proven():
    """k > 1 under the default scope: every pair, by the composition bound (docs/composition.md §2)."""
    b = gpu_rs.tail(800, 1, 0.1, 0.5, k=2, backend="numpy")
    assert b.scope == "all" and "every neighbouring collection with k reports" in b.guarantee


def test_k_limit_is_named():
    with pytest.raises(ValueError, match="k must be an integer in"):
        gpu_rs.tail(800, 1, 0.1, 0.5, k=0, scope="homogeneous")


def test_profile_refuses_k_below_all_and_cli_does_not_ignore_it():
    with pytest.raises(ValueError, match="scope must be 'all' for privacy_profile with k=2"):
        gpu_rs.privacy_profile(100, 1, 0.25, k=2, scope="homogeneous")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_rs",
            "profile",
            "--n",
            "100",
            "--bits",
            "1",
            "--q",
            "0.25",
            "--delta",
            "1e-3",
            "--k",
            "2",
            "--scope",
            "homogeneous",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip().startswith("gpu-rs: error: scope must be 'all' for privacy_profile with k=2")


def test_moments_and_three_sigma_take_k():
    assert gpu_rs.moments(50, 2, 0.25, k=3) == pytest.approx(k_moments(50, 2, 0.25, 3), rel=1e-12)
    assert gpu_rs.three_sigma_q(1000, 5, math.log(2), k=2) == pytest.approx(
        three_sigma_q_k(1000, 5, math.log(2), 2), abs=2e-9
    )
    assert gpu_rs.precision_sigma(10**7, 0.36, 10) == pytest.approx(math.sqrt(0.36 * 0.64 * 1e6) / 0.28)


def test_calibrate_k_is_certified():
    c = gpu_rs.calibrate(1000, 1, math.log(3.0), 1e-2, k=2, scope="homogeneous", q_tol=1e-4, backend="numpy")
    assert c.k == 2
    assert c.tail.upper <= 1e-2
    exact = max(tail_counts(1000, 1, c.q, 2, 3.0), tail_counts_reverse(1000, 1, c.q, 2, 3.0))
    assert exact <= c.tail.upper
    assert c.sigma_calibrated == pytest.approx(gpu_rs.precision_sigma(1000, c.q, 2))


@pytest.mark.parametrize(("n", "k", "q", "lam"), [(1000, 3, 0.2, 1.5), (100, 2, 0.3, 1.2), (10, 3, 0.1, 3.0)])
def test_one_bit_is_exact_to_the_asked_width(n, k, q, lam):
    b = gpu_rs.tail(n, 1, q, ratio=lam, k=k, scope="homogeneous", backend="numpy")
    assert b.met
    assert _contains(b, max(tail_counts(n, 1, q, k, lam), tail_counts_reverse(n, 1, q, k, lam)))
