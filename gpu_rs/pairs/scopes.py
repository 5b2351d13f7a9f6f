"""Which neighbouring pairs a result covers (SPEC §1.1), and how each scope is computed.

* ``forward``: the pair of seed 003 §1.2 in the seed's order: ``S ~ A(D_m)`` with
  ``D_m`` = ``N − 1`` zero vectors and one all-ones vector, ratio ``X/N``.
* ``homogeneous``: the larger of both orders of that pair; the reverse order draws
  ``S ~ A(D)`` (``N`` zero vectors) and its tail is ``P[X' < N e^−ε]``.
* ``all``: every neighbouring pair. For one bit every background is "``a`` zeros and
  ``c`` ones" and the maximum over them is certified (:mod:`gpu_rs.pairs.backgrounds`); for
  more bits a proven upper bound (:mod:`gpu_rs.pairs.clones`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_rs.common.floats import UNIT
from gpu_rs.common.limits import FAMILY_SECONDS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.atoms import ONE, ZERO
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs import clones, reduction
from gpu_rs.pairs.backgrounds import WorstBackground
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.family_search import family_max
from gpu_rs.pairs.results import PairBound

SECONDS_PER_BACKGROUND = 1.2e-7
"""Cost of evaluating one background for ``scope="all"`` at one bit, per unit of ``sqrt(N p q)``
(measured on a 2-core CPU; see docs/benchmarks.md)."""
MAX_SECONDS = 900.0
"""Work estimated to take longer than this is refused up front."""
SEARCH_SECONDS = 20.0
"""The one-bit search over backgrounds stops after this long; the backgrounds left are bounded
from the ends of their intervals (a wider interval, reported as not met)."""


def forward_query(prob: Problem, inclusive: bool) -> Query:
    """``P[X > n e^ε]``: ``X`` = ``n − 1`` zero-vector atoms plus one outlier atom (seed 003 §3)."""
    log_t = math.log(prob.n) + prob.eps
    return Query(
        prob.bits,
        prob.q,
        ((ZERO, prob.n - 1), (ONE, 1)),
        log_t,
        True,
        inclusive,
        log_t_error=4.0 * UNIT * (abs(math.log(prob.n)) + prob.eps),
        exact=(prob.n, prob.eps),
    )


def reverse_query(prob: Problem, inclusive: bool) -> Query:
    """``P[X' < n e^−ε]``: ``X'`` = ``n`` zero-vector atoms; the reverse order's ``P_D[n/X' > e^ε]``."""
    log_t = math.log(prob.n) - prob.eps
    return Query(
        prob.bits,
        prob.q,
        ((ZERO, prob.n),),
        log_t,
        False,
        inclusive,
        log_t_error=4.0 * UNIT * (abs(math.log(prob.n)) + prob.eps),
        exact=(prob.n, -prob.eps),
    )


def larger(a: Bounds, b: Bounds) -> Bounds:
    """Bounds on ``max(P_a, P_b)``: ``[max of the lowers, max of the uppers]``.

    The interval lies inside the one with the larger upper bound, whose budget it takes
    (scaled to its width).
    """
    top = a if a.upper >= b.upper else b
    return Bounds.make(
        max(a.lower, b.lower),
        top.upper,
        top.budget,
        top.method,
        a.terms + b.terms,
        max(a.memory, b.memory),
        shrunk=True,
    )


@dataclass(frozen=True)
class Scoped:
    """A scope's answer: the bounds, the pairs computed on the way, and the worst pair.

    ``exact_all`` says whether a ``scope="all"`` answer is the exact maximum (one bit) or a bound.
    """

    bounds: Bounds
    pairs: tuple[PairBound, ...]
    worst: str
    exact_all: bool = False


def _pair(name: str, b: Bounds) -> PairBound:
    return PairBound(name, float(b.lower), float(b.upper), b.method)


def forward(prob: Problem, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """``scope="forward"``: the homogeneous pair in the seed's order."""
    fwd = tail_bounds(forward_query(prob, inclusive), plan, xp)
    return Scoped(fwd, (_pair("forward", fwd),), "forward")


def homogeneous(prob: Problem, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """``scope="homogeneous"``: the larger of both orders of the homogeneous pair.

    The reverse order is computed to the width the maximum of the two needs, which may leave
    its own interval wider than ``plan`` asks when it is the smaller of the two.
    """
    fwd = tail_bounds(forward_query(prob, inclusive), plan, xp)
    # Only the larger order needs the full width: the reverse order is asked for the width the
    # maximum needs, rel_width times a tail of at least fwd.lower (an absolute width).
    loose = Plan(plan.rel_width, max(plan.abs_width, plan.rel_width * fwd.lower), plan.max_terms)
    rev = tail_bounds(reverse_query(prob, inclusive), loose, xp)
    pairs = (_pair("forward", fwd), _pair("reverse", rev))
    return Scoped(larger(fwd, rev), pairs, "forward" if fwd.upper >= rev.upper else "reverse")


def estimate_seconds(n: int, q: float) -> float:
    """Estimated time of the one-bit search over every background."""
    return SECONDS_PER_BACKGROUND * n * math.sqrt(n * q * (1.0 - q)) + 0.05


def answer(
    scope: str,
    prob: Problem,
    inclusive: bool,
    plan: Plan,
    xp: object,
    decide: float = 0.0,
    search_seconds: float = FAMILY_SECONDS,
) -> Scoped:
    """The certified tail over the pairs ``scope`` covers (SPEC §1.1); ``decide > 0`` and
    ``search_seconds``: see :func:`proven_all`."""
    if scope == "forward":
        return forward(prob, inclusive, plan, xp)
    if scope == "homogeneous":
        return homogeneous(prob, inclusive, plan, xp)
    if prob.bits == 1:
        return every_background(prob, inclusive, plan, xp, decide)
    return proven_all(prob, inclusive, plan, xp, decide=decide, search_seconds=search_seconds)


def every_background(prob: Problem, inclusive: bool, plan: Plan, xp: object, decide: float = 0.0) -> Scoped:
    """``scope="all"`` for one bit: the certified maximum over every background (:mod:`gpu_rs.pairs.backgrounds`)."""
    seconds = estimate_seconds(prob.n, prob.q)
    if seconds > MAX_SECONDS:
        return proven_all(
            prob,
            inclusive,
            plan,
            xp,
            decide=decide,
            note=f"the exact search over every background would take about {seconds / 60:.0f} min "
            f"(at most {MAX_SECONDS / 60:.0f} min is started)",
        )
    search = WorstBackground(prob.n, prob.q, prob.ratio, inclusive)
    search.evaluate(0)
    goal = plan.goal(search.evaluated[0].lower)
    cap = min(1.0, clones.tail_upper(prob.n, 1, prob.q, prob.eps)[0])
    worst = search.search(goal, budget=prob.n + 2, cap=cap, seconds=SEARCH_SECONDS)
    best = search.evaluated[worst.zeros]
    own = min(best.upper, worst.upper) - best.lower
    budget = ErrorBudget(roundoff=own, relaxation=max(0.0, worst.upper - worst.lower - own))
    bounds = Bounds.make(worst.lower, worst.upper, budget, "backgrounds", worst.evaluated)
    ones = prob.n - 1 - worst.zeros
    name = f"background of {worst.zeros} zeros and {ones} ones, the user changing 0 -> 1, S drawn with the user at 1"
    if worst.lower == 0.0:
        name = "none resolved: every background's tail lies below the upper end"
        name += ", the clone bound" if worst.upper >= cap else ""
    if not worst.complete:
        name += (
            f" (the search stopped after {SEARCH_SECONDS:.0f} s with {worst.evaluated} backgrounds evaluated; "
            "the rest are bounded from the ends of their intervals)"
        )
    pairs = [_pair(name, Bounds(best.lower, best.upper, ErrorBudget(), "backgrounds"))]
    for a, label in ((prob.n - 1, "forward"), (0, "reverse")):
        pairs.append(PairBound(label, search.evaluated[a].lower, search.evaluated[a].upper, "backgrounds"))
    return Scoped(bounds, tuple(pairs), name, exact_all=True)


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
        note += f"; {found.unresolved} left open at search_seconds={search_seconds:g}"
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
    budget), so it bounds the supremum from below; the upper end is the smaller of the graded clone
    bound and the graded blanket of :mod:`gpu_rs.pairs.reduction` (never above the collapsed clone
    bound of :mod:`gpu_rs.pairs.clones`). Their gap is relaxation. ``pairs``
    holds three entries: the best pair known (named), then the seed's pair in both orders.
    ``decide > 0`` only decides ``upper <= decide``: the family is not searched (the lower end is
    the seed's pair); the upper end is the same. ``search_seconds`` limits the family search
    (:func:`best_known`).
    """
    both = homogeneous(prob, inclusive, plan, xp)
    fwd, rev = both.pairs
    top = fwd if fwd.lower >= rev.lower else rev
    best = PairBound(f"the seed's pair, {top.pair} order", top.lower, top.upper, top.method)
    if decide > 0.0:
        family_note = f"homogeneous backgrounds not searched: a decision against {decide:.6g} only"
    else:
        best, family_note = best_known(prob, inclusive, plan, xp, both.pairs, best, search_seconds)
    bound, eps_step, d, method = reduction.tail_upper(prob.n, prob.bits, prob.q, prob.eps)
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
    return Scoped(bounds, (best, fwd, rev), text)
