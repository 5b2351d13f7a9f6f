"""``calibrate``: the smallest flip probability whose certified tail is at most η."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .closed_forms import local_dp_q, precision_sigma, three_sigma_q
from .errors import CalibrationError
from .provenance import provenance
from .results import TailBound
from .serialize import ToDict
from .tail import tail
from .validation import Problem, check_k, check_open, check_scope, resolve_eps

Q_MAX = 0.5 - 1e-9
"""Largest flip probability tried: q must stay below 1/2."""
NOISE = 1e-6
"""A calibrated q within this distance of 1/2 is refused: such reports carry no information."""
CHECKS = (1, 2)
"""Multiples of ``q_tol`` below the answer that must not certify."""
COARSE = 0.1
"""Relative width of the queries that only look for certified dips below the answer."""
DENSE = (5e-5, 40, 3)
"""Dense scan for dips: step, most points, and the largest ``bits`` it runs for (lattice sawtooth)."""
SPARSE = (1e-4, 2.0, 0.02)
"""Sparse scan for larger ``bits``: first step, growth factor, widest range."""
SCAN_STOP = 1.5
"""A scan point whose lower bound exceeds this factor of eta counts as a miss; four in a row end it."""
SAFE = 0.05
"""Share of the bracket kept away from its ends by the Illinois steps."""


@dataclass(frozen=True)
class Calibration(ToDict):
    """The calibrated flip probability and how it compares with the alternatives.

    ``tail.upper <= eta`` holds at ``q`` (certified); ``q - q_tol`` was checked
    and does not certify. ``sigma_*`` are the standard deviations of a count
    estimate over ``n`` reports (seed 003 §4) at each flip probability.
    """

    n: int
    bits: int
    eps: float
    eta: float
    q: float
    scope: str
    k: int
    guarantee: str
    tail: TailBound
    q_tol: float
    steps: list[dict[str, Any]]
    monotone: bool
    violations: list[dict[str, float]]
    three_sigma_q: float | None
    three_sigma_tail: TailBound | None
    local_dp_q: float
    sigma_calibrated: float
    sigma_three_sigma: float | None
    sigma_local_dp: float
    backend: str
    seconds: float
    notes: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        three = (
            f"3σ rule q={self.three_sigma_q:.6g} (tail in [{self.three_sigma_tail.lower:.3e}, "
            f"{self.three_sigma_tail.upper:.3e}])"
            if self.three_sigma_tail is not None
            else "3σ rule: no solution"
        )
        return (
            f"Calibration(q={self.q:.8g} for P[R > {math.exp(self.eps):.6g}] <= {self.eta:g}: tail in "
            f"[{self.tail.lower:.6e}, {self.tail.upper:.6e}]; n={self.n}, bits={self.bits}; {three}; "
            f"local DP q={self.local_dp_q:.6g}; {len(self.steps)} steps, {self.seconds:.3g} s"
            f"{'' if self.monotone else '; MONOTONICITY VIOLATED near q'})"
        )


def calibrate(
    n: int,
    bits: int,
    eps: float | None = None,
    eta: float | None = None,
    *,
    ratio: float | None = None,
    scope: str = "homogeneous",
    k: int = 1,
    q_tol: float = 1e-6,
    rel_width: float = 1e-3,
    backend: str = "auto",
    progress: Callable[[dict[str, Any]], Any] | None = None,
) -> Calibration:
    """The smallest ``q`` (within ``q_tol``) whose certified upper tail is ``<= eta``.

    Parameters
    ----------
    n, bits
        See :func:`gpu_rs.tail`.
    eps : float, optional
        Privacy level; give this or ``ratio = e^eps``.
    eta : float
        Probability cut-off, ``0 < eta < 1``.
    scope : {"homogeneous", "forward", "all"}
        The pairs the calibrated ``q`` must protect (see :func:`gpu_rs.tail`).
    k : int
        Randomized reports per user.
    q_tol : float
        Bisection tolerance on ``q``, ``0 < q_tol < 0.01``.
    rel_width : float
        Relative width asked of every tail query.
    backend : {"auto", "numpy", "cupy"}
        Array backend.
    progress : callable, optional
        Called with ``{"q", "lower", "upper", "seconds", "phase"}`` after each tail query; the
        phase is ``"bracket"``, ``"search"``, ``"scan"`` (dips below the answer), ``"check"``
        (``q − q_tol`` must not certify) or ``"compare"`` (the 3σ rule's ``q``).

    Returns
    -------
    Calibration
        ``tail(n, bits, c.q, eps).upper <= eta``; ``c.q - q_tol`` does not certify.

    Raises
    ------
    CalibrationError
        If even ``q`` just below 1/2 does not certify; the message names the tail reached.

    Notes
    -----
    The tail is not proven monotone in ``q``. Bisection keeps the invariant
    "``hi`` certifies, ``lo`` does not"; afterwards the tails at ``q - k q_tol``
    are checked, and any that certifies moves the answer down. Pairs of
    points where the certified intervals show the tail rising with ``q`` are
    reported in ``violations``.
    """
    start = time.perf_counter()
    arguments = dict(
        n=n,
        bits=bits,
        eps=eps,
        eta=eta,
        ratio=ratio,
        scope=scope,
        k=k,
        q_tol=q_tol,
        rel_width=rel_width,
        backend=backend,
    )
    eps = resolve_eps(eps, ratio)
    Problem(n, bits, 0.25, eps)
    scope = check_scope(scope)
    k = check_k(k)
    if eta is None:
        raise ValueError("eta must be a number in (0, 1): got None")
    eta = check_open("eta", eta, 0.0, 1.0)
    q_tol = check_open("q_tol", q_tol, 0.0, 0.01)
    steps: list[dict[str, Any]] = []
    seen: dict[float, TailBound] = {}
    phase = "bracket"

    def query(q: float, width: float = rel_width) -> TailBound:
        """The certified tail at ``q`` (each ``q`` is queried once, at the width first asked)."""
        if q not in seen:
            # Only "upper <= eta?" matters: tails far below eta need no finer width than this.
            b = tail(n, bits, q, eps, scope=scope, k=k, rel_width=width, abs_width=0.1 * width * eta, backend=backend)
            seen[q] = b
            step = {"q": q, "lower": b.lower, "upper": b.upper, "seconds": b.seconds, "phase": phase}
            steps.append(step)
            if progress is not None:
                progress(step)
        return seen[q]

    def ok(q: float) -> bool:
        return query(q).upper <= eta

    top = query(Q_MAX)
    if top.upper > eta:
        raise CalibrationError(
            f"eta={eta:g} cannot be met for any q < 1/2: at q={Q_MAX} the certified tail is "
            f"in [{top.lower:.3e}, {top.upper:.3e}]"
        )
    lo, hi = _bracket(n, bits, eps, q_tol, ok)
    phase = "search"
    hi = _illinois(lo, hi, q_tol, eta, rel_width, query)
    notes: list[str] = []
    # The tail is not monotone in q (for small L it oscillates as lattice points cross the
    # threshold; for large L an atom crossing the threshold makes it jump). Look below the
    # answer for certified dips, with cheap queries, and take the lowest found.
    phase = "scan"
    lowest = _scan(hi, bits, eta, q_tol, lambda q: query(q, max(rel_width, COARSE)))
    if lowest < hi:
        notes.append(f"the tail is not monotone in q: q={lowest:.8g} below the search's answer {hi:.8g} also certifies")
        below = lowest - DENSE[0]
        hi = _illinois(max(below, 0.0), lowest, q_tol, eta, rel_width, query) if below > 0 and not ok(below) else lowest
    # q - q_tol (and a few points below) must not certify: check, and move down if one does.
    phase = "check"
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
            f"eta={eta:g} at eps={eps:g} needs q={hi:.10g}, within {NOISE:g} of 1/2: such reports carry no "
            "information about the data (every report is nearly a fair coin flip per bit)"
        )
    # Monotonicity, at the widths the engine gives, over every point queried near the answer.
    near = sorted((b for b in seen.values() if abs(b.q - hi) <= SPARSE[2]), key=lambda b: b.q)
    violations = [
        {"q_low": a.q, "q_high": b.q, "upper_at_low": a.upper, "lower_at_high": b.lower}
        for i, a in enumerate(near)
        for b in near[i + 1 :]
        if b.lower > a.upper
    ]
    if violations:
        notes.append(
            f"{len(violations)} pairs of queried points show the tail rising with q; the 10 largest are listed"
        )
        violations = sorted(violations, key=lambda v: v["upper_at_low"] - v["lower_at_high"])[:10]
    three_q = three_tail = three_sigma = None
    phase = "compare"
    try:
        three_q = three_sigma_q(n, bits, eps)
        three_tail = query(three_q)
        three_sigma = precision_sigma(n, three_q)
    except ValueError as exc:
        notes.append(f"3-sigma rule: {exc}")
    ldp = local_dp_q(bits, eps)
    final = seen[hi]
    if not final.met:
        notes.append(
            f"the tail at q could not be computed to rel_width={rel_width:g}; its certified width is {final.width:.3e}"
        )
    return Calibration(
        n=n,
        bits=bits,
        eps=eps,
        eta=eta,
        q=hi,
        scope=final.scope,
        k=final.k,
        guarantee=final.guarantee,
        tail=final,
        q_tol=q_tol,
        steps=steps,
        monotone=not violations,
        violations=violations,
        three_sigma_q=three_q,
        three_sigma_tail=three_tail,
        local_dp_q=ldp,
        sigma_calibrated=precision_sigma(n, hi),
        sigma_three_sigma=three_sigma,
        sigma_local_dp=precision_sigma(n, ldp),
        backend=final.backend,
        seconds=time.perf_counter() - start,
        notes=notes,
        provenance=provenance(arguments, final.backend),
    )


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


def _illinois(
    lo: float, hi: float, q_tol: float, eta: float, rel_width: float, query: Callable[[float, float], TailBound]
) -> float:
    """Shrink ``(lo, hi]`` to ``q_tol``: ``hi`` certifies (``upper <= eta``), ``lo`` does not (or is 0).

    Regula falsi on ``log(estimate / eta)`` with the Illinois modification, kept a share
    :data:`SAFE` away from the bracket's ends. Each point is queried only as finely as its
    decision needs: a third of the predicted ``|log(tail / eta)|`` (at most :data:`COARSE`),
    and never finer than ``rel_width``. The decision is the certified upper bound, so the
    bracket never loses its invariant.
    """

    def f(b: TailBound) -> float:
        return math.log(max(b.estimate, 1e-300) / eta)

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


def _scan(hi: float, bits: int, eta: float, q_tol: float, coarse: Callable[[float], TailBound]) -> float:
    """The lowest certified ``q`` found below ``hi`` by cheap queries (``hi`` if none).

    For ``bits <= 3`` (a lattice sawtooth with a period near 1e-3) the scan is dense,
    restarting its step at every point near eta; otherwise sparse, with geometric steps.
    """
    lowest, misses = hi, 0
    if bits <= DENSE[2]:
        step, points = DENSE[0], DENSE[1]
        q = hi
        for _ in range(points):
            q -= step
            if q <= q_tol:
                break
            b = coarse(q)
            if b.upper <= eta:
                lowest, step, misses = q, DENSE[0], 0
            elif b.lower > SCAN_STOP * eta:
                misses += 1
                if misses >= 4:
                    break
                step *= 1.5
            else:
                step, misses = DENSE[0], 0
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
