"""``ratio_distribution``: the distribution of ``R`` in buckets, certified at every edge.

Built on the engine's whole-curve machinery (:mod:`gpu_rs.quantities.distribution_curve`): at
every bucket edge ``x`` the survival ``P[R > x]`` is bracketed to relative width ``1e-2`` (``1e-10``
absolute), and edges the curve leaves wider are asked of :func:`gpu_rs.tail`'s engine
(:mod:`gpu_rs.quantities.distribution_edges`); bucket masses are differences of those brackets,
and the mass below the first edge and above the last is an explicit entry with its own certified
bounds (never folded into a bucket). Nothing is renormalised: the shown masses and the outside
entries add up to 1 within the sum of their certified widths.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu_rs.common.backend import get_backend
from gpu_rs.common.provenance import provenance
from gpu_rs.common.serialize import ToDict, plain
from gpu_rs.common.validation import Problem, check_bool, check_int, check_open, check_real
from gpu_rs.pairs.guarantees import guarantee
from gpu_rs.quantities.distribution_plan import plan

# The engine (and SciPy) are imported where they are first used, so that a grid beyond the
# budget is refused before they load (issue 21: "refused in under a second").

EDGE_TERMS = 1 << 14
"""Most frequencies of the curve behind the edges (many points at once)."""
REL_WIDTH, ABS_WIDTH = 1e-3, 1e-12
"""Width asked of :meth:`RatioDistribution.sf`: ``max(REL_WIDTH × min(sf, 1 − sf), ABS_WIDTH)``, as ``tail`` asks."""
EDGE_REL_WIDTH, EDGE_ABS_WIDTH = 1e-2, 1e-10
WIDTHS = (EDGE_REL_WIDTH, EDGE_ABS_WIDTH) * 2
"""Width asked at the edges of the grid (many points at once); edges left wider are asked of ``tail`` at it."""
CSV_COLUMNS = ("kind", "r_left", "r_right", "prob", "prob_lower", "prob_upper", "sf_lower", "sf_upper")
"""Columns of :meth:`RatioDistribution.to_csv`; ``sf_*`` bound ``P[R > r_left]``."""


@dataclass(frozen=True, repr=False)
class RatioDistribution(ToDict):
    """The distribution of ``R = X/N`` (forward order of the seed's pair) in buckets.

    Attributes
    ----------
    edges : ndarray
        ``buckets + 1`` increasing bucket edges, in units of ``R``; bucket ``j`` is ``(edges[j], edges[j+1]]``.
    values : ndarray
        Left edges of the buckets (``edges[:-1]``).
    probs : ndarray
        Point estimate of each bucket's mass (difference of the midpoints of the certified
        ``sf`` brackets at its edges), inside ``[probs_lower, probs_upper]``.
    probs_lower, probs_upper : ndarray
        Certified bounds on each bucket's mass.
    sf_lower, sf_upper : ndarray
        Certified bounds on ``P[R > edges[j]]`` (one per edge).
    below, above : tuple of float
        Certified ``(lower, upper)`` bounds on the mass outside the window: ``P[R <= edges[0]]``
        and ``P[R > edges[-1]]``.
    total_lower, total_upper : float
        Sums of the certified lower and upper bounds of every bucket and both outside entries:
        the true total, 1, lies between them.
    refined : int
        Edges the curve left wider than asked, asked again of ``tail``'s engine (at most 4, widest first).
    met : bool
        Whether every edge's bracket is within ``max(1e-2 · min(sf, 1 − sf), 1e-10)``, the width
        asked of the edges.
    log_tail : bool
        Whether part of the grid has logarithmic steps.
    scope, guarantee : str
        Which pair and order the distribution is of, in words.
    mean, var : float
        Closed-form mean and variance of ``R`` (seed 003 §3.1).
    provenance : dict
        Versions, backend, time and the arguments of the call (:func:`gpu_rs.common.provenance.provenance`).
    """

    n: int
    bits: int
    q: float
    edges: np.ndarray
    probs: np.ndarray
    probs_lower: np.ndarray
    probs_upper: np.ndarray
    sf_lower: np.ndarray
    sf_upper: np.ndarray
    below: tuple[float, float]
    above: tuple[float, float]
    total_lower: float
    total_upper: float
    refined: int
    met: bool
    log_tail: bool
    mean: float
    var: float
    scope: str
    guarantee: str
    backend: str
    grid_points: int
    memory_bytes: int
    seconds: float
    provenance: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _curves: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def values(self) -> np.ndarray:
        """Left edges of the buckets."""
        return self.edges[:-1]

    @property
    def widths(self) -> np.ndarray:
        """Width of each bucket, in units of ``R``."""
        return np.diff(self.edges)

    @property
    def outside(self) -> float:
        """Certified upper bound on the mass outside the window (both sides)."""
        return self.below[1] + self.above[1]

    def sf(self, x: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on ``P[R > x]``, computed at ``x`` itself (a number, not NaN).

        For ``x > 1`` this is the engine of ``tail(scope="forward")`` at two thresholds bracketing
        ``x`` (:func:`~gpu_rs.quantities.distribution_edges.sf_at`: bounds at ``x`` itself, even
        on an atom); for ``x <= 1`` the distribution's curve.
        """
        from gpu_rs.quantities.distribution_curve import ForwardCurve
        from gpu_rs.quantities.distribution_edges import sf_at, takes

        x = check_real("x", x)
        if math.isinf(x):
            return (0.0, 0.0) if x > 0 else (1.0, 1.0)
        if x > 0.0 and takes(math.log(x)):
            return sf_at(self.n, self.bits, self.q, x, self.backend, REL_WIDTH, ABS_WIDTH)
        if "point" not in self._curves:
            self._curves["point"] = ForwardCurve(self.n, self.bits, self.q, EDGE_TERMS, get_backend(self.backend).xp)
        found = self._curves["point"].sf(np.array([x]), REL_WIDTH, ABS_WIDTH)
        return float(found[0][0]), float(found[1][0])

    def cdf(self, x: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on ``P[R <= x]``."""
        lo, hi = self.sf(x)
        return 1.0 - hi, 1.0 - lo

    def to_dict(self) -> dict[str, Any]:
        """Every public field as plain JSON-ready values."""
        out = super().to_dict()
        out.pop("_curves")
        out["values"] = plain(self.values)
        return out

    def rows(self) -> list[tuple[Any, ...]]:
        """CSV rows (:data:`CSV_COLUMNS`): the mass below the window, each bucket, the mass above it."""
        e, lo, hi = self.edges, self.sf_lower, self.sf_upper
        below_mid = 0.5 * (self.below[0] + self.below[1])
        above_mid = 0.5 * (self.above[0] + self.above[1])
        out: list[tuple[Any, ...]] = [("below", -math.inf, e[0], below_mid, *self.below, 1.0, 1.0)]
        for j in range(e.shape[0] - 1):
            out.append(
                ("bucket", e[j], e[j + 1], self.probs[j], self.probs_lower[j], self.probs_upper[j], lo[j], hi[j])
            )
        out.append(("above", e[-1], math.inf, above_mid, *self.above, lo[-1], hi[-1]))
        return out

    def to_csv(self, path: str) -> None:
        """Write :data:`CSV_COLUMNS` rows to ``path``: ``below``, one ``bucket`` row each, ``above``."""
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for row in self.rows():
                w.writerow([row[0], *(repr(float(x)) for x in row[1:])])

    def plot(self, path: str | None = None, eps: float | None = None) -> Any:
        """Two panels: the bucket masses (tail beyond ``e^eps`` shaded) and the sf with its band.

        Needs matplotlib (the ``plot`` extra); saves to ``path`` (PNG, PDF, … by extension)
        if given, and returns the figure.
        """
        from gpu_rs.quantities.distribution_plot import draw

        return draw(self, path, eps)

    def __repr__(self) -> str:
        return (
            f"RatioDistribution(n={self.n}, bits={self.bits}, q={self.q:.6g}, scope={self.scope!r}, "
            f"R in ({self.edges[0]:.6g}, {self.edges[-1]:.6g}] in {self.probs.shape[0]} buckets"
            f"{' (log tail)' if self.log_tail else ''}, below in [{self.below[0]:.3g}, {self.below[1]:.3g}], "
            f"above in [{self.above[0]:.3g}, {self.above[1]:.3g}], total in [{self.total_lower:.12g}, "
            f"{self.total_upper:.12g}], mean={self.mean:.6g}, var={self.var:.6g}, met={self.met}; "
            f"{self.backend}, {self.grid_points} terms, {self.refined} edges by tail, {self.seconds:.3g} s)"
        )


def ratio_distribution(
    n: int,
    bits: int,
    q: float,
    *,
    backend: str = "auto",
    buckets: int = 64,
    range: tuple[float, float] | None = None,
    log: bool = False,
    tail_mass: float = 1e-12,
    scope: str = "forward",
    max_memory: int | None = None,
) -> RatioDistribution:
    """The distribution of ``R`` in buckets, with certified bounds at every edge.

    ``R = X/N`` under the seed's pair in the seed's order (``scope="forward"`` of
    :func:`gpu_rs.tail`): the law of one order of one pair. For a guarantee over more
    pairs use :func:`gpu_rs.tail` with ``scope``.

    Parameters
    ----------
    n, bits, q
        See :func:`gpu_rs.tail`.
    backend : {"auto", "numpy", "cupy"}
        Array backend.
    buckets : int
        Number of buckets, ``2 <= buckets <= 2**24`` and within the memory budget
        (refused up front with an estimate otherwise).
    range : (float, float), optional
        Show ``(A, B]``; by default the grid follows the mass (linear over the body, logarithmic
        over a heavy tail, out to where at most ``tail_mass`` is left).
    log : bool
        Equal ratios instead of equal steps over ``range`` (needs ``0 < A``).
    tail_mass : float
        The default grid leaves at most about this much mass on each side, ``0 < tail_mass < 0.5``.
    scope : {"forward"}
        The distribution is of the forward order only; other scopes are refused.
    max_memory : int, optional
        Memory budget in bytes (default: half the free memory).
    """
    arguments = dict(locals())  # the call's arguments as given, for provenance
    start = time.perf_counter()
    prob = Problem(n, bits, q, 1.0)
    if scope != "forward":
        raise ValueError(
            f"scope must be 'forward' for ratio_distribution (the law of one order of one pair): got {scope!r}"
        )
    buckets = check_int("buckets", buckets, 2, 1 << 24)
    tail_mass = check_open("tail_mass", tail_mass, 0.0, 0.5)
    log = check_bool("log", log)
    be = get_backend(backend)
    budget = be.free_memory() // 2 if max_memory is None else check_int("max_memory", max_memory, 1, 1 << 50)
    memory = plan(buckets, prob.bits, budget)
    from gpu_rs.quantities.closed_forms import moments
    from gpu_rs.quantities.distribution_curve import ForwardCurve
    from gpu_rs.quantities.distribution_edges import refine, wide
    from gpu_rs.quantities.distribution_grid import edges_of

    fc = ForwardCurve(prob.n, prob.bits, prob.q, EDGE_TERMS, be.xp)
    mean, var = moments(prob.n, prob.bits, prob.q)
    edges, log_tail = edges_of(fc, mean, var, buckets, tail_mass, range, log)
    lower, upper = fc.sf(edges, EDGE_REL_WIDTH, EDGE_ABS_WIDTH)
    lower, upper, refined = refine(prob, edges, lower, upper, be.name, WIDTHS)
    # sf is non-increasing: each bound holds at every later (upper) or earlier (lower) edge.
    lower = np.maximum.accumulate(lower[::-1])[::-1]
    upper = np.minimum.accumulate(upper)
    mid = 0.5 * (lower + upper)
    probs = mid[:-1] - mid[1:]
    p_lo = np.maximum(0.0, lower[:-1] - upper[1:])
    p_hi = np.minimum(1.0, upper[:-1] - lower[1:])
    below, above = (1.0 - float(upper[0]), 1.0 - float(lower[0])), (float(lower[-1]), float(upper[-1]))
    total_lo = math.fsum([*p_lo.tolist(), below[0], above[0]])
    total_hi = math.fsum([*p_hi.tolist(), below[1], above[1]])
    return RatioDistribution(
        n=prob.n,
        bits=prob.bits,
        q=prob.q,
        edges=edges,
        probs=probs,
        probs_lower=p_lo,
        probs_upper=p_hi,
        sf_lower=lower,
        sf_upper=upper,
        below=below,
        above=above,
        total_lower=total_lo,
        total_upper=total_hi,
        refined=refined,
        met=not bool(np.any(wide(lower, upper, EDGE_REL_WIDTH, EDGE_ABS_WIDTH))),
        log_tail=log_tail,
        mean=mean,
        var=var,
        scope="forward",
        guarantee=guarantee("forward", exact_all=False),
        backend=be.name,
        grid_points=fc.terms,
        memory_bytes=max(memory, fc.memory),
        seconds=time.perf_counter() - start,
        provenance=provenance(arguments, be.name),
        _curves={},
    )
