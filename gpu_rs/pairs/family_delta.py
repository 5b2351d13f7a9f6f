"""The best pair known for ``δ``: certified ``δ`` of homogeneous members, searched where §9 puts the maximum.

**One member's δ.** For the member ``(d, a, b)`` of :mod:`gpu_rs.pairs.family` (``S`` drawn with the user
at ``x′``), divide both laws by ``Π_j M(y)(s_j)``: with the reports in a uniformly random order the user
is any one of them, so ``P(S | bg + x′) / Π_j M(y)(s_j) = Σ_j A(s_j) / N`` and likewise with ``B``. Hence

    δ(ε) = Σ_S (P(S | bg + x′) − λ P(S | bg + x))_+ = E[(Σ_{j <= N} V_j)_+] / N,   V = A − λB,

with all ``N`` reports drawn i.i.d. from ``M(y)`` (the family's background atoms): a hinge of ``N``
independent signed atoms, one spectrum per ``ε`` (the atoms move with ``λ``).

**Few count vectors** (``C(N + K − 1, N) <= MAX_COUNT_VECTORS`` for ``K`` atoms: small ``N``, where other
members than the seed's pair can be the largest): the hinge is summed over every count vector of the
multinomial law (:func:`enumerated`), exact up to its rounding, which is charged.

**Heavy atoms.** Far members have a few atoms up to ``(p/q)^L`` of tiny probability, which would make
the spectrum's window huge. The largest atoms ``H``, while ``N P(H) <= HEAVY_MEAN``, are split off:
with ``J`` the number of heavy reports and ``π_H = P(H)``,

* lower: ``E[(S)_+] >= (1 − π_H)^N E[(S^ℓ_N)_+] + N (1 − π_H)^{N−1} Σ_{k ∈ H} π_k (v_k + (N − 1) μ_ℓ)_+``
  (the cases ``J = 0`` and ``J = 1``, Jensen's inequality given the heavy atom; ``J >= 2`` adds
  ``>= 0``), ``S^ℓ_N`` the sum of ``N`` light-conditioned atoms and ``μ_ℓ`` their mean;
* upper: ``(S)_+ <= (Σ_j V_j 1{V_j light})_+ + Σ_j (V_j)_+ 1{V_j heavy}``, so
  ``E[(S)_+] <= E[(S^0_N)_+] + N Σ_{k ∈ H} π_k (v_k)_+``, ``S^0`` the sum with heavy atoms set to 0.

Each hinge is :func:`gpu_rs.engine.tilt.hinge` (certified for the true probabilities within their
relative errors); the lower end takes every atom at ``V̂ − err`` and the upper end at ``V̂ + err``
(the hinge is nondecreasing in each atom), so the atoms' rounding is charged.

**Where to look (docs/worst-case.md §9).** Over ``b`` the member's ``δ`` is largest at ``b = L − d``, in
both orders, so the complement members ``(d, a, L − d)`` hold the family's maximum: ``L(L + 3)/2`` of them.
:func:`search` evaluates them at one ``ε`` within a time limit (the extreme orders ``a ∈ {0, d}`` for ``d``
from ``L`` down first), and :func:`best_member` keeps the best one; any member's certified ``δ`` is a
lower bound on the ``δ`` of every pair, so a search cut short only leaves the lower end lower.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine import tilt
from gpu_rs.engine.laws import Law, SumLaw
from gpu_rs.pairs.family import Member, report_atoms

HEAVY_MEAN = 0.1
"""Atoms are split off as heavy, largest first, while ``N`` times their probability stays at most this."""
REL_WIDTH = 0.05
"""Relative width asked of each hinge (``width`` of :func:`member_delta`)."""
SEARCH_WIDTH = 0.25
"""... and of the lower ends that rank the members in :func:`search`."""
MAX_TERMS = 1 << 14
"""Most frequencies of one hinge (a wider one still gives certified ends)."""
MAX_BITS = 64
"""Beyond this many bits the members are not searched (as the tail's family search, :mod:`.family_search`)."""
MAX_COUNT_VECTORS = 200_000
"""Where the atoms' count vectors number at most this, the hinge is summed over all of them (:func:`enumerated`)..."""
MAX_ENUMERATED = 1000
"""... and the users at most this (its table of binomial coefficients holds ``(n + 1)²`` floats: with one or two
atoms the count vectors are few at any ``n``), and the least probability to the power ``n`` at least
``e^LOG_ENUMERATED``: no weight of the sum can underflow (a lost weight would not be charged)."""
LOG_ENUMERATED = -640.0
ANCHORS_KEPT = 64
"""Settings whose search ``ε`` is remembered (:func:`best_member`; all are forgotten past it)."""
_ANCHORS: dict[tuple[int, int, float], float] = {}
"""The ``ε`` of each setting's search: the median of the first array asked, so later calls reuse it."""


def complement_members(bits: int) -> list[Member]:
    """The members ``(d, a, L − d)`` (docs/worst-case.md §9), in the order searched: the extreme orders
    ``a = 0`` and ``a = d`` for ``d`` from ``L`` down (those of §10.1's δ-worst backgrounds), then the others."""
    extreme = [Member(bits, d, a, bits - d) for d in range(bits, 0, -1) for a in sorted({0, d})]
    return extreme + [Member(bits, d, a, bits - d) for d in range(bits, 0, -1) for a in range(1, d)]


def _hinge(values: np.ndarray, probs: np.ndarray, rel: np.ndarray, n: int, upper: bool, width: float) -> float | None:
    """A certified lower (``upper=False``) or upper bound on ``E[(Σ_{j <= n} V_j)_+]`` for atoms ``values``
    (exact floats) of probabilities ``probs`` (relative errors ``rel``); None where no tilt applies."""
    if float(values.max()) <= 0.0:
        return 0.0
    s = -float(values.min())
    if s <= 0.0:
        return None  # no negative atom: not a hinge of this module (ε > 0 always gives one)
    # fl(v + s) is within (v + s)(1 ± u); scaled by (1 ∓ 4u) it stays on its side (values + s >= 0)
    shifted = (values + s) * ((1.0 + 4.0 * UNIT) if upper else (1.0 - 4.0 * UNIT))
    keep = probs > 0.0
    law = Law(shifted[keep], np.log(probs[keep]), probs[keep], rel[keep])
    y = n * s  # errs by at most u n s: certified for every threshold in [y(1 − 2u), y(1 + 2u)]
    with np.errstate(over="ignore", invalid="ignore"):  # overflowing error terms: checked below
        found = tilt.hinge(
            SumLaw(((law, n),)), y * (1.0 - 2.0 * UNIT), y * (1.0 + 2.0 * UNIT), True, width, 0.0, MAX_TERMS, np
        )
    end = None if found is None else (found.upper if upper else found.lower)
    return end if end is not None and math.isfinite(end) else None


@functools.lru_cache(maxsize=8)
def pascal(n: int) -> np.ndarray:
    """``C(m, k)`` for ``m, k <= n`` by Pascal's rule in floats (each entry within ``m u`` relative)."""
    table = np.zeros((n + 1, n + 1))
    table[:, 0] = 1.0
    for m in range(1, n + 1):
        table[m, 1:] = table[m - 1, 1:] + table[m - 1, :-1]
    return table


def enumerated(
    values: tuple[np.ndarray, np.ndarray], probs: np.ndarray, rel: np.ndarray, n: int
) -> tuple[float, float]:
    """``E[(Σ_{j <= n} V_j)_+]`` summed over every count vector of the atoms (their multinomial law): a lower
    bound with the atoms at ``values[0]``, an upper bound at ``values[1]``, every rounding and ``rel`` charged."""
    sums = [np.zeros(1), np.zeros(1)]
    weights, left, comb = np.ones(1), np.full(1, n), pascal(n)
    for j in range(probs.shape[0]):
        k = np.arange(n + 1)
        take = k[None, :] <= left[:, None]  # states × copies of atom j (the last atom takes all that is left)
        if j == probs.shape[0] - 1:
            take &= k[None, :] == left[:, None]
        rows, ks = np.nonzero(take)
        weights = weights[rows] * comb[left[rows], ks] * probs[j] ** ks
        sums = [total[rows] + ks * v[j] for total, v in zip(sums, values, strict=True)]
        left = left[rows] - ks
    # a weight: n probabilities (rel each, powers to (k + 1) u), binomials to n u, products 2 u per atom
    grow = n * float(rel.max()) + (4.0 * n + 4.0 * probs.shape[0]) * UNIT
    spread = 2.0 * (n + probs.shape[0]) * UNIT * n * float(np.abs(np.concatenate(values)).max())  # the sums
    lower = float(np.dot(weights, np.maximum(sums[0] - spread, 0.0))) * (1.0 - grow - weights.size * UNIT)
    upper = float(np.dot(weights, np.maximum(sums[1] + spread, 0.0))) * (1.0 + grow + weights.size * UNIT)
    return max(0.0, lower), upper


def member_delta(
    member: Member, n: int, q: float, eps: float, upper: bool = True, width: float = REL_WIDTH, *, lower: bool = True
) -> tuple[float, float]:
    """Certified ``[lower, upper]`` of the member's ``δ(ε)``, ``ε > 0``, for ``n`` users (module docstring);
    an end not found (no tilt applies) is 0 or 1, the upper end is 1 unless ``upper``, and the lower end 0
    unless ``lower`` (where the many-atom hinge runs: the enumerated sum gives both at once)."""
    try:
        at = report_atoms(member, q, eps, False)
    except ValueError:  # atoms beyond float64 (tiny q with large ε)
        return 0.0, 1.0
    if not (np.all(np.isfinite(at.probs)) and np.all(np.isfinite(at.rel)) and float(at.rel.max()) < 1e-3):
        return 0.0, 1.0
    slack = at.errors + 4.0 * UNIT * np.abs(at.values)
    low, high = at.values - 2.0 * slack, at.values + 2.0 * slack  # V̂ ∓ err, past the subtraction's rounding
    rel = at.rel + 4.0 * UNIT
    few = n <= MAX_ENUMERATED and math.comb(n + at.values.size - 1, n) <= MAX_COUNT_VECTORS
    if few and n * math.log(float(at.probs.min())) > LOG_ENUMERATED:
        least, most = enumerated((low, high), at.probs, rel, n)
        return least / n * (1.0 - 4.0 * UNIT), min(1.0, most / n * (1.0 + 4.0 * UNIT)) if upper else 1.0
    order = np.argsort(-at.values)
    mass = np.cumsum(at.probs[order] * (1.0 + rel[order]))
    heavy = np.zeros(at.values.shape, dtype=bool)
    heavy[order[: int(np.searchsorted(mass, HEAVY_MEAN / n, side="right"))]] = True
    light, grow = ~heavy, 1.0 + 4.0 * at.values.size * UNIT
    pi_h = min(0.5, float(np.sum(at.probs[heavy] * (1.0 + rel[heavy]))) * grow)  # at most HEAVY_MEAN / n
    # the lower end: J = 0 (the light-conditioned law) and J = 1 (Jensen given the heavy atom)
    cond = at.probs[light] / (1.0 - pi_h)
    cond_rel = rel[light] + 2.0 * pi_h / (1.0 - pi_h) * float(rel.max()) + 4.0 * UNIT
    found = _hinge(low[light], cond, cond_rel, n, False, width) if lower else None
    least = 0.0
    if found is not None:
        terms = cond * np.where(low[light] > 0.0, 1.0 - cond_rel, 1.0 + cond_rel) * low[light]
        mu = float(np.sum(terms)) - 4.0 * UNIT * light.sum() * float(np.sum(np.abs(terms)))
        rest = (n - 1) * mu - 4.0 * UNIT * abs((n - 1) * mu)
        jumps = np.maximum(low[heavy] + rest, 0.0) * (1.0 - 4.0 * UNIT)
        one = float(np.sum(at.probs[heavy] * (1.0 - rel[heavy]) * jumps)) * math.exp((n - 1) * math.log1p(-pi_h))
        stay = math.exp(n * math.log1p(-pi_h))
        least = max(0.0, (stay * found + n * one) / n * (1.0 - 16.0 * UNIT))
    if not upper:
        return least, 1.0
    # the upper end: the heavy atoms set to 0 in the hinge, their positive parts added
    values, probs, rels = high, at.probs, rel
    if heavy.any():
        values = np.concatenate([high[light], [0.0]])
        probs = np.concatenate([at.probs[light], [float(np.sum(at.probs[heavy]))]])
        rels = np.concatenate([rel[light], [float(rel.max()) * grow + 4.0 * UNIT]])
    top = _hinge(values, probs, rels, n, True, width)
    if top is None:
        return least, 1.0
    jump = n * float(np.sum(at.probs[heavy] * (1.0 + rel[heavy]) * np.maximum(high[heavy], 0.0)))
    return least, max(least, min(1.0, (top + jump) * (1.0 + 16.0 * UNIT) / n))


@dataclass(frozen=True)
class Search:
    """The complement members evaluated at ``eps`` (``evaluated`` of ``members``, in ``seconds``): the seed's
    pair's larger certified lower end by this module (``seed``), and the best other member with its ``δ``
    interval where its lower end is above that (``best``; else None); ``skipped`` says why none was evaluated."""

    best: Member | None
    eps: float
    lower: float
    upper: float
    seed: float
    evaluated: int
    members: int
    seconds: float
    skipped: str = ""

    def note(self, n: int) -> str:
        """One sentence on the search, for a result's text."""
        head = f"{self.evaluated} of {self.members} complement members (docs/worst-case.md §9) evaluated at "
        head += f"eps={self.eps:.4g} in {self.seconds:.1f} s"
        if self.skipped:
            return f"the {self.members} complement members (docs/worst-case.md §9) not searched {self.skipped}"
        if self.best is None:
            return f"{head}: none above the seed's pair (delta >= {self.seed:.6g})"
        return f"{head}; the best: {self.best.describe(n)}, delta in [{self.lower:.6g}, {self.upper:.6g}]"


@functools.lru_cache(maxsize=16)
def search(n: int, bits: int, q: float, eps: float, seconds: float) -> Search:
    """The complement members' ``δ(eps)`` by certified lower end (the seed's pair, ``d = L``, first), within
    about ``seconds``; the best other member is kept where it beats the seed's pair here. None are evaluated
    where ``seconds <= 0`` or beyond :data:`MAX_BITS` bits."""
    if seconds <= 0.0 or bits > MAX_BITS:
        why = f"beyond {MAX_BITS} bits" if bits > MAX_BITS else "(search_seconds=0)"
        return Search(None, eps, 0.0, 0.0, 0.0, 0, bits * (bits + 3) // 2, 0.0, why)
    start = time.perf_counter()
    every = complement_members(bits)
    seed = [m for m in every if m.d == bits and m.a in (0, bits)]
    lows = {m: member_delta(m, n, q, eps, False, SEARCH_WIDTH)[0] for m in seed}
    for member in every:
        if member not in lows and time.perf_counter() - start <= seconds:
            lows[member] = member_delta(member, n, q, eps, False, SEARCH_WIDTH)[0]
    top = max(lows[m] for m in seed)
    best = max(((v, m) for m, v in lows.items() if m not in seed), default=(0.0, seed[0]))
    seconds = time.perf_counter() - start
    if best[0] <= top:
        return Search(None, eps, 0.0, 0.0, top, len(lows), len(every), seconds)
    lower, upper = _member_at(best[1], n, q, eps)
    return Search(best[1], eps, lower, upper, top, len(lows), len(every), seconds)


def best_member(n: int, bits: int, q: float, eps: np.ndarray, seconds: float) -> tuple[Search, np.ndarray, np.ndarray]:
    """:func:`search` at the median of ``eps`` (the first time a setting is asked; cached after), and the best
    member's certified ``[lower, upper]`` of ``δ`` at every ``ε > 0`` of ``eps`` (``[0, 0]`` elsewhere, and
    everywhere where no member beat the seed's pair)."""
    if len(_ANCHORS) > ANCHORS_KEPT:
        _ANCHORS.clear()
    found = search(n, bits, q, _ANCHORS.setdefault((n, bits, q), float(np.median(eps))), seconds)
    lower, upper = np.zeros(eps.shape), np.zeros(eps.shape)
    if found.best is not None:
        for i, e in enumerate(eps.tolist()):
            if e > 0.0:
                lower[i], upper[i] = _member_at(found.best, n, q, e)
    return found, lower, upper


@functools.lru_cache(maxsize=4096)
def _member_at(member: Member, n: int, q: float, eps: float) -> tuple[float, float]:
    return member_delta(member, n, q, eps)
