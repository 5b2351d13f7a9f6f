"""The methods that bound ``P[Y > y]`` for a sum of independent summands, in the order tried.

Every method has the signature ``bound(law, cut, target, max_terms, xp) -> Bounds | None``
and returns None where it does not apply. The first that applies answers:

=============  ==========================  ===================================================
method         module                      applies where
=============  ==========================  ===================================================
support        here                        ``y`` lies outside the support: the tail is 0 or 1
chernoff       :mod:`gpu_rs.engine.chernoff`      a Chernoff bound alone is below half the target
lattice        :mod:`gpu_rs.engine.lattice`       the sum is an integer count (one bit): exact DFT
enumeration    :mod:`gpu_rs.engine.enumeration`   at most 10^6 count vectors: exact finite sum
conditioned    :mod:`gpu_rs.engine.conditioning`  rare heavy atoms widen the window; one window on a
                                           small budget fell short
nearlattice    :mod:`gpu_rs.engine.nearlattice`   at most 5 atoms in the bulk: condition on the large
                                                  atoms' counts, the first atom's count is binomial
fourier        :mod:`gpu_rs.engine.fourier`       always: characteristic function and Vaaler's
                                           majorants in a Chernoff window
=============  ==========================  ===================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_rs.engine import chernoff, enumeration, fourier, lattice, nearlattice
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.conditioning import mixture, split_heavy
from gpu_rs.engine.laws import Cut, SumLaw

Method = Callable[[SumLaw, Cut, float, int, Any], "Bounds | None"]

TRY_TERMS = 1 << 15
"""Budget of the single-window attempt made before splitting off heavy atoms."""


def support(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """0 or 1 where the threshold lies beyond the smallest or largest value of the sum."""
    never = law.max < cut.lo or (not cut.inclusive and law.max <= cut.lo)  # Y > y impossible
    always = law.min > cut.hi  # Y > y certain
    if not cut.above:
        never, always = law.min > cut.hi or (not cut.inclusive and law.min >= cut.hi), law.max < cut.lo
    if never:
        return Bounds.point(0.0)
    if always:
        return Bounds.point(1.0)
    if law.max == law.min:
        # A constant sum within rounding of the threshold (an exact tie): undecidable in floats.
        return Bounds.make(0.0, 1.0, ErrorBudget(roundoff=1.0), "support")
    return None


def chernoff_interval(law: SumLaw, cut: Cut) -> Bounds:
    """``[1 − b_out, b_in]``: Chernoff bounds on the event and on its complement."""
    above = chernoff.upper_tail(law, cut.lo)  # bounds P[Y >= lo]
    below = chernoff.lower_tail(law, cut.hi)  # bounds P[Y <= hi]
    inside, outside = (above, below) if cut.above else (below, above)
    lower = 1.0 - outside if outside < 0.5 else 0.0
    return Bounds.make(lower, inside, ErrorBudget(truncation=inside - lower), "chernoff")


def chernoff_only(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """``[0, bound]`` or ``[1 − bound, 1]`` where a Chernoff bound is below half the target."""
    found = chernoff_interval(law, cut)
    if found.upper <= 0.5 * target or 1.0 - found.lower <= 0.5 * target:
        return found
    return None


def conditioned(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """One window on a small budget; where it falls short, condition on the heavy atoms.

    Both intervals are certified, so where both were computed their intersection is too.
    """
    heavy = split_heavy(law, cut, target)
    if heavy is None:
        return None
    first = fourier.bound(law, cut, target, min(max_terms, TRY_TERMS), xp)
    if first.width <= target:
        return first
    share = 0.5 * target / max(1, len(heavy.branches))
    parts = [solve(b.law, b.cut, min(1.0, share / b.prob), max_terms, xp, LIGHT) for b in heavy.branches]
    return first.intersect(mixture(heavy, parts))


METHODS: tuple[tuple[str, Method], ...] = (
    ("support", support),
    ("chernoff", chernoff_only),
    ("lattice", lattice.bound),
    ("enumeration", enumeration.bound),
    ("conditioned", conditioned),
    ("nearlattice", nearlattice.bound),
    ("fourier", fourier.bound),
)
LIGHT = tuple((name, m) for name, m in METHODS if name not in ("conditioned", "nearlattice"))
"""The table for the branches of a split: they have no heavy atoms left (and many of them are solved)."""


def solve(
    law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any, methods: tuple[tuple[str, Method], ...] = METHODS
) -> Bounds:
    """Bounds on ``P[Y ∈ cut]`` of absolute width about ``target``, by the first method that applies.

    The answer is intersected with the Chernoff bounds, which can be the sharper side
    where a method's absolute round-off exceeds a very small tail.
    """
    for _name, method in methods:
        found = method(law, cut, target, max_terms, xp)
        if found is not None:
            ceiling = chernoff_interval(law, cut)
            if ceiling.upper < found.upper or ceiling.lower > found.lower:
                return found.intersect(ceiling)
            return found
    raise RuntimeError("no method applies: the last method of the table must always answer")
