"""The baselines the certified engine is compared with.

* :func:`monte_carlo`: plain simulation of the worst-case collection, ``T ~ Multinomial(N − 1, p0)``
  for the all-zero vectors plus the outlier's ``l ~ Bin(L, p)``, ``X = Σ_l T_l w_l + w_l1``,
  counting ``X > N e^ε``; a two-sided Clopper–Pearson interval at 99.9 %.
* :func:`naive_squaring`: the pmf of ``X`` on a uniform grid over ``[0, N e^ε]`` by
  exponentiation by squaring with FFT convolutions, atoms rounded up (upper bound) and down
  (lower bound), mass beyond the grid kept in an overflow bucket that counts as ``> t``.
  This is the program a user would write; its interval ignores FFT round-off and is not
  certified.
* the seed's 3σ rule is :func:`gpu_rs.three_sigma_q` itself (see :mod:`benchmarks.cases`).

Everything here uses NumPy/SciPy only, and reuses nothing of the engine except the atoms
``w_l`` and their binomial probabilities (:func:`gpu_rs.engine.atoms.record_atoms`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.fft
from scipy.stats import beta

from gpu_rs.engine.atoms import ONE, ZERO, record_atoms

CONFIDENCE = 0.999
"""Two-sided confidence of the Monte Carlo interval."""


def clopper_pearson(hits: int, samples: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper–Pearson) two-sided binomial confidence interval for ``hits / samples``."""
    alpha = 1.0 - confidence
    lo = 0.0 if hits == 0 else float(beta.ppf(alpha / 2, hits, samples - hits + 1))
    hi = 1.0 if hits == samples else float(beta.ppf(1 - alpha / 2, hits + 1, samples - hits))
    return lo, hi


def _weights(bits: int, q: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``w_l`` and the normalised pmfs of ``l`` for a zero vector and for the outlier."""
    zero, one = record_atoms(bits, q, ZERO), record_atoms(bits, q, ONE)
    w = np.exp(zero.log_values)
    return w, zero.probs / zero.probs.sum(), one.probs / one.probs.sum()


def monte_carlo(
    n: int,
    bits: int,
    q: float,
    eps: float,
    seconds: float,
    *,
    seed: int = 20240404,
    inclusive: bool = False,
    confidence: float = CONFIDENCE,
) -> dict[str, Any]:
    """Simulate ``P[R > e^ε]`` for ``seconds`` of wall time (at least one batch).

    Returns
    -------
    dict
        ``samples``, ``hits``, ``estimate``, ``ci_lower``, ``ci_upper``, ``ci_width``,
        ``seconds`` (the wall time spent sampling), ``batch``.
    """
    w, p0, _ = _weights(bits, q)
    t = n * math.exp(eps)
    rng = np.random.default_rng(seed)
    hits = samples = 0
    batch = 256
    start = time.perf_counter()
    while True:
        b0 = time.perf_counter()
        counts = rng.multinomial(n - 1, p0, size=batch)
        l1 = rng.binomial(bits, 1.0 - q, size=batch)  # the outlier: l ~ Bin(L, p)
        x = counts @ w + w[l1]
        hits += int(np.count_nonzero(x >= t if inclusive else x > t))
        samples += batch
        now = time.perf_counter()
        if now - start >= seconds:
            break
        # Batches of about 50 ms keep the loop overhead negligible and the stop time tight.
        if now - b0 < 0.025 and batch < (1 << 20):
            batch *= 2
    elapsed = time.perf_counter() - start
    lo, hi = clopper_pearson(hits, samples, confidence)
    return {
        "samples": samples,
        "hits": hits,
        "estimate": hits / samples,
        "ci_lower": lo,
        "ci_upper": hi,
        "ci_width": hi - lo,
        "confidence": confidence,
        "seconds": elapsed,
        "batch": batch,
    }


# ----------------------------------------------------------------------------------------
# Naive repeated squaring on a fixed grid


def _conv(a: np.ndarray, over_a: float, b: np.ndarray | None, over_b: float, nfft: int) -> tuple[np.ndarray, float]:
    """Truncated convolution of two grid pmfs with overflow buckets (``b is None``: square ``a``)."""
    g = a.shape[0]
    fa = scipy.fft.rfft(a, nfft, workers=-1)
    prod = fa * fa if b is None else fa * scipy.fft.rfft(b, nfft, workers=-1)
    del fa
    full = scipy.fft.irfft(prod, nfft, workers=-1)
    del prod
    if b is None:
        over_b = over_a
    spill = float(full[g : 2 * g - 1].sum())
    kept = full[:g].copy()
    # Every atom is >= 0: anything added to an overflowed sum stays beyond the grid.
    return kept, over_a + over_b - over_a * over_b + spill


def _power(base: np.ndarray, over: float, m: int, nfft: int) -> tuple[np.ndarray, float, int]:
    """``base^(*m)`` by binary exponentiation; returns (pmf, overflow, convolutions used)."""
    result: np.ndarray | None = None
    r_over = 0.0
    convs = 0
    while m:
        if m & 1:
            if result is None:
                result, r_over = base.copy(), over
            else:
                result, r_over = _conv(result, r_over, base, over, nfft)
                convs += 1
        m >>= 1
        if m:
            base, over = _conv(base, over, None, 0.0, nfft)
            convs += 1
    if result is None:  # m == 0: a point mass at 0
        result = np.zeros_like(base)
        result[0] = 1.0
    return result, r_over, convs


def _grid_tail(w: np.ndarray, p0: np.ndarray, p1: np.ndarray, m: int, h: float, g: int, up: bool) -> tuple[float, int]:
    """``P[I > g − 1]`` for the grid index sum ``I`` with atoms rounded up or down."""
    scaled = w / h
    idx = np.ceil(scaled) if up else np.floor(scaled)
    top = g - 1
    beyond = idx > top
    base = np.zeros(g)
    np.add.at(base, idx[~beyond].astype(np.int64), p0[~beyond])
    over = float(p0[beyond].sum())
    nfft = scipy.fft.next_fast_len(2 * g, real=True)
    pmf, r_over, convs = _power(base, over, m, nfft)
    # The outlier has only L + 1 atoms: add it by shifting, not by another FFT.
    tail = r_over
    cum_from = np.concatenate([np.cumsum(pmf[::-1])[::-1], [0.0]])  # cum_from[i] = Σ_{j >= i} pmf[j]
    for k, prob in enumerate(p1):
        if prob == 0.0:
            continue
        if beyond[k]:
            tail += prob * (1.0 - r_over)
        else:
            # i + idx_k > top  <=>  i >= top - idx_k + 1
            tail += prob * float(cum_from[min(g, top - int(idx[k]) + 1)])
    return tail, convs + 1


def naive_convolutions(n: int) -> int:
    """Convolutions that binary exponentiation to the power ``n − 1`` needs (plus the outlier)."""
    m = max(n - 1, 1)
    return (m.bit_length() - 1) + (bin(m).count("1") - 1) + 1


def plan_naive_grid(n: int, max_grid: int, time_cap: float, memory_cap: int) -> tuple[int, float, float]:
    """Largest power-of-two grid ``<= max_grid`` whose estimated time and memory fit the caps.

    Returns ``(grid, estimated seconds, seconds per FFT convolution)``; ``grid = 0`` when even
    the smallest grid tried (``2^10``) does not fit.
    """
    convs = 2 * naive_convolutions(n)  # rounded up and rounded down
    g = max_grid
    while g >= 1 << 10:
        if 12 * 8 * g <= memory_cap:  # about a dozen float64 arrays of length g live at once
            nfft = scipy.fft.next_fast_len(2 * g, real=True)
            x = np.random.default_rng(0).random(g)
            t0 = time.perf_counter()
            _conv(x, 0.0, x, 0.0, nfft)
            per = time.perf_counter() - t0
            estimate = convs * per
            if estimate <= time_cap:
                return g, estimate, per
        g //= 2
    return 0, math.inf, math.nan


def naive_squaring(
    n: int,
    bits: int,
    q: float,
    eps: float,
    grid: int,
) -> dict[str, Any]:
    """Uncertified ``[P_down, P_up]`` for ``P[X > N e^ε]`` on a grid of ``grid`` points over ``[0, N e^ε]``.

    The grid step is ``h = N e^ε / (grid − 1)``. Atoms rounded up give ``X_up >= X`` and so
    ``P_up >= P[X > t]``; rounded down, ``P_down <= P[X > t]`` (ignoring FFT round-off, which
    this baseline, like most hand-written ones, does not bound).
    """
    w, p0, p1 = _weights(bits, q)
    t = n * math.exp(eps)
    h = t / (grid - 1)
    start = time.perf_counter()
    p_up, convs = _grid_tail(w, p0, p1, n - 1, h, grid, up=True)
    p_down, _ = _grid_tail(w, p0, p1, n - 1, h, grid, up=False)
    elapsed = time.perf_counter() - start
    return {
        "grid": grid,
        "step": h,
        "lower": p_down,
        "upper": p_up,
        "width": p_up - p_down,
        "convolutions": 2 * convs,
        "seconds": elapsed,
    }
