"""Unit checks of the pieces the certificate rests on: majorants, phases, spectra."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from gpu_rs.engine.charfn import spectrum
from gpu_rs.engine.laws import Law, SumLaw
from gpu_rs.engine.majorants import interval_bounds, vaaler_weights
from gpu_rs.engine.phase import split, turns


def _selberg_poly(x: np.ndarray, alpha: float, K: int, sign: float) -> np.ndarray:
    k, b, c = vaaler_weights(np, K, 1, K + 1)
    k = k[None, :]
    v0 = -(b * np.sin(2 * np.pi * x[:, None] * k)).sum(1)
    va = -(b * np.sin(2 * np.pi * (alpha - x[:, None]) * k)).sum(1)
    d0 = 1 + 2 * (c * np.cos(2 * np.pi * x[:, None] * k)).sum(1)
    da = 1 + 2 * (c * np.cos(2 * np.pi * (x[:, None] - alpha) * k)).sum(1)
    return (1 - alpha) + v0 + va + sign * (d0 + da) / (2 * K + 2)


@pytest.mark.parametrize("K", [1, 4, 31])
@pytest.mark.parametrize("alpha", [0.05, 0.5, 0.9137])
def test_vaaler_polynomials_bracket_the_indicator(K: int, alpha: float) -> None:
    x = np.linspace(0.0, 1.0, 40001)
    ind = ((x > alpha) & (x < 1.0)).astype(float)
    closed = ((x >= alpha) | (x == 0.0)).astype(float)
    upper = _selberg_poly(x, alpha, K, 1.0)
    lower = _selberg_poly(x, alpha, K, -1.0)
    assert np.all(upper >= closed - 1e-12)
    assert np.all(lower <= ind + 1e-12)
    # The L1 width is exactly 2/(K+1).
    assert np.trapezoid(upper - lower, x) == pytest.approx(2.0 / (K + 1), rel=1e-3)


def test_turns_match_exact_rationals() -> None:
    x = Fraction(355, 113) * Fraction(1, 7919)
    k = np.array([1.0, 2.0, 12345.0, 2.0**20 - 1, 2.0**26 + 3])
    t, err = turns(np, k, split(x), float(k.max()))
    for kk, tt, ee in zip(k, t, err, strict=False):
        exact = (Fraction(int(kk)) * x) % 1
        exact -= round(exact)
        assert abs(tt - float(exact)) <= ee + 1e-300


def _law(values: list[float], probs: list[float]) -> Law:
    p = np.array(probs)
    return Law(np.array(values), np.log(p), p, np.full(p.shape, 4e-16))


def test_spectrum_error_bound_holds_against_extended_precision() -> None:
    zero = _law([0.0, 0.3, 2.5], [0.7, 0.25, 0.05])
    out = _law([0.0, 0.3, 2.5], [0.05, 0.25, 0.7])
    law = SumLaw(((zero, 40), (out, 1)))
    a, period = -1.0, 60.0
    spec = spectrum(np, law, a, period, 1, 400)
    k = np.arange(1, 400, dtype=np.longdouble)
    omega = 2 * np.pi * k / np.longdouble(period)
    vals = np.array([0.0, 0.3, 2.5], dtype=np.longdouble)

    def cf(probs: list[float]) -> np.ndarray:
        p = np.array(probs, dtype=np.longdouble)
        return (p[None, :] * np.exp(1j * omega[:, None] * vals[None, :])).sum(1)

    exact = cf([0.7, 0.25, 0.05]) ** 40 * cf([0.05, 0.25, 0.7]) * np.exp(-1j * omega * np.longdouble(a))
    diff = np.abs(exact - (spec.re + 1j * spec.im))
    # longdouble itself is only ~1e-19 accurate; the bound must hold with that margin.
    assert np.all(diff <= spec.err + 1e-15)
    assert np.all(spec.err < 1e-9)


def test_interval_bounds_contain_exact_probability() -> None:
    # Y = sum of 6 fair dice: exact P[Y > 20] by convolution, bounded via the window [5, 37).
    die = _law([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1 / 6] * 6)
    law = SumLaw(((die, 6),))
    pmf = np.ones(1)
    for _ in range(6):
        pmf = np.convolve(pmf, np.full(6, 1 / 6))
    values = np.arange(6, 37)
    exact = pmf[values > 20.5].sum()
    a, period = 5.0, 32.0
    K = 512
    spec = spectrum(np, law, a, period, 1, K + 1)
    alpha = (20.5 - a) / period
    lower, upper, roundoff = interval_bounds(np, [(1, spec)], K, (alpha, alpha))
    assert lower - roundoff <= exact <= upper + roundoff
    assert upper - lower < 0.01
