"""Solving ``P[Y > y]`` for a sum of bounded summands: the methods and their dispatch.

Every method returns certified bounds (a :class:`Partial`). :func:`solve` takes the
exact shortcuts first (support bounds, Chernoff), then the exact lattice
(``bits = 1``), full enumeration (small ``n``), the heavy-atom split, and the
Vaaler–Selberg inversion of the characteristic function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .backend import Backend
from .charfn import Spectrum, spectrum
from .chernoff import SumLaw
from .enumerate import count_vectors, enumerable, enumerate_tail
from .heavy import HeavySplit, split_heavy
from .lattice import lattice_tail
from .results import ErrorBudget
from .selberg import interval_bounds

BLOCK = 1 << 17
"""Frequencies evaluated per block (bounds the temporaries: about 100 bytes each)."""
BYTES_PER_TERM = 32
"""Memory kept per frequency: real part, imaginary part, error bound, modulus."""
FIRST_TERMS = 1 << 11
TRY_TERMS = 1 << 15
"""Budget of the single-window attempt made before splitting off heavy atoms."""


@dataclass(frozen=True)
class Partial:
    """Bounds on ``P[Y > y]`` and what they cost (method, terms or vectors used, bytes)."""

    lower: float
    upper: float
    budget: ErrorBudget
    method: str
    points: int
    memory: int


class SpectrumCache:
    """``φ_k`` for ``k = 1 … K``, grown block by block as the resolution is refined."""

    def __init__(self, xp: Any, law: Any, a: float, period: float) -> None:
        self.xp, self.law, self.a, self.period = xp, law, a, period
        self.blocks: list[Spectrum] = []
        self.size = 0

    def upto(self, K: int) -> list[tuple[int, Spectrum]]:
        """Blocks ``(first k, spectrum)`` covering at least ``k = 1 … K``."""
        while self.size < K:
            k0 = self.size + 1
            # Blocks double from 1024 terms: low frequencies, where the mass of |phi| lies,
            # get small blocks, so that more atoms count as "near" there (see charfn).
            k1 = k0 + min(BLOCK, max(1024, self.size), K - self.size)
            self.blocks.append(spectrum(self.xp, self.law, self.a, self.period, k0, k1))
            self.size = k1 - 1
        return list(zip(self._starts(), self.blocks))

    def _starts(self) -> list[int]:
        starts, k = [], 1
        for b in self.blocks:
            starts.append(k)
            k += int(b.re.shape[0])
        return starts


def _selberg(be: Backend, law: SumLaw, y_up: float, y_lo: float, target: float, max_terms: int) -> Partial:
    """``P[Y > y]`` from the characteristic function and Vaaler's majorants."""
    delta = max(1e-300, 1e-3 * target)
    a = min(law.lower_quantile(delta), y_up)
    top = max(law.upper_quantile(delta), y_lo)
    span = top - a
    a, top = a - 0.05 * span, top + 0.05 * span
    period = top - a
    below, above = law.lower_tail(a), law.upper_tail(top)
    alphas = ((y_up - a) / period, (y_lo - a) / period)
    cache = SpectrumCache(be.xp, law, a, period)
    K = FIRST_TERMS
    while True:
        lower, upper, roundoff = interval_bounds(be.xp, cache.upto(K), K, alphas)
        resolution = upper - lower
        width = resolution + 2.0 * roundoff + 2.0 * above + below
        other = width - resolution
        # Where round-off and truncation alone exceed the target, refine only until the
        # resolution matches them: more terms could not narrow the interval further.
        goal = max(target, 3.0 * other)
        if width <= goal or K >= max_terms:
            break
        grow = 1.25 * resolution / (goal - other)
        K = int(min(max_terms, 8 * K, max(2 * K, math.ceil(K * grow))))
    budget = ErrorBudget(discretization=resolution, truncation=2.0 * above + below, roundoff=2.0 * roundoff)
    return Partial(lower - roundoff - above - below, upper + roundoff + above, budget, "selberg", K, cache.size * BYTES_PER_TERM + BLOCK * 100)


def _lattice(be: Backend, law: SumLaw, r_up: float, r_lo: float, target: float, inclusive: bool) -> Partial:
    """``P[Y > y]`` for ``bits = 1``: ``Y = step · J`` with integer ``J``, inverted exactly."""
    if inclusive:
        j_up, j_lo = math.ceil(r_up), math.ceil(r_lo)
    else:
        j_up, j_lo = math.floor(r_up) + 1, math.floor(r_lo) + 1
    delta = max(1e-300, 1e-3 * target)
    lower, upper, trunc, roundoff, size = lattice_tail(be.xp, law, j_up, j_lo, delta)
    budget = ErrorBudget(discretization=0.0, truncation=trunc, roundoff=2.0 * roundoff)
    return Partial(lower, upper, budget, "lattice", size, size * (BYTES_PER_TERM + 48))


def solve(
    be: Backend,
    law: SumLaw,
    y_up: float,
    y_lo: float,
    target: float,
    inclusive: bool,
    max_terms: int,
    *,
    lattice: bool = False,
    split: bool = True,
) -> Partial:
    """Bounds on ``P[Y > y]`` (``y_up``/``y_lo`` for the upper/lower bound), exact shortcuts first."""
    exact = ErrorBudget()
    if law.max < y_up or (not inclusive and law.max <= y_up):
        return Partial(0.0, 0.0, exact, "exact", 0, 0)
    if law.min > y_lo:
        return Partial(1.0, 1.0, exact, "exact", 0, 0)
    hi_tail = law.upper_tail(y_up)
    if hi_tail <= 0.5 * target:
        return Partial(0.0, hi_tail, ErrorBudget(truncation=hi_tail), "chernoff", 0, 0)
    lo_tail = law.lower_tail(y_lo)
    if lo_tail <= 0.5 * target:
        return Partial(1.0 - lo_tail, 1.0, ErrorBudget(truncation=lo_tail), "chernoff", 0, 0)
    if lattice:
        return _lattice(be, law, y_up, y_lo, target, inclusive)
    if enumerable(law):
        lower, upper, roundoff = enumerate_tail(law, y_up, y_lo, inclusive)
        vectors = count_vectors(law.m, law.zero.values.shape[0])
        return Partial(lower - roundoff, upper + roundoff, ErrorBudget(roundoff=2.0 * roundoff), "enumeration", vectors, vectors * 64)
    heavy = split_heavy(law, y_up, y_lo, target) if split else None
    if heavy is None:
        return _selberg(be, law, y_up, y_lo, target, max_terms)
    # One window first, on a small budget: where it already meets the target, the split
    # would only add branches. Otherwise split; both intervals are certified, so where both
    # were computed their intersection is too.
    first = _selberg(be, law, y_up, y_lo, target, min(max_terms, TRY_TERMS))
    if first.upper - first.lower <= target:
        return first
    cond = _conditioned(be, heavy, target, inclusive, max_terms)
    lower, upper = max(first.lower, cond.lower), min(first.upper, cond.upper)
    return Partial(lower, upper, cond.budget, cond.method, first.points + cond.points, max(first.memory, cond.memory))


def _conditioned(be: Backend, heavy: HeavySplit, target: float, inclusive: bool, max_terms: int) -> Partial:
    """Combine the branches of :func:`gpu_rs.heavy.split_heavy`, each solved in its own window."""
    lower = upper = heavy.certain
    upper += heavy.pruned
    points = memory = 0
    budget = [0.0, heavy.pruned, 0.0]
    share = 0.5 * target / max(1, len(heavy.branches))
    for br in heavy.branches:
        inner_target = min(1.0, share / br.prob)
        part = solve(be, br.law, br.y_upper, br.y_lower, inner_target, inclusive, max_terms, split=False)
        lower += br.prob * (1.0 - heavy.prob_error) * part.lower
        upper += br.prob * (1.0 + heavy.prob_error) * part.upper
        points += part.points
        memory = max(memory, part.memory)
        budget[0] += br.prob * part.budget.discretization
        budget[1] += br.prob * part.budget.truncation
        budget[2] += br.prob * (part.budget.roundoff + 2.0 * heavy.prob_error * part.upper)
    return Partial(lower, upper, ErrorBudget(*(float(b) for b in budget)), "conditioned", points, memory)
