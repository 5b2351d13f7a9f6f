"""The seed's pair (seed 003 §1.2): ``N − 1`` zero vectors and one user changing to the all-ones vector.

* ``forward``: in the seed's order, ``S ~ A(D_m)`` with ``D_m`` = ``N − 1`` zero vectors and one
  all-ones vector, ratio ``X/N``;
* ``homogeneous``: the larger of both orders; the reverse order draws ``S ~ A(D)`` (``N`` zero
  vectors) and its tail is ``P[X' < N e^−ε]``.

With ``k`` reports per user (SPEC §1.3) the same pair, through :mod:`gpu_rs.pairs.krand`.
"""

from __future__ import annotations

import math

from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.engine.atoms import ONE, ZERO, Kind
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs import krand
from gpu_rs.pairs.scopes.base import Scope, Scoped, TailQuery, larger, pair_bound


def seed_pair(n: int, changed: bool) -> tuple[tuple[Kind, int], ...]:
    """The seed's collections as engine parts: ``D_m`` (``n − 1`` zero vectors and the changing user at
    the all-ones vector) if ``changed``, else ``D`` (``n`` zero vectors). The one spelling of the pair."""
    return ((ZERO, n - 1), (ONE, 1)) if changed else ((ZERO, n),)


def seed_query(prob: Problem, inclusive: bool, changed: bool) -> Query:
    """One order of the seed's pair as an engine query (seed 003 §3): with the changed user (``D_m``),
    ``P[X > n e^ε]``, ``X`` = ``n − 1`` zero-vector atoms plus the outlier atom; without it (``D``, the
    reverse order's ``P_D[n/X' > e^ε]``), ``P[X' < n e^−ε]``, ``X'`` = ``n`` zero-vector atoms."""
    eps = prob.eps if changed else -prob.eps
    return Query(
        prob.bits,
        prob.q,
        seed_pair(prob.n, changed),
        math.log(prob.n) + eps,
        changed,
        inclusive,
        log_t_error=4.0 * UNIT * (abs(math.log(prob.n)) + prob.eps),
        exact=(prob.n, eps),
    )


def forward(prob: Problem, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """``scope="forward"``: the homogeneous pair in the seed's order."""
    fwd = tail_bounds(seed_query(prob, inclusive, True), plan, xp)
    return Scoped(fwd, (pair_bound("forward", fwd),), "forward")


def homogeneous(prob: Problem, inclusive: bool, plan: Plan, xp: object) -> Scoped:
    """``scope="homogeneous"``: the larger of both orders of the homogeneous pair.

    The reverse order is computed to the width the maximum of the two needs, which may leave
    its own interval wider than ``plan`` asks when it is the smaller of the two.
    """
    fwd = tail_bounds(seed_query(prob, inclusive, True), plan, xp)
    # Only the larger order needs the full width: the reverse order is asked for the width the
    # maximum needs, rel_width times a tail of at least fwd.lower (an absolute width).
    loose = Plan(plan.rel_width, max(plan.abs_width, plan.rel_width * fwd.lower), plan.max_terms)
    rev = tail_bounds(seed_query(prob, inclusive, False), loose, xp)
    pairs = (pair_bound("forward", fwd), pair_bound("reverse", rev))
    return Scoped(larger(fwd, rev), pairs, "forward" if fwd.upper >= rev.upper else "reverse")


class Forward(Scope):
    """``scope="forward"``: the seed's pair in the seed's order."""

    name = "forward"
    orders = ("forward",)

    def tail(self, ask: TailQuery) -> Scoped:
        if self.k > 1:
            return krand.answer(self.name, ask.prob, self.k, ask.inclusive, ask.plan, ask.xp)
        return forward(ask.prob, ask.inclusive, ask.plan, ask.xp)


class Homogeneous(Scope):
    """``scope="homogeneous"``: the larger of both orders of the seed's pair."""

    name = "homogeneous"

    def tail(self, ask: TailQuery) -> Scoped:
        if self.k > 1:
            return krand.answer(self.name, ask.prob, self.k, ask.inclusive, ask.plan, ask.xp)
        return homogeneous(ask.prob, ask.inclusive, ask.plan, ask.xp)
