"""Cross-cloned homogeneous pools: every other user is, per candidate vector ``y*``, a clone of ``M(y*)``.

For any vectors ``y`` and ``y*`` and every report ``z``, ``M(y)(z) >= r^h(y, y*) M(y*)(z)``
(triangle inequality, ``r = q/p``). So each other user at ``y`` is, independently, a *clone*
reporting from ``M(y*)`` with probability ``κ = r^h(y, y*)``. Revealing the other users' reports
with their identities leaves the changing user among ``C + 1`` reports of one homogeneous
background, ``C`` the Poisson-binomial count of clones, so for every background and every ``y*``

    δ(ε) <= E[g(C + 1)],   g(m) = δ of the changing user among m − 1 users at y*,

and ``g`` does not increase with ``m`` (one more ``M(y*)`` report is a post-processing).
Hoeffding (1956, Theorem 4) gives ``P(C <= k) <= P(Bin(N − 1, μ/(N − 1)) <= k)`` for ``k <= μ − 1``,
``μ = E C``, so ``E[g(C + 1)] <= Ψ(μ) = g(k0 + 2) + Σ_{k <= k0} (g(k + 1) − g(k + 2)) P(Bin <= k)``
with ``k0 = ⌊μ − 1⌋`` (every later difference charged in full); ``Ψ`` is nonincreasing in ``μ``.
``μ`` is linear in the background's histogram, and the problem is symmetric under permutations of
the changed bits ``T`` and of the others ``U``, so a background is its number of users in each
class (ones in ``T``, ones in ``U``), and the adversary's
``max_w min_{y*} Ψ_{y*}(μ_{y*}(w))`` is bounded by a linear program, certified by a Farkas
certificate checked with outward rounding (:func:`certified_max`). The derivation is in
docs/worst-case.md §8.9.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import linprog

from gpu_rs.common.binomial import pmf_float
from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs import blanket, pool_counts
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.pool_counts import beyond, points, pool_bounds

CELLS = 128
"""Lattice steps across one report's (clipped) range of ``h`` for each member (:mod:`gpu_rs.pairs.blanket`)."""
REPORTS = 500
"""Members are convolved up to this many reports; larger counts take the engine's certified δ on a grid
(:mod:`gpu_rs.pairs.pool_counts`)."""
EXACT_COUNTS = 128
"""Clone means ``μ`` tried: every integer up to this, then a geometric grid of ratio ``GROWTH`` to ``N − 1``."""
GROWTH = 1.03
MAX_POOLS = 64
"""Candidate vectors ``y*`` (classes) used per distance at most; beyond, a coarse symmetric subset."""
MAX_ATOMS = 1 << 16
"""A member whose report takes more values than this is not convolved (its ``g`` is charged 1)."""
UNDERFLOW = 2.0**-1000
"""Added to every weight of :func:`member_values`: more than the error of a product that underflowed."""


def member_values(bits: int, q: float, d: int, a: int, b: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds on one report's ``h = (M(x') − e^ε M(x)) / M(y*)`` under ``z ~ M(y*)``, and upper
    bounds on their probabilities.

    ``x = 0…0``, ``x'`` has ones on the ``d`` bits of ``T``, ``y*`` has ``a`` ones in ``T`` and ``b`` in
    ``U``. With ``i1`` (``i0``) the ones of ``z`` where ``y*`` has ones (zeros) in ``T`` and ``j1`` the
    ones of ``z`` where ``y*`` has ones in ``U``: ``M(x')/M(y*) = r^(d − a − 2 i0 + 2 j1 − b)``,
    ``M(x)/M(y*) = r^(2 i1 − a + 2 j1 − b)``, ``i1 ~ Bin(a, p)``, ``i0 ~ Bin(d − a, q)``,
    ``j1 ~ Bin(b, p)`` (the other bits of ``U`` cancel). Each binomial probability is correctly rounded
    (:func:`~gpu_rs.common.binomial.pmf_float`) and each product of three rounded once more, so a product's
    true value is at most its float times ``1 + 6u`` plus ``2^-1072`` (for factors or products below the
    normal range): every weight is raised by ``8u`` relative and :data:`UNDERFLOW` absolute, which also keeps
    it a normal float.
    """
    lr, lam = log_r(q), math.exp(eps)
    i1 = np.arange(a + 1)[:, None, None]
    i0 = np.arange(d - a + 1)[None, :, None]
    j1 = np.arange(b + 1)[None, None, :]
    big = np.exp((d - a - 2 * i0 + 2 * j1 - b) * lr)
    small = np.exp((2 * i1 - a + 2 * j1 - b) * lr)
    h = np.broadcast_to(big - lam * small, (a + 1, d - a + 1, b + 1)).ravel()
    slack = 64.0 * UNIT * (1.0 + 3.0 * bits * abs(lr) + abs(eps)) * float(np.max(big) + lam * float(np.max(small)))
    w = np.multiply.outer(np.multiply.outer(pmf_float(a, q, False), pmf_float(d - a, q, True)), pmf_float(b, q, False))
    return h + slack, w.ravel() * (1.0 + 8.0 * UNIT) + UNDERFLOW


def member_deltas(bits: int, q: float, d: int, a: int, b: int, eps: float, reports: int) -> np.ndarray:
    """Upper bounds on ``g(m)``, ``m = 1 … reports``, nonincreasing: the lattice of :func:`gpu_rs.pairs.blanket.deltas`
    with ``M(y*)`` in place of the uniform law (``g(m) = E[(Σ_{j <= m} h(z_j))_+] / m``, ``z_j ~ M(y*)``)."""
    if (a + 1) * (d - a + 1) * (b + 1) > MAX_ATOMS:
        return np.ones(reports)
    h, w = member_values(bits, q, d, a, b, eps)
    if math.log(float(np.max(np.abs(h))) + 1.0) > blanket.MAGNITUDE:
        return np.ones(reports)
    kern = blanket.spread(h, w, blanket.clip_level(h, w, CELLS), CELLS)
    return blanket.deltas(kern, reports)[0]


@functools.lru_cache(maxsize=8)
def clone_means(n: int) -> np.ndarray:
    """The grid of clone means ``μ`` (integers, exact): ``0 … EXACT_COUNTS``, then geometric to ``n``."""
    grid = np.arange(min(n, EXACT_COUNTS) + 1, dtype=float)
    if n > EXACT_COUNTS:
        steps = math.ceil(math.log(n / EXACT_COUNTS) / math.log(GROWTH))
        grid = np.unique(np.concatenate([grid, np.round(np.geomspace(EXACT_COUNTS, n, steps + 1)), [float(n)]]))
    return grid


def overlap(n: int, a: int, s: int, lr: float) -> float:
    """``E r^|S Δ S*|`` over the ``a``-subsets ``S`` of ``n`` bits, ``|S*| = s`` (hypergeometric overlap)."""
    rows = [(math.comb(s, i) * math.comb(n - s, a - i), a + s - 2 * i) for i in range(max(0, a + s - n), min(a, s) + 1)]
    return math.fsum(count / math.comb(n, a) * math.exp(power * lr) for count, power in rows)


@functools.lru_cache(maxsize=64)
def clone_rates(bits: int, q: float, d: int) -> tuple[tuple[tuple[int, int], ...], np.ndarray]:
    """The background classes ``(a, b)`` and lower bounds ``K[(a, b), (a*, b*)]`` on the mean clone probability
    ``r^h(y, y*)`` of a user of class ``(a, b)`` for a vector ``y*`` of class ``(a*, b*)`` (either averaged over
    its class: the symmetry acts transitively on each)."""
    lr = log_r(q)
    classes = tuple((a, b) for a in range(d + 1) for b in range(bits - d + 1))
    t = np.array([[overlap(d, a, s, lr) for s in range(d + 1)] for a in range(d + 1)])
    u = np.array([[overlap(bits - d, b, s, lr) for s in range(bits - d + 1)] for b in range(bits - d + 1)])
    k = np.array([[t[a, s] * u[b, v] for s, v in classes] for a, b in classes])
    return classes, k * (1.0 - 32.0 * (bits + 4) * (1.0 + bits * abs(lr)) * UNIT)


def spread_values(top: int, most: int) -> list[int]:
    """At most ``most`` values of ``0 … top``, evenly spaced, closed under ``v ↦ top − v``."""
    half = sorted({round(i * top / (most - 1)) for i in range(most)} if most > 1 and top >= most else range(top + 1))
    return sorted(set(half) | {top - v for v in half})


def pool_classes(bits: int, d: int) -> list[tuple[int, int]]:
    """The classes ``(a*, b*)`` of ``y*`` tried at distance ``d``: all where at most :data:`MAX_POOLS`, else
    a coarse grid. Either set is closed under complementing ``T`` (``a* ↦ d − a*``), which swaps ``x``
    and ``x'`` and maps the backgrounds onto themselves, so the bound holds in both orders."""
    if (d + 1) * (bits - d + 1) <= MAX_POOLS:
        return [(a, b) for a in range(d + 1) for b in range(bits - d + 1)]
    side = max(2, math.isqrt(MAX_POOLS))
    return [(a, b) for a in spread_values(d, side) for b in spread_values(bits - d, side)]


def certify(n: int, rates: np.ndarray, psi: np.ndarray, means: np.ndarray, t: float) -> bool:
    """Whether every background of ``n`` users has ``min_{y*} Ψ_{y*} <= t``, proven by a Farkas certificate.

    With ``u_c`` the least clone mean at which ``Ψ_c <= t`` (``Ψ_c`` is nonincreasing), a background
    ``w`` (users per class, ``Σ w = n``) with ``Ψ_c(μ_c(w)) > t`` for every pool ``c`` has ``μ_c(w) < u_c``.
    Weights ``λ >= 0`` with ``Σ_c λ_c u_c <= n min_ab (K λ)_ab`` rule that out, since
    ``Σ_c λ_c μ_c(w) = Σ_ab w_ab (K λ)_ab``. ``λ`` comes from a float linear program; the inequality is
    checked with every rounding taken against it (``K`` holds lower bounds).
    """
    ok = psi <= t
    has = ok.any(axis=1)
    if not has.any():
        return False
    u = means[np.argmax(ok, axis=1)][has]
    k = rates[:, has]
    m = u.shape[0]
    res = linprog(
        np.append(u / n, -1.0),
        A_ub=np.hstack([-k, np.ones((k.shape[0], 1))]),
        b_ub=np.zeros(k.shape[0]),
        A_eq=np.append(np.ones(m), 0.0)[None, :],
        b_eq=[1.0],
        bounds=[(0.0, None)] * m + [(None, None)],
        method="highs",
    )
    if res.status != 0:
        return False
    lam = np.maximum(res.x[:m], 0.0)
    need = math.fsum((lam * u).tolist()) * (1.0 + 4.0 * UNIT)
    have = float(np.min(k @ lam)) * (1.0 - (m + 4) * UNIT) * n * (1.0 - 2.0 * UNIT)
    return bool(lam.sum() > 0.0) and need <= have


def pools_delta(n: int, bits: int, q: float, d: int, eps: float, ceiling: float = 1.0) -> float:
    """An upper bound on ``δ(ε)`` over every pair of ``n`` users at distance ``d``, either order (module docstring).

    The least ``Ψ`` value ``t`` (over every pool and clone mean) that :func:`certify` proves, found by
    bisection; the largest always is (``u_c = 0``), so a value is always returned. Members beyond the
    lattice's reports are evaluated where they fall from ``ceiling`` (a bound known otherwise, which the pools
    must beat to matter) to a small share of it (:func:`gpu_rs.pairs.pool_counts.beyond`), up to
    :data:`gpu_rs.pairs.pool_counts.MAX_BITS` bits; beyond, counts above the lattice are charged its last value.
    """
    pools = pool_classes(bits, d)
    reports = max(1, min(REPORTS, n))
    g = np.array([member_deltas(bits, q, d, a, b, eps, reports) for a, b in pools])
    if n == 1:
        return float(g[:, 0].min())  # no background: every pool is the changing user alone
    counts = points(n, reports) if bits <= pool_counts.MAX_BITS else points(reports, reports)
    if len(counts) > reports:
        more = counts[reports:]
        g = np.hstack([g, [beyond(Member(bits, d, *c), q, eps, more, g[i, -1], ceiling) for i, c in enumerate(pools)]])
    classes, rates = clone_rates(bits, q, d)
    rates = rates[:, [classes.index(c) for c in pools]]
    means = clone_means(n - 1)
    psi = pool_bounds(g, n - 1, counts, tuple(means.tolist()))
    candidates = np.unique(psi)
    lo, hi = 0, candidates.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if certify(n - 1, rates, psi, means, float(candidates[mid])):
            hi = mid
        else:
            lo = mid + 1
    return float(candidates[hi])
