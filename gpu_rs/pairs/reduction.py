"""The graded clone bound: the clone reduction kept *graded* (a finer proven bound for every pair at distance ``d``).

:mod:`gpu_rs.pairs.clones` reduces every neighbouring pair at Hamming distance ``d`` to
``C ~ Bin(N − 1, p_d)`` clones reporting from ``W = (M(x) + M(x'))/2`` beside the changing
user, and then collapses every report to one of two labels (``Q0``/``Q1``). Here the
collapse is skipped: given ``C = c`` the pair is the changing user's report among ``c``
i.i.d. ``W``-reports, a post-processing of the collapsed pair (draw each label's report), so
its hockey-stick divergence ``δ_c`` is never larger. With ``k`` the number of changed bits on
which a report agrees with ``x'`` and ``a(k) = M(x')/W = 2 / (1 + r^(2k − d))`` (the other
bits cancel), ``M(x)/W = 2 − a``, so the likelihood ratio of the shuffled reports is
``R = A / (2(c + 1) − A)`` with ``A`` the sum of the ``c + 1`` atoms ``a(k_j)``, and

    δ_c(ε) = P[A > τ] − e^ε Q[A > τ],   τ = 2 (c + 1) e^ε / (1 + e^ε),

``P``/``Q`` with the changing user's ``k ~ Bin(d, p)`` / ``Bin(d, q)`` and each clone's
``k`` from the even mixture of both. ``A`` is computed on a lattice of step ``GRID``:
atoms rounded up bound ``P[A > τ]`` above, rounded down bound ``Q[A > τ]`` below; every
sum has positive terms and a relative error bound. ``δ_c`` does not increase with ``c``
(adding a clone is a post-processing), so counts above the lattice's reach are charged the
smaller of the last graded value and the collapsed bound. The derivation is in
docs/worst-case.md (§8.1, "The graded clone reduction").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.backend import to_numpy
from gpu_rs.common.floats import UNIT
from gpu_rs.common.logspace import comb_row
from gpu_rs.engine.atoms import largest_loss, log_r
from gpu_rs.pairs.clones import BLOCK_SHARE, TRIVIAL, clone_probability, given_clones_many
from gpu_rs.pairs.counts import OUTSIDE, binomial
from gpu_rs.pairs.lattice import shifted_sum

GRID = 2e-3
"""Lattice step for the sum of the atoms ``a(k)`` (each in ``(0, 2)``)."""
WORK = 6e7
"""Lattice cells convolved per distance ``d``; clone counts beyond reach use monotonicity."""
NEGLIGIBLE = 1e-12
"""Clone counts are convolved up to the one above which at most this mass of ``C`` lies."""
SLACK = 1e-6
"""Index slack (in lattice steps) covering the float error of ``τ / GRID`` and ``a / GRID``."""


def kernels(q: float, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Lattice indices of ``a(k)`` rounded up and down, the laws of ``k`` (clone, ``x'``, ``x``), their error."""
    lr = log_r(q)
    p = 1.0 - q
    k = np.arange(d + 1)
    a = 2.0 * np.exp(-np.logaddexp(0.0, (2 * k - d) * lr)) / GRID  # 2 / (1 + r^(2k-d)), no overflow
    up = np.ceil(a + SLACK).astype(np.int64)
    down = np.maximum(np.floor(a - SLACK), 0).astype(np.int64)
    comb = np.array([float(c) for c in comb_row(d)])
    law_p = comb * np.array([p ** int(j) * q ** int(d - j) for j in k])
    law_q = law_p[::-1].copy()
    law_w = 0.5 * (law_p + law_q)
    return up, down, law_w, law_p, law_q, 8.0 * (d + 4) * UNIT


def spread(s: Any, idx: np.ndarray, law: np.ndarray, xp: Any) -> Any:
    """The law of ``S + a``: ``s`` on the lattice convolved with the atoms ``idx`` weighted by ``law`` (in ``xp``)."""
    return shifted_sum(s, idx.tolist(), xp.asarray(law), s.shape[0] + int(idx.max()), xp)


def tail_at(s: np.ndarray, idx: np.ndarray, law: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``P[S + a ≥ i]`` at each lattice index ``i`` of ``at``, with ``S`` of law ``s`` on indices ``0, 1, …`` (host)
    and ``a`` at the indices ``idx`` weighted by ``law``.

    ``Σ_k law[k] · P[S ≥ i − idx[k]]``: the tail of the convolution at the points asked, without forming
    it. The tails of ``S`` come from its sums between consecutive points asked (``np.add.reduceat``, no
    prefix sum over the whole law): nonnegative terms summed within the segments, then over the segments
    (at most ``len(at) · len(idx)``), so at most ``len(s) + len(at) · len(idx)`` roundings, charged by
    :func:`graded_deltas`. The ``d + 1`` products and their sum add ``d + 2``, inside the ``d + 3``
    charged to the convolution they replace.
    """
    n = s.shape[0]
    j = np.clip(at[:, None] - idx[None, :], 0, n)  # n: past the law, where the tail is 0
    inside = j < n
    starts = np.unique(j[inside])
    above = np.zeros(j.shape)
    if starts.shape[0]:
        tails = np.cumsum(np.add.reduceat(s, starts)[::-1])[::-1]  # P[S >= starts[i]]
        above[inside] = tails[np.searchsorted(starts, j[inside])]
    return np.sum(above * law[None, :], axis=1)


def graded_deltas(q: float, d: int, c_max: int, eps: np.ndarray, xp: Any = np) -> np.ndarray:
    """Upper bounds on ``δ_c(ε)`` of the graded pair, for ``c = 0 … c_max`` and each ``ε``.

    Each row is also capped by the row before (``δ_c`` does not increase with ``c``). The convolutions run
    in the namespace ``xp`` (the same floats on every backend), the tails on the host.
    """
    up, down, law_w, law_p, law_q, rel_law = kernels(q, d)
    lam = np.exp(eps)
    s_up, s_down = xp.ones(1, dtype=xp.float64), xp.ones(1, dtype=xp.float64)
    out = np.ones((c_max + 1, eps.shape[0]))
    for c in range(c_max + 1):
        if c:
            s_up, s_down = spread(s_up, up, law_w, xp), spread(s_down, down, law_w, xp)
        host_up, host_down = to_numpy(s_up), to_numpy(s_down)
        sums = host_up.shape[0] + host_down.shape[0] + 2 * lam.shape[0] * (d + 1)  # terms, then segments
        rel = 2.0 * ((c + 1) * ((d + 3) * UNIT + rel_law) + sums * UNIT)
        tau = 2.0 * (c + 1) * lam / (1.0 + lam) / GRID
        # P: every lattice point that may lie above τ; Q: only those surely above it.
        p_hi = tail_at(host_up, up, law_p, np.floor(tau - SLACK).astype(np.int64)) * (1.0 + rel)
        q_lo = tail_at(host_down, down, law_q, np.floor(tau + SLACK).astype(np.int64) + 1) * (1.0 - rel)
        row = np.clip((p_hi - lam * q_lo) * (1.0 + 4.0 * UNIT) + 4.0 * UNIT, 0.0, 1.0)
        out[c] = np.minimum(row, out[c - 1]) if c else row
    return out


def reach(n: int, clone_prob: float, d: int) -> int:
    """The largest clone count convolved: within ``WORK`` cells and past all but ``NEGLIGIBLE`` of ``C``."""
    by_work = int(math.sqrt(WORK * GRID / (2.0 * (d + 1)))) + 1
    c_law = binomial(n - 1, clone_prob)
    above = np.cumsum(c_law.pmf[::-1])[::-1]
    enough = np.nonzero(above <= NEGLIGIBLE)[0]
    by_mass = c_law.lo + int(enough[0]) if enough.shape[0] else c_law.hi
    return max(0, min(by_work, by_mass, c_law.hi))


def reaches(n: int, clone_prob: float, d: int, sigmas: float) -> bool:
    """Whether the lattice reaches clone counts within ``sigmas`` standard deviations below ``C``'s mean.

    Above its reach the graded bound charges each count the collapsed value, so where ``C`` lies
    (almost) entirely above it the graded bound is the collapsed one; a caller may skip it there,
    which only saves its convolutions (either bound is proven).
    """
    by_work = int(math.sqrt(WORK * GRID / (2.0 * (d + 1)))) + 1
    mean = (n - 1) * clone_prob
    return by_work >= mean - sigmas * math.sqrt(mean * (1.0 - clone_prob)) - 1.0


def graded_delta(n: int, bits: int, q: float, d: int, eps: np.ndarray, xp: Any = np) -> np.ndarray:
    """Upper bounds on ``δ(ε)`` over every pair at distance ``d`` (either order), for each ``ε``.

    ``Σ_c P(C = c) min(graded δ_c, collapsed δ_c)``; past the lattice's reach each block of
    counts is charged its first count's value (both bounds are nonincreasing in ``c``); mass
    outside ``C``'s window is charged 1. 0 exactly where ``ε`` is at least the largest loss at distance ``d``
    (:func:`~gpu_rs.engine.atoms.largest_loss`), where the lattice's rounding alone would leave up to ``p``.
    """
    eps0 = largest_loss(d, q)
    pd = clone_probability(bits, q, d)
    if n == 1 or pd <= 0.0:
        return np.where(eps >= eps0, 0.0, graded_deltas(q, d, 0, eps, xp)[0])
    c_max = reach(n, pd, d)
    graded = graded_deltas(q, d, c_max, eps, xp)
    c_law = binomial(n - 1, pd)
    cdf = np.concatenate([[0.0], np.cumsum(c_law.pmf)])
    total = np.full(eps.shape[0], OUTSIDE)
    lam = np.array([math.exp(e) for e in eps.tolist()])  # as given_clones takes them
    blocks, start = [], c_law.lo
    while start <= c_law.hi:
        width = 1 if start <= c_max else max(1, int(BLOCK_SHARE * start))
        stop = min(c_law.hi + 1, start + width)
        mass = float(cdf[stop - c_law.lo] - cdf[start - c_law.lo]) * (1.0 + c_law.rel + (stop - c_law.lo) * UNIT)
        blocks.append((start, mass))
        start = stop
    # Past the lattice's reach the collapsed δ_c may be the smaller; within it the graded δ_c is
    # (a post-processing, §8.1) and taking the minimum would only cost time. Lighter blocks are
    # charged the graded value alone (also a bound).
    past = [start for start, mass in blocks if start > c_max and mass > TRIVIAL]
    collapsed = iter(np.where(eps > 0.0, given_clones_many(past, eps0, eps, lam), 1.0) if past else np.ones((0, 0)))
    for start, mass in blocks:
        row = graded[min(start, c_max)]
        if start > c_max and mass > TRIVIAL:
            row = np.minimum(row, next(collapsed))
        total += mass * row
    return np.where(eps >= eps0, 0.0, np.minimum(1.0, total * (1.0 + 4.0 * UNIT)))
