"""``scope="all"`` at several bits: a proven upper end over every pair, the best pair known as lower end.

The upper end is the every-pair ``δ`` curve of :mod:`gpu_rs.pairs.every_pair` (its tail through
docs/worst-case.md §8.3 for tails, its values for the profile); the lower end is a certified tail
of one pair: the best member of the homogeneous family (:mod:`gpu_rs.pairs.family_search`), or the
seed's pair where that search does not fit its time.
"""

from __future__ import annotations

import numpy as np

from gpu_rs.common.limits import FAMILY_SECONDS, POOLS_ALL_SECONDS, POOLS_SECONDS, POOLS_USERS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.pipeline import Plan
from gpu_rs.pairs import every_pair
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.family_delta import best_member
from gpu_rs.pairs.family_search import family_max
from gpu_rs.pairs.results import PairBound
from gpu_rs.pairs.scopes.base import Ends, KnownDeltas, Scope, Scoped, TailQuery
from gpu_rs.pairs.scopes.seed import homogeneous

POOLS_BITS = 8
"""The tail tries the cross-cloned pools (docs/worst-case.md §8.9) up to this many bits: measured, they
cost 1–4 s a tail there (0.23 → 0.21 at (1000, 5, 0.2446, ln 2), 0.54 → 0.29 at (1000, 5, 0.1692, 2),
0.995 → 0.815 at (1000, 8, 0.2, 2)), and 8 s for 0.987 → 0.947 at (1000, 16, 0.3, 2)."""


def best_known(
    prob: Problem,
    inclusive: bool,
    plan: Plan,
    xp: object,
    seed: tuple[PairBound, ...],
    best: PairBound,
    search_seconds: float = FAMILY_SECONDS,
) -> tuple[PairBound, str]:
    """The best pair known among the homogeneous backgrounds (``best`` if none beats it), and a note
    on the search; ``seed`` holds the seed's pair in both orders, already computed. The search
    takes at most about ``search_seconds`` (:func:`gpu_rs.pairs.family_search.family_max`); a search that
    would not fit that time, or whose members' atoms overflow float64 (tiny ``q`` with large ``ε``), is not
    made, and the note says why."""
    fwd, rev = seed
    try:
        known = {
            Member(prob.bits, prob.bits, 0, 0): Bounds(fwd.lower, fwd.upper, ErrorBudget(), fwd.method),
            Member(prob.bits, prob.bits, prob.bits, 0): Bounds(rev.lower, rev.upper, ErrorBudget(), rev.method),
        }
        found = family_max(prob, inclusive, plan, xp, known, max_seconds=search_seconds)
    except ValueError as err:  # its estimated time (TimeBudgetError), or members whose atoms overflow float64
        return best, f"homogeneous backgrounds not searched: {err}"
    note = (
        f"{found.evaluated} of {found.members} homogeneous backgrounds evaluated in {found.seconds:.1f} s, "
        f"every one's tail <= {found.upper:.6g}"
    )
    if found.unresolved:
        note += f"; {found.unresolved} with a bound above the best pair's tail left undecided"
    if found.bounds.lower > best.lower:
        best = PairBound(found.best.describe(prob.n), found.bounds.lower, found.bounds.upper, found.bounds.method)
    return best, note


def proven_all(
    prob: Problem,
    inclusive: bool,
    plan: Plan,
    xp: object,
    note: str = "",
    decide: float = 0.0,
    search_seconds: float = FAMILY_SECONDS,
) -> Scoped:
    """``scope="all"`` as a bound: ``[the largest homogeneous background's tail, the clone bound]``.

    The lower end is a certified tail of one pair (the best member of the family of
    :mod:`gpu_rs.pairs.family`, or the seed's pair where that search would not fit its time
    budget), so it bounds the supremum from below; the upper end is the tail of the every-pair
    ``δ`` curve of :mod:`gpu_rs.pairs.every_pair` (the least proven bound per distance, never above
    the collapsed clone bound of :mod:`gpu_rs.pairs.clones`). Their gap is relaxation. ``pairs``
    holds three entries: the best pair known (named), then the seed's pair in both orders.
    Where the tail is asked in full (``decide = 0``, ``search_seconds >= POOLS_SECONDS`` of
    :mod:`gpu_rs.common.limits`) at small settings (:data:`POOLS_BITS`, ``POOLS_USERS``, every ``N`` from
    ``POOLS_ALL_SECONDS``) the curve also tries the cross-cloned pools, never above the curve without them.
    ``decide > 0`` only decides ``upper <= decide``: the family is not searched (the lower end is the seed's
    pair), and the pools are tried only from ``POOLS_ALL_SECONDS`` on (a calibration asks so).
    ``search_seconds`` limits the family search (:func:`best_known`).
    """
    both = homogeneous(prob, inclusive, plan, xp)
    fwd, rev = both.pairs
    top = fwd if fwd.lower >= rev.lower else rev
    best = PairBound(f"the seed's pair, {top.pair} order", top.lower, top.upper, top.method)
    if decide > 0.0:
        family_note = f"homogeneous backgrounds not searched: a decision against {decide:.6g} only"
    else:
        best, family_note = best_known(prob, inclusive, plan, xp, both.pairs, best, search_seconds)
    every = search_seconds >= POOLS_ALL_SECONDS  # every N, and decisions too (a calibration that asks for them)
    small = decide == 0.0 and search_seconds >= POOLS_SECONDS and prob.n <= POOLS_USERS
    pools = prob.bits <= POOLS_BITS and (every or small)
    bound, eps_step, d, method = every_pair.curve(prob.n, prob.bits, prob.q, pools=pools).tail(prob.eps)
    upper = min(1.0, bound)
    lower = best.lower
    if upper < lower:
        raise RuntimeError(f"the proven bound {upper!r} is below a certified pair's tail {lower!r}: a bug")
    budget = ErrorBudget(relaxation=upper - lower)
    bounds = Bounds.make(lower, upper, budget, method, both.bounds.terms, both.bounds.memory)
    text = (
        f"upper end proven: {method} at Hamming distance d={d} with the step from delta at "
        f"eps={eps_step:.4g}; lower end, the best pair known: {best.pair} ({family_note})"
    )
    if note:
        text += f"; {note}"
    return Scoped(bounds, (best, fwd, rev), text, known=best)


class AllBound(Scope):
    """``scope="all"`` where its answer is a proven bound: several bits (and one bit where the exact search
    would not fit its time)."""

    name = "all"

    def exact(self, quantity: str) -> bool:
        return False

    def tail(self, ask: TailQuery) -> Scoped:
        return proven_all(
            ask.prob, ask.inclusive, ask.plan, ask.xp, decide=ask.decide, search_seconds=ask.search_seconds
        )

    def every_pair_deltas(self, eps: np.ndarray, rel_width: float, abs_width: float, decide: float = 0.0) -> Ends:
        return None, proven_deltas(self.n, self.bits, self.q, eps, decide)

    def known_deltas(self, eps: np.ndarray, seconds: float) -> KnownDeltas | None:
        """The best complement member's ``δ`` (:func:`gpu_rs.pairs.family_delta.best_member`, docs/worst-case.md §9;
        zeros where none beat the seed's pair, the sentence saying so)."""
        found, lower, upper = best_member(self.n, self.bits, self.q, eps, seconds)
        return KnownDeltas(lower, upper, found.note(self.n))


def proven_deltas(n: int, bits: int, q: float, eps: np.ndarray, decide: float = 0.0) -> np.ndarray:
    """The every-pair curve's upper ``δ`` at each ``ε`` (``every_pair.Curve.deltas``); 1 at ``ε <= 0``."""
    out, positive = np.ones(eps.shape), eps > 0.0
    if positive.any():
        out[positive] = every_pair.curve(n, bits, q).deltas(eps[positive], decide)
    return out
