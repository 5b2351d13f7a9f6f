"""``privacy_profile``: the (ε, δ) privacy profile of shuffled L-bit randomized response, certified."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu_rs.common.backend import get_backend
from gpu_rs.common.limits import MIN_TARGET
from gpu_rs.common.provenance import provenance
from gpu_rs.common.serialize import ToDict
from gpu_rs.common.validation import MAX_EPS, Problem, check_int, check_k_one, check_open, check_scope
from gpu_rs.engine.pipeline import Plan, plan_terms
from gpu_rs.pairs.scopes import scope_for
from gpu_rs.quantities.profile_export import to_dp_accounting
from gpu_rs.quantities.profile_orders import Order, Profile
from gpu_rs.quantities.profile_results import DeltaBound
from gpu_rs.quantities.tail import DEFAULT_MAX_TERMS


@dataclass(frozen=True)
class PrivacyProfile(ToDict):
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
    engine: Profile = field(repr=False, compare=False)
    evaluated: list[DeltaBound] = field(default_factory=list, repr=False, compare=False)

    def delta(self, eps: float | Sequence[float] | np.ndarray) -> Any:
        """Certified ``δ(ε)``: a :class:`DeltaBound`, or a tuple of them for an array of ``ε``."""
        if np.ndim(eps) == 0:
            found = self.engine.delta(check_open("eps", eps, 0.0, MAX_EPS))
            self.evaluated.append(found)
            return found
        grid = np.asarray(eps, dtype=float).ravel()
        for e in grid:
            check_open("eps", float(e), 0.0, MAX_EPS)
        many = tuple(self.engine.deltas([float(e) for e in grid]))
        self.evaluated.extend(many)
        return many

    def epsilon(self, delta: float | Sequence[float] | np.ndarray, eps_tol: float = 1e-3) -> Any:
        """Certified ``ε(δ)``, the smallest ``ε`` with ``δ(ε) <= delta``: an :class:`EpsilonBound` (or a tuple).

        Bisection stops when the interval is narrower than ``eps_tol`` times its upper end.
        """
        eps_tol = check_open("eps_tol", eps_tol, 0.0, 1.0)
        if np.ndim(delta) == 0:
            found = self.engine.epsilon(check_open("delta", delta, 0.0, 1.0), eps_tol)
            self.evaluated.append(found.at_upper)
            return found
        return tuple(self.epsilon(float(d), eps_tol) for d in np.asarray(delta, dtype=float).ravel())

    @property
    def eps_top(self) -> float:
        """``L log((1 − q)/q)``: the largest privacy loss of one report, beyond which ``δ = 0``."""
        return self.bits * math.log((1.0 - self.q) / self.q)

    def to_dp_accounting(self, **options: Any) -> Any:
        """A pessimistic dp_accounting ``PrivacyLossDistribution`` built from the certified upper ``δ(ε)``.

        Its ``get_epsilon_for_delta`` is never below the true ``ε(δ)``, and it composes
        (``compose``, ``self_compose``) with other PLDs of the same discretization. Options and
        proof: :func:`gpu_rs.quantities.profile_export.to_dp_accounting`. Needs the
        ``accounting`` extra (``pip install 'gpu_rs[accounting]'``).
        """
        return to_dp_accounting(self, **options)

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("n", "bits", "q", "scope", "guarantee", "rel_width", "backend")}
        out["evaluated"] = [d.to_dict() for d in sorted(self.evaluated, key=lambda d: d.eps)]
        out["provenance"] = self.provenance
        return out

    def plot(
        self,
        eps: Sequence[float] | np.ndarray | None = None,
        *,
        ax: Any = None,
        path: str | None = None,
        others: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None,
    ) -> Any:
        """``δ`` against ``ε`` on a log axis, each order's certified band; saved to ``path`` if given.

        ``others`` maps a label to a curve ``δ(ε)`` (an array of ``ε`` in, an array out) drawn
        beside ours, e.g. the generic shuffle bounds of
        ``gpu_rs.reference.generic_bounds.generic_curves(n, bits, q)``.

        The axis reaches a decade below the least value drawn that is at least
        :data:`~gpu_rs.common.limits.MIN_TARGET` (the least ``δ`` a calibration takes), so every
        band it names is on it; that floor is a dotted line, and a value at or below it (a lower end
        of 0, an upper end that is 0 rounded outwards) is drawn on it as a triangle pointing down,
        not as data. The bound's own floor, ``abs_width`` (an interval that narrow is not narrowed
        further), is a dashed grey line, and an upper end below it whose interval is wider than
        ``rel_width`` asks is an open circle: ``δ`` may lie far below it. Under ``scope="all"`` at
        several bits the bands are the seed's pair's and the dashed black line the proven upper end
        over every pair.
        """
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure

        grid = np.linspace(0.05, 3.0, 30) if eps is None else np.asarray(eps, dtype=float)
        found = self.delta(grid)
        fig = None
        if ax is None:
            fig = Figure(figsize=(7, 4.5)) if path else plt.figure(figsize=(7, 4.5))
            ax = fig.subplots()
        bands = {
            name: (np.array([getattr(d, name)[0] for d in found]), np.array([getattr(d, name)[1] for d in found]))
            for name in ("forward", "reverse")
            if all(getattr(d, name) is not None for d in found)
        }
        upper = np.array([d.upper for d in found])
        curves = {label: np.asarray(curve(grid), dtype=float) for label, curve in (others or {}).items()}
        drawn = np.concatenate([upper, *(np.concatenate(b) for b in bands.values()), *curves.values()])
        shown = drawn[drawn >= MIN_TARGET]
        floor = 0.1 * float(shown.min()) if shown.size else MIN_TARGET
        pair = "seed's pair, " if self.engine.bound_only else ""
        for (name, (lo, hi)), color in zip(bands.items(), ("C0", "C1"), strict=False):
            above = hi > floor
            ax.fill_between(grid, np.maximum(lo, floor), np.where(above, hi, floor), color=color, alpha=0.35, lw=0)
            ax.plot(grid, np.where(above, hi, np.nan), color=color, lw=1, label=f"{pair}{name} order (certified band)")
            _on_floor(ax, grid, hi, floor, color, f"{pair}{name} order: upper end at or below the floor")
        every = "every pair: proven upper end" if pair else f"scope={self.scope}: upper end"
        ax.plot(grid, np.where(upper > floor, upper, np.nan), "k--", lw=1, label=every)
        _on_floor(ax, grid, upper, floor, "k", f"{every} at or below the floor")
        lower, width = np.array([d.lower for d in found]), self.engine.abs_width
        loose = (upper > floor) & (upper <= width) & (upper - lower > self.rel_width * lower)
        if loose.any():  # met by abs_width alone: the bound's floor, not δ
            ax.plot(grid[loose], upper[loose], "ko", mfc="none", ms=6, label=f"{every}: not narrowed below it")
        if width > floor:
            ax.axhline(width, color="0.5", ls="--", lw=0.8, label=f"bound's floor: abs_width={width:g}")
        for i, (label, values) in enumerate(curves.items()):
            ax.plot(grid, np.where(values > floor, values, np.nan), color=f"C{i + 2}", lw=1.2, ls="-.", label=label)
        ax.axhline(floor, color="0.5", ls=":", lw=1, label=f"axis floor {floor:.1e}: values at or below it, 0 too")
        ax.set_ylim(floor / 2, 1.5)
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε)")
        ax.set_title(f"N = {self.n:,}, L = {self.bits}, q = {self.q:g}")
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
        if path:
            (fig or ax.figure).savefig(path, dpi=120, bbox_inches="tight")
        return ax


def _on_floor(ax: Any, grid: np.ndarray, values: np.ndarray, floor: float, color: str, label: str) -> None:
    """Values at or below the axis floor of :meth:`PrivacyProfile.plot`, drawn on it as triangles pointing down."""
    low = values <= floor
    if low.any():
        ax.plot(grid[low], np.full(int(low.sum()), floor), "v", color=color, ms=5, ls="none", label=label)


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
        upper end from the clone reduction and the homogeneous pair as lower end.
    k : int
        Randomized reports per user: only ``k = 1`` here (``δ`` needs the law of ``R_k``, not
        just its tail bounds); ``k > 1`` raises ``ValueError`` naming :func:`gpu_rs.tail`.
    rel_width, abs_width : float
        Target for each ``δ``: ``upper − lower <= max(rel_width * lower, abs_width)``.
    max_queries : int
        Most new tail queries per ``δ`` value and order where the curve's interval, and then the
        tilted law's (tiny ``δ`` at several bits, docs/profile.md), are still wider than asked;
        ``0`` (the default) returns the certified interval as it is, ``met`` saying whether it
        reached the width. Tail queries are slow: each costs about one :func:`gpu_rs.tail`.
    backend : {"auto", "numpy", "cupy"}
        As for :func:`gpu_rs.tail`.

    Returns
    -------
    PrivacyProfile
        Call ``.delta(eps)`` and ``.epsilon(delta)``; each returns certified intervals.
    """
    arguments = dict(n=n, bits=bits, q=q, scope=scope, k=k, rel_width=rel_width, abs_width=abs_width, backend=backend)
    prob = Problem(n, bits, q, 1.0)
    scope = check_scope(scope)
    check_k_one(
        k,
        "privacy_profile",
        "the profile's delta integrates the law of R_k, for which only tail bounds are certified "
        "(use gpu_rs.tail(..., k=k) or calibrate(..., eta=..., k=k))",
    )
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    abs_width = check_open("abs_width", abs_width, 0.0, 1.0)
    max_queries = check_int("max_queries", max_queries, 0, 100_000)
    be = get_backend(backend)
    plan = Plan(rel_width / 4, abs_width / 4, plan_terms(DEFAULT_MAX_TERMS, be.free_memory(), None))
    covers = scope_for(scope, prob.n, prob.bits, prob.q)
    orders = {name: Order(prob.n, prob.bits, prob.q, name == "forward", plan, be.xp) for name in covers.orders}
    engine = Profile(prob.n, prob.bits, prob.q, covers, rel_width, abs_width, max_queries, orders)
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
    )
