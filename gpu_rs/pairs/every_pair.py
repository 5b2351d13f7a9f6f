"""``scope="all"`` at several bits: one proven ``δ`` curve per ``(N, L, q)``, and the step to tails.

Every neighbouring pair at Hamming distance ``d``, in either order, has ``δ(ε)`` at most each of
three proven bounds (docs/worst-case.md §4, §8):

* the collapsed clone bound of :mod:`gpu_rs.pairs.clones`;
* the graded clone bound of :mod:`gpu_rs.pairs.reduction` (which per clone count already takes the
  smaller of it and the collapsed one): a lattice per ``d``, shared by every ``ε``;
* the graded blanket of :mod:`gpu_rs.pairs.blanket`: a lattice per ``(d, ε)``, the costly part;
* with ``pools`` (10–100 times the blanket's cost, docs/worst-case.md §8.9; the scope's tail decides), the
  cross-cloned pools of :mod:`gpu_rs.pairs.pools`, where the blanket leaves a distance above what is asked.

So ``δ_d(ε)``, the least of them, never above the stronger clone bound (which covers every pair at
once, §8.7), bounds every pair at distance ``d``, and ``max_d δ_d(ε)`` every pair. A :class:`Curve`
holds them for one ``(N, L, q)`` and answers ``δ`` at an array of ``ε`` (:meth:`Curve.deltas`) and the
tail by docs/worst-case.md §8.3 (:meth:`Curve.tail`): ``P[R > e^ε] <= δ_d(ε') / (1 − e^(ε' − ε))``
for every ``ε' < ε``, the least over a grid of steps per distance, then the largest over ``d``.
:func:`curve` returns the same object for the same setting, which keeps each lattice and tail under
the exact question that produced it (asked again, it costs nothing and gives the same floats). The
lattices run on the host with every backend: a report adds its law once per point, a kernel launch
each on a GPU (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import largest_loss
from gpu_rs.pairs import blanket, clones, pools, reduction
from gpu_rs.pairs.anchors import convex_max, next_anchor, spread_out

SKIP_SIGMAS = 8.0
"""The graded bound is skipped where its lattice stops this many standard deviations below ``C``'s mean."""
ANCHORS = 16
"""Most values of ``ε`` per call of :meth:`Curve.deltas` at which new graded blankets are computed (anchors)."""
STEPS = tuple(0.005 * 1.25**i for i in range(40))
"""Gaps ``ε − ε'`` tried for the step from ``δ(ε')`` to the tail at ``ε`` (negative ``ε'`` allowed)."""
BLANKET_STEPS = tuple(range(0, 27, 2))
"""Indices into ``STEPS`` (gaps 0.005 … 1.1) where the graded blanket, slower, is also tried; the walk
starts at gap 0.43 (``STEPS[20]``)."""
POOLS_FLOOR = 1e-14
"""The pools are not tried where the blanket is below this (they gain a factor of a few at most)."""
CURVES = 16
"""Curves kept by :func:`curve` (the least recently used go first)."""


class TailBound(NamedTuple):
    """A proven upper bound on ``P[R > e^ε]`` (and ``>=``) over every neighbouring pair."""

    bound: float
    eps_step: float
    d: int
    method: str = "graded clone reduction"
    """Which bound attains it: the graded clone or blanket, the clone or the stronger clone bound."""


@dataclass
class Curve:
    """The proven upper ``δ_d(ε)`` of every distance ``d`` for one ``(n, bits, q)`` (module docstring).

    Every answer is a function of its question alone: the graded blankets and the tails computed are
    kept under the exact question that produced them, so a question asked again (a calibration's tail at
    its answer) costs nothing and gives the same floats. ``blankets`` false: the clone bounds alone.
    """

    n: int
    bits: int
    q: float
    blankets: bool = True
    pools: bool = False
    """Whether the cross-cloned pools may lower the blanket's value (with ``blankets``)."""
    memo: dict[tuple[int, float, float, bool], float] = field(default_factory=dict, repr=False)
    """Graded blankets, under ``(d, ε, enough, settle)``, lowered by the pools where they ran."""
    pooled: dict[tuple[int, float, float], float] = field(default_factory=dict, repr=False)
    tails: dict[float, TailBound] = field(default_factory=dict, repr=False)
    """Tails and the pools' bounds computed, under ``ε`` and ``(d, ε, ceiling)``."""

    @property
    def uses_blanket(self) -> bool:
        """Whether the blanket may lower the bound (at one bit it is the graded clone pair: ``(2q)^1 = p_1``)."""
        return self.blankets and self.bits > 1

    def distances(self, least_eps: float) -> list[int]:
        """The distances where some pair may have ``δ(ε) > 0`` for some ``ε >= least_eps``: where the
        largest ratio of one report, ``(p/q)^d``, exceeds ``e^ε`` (else ``δ = 0`` for every pair)."""
        return [d for d in range(1, self.bits + 1) if largest_loss(d, self.q) > least_eps]

    def blanket(self, d: int, eps: float, enough: float = -1.0, *, settle: bool = False) -> float:
        """The graded blanket at ``(d, ε)``, lowered by the pools where it stays above ``enough``; once per question."""
        key = (d, eps, enough, settle)
        if key not in self.memo:
            if self.pools:  # the blankets of the curve without pools, computed once for both
                value = curve(self.n, self.bits, self.q).blanket(d, eps, enough, settle=settle)
            else:
                value = blanket.blanket_delta(self.n, self.bits, self.q, d, eps, enough, settle=settle)
            if self.pools and value > max(enough, POOLS_FLOOR):
                if (d, eps, value) not in self.pooled:
                    self.pooled[d, eps, value] = pools.pools_delta(self.n, self.bits, self.q, d, eps, ceiling=value)
                value = min(value, self.pooled[d, eps, value])
            self.memo[key] = value
        return self.memo[key]

    def graded(self, d: int) -> bool:
        """Whether the graded lattice of ``d`` reaches the clone counts (else the collapsed bound is taken)."""
        return reduction.reaches(self.n, clones.clone_probability(self.bits, self.q, d), d, SKIP_SIGMAS)

    def collapsed(self, d: int, eps: np.ndarray) -> np.ndarray:
        """The collapsed clone bound of distance ``d`` (:mod:`gpu_rs.pairs.clones`) at each ``ε``.

        At ``d = L`` it is also the stronger clone bound, which covers every pair at every distance:
        Feldman, McMillan and Talwar (2023) and Wang et al.'s variation-ratio bound with generic
        parameters (PVLDB 2024) reduce any ``ε₀``-LDP randomizer, here ``ε₀ = L log(p/q)``, to this pair
        with clone probability ``2/(e^ε₀ + 1) = p_L`` (docs/worst-case.md §8.7). Feldman, McMillan and
        Talwar's numerical bound (2021) is the same pair with fewer clones, ``e^−ε₀ <= p_L``, never lower.
        """
        eps0 = largest_loss(d, self.q)
        return clones.reduced_deltas(self.n, clones.clone_probability(self.bits, self.q, d), eps0, eps)

    def published(self, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The published bound that covers every pair at every distance, at each ``ε``, and its name: the
        stronger clone bound (:meth:`collapsed` at ``d = L``). Wang et al.'s variation ratio with L-bit
        randomized response's own ``β`` is not one: a pair lies above it (docs/worst-case.md §8.8)."""
        return self.collapsed(self.bits, eps), np.full(eps.shape, "stronger clone bound", dtype=object)

    def clone_bounds(self, eps: np.ndarray) -> dict[int, np.ndarray]:
        """Per distance, the least of the clone bounds at each ``ε`` (``> 0``), for the distances that can
        decide the maximum: the collapsed bound, never above the published bounds (:meth:`published`),
        lowered by the graded one where it exceeds the running maximum and the graded lattice reaches the
        clone counts."""
        collapsed = {d: self.collapsed(d, eps) for d in self.distances(float(eps.min()))}
        cap = self.published(eps)[0] if collapsed else np.zeros(eps.shape)  # no distance left: δ = 0
        best = np.zeros(eps.shape)
        per_d = {}
        for d in sorted(collapsed, key=lambda k: -float(collapsed[k].max())):
            per_d[d] = np.minimum(collapsed[d], cap)
            if np.all(per_d[d] <= best):
                continue  # the graded bound of d is at most its collapsed bound: it cannot raise the maximum
            if self.graded(d):
                raise_at = per_d[d] > best  # only there can the graded bound raise the maximum
                graded = reduction.graded_delta(self.n, self.bits, self.q, d, eps[raise_at])
                per_d[d][raise_at] = np.minimum(per_d[d][raise_at], graded)
            best = np.maximum(best, per_d[d])
        return per_d

    def deltas(self, eps: np.ndarray, decide: float = 0.0) -> np.ndarray:
        """A proven upper bound on ``δ(ε)`` over every neighbouring pair, either order, at each ``ε > 0``.

        ``max_d`` of the clone bounds (:meth:`clone_bounds`), each lowered by the graded blanket at anchors:
        every ``ε`` of a batch of at most :data:`ANCHORS`, else that many, spread where the bound is not
        negligible (:func:`~gpu_rs.pairs.anchors.next_anchor`). At each, the distances are taken from
        the largest bound down, and the blanket is computed while the distance's bound exceeds the maximum
        so far, each only until it is surely at most that maximum (``settle``: a distance below it cannot
        raise it). Each ``ε`` then takes, per distance, the least blanket of an anchor at or below it,
        lowered to the convex bound through every value (:func:`~gpu_rs.pairs.anchors.convex_bound`).

        ``decide > 0``, for a caller that only asks whether each bound is at most ``decide`` (a root
        finder): at each anchor a distance is left as soon as its blanket is surely at most ``decide``
        (:func:`gpu_rs.pairs.blanket.blanket_delta` with ``settle``), and the anchor as soon as one distance
        stays above it (its blanket then computed in full). Every value is still a proven bound.
        """
        eps = np.asarray(eps, dtype=float)
        per_d = self.clone_bounds(eps)
        if not per_d:
            return np.zeros(eps.shape)
        lowered = {d: values.copy() for d, values in per_d.items()}
        if self.uses_blanket:
            order, done = np.argsort(eps, kind="stable"), list[int]()
            while len(done) < min(ANCHORS, eps.shape[0]):
                known = np.max(np.stack([v[order] for v in lowered.values()]), axis=0)
                at = len(done) if eps.shape[0] <= ANCHORS else next_anchor(known, done)
                if at is None:
                    break
                done = sorted([*done, at])
                self._anchor(int(order[at]), eps, lowered, decide)
        return np.minimum(1.0, convex_max(eps, lowered, {d: largest_loss(d, self.q) for d in lowered}))

    def _anchor(self, i: int, eps: np.ndarray, lowered: dict[int, np.ndarray], decide: float) -> None:
        """The blankets at ``eps[i]``, the largest bound first, each lowering its distance's bound from there on."""
        running = decide
        for d in sorted(lowered, key=lambda k: -float(lowered[k][i])):
            if lowered[d][i] <= running:
                break  # no distance left can raise the maximum at this anchor
            value = self.blanket(d, float(eps[i]), running, settle=True)
            later = eps >= eps[i]  # δ(ε) does not increase with ε
            lowered[d][later] = np.minimum(lowered[d][later], value)
            if decide > 0.0 and lowered[d][i] > decide:
                break  # the bound at this anchor is above decide, whatever the other distances give
            running = max(running, float(lowered[d][i]))

    def _blanket_search(
        self, d: int, grid: np.ndarray, factor: np.ndarray, values: np.ndarray, start: int, floor: float
    ) -> int:
        """Lower ``values`` (tail bounds per step, in place) by the graded blanket, and return where it did best.

        A distance matters only while its best value exceeds ``floor`` (the largest over the distances
        done so far), so the search stops as soon as it cannot. It starts at the position ``start`` of
        ``BLANKET_STEPS`` and walks towards the side that improves while it improves. Any step gives a
        valid bound, so a walk that misses the best step only loosens it.
        """

        def attempt(j: int) -> float:
            i = BLANKET_STEPS[j]
            if values[i] > floor:
                enough = floor * factor[i] * (1.0 - 16.0 * UNIT)  # a δ this small cannot beat the floor
                delta = self.blanket(d, float(grid[i]), enough, settle=True)
                values[i] = min(values[i], delta / factor[i] * (1.0 + 8.0 * UNIT))
            return float(values[i])

        best_j, best = start, attempt(start)
        for direction in (-1, 1):
            j = start + direction
            while 0 <= j < len(BLANKET_STEPS) and float(values.min()) > floor:
                value = attempt(j)
                if value >= best:
                    break
                best_j, best = j, value
                j += direction
            if best_j != start:
                break  # improved on this side: the other side lies beyond the start, already worse
        return best_j

    def largest(
        self, grid: np.ndarray, order: list[int], per_d: dict[int, np.ndarray], cap: tuple[np.ndarray, np.ndarray]
    ) -> TailBound:
        """The largest over the distances of ``order`` of their least tail bound over the steps ``grid``
        (``per_d``: the graded clone bound at each step; ``cap``: a bound over every pair at each step, and
        its name), each lowered by the graded blanket where it may decide."""
        factor = -np.expm1(-np.array(STEPS))
        worst, start = TailBound(0.0, float(grid[0]), 1), BLANKET_STEPS.index(20)
        for d in order:
            values, graded = np.minimum(per_d[d], cap[0]), per_d[d]
            # else nothing can change: the distance is already within the running maximum
            if self.uses_blanket and float(values.min()) > worst.bound and worst.bound < 1.0:
                start = self._blanket_search(d, grid, factor, values, start, worst.bound)
            i = int(np.argmin(values))
            if values[i] > worst.bound:
                own = "graded clone reduction" if self.graded(d) else "clone reduction"
                method, at = (own, d) if values[i] == graded[i] else (str(cap[1][i]), self.bits)
                if values[i] < min(graded[i], cap[0][i]):  # the pools' value, if taken, is this float exactly
                    at_step = [v for (dd, e, _), v in self.pooled.items() if (dd, e) == (d, float(grid[i]))]
                    pooled = any(v / factor[i] * (1.0 + 8.0 * UNIT) == values[i] for v in at_step)
                    method, at = ("cross-cloned pools" if pooled else "graded blanket", d)
                worst = TailBound(min(1.0, float(values[i])), float(grid[i]), at, method)  # a cap: named d = L
        return worst

    def tail(self, eps: float) -> TailBound:
        """A proven upper bound on ``P[R > e^ε]`` and ``P[R >= e^ε]`` over every neighbouring pair, either order.

        For each distance ``d``: the best step ``P[R > e^ε] <= δ_d(ε') / (1 − e^(ε' − ε))`` over the grid
        ``ε' = ε − STEPS``, ``δ_d`` the graded clone bound, never above the published bounds
        (:meth:`published`), and, on the steps of ``BLANKET_STEPS`` for the distances that may decide the
        maximum, the graded blanket; then the largest over ``d``, and never above the collapsed clone bound
        of :mod:`gpu_rs.pairs.clones`. Assumes only the mechanism and ``n`` users.

        The distances are taken the largest graded bound first, then coarse to fine over ``d``, so that a
        large maximum is met early and the other distances are dismissed by one blanket lattice each. Any
        order gives a bound; the order only moves where each distance's walk over the steps starts. At
        the trivial bound 1 the order of the graded bounds is taken again, which names the same distance
        as before among the many at 1. Computed once per ``ε`` (``tails``).
        """
        if eps not in self.tails:
            self.tails[eps] = self._tail(eps)
        return self.tails[eps]

    def _tail(self, eps: float) -> TailBound:
        steps = np.array(STEPS)
        grid, factor = eps - steps, -np.expm1(-steps)
        per_d: dict[int, np.ndarray] = {}
        for d in range(1, self.bits + 1):
            if largest_loss(d, self.q) < eps:
                continue  # every report's ratio is at most (p/q)^d < e^ε: the tail is 0 for every pair
            if self.graded(d):
                delta = reduction.graded_delta(self.n, self.bits, self.q, d, grid)
            else:
                delta = self.collapsed(d, grid)
            per_d[d] = delta / factor * (1.0 + 8.0 * UNIT)
        bound, names = self.published(grid) if per_d else (np.ones(grid.shape), np.zeros(grid.shape))
        cap = (bound / factor * (1.0 + 8.0 * UNIT), names)  # every pair, every distance
        ranked = sorted(per_d, key=lambda k: -float(np.minimum(per_d[k], cap[0]).min()))
        worst = self.largest(grid, ranked[:1] + spread_out(sorted(ranked[1:])), per_d, cap)
        if worst.bound >= 1.0:
            worst = self.largest(grid, ranked, per_d, cap)
        collapsed = clones.collapsed_tail(self.n, self.bits, self.q, eps, worst.bound)  # taken only below worst.bound
        if collapsed[0] < worst.bound:
            worst = TailBound(collapsed[0], collapsed[1], collapsed[2], "clone reduction")
        if self.pools and self.blankets:  # the pools may move the walk over the steps: never above the curve without
            worst = min(worst, curve(self.n, self.bits, self.q).tail(eps), key=lambda t: t.bound)
        return worst


@functools.lru_cache(maxsize=CURVES)
def curve(n: int, bits: int, q: float, *, pools: bool = False) -> Curve:
    """The :class:`Curve` of ``(n, bits, q)`` (``pools``: see :class:`Curve`): one object per setting."""
    return Curve(n, bits, q, pools=pools)
