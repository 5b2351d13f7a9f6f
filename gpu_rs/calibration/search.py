"""The search for the smallest certified flip probability, shared by every calibration.

A query ``q -> bound`` (any value with ``lower``, ``estimate``, ``upper``: a tail, a ``δ``) is
certified at ``q`` when ``upper <= target``. The target is not proven monotone in ``q``, so the
search keeps the invariant "``hi`` certifies, ``lo`` does not", then looks below its answer for
certified dips and checks that ``q − q_tol`` does not certify.

Cost (issues 22, 30): every decision is made with the coarsest width that settles it
(:class:`~gpu_rs.calibration.queries.Queries`); the bracket's steps and, inside it, the points
are predicted from ``log(value / target)`` at the latest points (:mod:`gpu_rs.calibration.steps`:
the parabola through three, else the secant), rounded to a grid whose neighbours lie one
tolerance apart so that the last two points are ``q`` and ``q − q_tol`` themselves, with a
bisection whenever the bracket fails to halve in three steps; the scan for dips
(:mod:`gpu_rs.calibration.scan`) reuses every point already computed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from gpu_rs.calibration import dips
from gpu_rs.calibration.queries import COARSE, Queries
from gpu_rs.calibration.scan import DENSE, SPARSE, near_seen, scan
from gpu_rs.calibration.steps import Q_MAX, Grid, bracket, root
from gpu_rs.common.errors import CalibrationError
from gpu_rs.common.limits import MIN_Q_TOL
from gpu_rs.quantities.closed_forms import three_sigma_q

NOISE = 1e-6
"""A calibrated q within this distance of 1/2 is refused: such reports carry no information."""


class Found(NamedTuple):
    """What :func:`smallest_q` found: ``q`` certifies, ``q − q_tol`` does not; remarks; rises in ``q`` seen."""

    q: float
    q_tol: float
    notes: list[str]
    violations: list[dict[str, float]]


ENDGAME = 2
"""Within this many grid steps of the predicted answer a point is asked at ``rel_width`` directly."""


def smallest_q(
    n: int,
    bits: int,
    eps: float,
    target: float,
    q_tol: float | None,
    query: Queries,
    what: tuple[str, str],
    pieces: dips.OneBitDips | None = None,
) -> Found:
    """The smallest certified ``q`` found, within ``q_tol`` (``None``: :func:`~gpu_rs.calibration.steps.relative_tol`).

    The answer ``q`` certifies and ``q − tol`` does not, ``tol`` the tolerance reached
    (``Found.q_tol``: ``q_tol``, or ``relative_tol(q)`` by default). ``what`` names the target
    and the value for messages (``("eta", "tail")``). ``pieces`` (one-bit tails only) replaces
    the scan for dips by the proven floors of :mod:`gpu_rs.calibration.dips` where they apply,
    and prunes the scan where they do not. On return ``query.seen[q]`` is the value reported at
    ``q`` (at ``rel_width`` where that certifies). Raises :class:`CalibrationError` if even ``q``
    just below 1/2 does not certify, or the answer is within :data:`NOISE` of 1/2.
    """
    name, quantity = what
    if not query.decide(Q_MAX, target):
        top = query.seen[Q_MAX]
        raise CalibrationError(
            f"{name}={target:g} cannot be met for any q < 1/2 at eps={eps:g}: at q={Q_MAX} the certified "
            f"{quantity} is in [{top.lower:.3e}, {top.upper:.3e}]"
        )

    def ok(q: float) -> bool:
        return query.decide(q, target)

    grid = Grid(q_tol)
    tol = grid.spacing

    def search(lo: float, hi: float) -> float:
        return _secant(lo, hi, grid, target, query)[1]

    try:
        guess = min(max(three_sigma_q(n, bits, eps), q_tol or MIN_Q_TOL), Q_MAX)
    except ValueError:
        guess = Q_MAX
    lo, hi = bracket(guess, ok, lambda q: query.log_gap(q, target))
    query.phase = "search"
    hi = search(lo, hi)
    notes: list[str] = []
    # Not monotone in q (for small L it oscillates as lattice points cross the threshold;
    # for large L an atom crossing it makes it jump): look below for certified dips.
    query.phase = "scan"
    found = pieces.candidates(hi, target) if pieces is not None else None
    lowest = None
    if found is not None and pieces is not None and pieces.proves:
        lowest = dips.lowest(pieces, found, hi, target, tol, query, search)
        if lowest is not None:
            notes.append(
                f"below the answer only the intervals searched may certify: floors of {len(pieces.cuts)} pieces"
            )
    proven = lowest is not None
    if lowest is None:
        lowest = scan(hi, bits, target, tol(hi), query, pieces.excluded if pieces is not None else None)
    if lowest < hi:
        notes.append(f"not monotone in q: q={lowest:.8g} below the search's answer {hi:.8g} also certifies")
        # Below a dip found from the floors nothing certifies (proven); below one the scan found, search.
        hi = lowest if proven else search(*_descend(lowest, DENSE.step, ok))
    # q - tol must not certify (the search's last lower end is that point): check, search below if it does.
    query.phase = "check"
    below = near_seen(query, hi - tol(hi), 1e-6 * tol(hi))
    while below > 0 and query.decide(below, target, query.widths.get(below, COARSE)):
        notes.append(f"q={below:.8g} below the answer also certifies; answer moved down")
        hi = search(*_descend(below, tol(below), ok))
        below = near_seen(query, hi - tol(hi), 1e-6 * tol(hi))
    if hi > 0.5 - NOISE:
        raise CalibrationError(
            f"the target {target:g} at eps={eps:g} needs q={hi:.10g}, within {NOISE:g} of 1/2: such reports carry "
            "no information about the data (every report is nearly a fair coin flip per bit)"
        )
    query.seen[hi] = query.final(hi, target)
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
    return Found(hi, tol(hi), notes, violations)


def _descend(hi: float, step: float, ok: Callable[[float], bool]) -> tuple[float, float]:
    """``(lo, hi)`` below a certified ``hi``: down by ``step``, then 4 times longer each, to a point that does not."""
    while hi - step > 0:
        if not ok(hi - step):
            return hi - step, hi
        hi, step = hi - step, 4 * step
    return 0.0, hi


def _secant(lo: float, hi: float, grid: Grid, target: float, query: Queries) -> tuple[float, float]:
    """Shrink ``(lo, hi]`` to one tolerance: ``hi`` certifies, ``lo`` does not (or is 0); returns both ends.

    Points are those of ``grid`` at whole positions from ``hi₀`` (the first ``hi``), so the bracket
    ends with ``lo = hi − tol(hi)`` up to rounding: the check of ``q − q_tol`` is one of its steps.
    The next point is the root of :meth:`Queries.log_gap` (the upper end expected at
    ``rel_width`` against the target) by the secant through the two latest points when they are
    the bracket's ends, else by regula falsi through the ends with the Illinois modification; it
    is rounded to the grid and kept strictly inside the bracket, and a bisection follows any
    three steps that did not halve the bracket. Far from the answer a
    point is asked at the width its predicted distance allows (refined only if undecided);
    within :data:`ENDGAME` grid steps of the predicted answer, a point predicted to certify is
    asked at ``rel_width`` at once while no answer has that width (it is reported at that width
    anyway), any other at the width its predicted distance allows.
    """
    top = hi

    def f(q: float) -> float:
        return query.log_gap(q, target)

    def at(q: float) -> float:  # tolerances from hi₀ down to q (lo's may be fractional)
        return grid.offset(top, q)

    m_hi, u_lo = 0, at(lo)
    f_lo = f(lo) if lo > 0 else math.inf
    f_hi = f(hi)
    # The ends and the computed point nearest them outside, the one nearest the target last.
    outside = [s for s in query.seen if not lo <= s <= hi]
    near = min(outside, key=lambda s: min(abs(s - lo), abs(s - hi)), default=0.0)
    recent = sorted(((q, f(q)) for q in {lo, hi, near} if q > 0), key=lambda p: -abs(p[1]))
    lengths, side = [u_lo], 0
    while True:
        first, last = m_hi + 1, math.ceil(u_lo - 1e-6) - 1
        if first > last:
            return lo, hi
        # The secant through the two latest points while they straddle the answer; after a
        # one-sided step, regula falsi with the Illinois halving (the stale end's value halved).
        guess = root(recent[-3:]) if len(recent) >= 3 else None
        if (guess is None or not lo < guess < hi) and {recent[-2][0], recent[-1][0]} == {lo, hi}:
            guess = root(recent[-2:])
        if guess is None or not lo < guess < hi:
            guess = root([(lo, f_lo), (hi, f_hi)]) if math.isfinite(f_lo) else None
        m_star = at(guess) if guess is not None and guess > 0 else 0.5 * (m_hi + u_lo)
        moved = abs(m_star - at(recent[-1][0]))  # how far the prediction moved: its error
        endgame = moved <= ENDGAME or last - first < ENDGAME
        if len(lengths) >= 4 and u_lo - m_hi > 0.5 * lengths[-4]:
            m_star = 0.5 * (m_hi + u_lo)
        m = min(last, max(first, round(m_star)))
        q, q_tol = grid.point(top, m), grid.spacing(hi)
        slope = abs(f_lo - f_hi) / (hi - lo) if math.isfinite(f_lo) else 0.0
        if endgame and m <= m_star and query.widths[hi] > query.rel_width:  # likely the answer: asked as reported
            width = query.rel_width
        elif endgame:  # predicted not to: as wide as its predicted distance from the target allows
            width = slope * q_tol * max(1.0, m - m_star)
        else:
            width = 0.25 * slope * moved * q_tol
        if query.decide(q, target, width):
            hi, m_hi, f_hi = q, m, f(q)
            if side == 1:
                f_lo *= 0.5
            side = 1
        else:
            lo, u_lo, f_lo = q, float(m), f(q)
            if side == -1:
                f_hi *= 0.5
            side = -1
        recent.append((q, f(q)))
        lengths.append(u_lo - m_hi)
