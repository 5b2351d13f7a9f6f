"""The search for the smallest certified flip probability, shared by every calibration.

A query ``q -> bound`` (any value with ``lower``, ``estimate``, ``upper``: a tail, a ``δ``) is
certified at ``q`` when ``upper <= target``. The target is not proven monotone in ``q``, so the
search keeps the invariant "``hi`` certifies, ``lo`` does not", then looks below its answer for
certified dips and checks that ``q − q_tol`` does not certify.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from gpu_rs.common.errors import CalibrationError
from gpu_rs.common.floats import FLOOR
from gpu_rs.quantities.closed_forms import three_sigma_q

Q_MAX = 0.5 - 1e-9
"""Largest flip probability tried: q must stay below 1/2."""
NOISE = 1e-6
"""A calibrated q within this distance of 1/2 is refused: such reports carry no information."""
CHECKS = (1, 2)
"""Multiples of ``q_tol`` below the answer that must not certify."""
COARSE = 0.1
"""Relative width of the queries that only look for certified dips below the answer."""


class DenseScan(NamedTuple):
    """Dense scan for dips (a lattice sawtooth): its step, most points, and the largest ``bits`` it runs for."""

    step: float
    points: int
    max_bits: int


class SparseScan(NamedTuple):
    """Sparse scan for larger ``bits``: first step, growth factor, widest range."""

    first: float
    growth: float
    reach: float


DENSE = DenseScan(step=5e-5, points=40, max_bits=3)
SPARSE = SparseScan(first=1e-4, growth=2.0, reach=0.02)
SCAN_STOP = 1.5
"""A scan point whose lower bound exceeds this factor of eta counts as a miss; four in a row end it."""
SAFE = 0.05
"""Share of the bracket kept away from its ends by the Illinois steps."""


ValueAt = Callable[[float, float], Any]
"""``(q, width) -> a certified value`` with ``lower``, ``estimate`` and ``upper``."""


class Queries:
    """Certified values by ``q``, each computed once at the width first asked.

    ``compute(q, width)`` returns ``(value, seconds)``. Every new value is a step
    ``{"q", "lower", "upper", "seconds", "phase"}``, passed to ``progress``; the search sets
    ``phase`` ("bracket", "search", "scan", "check") and the caller may set its own.
    """

    def __init__(
        self,
        compute: Callable[[float, float], tuple[Any, float]],
        rel_width: float,
        progress: Callable[[dict[str, Any]], Any] | None,
    ) -> None:
        self.compute, self.rel_width, self.progress = compute, rel_width, progress
        self.seen: dict[float, Any] = {}
        self.steps: list[dict[str, Any]] = []
        self.phase = "bracket"

    def __call__(self, q: float, width: float | None = None) -> Any:
        if q not in self.seen:
            value, seconds = self.compute(q, self.rel_width if width is None else width)
            self.seen[q] = value
            step = {"q": q, "lower": value.lower, "upper": value.upper, "seconds": seconds, "phase": self.phase}
            self.steps.append(step)
            if self.progress is not None:
                self.progress(step)
        return self.seen[q]


def smallest_q(
    n: int,
    bits: int,
    eps: float,
    target: float,
    q_tol: float,
    query: Queries,
    what: tuple[str, str],
) -> tuple[float, list[str], list[dict[str, float]]]:
    """``(q, notes, violations)``: the smallest certified ``q`` found, within ``q_tol``.

    ``what`` names the target and the value for messages (``("eta", "tail")``).
    Raises :class:`CalibrationError` if even ``q`` just below 1/2 does not certify, or the
    answer is within :data:`NOISE` of 1/2.
    """
    name, quantity = what
    rel_width = query.rel_width
    top = query(Q_MAX)
    if top.upper > target:
        raise CalibrationError(
            f"{name}={target:g} cannot be met for any q < 1/2 at eps={eps:g}: at q={Q_MAX} the certified "
            f"{quantity} is in [{top.lower:.3e}, {top.upper:.3e}]"
        )

    def ok(q: float) -> bool:
        return bool(query(q, rel_width).upper <= target)

    lo, hi = _bracket(n, bits, eps, q_tol, ok)
    query.phase = "search"
    hi = _illinois(lo, hi, q_tol, target, rel_width, query)
    notes: list[str] = []
    # Not monotone in q (for small L it oscillates as lattice points cross the threshold;
    # for large L an atom crossing it makes it jump): look below for certified dips.
    query.phase = "scan"
    lowest = _scan(hi, bits, target, q_tol, lambda q: query(q, max(rel_width, COARSE)))
    if lowest < hi:
        notes.append(f"not monotone in q: q={lowest:.8g} below the search's answer {hi:.8g} also certifies")
        below = lowest - DENSE.step
        hi = (
            _illinois(max(below, 0.0), lowest, q_tol, target, rel_width, query)
            if below > 0 and not ok(below)
            else lowest
        )
    # q - q_tol (and a few points below) must not certify: check, and move down if one does.
    query.phase = "check"
    moved = True
    while moved:
        moved = False
        for step_back in CHECKS:
            q = hi - step_back * q_tol
            if q > 0 and ok(q):
                notes.append(f"q={q:.8g} below the answer also certifies; answer moved down")
                hi, moved = q, True
                break
    if hi > 0.5 - NOISE:
        raise CalibrationError(
            f"the target {target:g} at eps={eps:g} needs q={hi:.10g}, within {NOISE:g} of 1/2: such reports carry "
            "no information about the data (every report is nearly a fair coin flip per bit)"
        )
    # Monotonicity, at the widths computed, over every point queried near the answer.
    near = sorted((q, b) for q, b in query.seen.items() if abs(q - hi) <= SPARSE.reach)
    violations = [
        {"q_low": qa, "q_high": qb, "upper_at_low": a.upper, "lower_at_high": b.lower}
        for i, (qa, a) in enumerate(near)
        for qb, b in near[i + 1 :]
        if b.lower > a.upper
    ]
    if violations:
        notes.append(
            f"{len(violations)} pairs of queried points show the value rising with q; the 10 largest are listed"
        )
        violations = sorted(violations, key=lambda v: v["upper_at_low"] - v["lower_at_high"])[:10]
    return hi, notes, violations


def _bracket(n: int, bits: int, eps: float, q_tol: float, ok: Callable[[float], bool]) -> tuple[float, float]:
    """``(lo, hi)`` with ``hi`` certified and ``lo`` not (or 0), starting at the 3σ rule's ``q``."""
    try:
        guess = min(max(three_sigma_q(n, bits, eps), q_tol), Q_MAX)
    except ValueError:
        guess = Q_MAX
    if not ok(guess):
        hi, step = guess, 1e-3
        while hi < Q_MAX:
            lo, hi = hi, min(Q_MAX, hi + step)
            if ok(hi):
                return lo, hi
            step *= 4
        return lo, Q_MAX
    hi, step = guess, 1e-3
    while hi - step > 0:
        if not ok(hi - step):
            return hi - step, hi
        hi -= step
        step *= 4
    return 0.0, hi


def _illinois(lo: float, hi: float, q_tol: float, eta: float, rel_width: float, query: ValueAt) -> float:
    """Shrink ``(lo, hi]`` to ``q_tol``: ``hi`` certifies (``upper <= eta``), ``lo`` does not (or is 0).

    Regula falsi on ``log(estimate / eta)`` with the Illinois modification, kept a share
    :data:`SAFE` away from the bracket's ends. Each point is queried only as finely as its
    decision needs: a third of the predicted ``|log(tail / eta)|`` (at most :data:`COARSE`),
    and never finer than ``rel_width``. The decision is the certified upper bound, so the
    bracket never loses its invariant.
    """

    def f(b: Any) -> float:
        return math.log(max(b.estimate, FLOOR) / eta)

    f_lo = f(query(lo, rel_width)) if lo > 0 else math.inf
    f_hi = f(query(hi, rel_width))
    side = 0
    while hi - lo > q_tol:
        t = f_lo / (f_lo - f_hi) if math.isfinite(f_lo) and f_lo > f_hi else 0.5
        t = min(1.0 - SAFE, max(SAFE, t))
        mid = lo + t * (hi - lo)
        if hi - mid < 0.5 * q_tol or mid - lo < 0.5 * q_tol:
            mid = 0.5 * (lo + hi)
        guess = (1.0 - t) * f_lo + t * f_hi if math.isfinite(f_lo) else f_hi
        # Near the answer a width that moves log(tail) by less than the slope over q_tol/2
        # decides q to within q_tol: no finer width is asked.
        slope = (f_lo - f_hi) / (hi - lo) if math.isfinite(f_lo) else 0.0
        floor = max(rel_width, min(COARSE, 0.5 * slope * q_tol))
        b = query(mid, min(COARSE, max(floor, abs(guess) / 3.0)))
        if b.upper <= eta:
            hi, f_hi = mid, f(b)
            if side == 1 and math.isfinite(f_lo):
                f_lo *= 0.5
            side = 1
        else:
            lo, f_lo = mid, f(b)
            if side == -1:
                f_hi *= 0.5
            side = -1
    return hi


def _scan(hi: float, bits: int, eta: float, q_tol: float, coarse: Callable[[float], Any]) -> float:
    """The lowest certified ``q`` found below ``hi`` by cheap queries (``hi`` if none).

    For ``bits <= 3`` (a lattice sawtooth with a period near 1e-3) the scan is dense,
    restarting its step at every point near eta; otherwise sparse, with geometric steps.
    """
    lowest, misses = hi, 0
    if bits <= DENSE.max_bits:
        step, points = DENSE.step, DENSE.points
        q = hi
        for _ in range(points):
            q -= step
            if q <= q_tol:
                break
            b = coarse(q)
            if b.upper <= eta:
                lowest, step, misses = q, DENSE.step, 0
            elif b.lower > SCAN_STOP * eta:
                misses += 1
                if misses >= 4:
                    break
                step *= 1.5
            else:
                step, misses = DENSE.step, 0
        return lowest
    first, growth, reach = SPARSE
    offset = first
    while offset <= reach and hi - offset > q_tol:
        b = coarse(hi - offset)
        if b.upper <= eta:
            lowest = hi - offset
        elif b.lower > SCAN_STOP * eta:
            misses += 1
            if misses >= 4:
                break
        offset *= growth
    return lowest
