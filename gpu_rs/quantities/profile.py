"""``privacy_profile``: the (ε, δ) privacy profile of shuffled L-bit randomized response, certified."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_rs.common.backend import get_backend
from gpu_rs.common.limits import MAX_QUERIES, MAX_SEARCH_SECONDS, PROFILE_SEARCH_SECONDS
from gpu_rs.common.provenance import provenance
from gpu_rs.common.serialize import ToDict
from gpu_rs.common.validation import Problem, check_closed_open, check_int, check_k, check_open, check_scope
from gpu_rs.engine.atoms import eps_top
from gpu_rs.engine.pipeline import Plan, plan_terms
from gpu_rs.pairs.scopes import scope_for
from gpu_rs.pairs.scopes.all_krand import AllKrand
from gpu_rs.quantities.compose_root import Composition, krand_composition
from gpu_rs.quantities.profile_calls import Calls
from gpu_rs.quantities.profile_export import to_dp_accounting
from gpu_rs.quantities.profile_orders import Order, Profile
from gpu_rs.quantities.profile_plot import Plotted
from gpu_rs.quantities.profile_results import DeltaBound
from gpu_rs.quantities.tail import DEFAULT_MAX_TERMS


@dataclass(frozen=True)
class PrivacyProfile(ToDict, Calls, Plotted):
    """The privacy profile of one setting; :meth:`delta` and :meth:`epsilon` compute on demand.

    Tail queries are cached, so later calls reuse the work of earlier ones. ``evaluated`` lists
    every ``δ(ε)`` computed so far (and ``to_dict`` reports them).
    """

    n: int
    bits: int
    q: float
    scope: str
    guarantee: str
    rel_width: float
    backend: str
    provenance: dict[str, Any] = field(compare=False)
    engine: Profile | Composition = field(repr=False, compare=False)
    evaluated: list[DeltaBound] = field(default_factory=list, repr=False, compare=False)
    k: int = 1

    @property
    def eps_top(self) -> float:
        """``L log((1 − q)/q)``: the largest privacy loss of one report, beyond which ``δ = 0``."""
        return eps_top(self.bits, self.q)

    def to_dp_accounting(self, **options: Any) -> Any:
        """A pessimistic dp_accounting ``PrivacyLossDistribution`` built from the certified upper ``δ(ε)``.

        Its ``get_epsilon_for_delta`` is never below the true ``ε(δ)``, and it composes
        (``compose``, ``self_compose``) with other PLDs of the same discretization. Options and
        proof: :func:`gpu_rs.quantities.profile_export.to_dp_accounting`. Needs the
        ``accounting`` extra (``pip install 'gpu_rs[accounting]'``).
        """
        return to_dp_accounting(self, **options)

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("n", "bits", "q", "k", "scope", "guarantee", "rel_width", "backend")}
        if self.known_pair is not None:
            out["known_pair"] = self.known_pair
        out["evaluated"] = [d.to_dict() for d in sorted(self.evaluated, key=lambda d: d.eps)]
        out["provenance"] = self.provenance
        return out

    @property
    def title(self) -> str:
        """The setting, as a plot's title."""
        return f"N = {self.n:,}, L = {self.bits}, q = {self.q:g}" + (f", k = {self.k}" if self.k > 1 else "")

    @property
    def bound_only(self) -> bool:
        """Whether the upper end is a proven bound over every pair and the bands the seed's pair's."""
        return self.engine.bound_only

    @property
    def known_pair(self) -> str | None:
        """Where the upper end is a proven bound over every pair: the pair whose certified ``δ`` is the lower end
        (the seed's pair, or the best complement member found: docs/worst-case.md §9), in words; else None."""
        return self.engine.known_pair if isinstance(self.engine, Profile) and self.engine.bound_only else None

    @property
    def abs_width(self) -> float:
        """The absolute width asked of each ``δ``."""
        return self.engine.abs_width


def privacy_profile(
    n: int,
    bits: int,
    q: float,
    *,
    scope: str = "all",
    k: int = 1,
    rel_width: float = 1e-3,
    abs_width: float = 1e-12,
    max_queries: int = 0,
    backend: str = "auto",
    search_seconds: float = PROFILE_SEARCH_SECONDS,
) -> PrivacyProfile:
    """The certified privacy profile ``δ(ε)``, ``ε(δ)`` of ``n`` users, ``bits`` bits, flip probability ``q``.

    Parameters
    ----------
    n, bits, q : int, int, float
        As for :func:`gpu_rs.tail`: ``1 <= n <= 10**9``, ``1 <= bits <= 1024``, ``0 < q < 1/2``.
    scope : {"homogeneous", "forward", "all"}
        Which pairs (SPEC §1.1): the seed's pair in its order, both orders of it (the larger
        ``δ``), or every neighbouring pair: for one bit the exact maximum over every
        background (refused up front where it would take too long), for more bits a proven
        upper end from the clone reduction and the best pair known as lower end (:attr:`PrivacyProfile.known_pair`).
    k : int
        Randomized reports per user, ``1 <= k <= MAX_K``. For ``k > 1`` only ``scope="all"``: the
        upper end is the ``k``-fold composition of one report's every-pair dominating pair
        (docs/composition.md §2), the lower end 0 (``δ`` of the seed's pair needs the law of
        ``R_k``, of which only tail bounds are certified); other scopes raise ``ValueError``.
    rel_width, abs_width : float
        Target for each ``δ``: ``upper − lower <= max(rel_width * lower, abs_width)``.
    max_queries : int
        Most new tail queries per ``δ`` value and order where the curve's interval, and then the
        tilted law's (tiny ``δ`` at several bits, docs/profile.md), are still wider than asked;
        ``0`` (the default) returns the certified interval as it is, ``met`` saying whether it
        reached the width. Tail queries are slow: each costs about one :func:`gpu_rs.tail`.
    backend : {"auto", "numpy", "cupy"}
        As for :func:`gpu_rs.tail`.
    search_seconds : float
        With ``scope="all"`` at several bits: the time limit, ``0 <= search_seconds < 86400``, of the search
        over the homogeneous backgrounds that hold the family's largest ``δ`` (docs/worst-case.md §9), made
        once per profile at the first ``ε`` asked; its best background is the lower end wherever its certified
        ``δ`` beats the seed's pair (:attr:`PrivacyProfile.known_pair`). ``0`` skips it.

    Returns
    -------
    PrivacyProfile
        Call ``.delta(eps)`` and ``.epsilon(delta)``; each returns certified intervals.
    """
    arguments = dict(n=n, bits=bits, q=q, scope=scope, k=k, rel_width=rel_width, abs_width=abs_width, backend=backend)
    arguments["search_seconds"] = search_seconds
    prob = Problem(n, bits, q, 1.0)
    scope = check_scope(scope)
    k = check_k(k)
    if k > 1 and scope != "all":
        raise ValueError(
            f"scope must be 'all' for privacy_profile with k={k}: the seed's pair's delta integrates the law "
            "of R_k, for which only tail bounds are certified (use gpu_rs.tail(..., k=k, scope=...))"
        )
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    abs_width = check_open("abs_width", abs_width, 0.0, 1.0)
    max_queries = check_int("max_queries", max_queries, 0, MAX_QUERIES)
    search_seconds = check_closed_open("search_seconds", search_seconds, 0.0, MAX_SEARCH_SECONDS)
    be = get_backend(backend)
    plan = Plan(rel_width / 4, abs_width / 4, plan_terms(DEFAULT_MAX_TERMS, be.free_memory(), None))
    covers = scope_for(scope, prob.n, prob.bits, prob.q, k)
    engine: Profile | Composition
    if isinstance(covers, AllKrand):
        engine = krand_composition(covers, rel_width, abs_width)
    else:
        orders = {name: Order(prob.n, prob.bits, prob.q, name == "forward", plan, be.xp) for name in covers.orders}
        engine = Profile(
            prob.n, prob.bits, prob.q, covers, rel_width, abs_width, max_queries, orders, search_seconds=search_seconds
        )
    return PrivacyProfile(
        prob.n,
        prob.bits,
        prob.q,
        scope,
        covers.guarantee("delta"),
        rel_width,
        be.name,
        provenance(arguments, be.name),
        engine,
        k=k,
    )
