"""Atoms and thresholds at the edge of float64 (issue 21 item 5, issue 22 item 2).

Regressions of the randomized sweep: thresholds within ~1e-15 of an atom at ``n = 1``
(an OverflowError before), ``L = 128`` with ``q = 1e-4`` (atoms near ``1e±512``; the answer
was [0, 1] called "exact"), ``ε`` near 700 at ``n = 10^9`` (refused before), and the
83-second ``tail(1015, 64, …)``. Oracles: single records summed exactly with mpmath at
60 digits, and for sums a bracket from one record's atom (below) and a union bound (above).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import gpu_rs
from gpu_rs.engine import chernoff
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.laws import POINT, Cut, SumLaw

mpmath.mp.dps = 60


def _atoms(bits, q, outlier):
    """``[(atom, probability)]`` of one record in mpmath: ``l`` set bits give ``r^(L − 2l)``."""
    qf = mpmath.mpf(Fraction(q).numerator) / Fraction(q).denominator
    pf = 1 - qf
    r = qf / pf
    out = []
    for l in range(bits + 1):
        prob = mpmath.binomial(bits, l) * (pf**l * qf ** (bits - l) if outlier else qf**l * pf ** (bits - l))
        out.append((r ** (bits - 2 * l), prob))
    return out


def _threshold(n, log_ratio):
    return n * mpmath.exp(mpmath.mpf(log_ratio))


def single_forward(bits, q, eps):
    """``P[w > e^ε]`` for the outlier's atom ``w`` (``n = 1``: the forward order exactly)."""
    t = _threshold(1, eps)
    return float(sum(p for w, p in _atoms(bits, q, True) if w > t))


def single_reverse(bits, q, eps):
    """``P[w < e^−ε]`` for one zero vector's atom (``n = 1``: the reverse order exactly)."""
    t = _threshold(1, -eps)
    return float(sum(p for w, p in _atoms(bits, q, False) if w < t))


def _contains(b, lo, hi, rel=1e-12):
    assert b.lower <= hi * (1 + rel) + 1e-300 and b.upper >= lo * (1 - rel), (b.lower, b.upper, lo, hi)


def _not_exact_if_wide(b):
    if b.upper - b.lower > 1e-9:
        assert b.method != "exact"
    for pair in b.pairs:
        if pair.upper - pair.lower > 1e-9:
            assert pair.method != "exact"


ONE_RECORD = [
    (1, 0.1, math.log(9)),  # e^ε within 1e-15 of the atom 9: OverflowError before
    (3, 0.0001858020207611865, 25.771929109072506),
    (128, 1e-4, 1.0),  # atoms near 1e±512: [0, 1] "exact" before
    (128, 1e-4, 699.0),
    (5, 0.3, 0.5),
]


@pytest.mark.parametrize("bits,q,eps", ONE_RECORD)
def test_one_record_is_exact(bits, q, eps):
    """``n = 1``: each order is one record, summed exactly; the interval is a point up to round-off."""
    fwd, rev = single_forward(bits, q, eps), single_reverse(bits, q, eps)
    b = gpu_rs.tail(1, bits, q, eps, scope="homogeneous")
    truth = max(fwd, rev)
    _contains(b, truth, truth)
    assert b.upper - b.lower <= 1e-12 + 1e-9 * truth, b
    f = gpu_rs.tail(1, bits, q, eps, scope="forward")
    _contains(f, fwd, fwd)
    _not_exact_if_wide(b)


def _forward_bracket(n, bits, q, eps):
    """``P[X > n e^ε]`` for ``X`` = ``n − 1`` zero-vector atoms + the outlier's, bracketed.

    Below: the outlier's atom alone passes ``t``. Above: it passes ``t − s``, or the
    ``n − 1`` others sum to ``s`` or more, which needs one of them ``>= s / (n − 1)``.
    """
    t = _threshold(n, eps)
    s = mpmath.mpf(10) ** -100 * t
    out = _atoms(bits, q, True)
    lo = sum(p for w, p in out if w > t)
    near = sum(p for w, p in out if w > t - s)
    one = sum(p for w, p in _atoms(bits, q, False) if w >= s / max(1, n - 1))
    hi = min(mpmath.mpf(1), near + (n - 1) * one)
    return float(lo), float(hi)


SUMS = [
    # (n, bits, q, eps, scope): the sweep's sums with huge atoms
    (1000, 128, 1e-4, 1.0, "homogeneous"),
    (2, 128, 1e-4, 1e-12, "homogeneous"),
    (10**9, 128, 1e-4, 699.0, "homogeneous"),  # refused before ("e^719.7 overflows float64")
    (10**9, 128, 1e-4, 600.0, "forward"),  # 168 s and [0, 1] before
    (1015, 64, 0.00011538319791488426, 573.3740871993125, "forward"),  # 83 s before
]


@pytest.mark.parametrize("n,bits,q,eps,scope", SUMS)
def test_huge_atoms_give_real_intervals(n, bits, q, eps, scope):
    """The forward order's bracket lies under the homogeneous maximum and inside the forward tail."""
    lo, hi = _forward_bracket(n, bits, q, eps)
    assert hi - lo <= 1e-12 * max(lo, 1e-300) + 1e-15  # the oracle is tight
    b = gpu_rs.tail(n, bits, q, eps, scope=scope)
    if scope == "forward":
        _contains(b, lo, hi)
    else:
        assert b.upper >= lo * (1 - 1e-12)
    assert b.upper - b.lower <= max(1e-12, 1e-3 * b.lower) * 1.01, b
    assert b.met
    _not_exact_if_wide(b)


def test_bracket_never_called_exact():
    """A point widened beyond round-off is renamed: "exact" never labels a bracket."""
    b = Bounds.make(0.0, 1.0, ErrorBudget(truncation=1.0), "exact")
    assert b.method != "exact"
    assert Bounds.make(0.5, 0.5, ErrorBudget(), "exact").method == "exact"


def test_chernoff_on_a_point_law_does_not_overflow():
    """A sum fixed at 0 (all its spread split off): the quantile search stops before θ overflows."""
    law = SumLaw(((POINT, 1),))
    assert chernoff.upper_quantile(law, 1e-12) >= 0.0
    assert chernoff.lower_quantile(law, 1e-12) <= 0.0
    assert chernoff.upper_tail(law, 1e-300) == 0.0
    assert chernoff.lower_tail(law, -1e-300) == 0.0
    assert np.isfinite(chernoff.upper_tail(law, 0.0))
    assert Cut(0.0, 0.0).upper_at == 0.0


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("n,eps", [(1, 1.0), (1000, 1.0), (2, 1e-12)])
def test_default_scope_at_128_bits_warns_nothing(n, eps):
    """The all-pairs bound's clone kernel ``2 / (1 + r^(2k − d))`` at ``r^128`` overflowed a double."""
    b = gpu_rs.tail(n, 128, 1e-4, eps)
    assert b.scope == "all"
    assert 0.0 <= b.lower <= b.upper <= 1.0
    # With q = 1e-4 the outlier's report keeps >= 65 of its 128 ones with probability > 0.99, and
    # then its atom (p/q)^(2l - 128) >= 1e7 alone puts R = X/n far above e^eps: the seed's pair's
    # tail, the lower end, is near 1.
    assert b.lower >= 0.99
