"""``compose``: the certified privacy profile of ``T`` releases (docs/composition.md).

Each release's certified profile is turned, on the grid of its dp_accounting export
(:func:`~gpu_rs.pairs.profile_grid.export_grid`), into two exact discrete pairs per order
(:mod:`~gpu_rs.pairs.compose_pairs`): one that dominates every pair the profile covers (from
its certified upper ``δ``) and one the seed's pair dominates (from its certified lower ``δ``).
Composition keeps both relations (Blackwell order is kept by products), so the composed
dominating pair's ``δ`` is above the truth and the composed dominated pair's below it; both are
certified by the engine (:mod:`~gpu_rs.pairs.compose_sides`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gpu_rs.common.limits import MAX_RELEASES
from gpu_rs.common.provenance import provenance
from gpu_rs.common.serialize import ToDict
from gpu_rs.common.validation import check_int, check_open
from gpu_rs.pairs.compose_pairs import MAX_LOSS, LossPmf, dominating, grid_span, lam, optimistic
from gpu_rs.pairs.profile_grid import DISCRETIZATION, export_grid, grid_end
from gpu_rs.quantities.compose_root import Composition
from gpu_rs.quantities.profile import PrivacyProfile
from gpu_rs.quantities.profile_calls import Calls
from gpu_rs.quantities.profile_export import to_dp_accounting
from gpu_rs.quantities.profile_plot import Plotted
from gpu_rs.quantities.profile_results import DeltaBound


def pairs_of(profile: PrivacyProfile, options: Mapping[str, Any]) -> dict[str, tuple[LossPmf, LossPmf]]:
    """``{order: (dominating pair, dominated pair)}`` of one release, on its export's grid.

    Where the largest loss is below ``2 · points`` multiples of the export's discretization (``q``
    near 1/2), the grid is finer and reaches the largest loss; it never reaches beyond
    :data:`~gpu_rs.pairs.compose_pairs.MAX_LOSS`.
    """
    top, d = grid_span(profile.eps_top, options["points"])
    end = min(grid_end(profile, profile.eps_top, options["delta_floor"]), MAX_LOSS) if d == DISCRETIZATION else top
    grid = export_grid(profile, discretization=d, eps_max=end, **options)
    # the seed's pair's own ends at ε = ±at, λ rounded down (for lower ends) and up (for upper ends)
    eps = np.concatenate([-grid.at[::-1], grid.at])
    a, b = lam(eps, False), lam(eps, True)
    half = len(grid.at)
    out = {}
    for name, values, own, other in (("forward", grid.remove, 0, 1), ("reverse", grid.add, 1, 0)):
        mine = [_ends(d, own) for d in grid.found]
        theirs = [_ends(d, other) for d in reversed(grid.found)]
        # δ(−t) = 1 − e^{−t} (1 − δ_other(t)): a lower end with e^{−t} rounded up, an upper end with it down
        lows = [1 - b[i] * (1 - theirs[i][0]) for i in range(half)] + [m[0] for m in mine]
        ups = [1 - a[i] * (1 - theirs[i][1]) for i in range(half)] + [m[1] for m in mine]
        out[name] = (dominating(grid, values[1]), optimistic(a, b, lows, ups))
    return out


def _ends(found: DeltaBound, order: int) -> tuple[Fraction, Fraction]:
    """The certified ``(lower, upper)`` of one order of the seed's pair (``(0, 1)`` where not computed), exactly."""
    pair = found.forward if order == 0 else found.reverse
    return (Fraction(0), Fraction(1)) if pair is None else (Fraction(float(pair[0])), Fraction(float(pair[1])))


@dataclass(frozen=True)
class ComposedProfile(ToDict, Calls, Plotted):
    """The certified privacy profile of ``times`` rounds of the releases ``profiles``.

    ``delta(ε)`` brackets the largest ``δ`` over the pairs the releases' scope covers (the upper
    end) and is at least the seed's pair's (the lower end); ``forward`` and ``reverse`` are each
    order's ``(lower, upper)``. ``budget.discretization`` is the engine's width on the two
    composed pairs, ``budget.relaxation`` the gap between them.
    """

    releases: tuple[tuple[str, int], ...]
    times: int
    scope: str
    guarantee: str
    rel_width: float
    abs_width: float
    eps_top: float
    provenance: dict[str, Any] = field(compare=False)
    engine: Composition = field(repr=False, compare=False)
    evaluated: list[DeltaBound] = field(default_factory=list, repr=False, compare=False)

    bound_only = False

    @property
    def title(self) -> str:
        """The setting, as a plot's title."""
        return f"{self.times} × [" + "; ".join(f"{s} ×{c}" for s, c in self.releases) + "]"

    def to_dp_accounting(self, **options: Any) -> Any:
        """A pessimistic dp_accounting PLD of the composed profile (:mod:`~gpu_rs.quantities.profile_export`)."""
        return to_dp_accounting(self, **options)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in ("times", "scope", "guarantee", "rel_width", "abs_width")}
        out["releases"] = [list(r) for r in self.releases]
        out["evaluated"] = [d.to_dict() for d in sorted(self.evaluated, key=lambda d: d.eps)]
        out["provenance"] = self.provenance
        return out


def compose(
    profiles: PrivacyProfile | Sequence[PrivacyProfile],
    times: int = 1,
    *,
    rel_width: float = 1e-3,
    abs_width: float = 1e-15,
    points: int = 100,
    delta_floor: float = 1e-15,
) -> ComposedProfile:
    """The certified privacy profile of ``times`` rounds of the releases ``profiles`` (docs/composition.md).

    Parameters
    ----------
    profiles : PrivacyProfile or sequence of them
        One round: each release's certified profile, all of one scope, ``"all"`` (every
        neighbouring pair) or ``"homogeneous"`` (both orders of the seed's pair). A list is a
        heterogeneous round (different ``N``, ``L``, ``q``); the same profile may appear twice.
    times : int
        Rounds, ``1 <= times`` and ``times × len(profiles) <= 100_000``.
    rel_width, abs_width : float
        The width asked of each composed pair's ``δ``: ``max(rel_width · lower, abs_width)``.
    points, delta_floor : int, float
        The grid of each release's export (:func:`~gpu_rs.quantities.profile_export.to_dp_accounting`);
        ``δ`` after every release is at least ``times`` times the export's infinity mass (about
        ``delta_floor``), so ask ``epsilon`` for ``δ`` above that.

    Returns
    -------
    ComposedProfile
        ``.delta(eps)``, ``.epsilon(delta)``, ``.to_dp_accounting()``, ``.plot()``.
    """
    arguments = dict(times=times, rel_width=rel_width, abs_width=abs_width, points=points, delta_floor=delta_floor)
    one = [profiles] if isinstance(profiles, PrivacyProfile) else list(profiles)
    if not one or not all(isinstance(p, PrivacyProfile) for p in one):
        raise ValueError("profiles must be a PrivacyProfile or a non-empty sequence of them")
    times = check_int("times", times, 1, MAX_RELEASES)
    if times * len(one) > MAX_RELEASES:
        raise ValueError(
            f"times × len(profiles) must be at most {MAX_RELEASES}: got {times * len(one)} releases "
            f"(the tilted window grows as their square root; past it the width asked needs over 4e6 frequencies)"
        )
    scopes = sorted({p.scope for p in one})
    if len(scopes) > 1 or scopes[0] not in ("all", "homogeneous"):
        raise ValueError(f"profiles must all have scope 'all', or all 'homogeneous': got scopes {scopes}")
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    abs_width = check_open("abs_width", abs_width, 0.0, 1.0)
    options = {
        "points": check_int("points", points, 2, 100_000),
        "delta_floor": check_open("delta_floor", delta_floor, 0.0, 1.0),
    }
    counts: dict[int, int] = {}
    for p in one:
        counts[id(p)] = counts.get(id(p), 0) + times
    distinct = {id(p): p for p in one}
    made = {key: pairs_of(p, options) for key, p in distinct.items()}
    engine = Composition(
        {name: [(made[key][name], count) for key, count in counts.items()] for name in ("forward", "reverse")},
        rel_width,
        abs_width,
        sum(distinct[key].eps_top * count for key, count in counts.items()),
    )
    first = one[0]
    said = "; ".join(dict.fromkeys(p.guarantee for p in one))  # each release's guarantee once, in order
    return ComposedProfile(
        tuple((distinct[key].title, count // times) for key, count in counts.items()),
        times,
        scopes[0],
        f"after {times} round(s) of these releases: {said}",
        rel_width,
        abs_width,
        engine.top,
        provenance(arguments, first.backend),
        engine,
    )
