"""``scope="all"`` for more than one bit: a proven upper bound by the clone reduction.

Let ``x, x'`` differ in ``d`` bits and ``y`` be any vector. Every report ``z`` has
``M(y)(z) >= (p_d/2)(M(x)(z) + M(x')(z))`` with ``p_d = 2 r^L / (1 + r^d)``
(``r = q/p``; the minimum is at ``y`` the complement of ``x`` and ``z = x``), so every
other user is, with probability ``p_d``, a *clone* whose report is distributed as
``(M(x) + M(x'))/2``, and otherwise reports from a law that does not depend on the
changed user (Feldman, McMillan and Talwar, "Hiding among the clones", FOCS 2021).
``M(x)`` and ``M(x')`` are ``ε_d``-indistinguishable, ``ε_d = d log(p/q)``, so they are
the mixtures ``β Q0 + (1 − β) Q1`` and ``(1 − β) Q0 + β Q1``, ``β = e^ε_d/(1 + e^ε_d)``,
and a clone reports ``Q0`` or ``Q1`` with probability 1/2 each. The shuffled output is
then a post-processing of the pair of counts of ``Q0`` and ``Q1`` reports, whose laws
under the two collections are

    P: (A + Δ, C − A + 1 − Δ),   Q: (A + 1 − Δ, C − A + Δ),
    C ~ Bin(N − 1, p_d),  A | C ~ Bin(C, 1/2),  Δ ~ Ber(β),

and the hockey-stick divergence cannot grow under post-processing: for every pair at
distance ``d``, in either order, ``δ(ε) <= δ_d(ε)`` of this pair. The sufficient-DP tail
follows from ``P[R > e^ε'] <= δ(ε) / (1 − e^(ε − ε'))`` for every ``ε < ε'``. Adding a clone
is itself a post-processing, so ``δ_d`` given ``C = c`` does not increase with ``c``;
the sum over ``c`` is bounded block by block from the blocks' ends.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs.counts import OUTSIDE, binomial

BLOCK_SHARE = 1e-3
"""Blocks of clone counts span at most this fraction of their smallest count (and at least 1)."""
TRIVIAL = 1e-18
"""Blocks of clone counts holding at most this mass are charged ``δ <= 1`` without computing it."""
CACHED_COUNTS = 1 << 20
"""Up to 4096 clone counts up to this keep their tables of ``Bin(c, 1/2)`` (at most about 14,000 floats each);
of larger counts only the last :data:`LARGE_KEPT`: at N = 1e9 a table holds about 400,000 floats, and
L = 1024 brings a new count for each distance (4096 kept filled 17 GB, issue 33)."""
LARGE_KEPT = 96
"""Tables of counts above :data:`CACHED_COUNTS` kept (the last used; at most about 800 MB at N = 1e9)."""
EPS_GRID = 24
"""Privacy levels ``ε`` tried for the step from ``δ(ε)`` to the tail at ``ε'``."""


def clone_probability(bits: int, q: float, d: int) -> float:
    """``p_d = 2 r^L / (1 + r^d)``, rounded down (a smaller clone probability is still valid)."""
    lr = log_r(q)
    return 2.0 * math.exp(bits * lr) / (1.0 + math.exp(d * lr)) * (1.0 - 16.0 * UNIT * (1.0 + bits * abs(lr)))


def half_tails(c: int) -> tuple[int, int, np.ndarray, float]:
    """``A ~ Bin(c, 1/2)``: its window ``lo … hi``, ``P(A >= j)`` on it, and their relative error.

    Cached up to :data:`CACHED_COUNTS`: the same clone counts recur for every distance ``d`` and every step ``ε``.
    """
    return _half_tails_kept(c) if c <= CACHED_COUNTS else _half_tails_large(c)


def _half_tails(c: int) -> tuple[int, int, np.ndarray, float]:
    a = binomial(c, 0.5)
    sf = np.append(np.cumsum(a.pmf[::-1])[::-1], 0.0)
    sf.setflags(write=False)
    return a.lo, a.hi, sf, a.rel + (a.pmf.shape[0] + 8) * UNIT


def crossing(c: int, beta: float, lam: float) -> int:
    """The computed first count ``i*`` with ``P(i) > λ Q(i)`` in :func:`given_clones` (exact within ``±1``).

    ``P(i)/Q(i)`` increases in ``t = i/(c − i + 1)`` towards its largest value ``β/(1 − β)`` at
    ``i = c + 1``, and exceeds ``λ`` where ``t > τ = (λβ − (1 − β))/(β − λ(1 − β))``. Where the
    denominator rounds to ``0`` or below, ``λ`` equals the largest ratio within round-off: ``τ`` is
    huge or the event is empty, so ``i* = c + 1`` (checked with its neighbours like any other ``i*``).
    Below the smallest ratio ``(1 − β)/β`` (``ε < −ε₀``: ``τ < 0``) every ``i`` is in the event: ``i* = 0``.
    """
    below = beta - lam * (1.0 - beta)
    if below <= 0.0:
        return c + 1
    tau = (lam * beta - (1.0 - beta)) / below
    return max(0, math.floor(tau * (c + 1) / (1.0 + tau)) + 1)


def given_clones(c: int, eps0: float, eps: float) -> float:
    """An upper bound on ``δ(ε)`` of the reduced pair with exactly ``c`` clones.

    With ``A ~ Bin(c, 1/2)`` the ratio ``P/Q`` at ``i`` increases in ``t = i/(c − i + 1)``, so
    the positive part of ``P − e^ε Q`` is the event ``i >= i*``; ``δ = max_j Σ_{i >= j}
    (P − e^ε Q)`` is evaluated at the computed ``i*`` and its neighbours, each side of every
    bracket taken the unfavourable way.
    """
    if eps >= eps0:
        return 0.0
    beta = 1.0 / (1.0 + math.exp(-eps0))
    lam = math.exp(eps)
    lo, hi, sf, rel = half_tails(c)

    def tail(j: int, upper: bool) -> float:  # P(A >= j), bracketed
        if j <= lo:
            return 1.0
        if j > hi:
            return OUTSIDE if upper else 0.0
        s = float(sf[j - lo])
        return s * (1.0 + rel) + OUTSIDE if upper else s * (1.0 - rel)

    star = crossing(c, beta, lam)
    best = 0.0
    for j in range(max(0, star - 1), min(c + 1, star + 1) + 1):
        # Σ_{i >= j} P(i) = β P(A >= j − 1) + (1 − β) P(A >= j); likewise Q with β and 1 − β swapped.
        p_hi = beta * tail(j - 1, True) + (1.0 - beta) * tail(j, True)
        q_lo = (1.0 - beta) * tail(j - 1, False) + beta * tail(j, False)
        best = max(best, p_hi - lam * q_lo)
    return min(1.0, best * (1.0 + 8.0 * UNIT) + 8.0 * UNIT)


def bracketed_tails(c: int) -> tuple[int, np.ndarray, np.ndarray]:
    """``P(A >= j)`` bracketed above and below as in :func:`given_clones`, at ``j = lo − 1 … hi + 2`` (index
    ``j − lo + 1``; every ``j`` below or above has the value at that end, two points wide), and ``lo``
    (cached up to :data:`CACHED_COUNTS`)."""
    return _bracketed_tails_kept(c) if c <= CACHED_COUNTS else _bracketed_tails_large(c)


def _bracketed_tails(c: int) -> tuple[int, np.ndarray, np.ndarray]:
    lo, hi, sf, rel = half_tails(c)
    j = np.arange(lo - 1, hi + 3)
    s = sf[np.clip(j - lo, 0, sf.shape[0] - 1)]
    upper = np.where(j <= lo, 1.0, np.where(j > hi, OUTSIDE, s * (1.0 + rel) + OUTSIDE))
    lower = np.where(j <= lo, 1.0, np.where(j > hi, 0.0, s * (1.0 - rel)))
    upper.setflags(write=False)
    lower.setflags(write=False)
    return lo, upper, lower


_half_tails_kept = functools.lru_cache(maxsize=4096)(_half_tails)
_bracketed_tails_kept = functools.lru_cache(maxsize=4096)(_bracketed_tails)
_half_tails_large = functools.lru_cache(maxsize=LARGE_KEPT)(_half_tails)
_bracketed_tails_large = functools.lru_cache(maxsize=LARGE_KEPT)(_bracketed_tails)


def given_clones_many(counts: list[int], eps0: float, eps: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """:func:`given_clones` for every count of ``counts`` (rows) at every ``ε`` of ``eps`` (columns), the same
    floats; ``lam`` holds ``math.exp`` of each ``ε``.

    The same operations in the same order, on arrays: only correctly rounded ``+ − × /``, floor and
    comparisons, which NumPy and Python's floats carry out alike; the exponentials come from ``math``.
    """
    beta = 1.0 / (1.0 + math.exp(-eps0))
    tables = [bracketed_tails(c) for c in counts]
    sizes = np.array([t[1].shape[0] for t in tables])
    base = (np.cumsum(sizes) - sizes)[:, None]  # where each count's table starts in the joined ones
    upper = np.concatenate([t[1] for t in tables])
    lower = np.concatenate([t[2] for t in tables])
    lo = np.array([t[0] for t in tables])[:, None]
    c = np.array(counts)[:, None]
    live = eps < eps0
    lam = np.where(live, lam, 0.0)  # ε >= ε₀ gives 0 below; keep its arithmetic finite
    below = beta - lam * (1.0 - beta)
    tie = below <= 0.0  # see crossing(): the largest ratio is e^ε within round-off, i* = c + 1
    tau = (lam * beta - (1.0 - beta)) / np.where(tie, 1.0, below)
    star = np.where(tie, c + 1, np.maximum(0, np.floor(tau * (c + 1).astype(float) / (1.0 + tau)).astype(np.int64) + 1))
    best = np.zeros(star.shape)
    for j in (star - 1, star, star + 1):
        at = base + np.clip(j - lo + 1, 1, sizes[:, None] - 1)  # j − 1 at at − 1 and j at at (clipped at the ends)
        p_hi = beta * upper[at - 1] + (1.0 - beta) * upper[at]
        q_lo = (1.0 - beta) * lower[at - 1] + beta * lower[at]
        best = np.where((j >= 0) & (j <= c + 1), np.maximum(best, p_hi - lam * q_lo), best)
    return np.where(live, np.minimum(1.0, best * (1.0 + 8.0 * UNIT) + 8.0 * UNIT), 0.0)


def reduced_delta(n: int, clone_prob: float, eps0: float, eps: float) -> float:
    """An upper bound on ``δ(ε)`` of the reduced pair: ``Σ_c P(C = c) δ_c``, ``C ~ Bin(n − 1, p)``.

    ``δ_c`` is nonincreasing in ``c``, so each block of counts is charged its first count's
    value (``1`` for blocks of mass at most ``TRIVIAL``); the mass outside ``C``'s window is charged 1.
    """
    return float(reduced_deltas(n, clone_prob, eps0, np.array([eps]))[0])


def reduced_deltas(n: int, clone_prob: float, eps0: float, eps: np.ndarray) -> np.ndarray:
    """:func:`reduced_delta` at every ``ε`` of ``eps`` (0 at ``ε >= ε₀``): the blocks' values for every ``ε``
    at once (:func:`given_clones_many`, the floats of :func:`given_clones`), added block by block."""
    eps = np.asarray(eps, dtype=float)
    live = eps < eps0
    out = np.zeros(eps.shape)
    if not live.any():
        return out
    e = eps[live]
    lam = np.array([math.exp(x) for x in e.tolist()])  # as given_clones takes them
    if n == 1 or clone_prob <= 0.0:
        out[live] = given_clones_many([0], eps0, e, lam)[0]
        return out
    c_law = binomial(n - 1, clone_prob)
    cdf = np.concatenate([[0.0], np.cumsum(c_law.pmf)])
    blocks, start = [], c_law.lo
    while start <= c_law.hi:
        stop = min(c_law.hi + 1, start + max(1, int(BLOCK_SHARE * start)))
        mass = float(cdf[stop - c_law.lo] - cdf[start - c_law.lo]) * (1.0 + c_law.rel + (stop - c_law.lo) * UNIT)
        blocks.append((start, mass))
        start = stop
    heavy = [start for start, mass in blocks if mass > TRIVIAL]
    values = iter(given_clones_many(heavy, eps0, e, lam) if heavy else ())
    total = np.full(e.shape, OUTSIDE)
    for _, mass in blocks:
        total += mass * (next(values) if mass > TRIVIAL else 1.0)
    out[live] = np.minimum(1.0, total * (1.0 + 4.0 * UNIT))
    return out


def collapsed_deltas(
    n: int, bits: int, q: float, eps: np.ndarray, stop: Callable[[int, float], bool] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """An upper bound on ``δ(ε)`` over every neighbouring pair at each ``ε`` of ``eps``, and the distance ``d``
    that attains it (the smallest among ties). The distances are taken from ``d = L`` down, each at every
    ``ε`` still open at once (:func:`reduced_deltas`, the scalar floats); ``stop(j, value)``, if given,
    leaves ``eps[j]`` as soon as it holds for its largest value so far (then only a lower bound on the
    maximum over ``d``)."""
    lr = -log_r(q)
    best, arg = np.zeros(eps.shape), np.full(eps.shape, bits)
    open_ = np.ones(eps.shape, dtype=bool)
    for d in range(bits, 0, -1):
        at = np.nonzero(open_)[0]
        if at.shape[0] == 0:
            break
        values = reduced_deltas(n, clone_probability(bits, q, d), d * lr * (1.0 + 8.0 * UNIT), eps[at])
        for j, value in zip(at.tolist(), values.tolist(), strict=True):
            if value > best[j] or value == best[j] > 0.0:
                best[j], arg[j] = value, d
            open_[j] = stop is None or not stop(j, float(best[j]))
    return best, arg


def collapsed_delta(n: int, bits: int, q: float, eps: float) -> tuple[float, int]:
    """An upper bound on ``δ(ε)`` over every neighbouring pair, and the distance ``d`` that attains it
    (:func:`collapsed_deltas` at one ``ε``, every distance walked)."""
    best, arg = collapsed_deltas(n, bits, q, np.array([eps]))
    return float(best[0]), int(arg[0])


def collapsed_tail(n: int, bits: int, q: float, eps: float, floor: float = math.inf) -> tuple[float, float, int]:
    """A proven upper bound on ``P[R > e^ε]`` (and on ``P[R >= e^ε]``) over every neighbouring pair.

    Returns (bound, the ``ε`` of the step from ``δ``, the distance ``d`` attaining it): the least
    over the steps of the largest over ``d``. A caller that takes the bound only if it is below
    ``floor`` may pass it: a step is then left as soon as one distance puts it at ``floor`` or above
    (distances from ``d = L`` down, the largest ``δ`` first). The result is the same whenever it is
    below ``floor``; otherwise it is ``(1, 0, L)`` (the trivial bound) or, for ``floor > 1``, the same.
    """
    grid = [eps * i / EPS_GRID for i in range(1, EPS_GRID)]
    scale = [-math.expm1(e - eps) for e in grid]

    def at_floor(j: int, delta: float) -> bool:  # step j cannot give a result below floor
        return delta / scale[j] * (1.0 + 8.0 * UNIT) >= floor

    deltas, args = collapsed_deltas(n, bits, q, np.array(grid), at_floor)
    best = (1.0, 0.0, bits)
    for j, (delta, arg) in enumerate(zip(deltas.tolist(), args.tolist(), strict=True)):
        if not at_floor(j, delta) and delta / scale[j] * (1.0 + 8.0 * UNIT) < best[0]:
            best = (delta / scale[j] * (1.0 + 8.0 * UNIT), grid[j], int(arg))
    return best
