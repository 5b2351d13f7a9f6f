"""What a result covers, in words: every guarantee sentence of gpu_rs, in one table (SPEC §1.1)."""

from __future__ import annotations

GUARANTEES = {
    ("tail", "forward"): "the pair of seed 003 §1.2 in the seed's order only (N − 1 zero vectors and one all-ones "
    "vector, S ~ A(D_m)); the seed's conjecture that it is the worst pair fails in general: see docs/worst-case.md",
    ("tail", "homogeneous"): "both orders of the homogeneous pair of seed 003 §1.2, a conjecture that fails in "
    "general: see docs/worst-case.md",
    ("tail", "all"): "proven for every neighbouring collection",
    ("tail", "all-bound"): "proven upper bound for every neighbouring collection (graded clone and blanket "
    "reductions and, where tried, cross-cloned pools, never above the stronger clone bound: docs/worst-case.md §8; "
    "`method` names the one attained); lower end: the largest tail found "
    "over the homogeneous backgrounds (pairs[0] names it); estimate: that pair's, not the midpoint",
    ("tail", "background"): "one homogeneous background only (n − 1 users at `background`, one user changing), "
    "both orders",
    ("delta", "forward"): "the pair of seed 003 §1.2 in the seed's order only, delta_{P||Q} with P the law under "
    "D_m; not the worst pair (docs/worst-case.md)",
    ("delta", "homogeneous"): "the larger of both orders of the homogeneous pair of seed 003 §1.2, a conjecture "
    "that fails in general: see docs/worst-case.md",
    ("delta", "all"): "proven for every neighbouring collection",
    ("delta", "all-bound"): "proven upper bound for every neighbouring collection (clone, graded clone and blanket "
    "reductions, never above the stronger clone bound: docs/worst-case.md §4, §8); lower end and estimate from the "
    "best pair known: the seed's pair, or a homogeneous background found larger (docs/worst-case.md §9)",
    ("krand", "forward"): "the seed's pair with k reports per user (SPEC §1.3), S ~ A(D_m^k) only; certified by "
    "Maclaurin/Bonferroni inequalities (docs/k-randomization.md §5); not a guarantee for other pairs",
    ("krand", "all-bound"): "proven upper bound for every neighbouring collection with k reports per user (the "
    "k-fold composition of one report's every-pair dominating pair: docs/composition.md §2; tails by "
    "docs/worst-case.md §8.3); lower end: both orders of the seed's pair with k reports (SPEC §1.3)",
    ("krand-delta", "all-bound"): "proven upper bound for every neighbouring collection with k reports per user "
    "(the k-fold composition of one report's every-pair dominating pair: docs/composition.md §2); lower end 0 "
    "(the seed's pair's delta needs the law of R_k, of which only tail bounds are certified)",
    ("krand", "homogeneous"): "both orders of the seed's pair with k reports per user (SPEC §1.3), certified by "
    "Maclaurin/Bonferroni inequalities (docs/k-randomization.md §5); not a guarantee for other pairs",
}
"""``(quantity, scope) -> sentence``; ``"all-bound"`` is scope ``"all"`` where it is a bound, not the maximum."""


def guarantee(scope: str, *, exact_all: bool, quantity: str = "tail") -> str:
    """The guarantee sentence of ``scope`` for ``quantity`` (``"tail"``, ``"delta"``, ``"krand"`` or ``"krand-delta"``).

    ``exact_all`` says whether ``scope="all"`` is the exact maximum over every pair.
    """
    return GUARANTEES[quantity, "all-bound" if scope == "all" and not exact_all else scope]
