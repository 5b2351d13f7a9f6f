"""The graded blanket at every count: one certified hinge of the whole blanket's sum.

With ``B_0 = 1`` (the changing user) and ``B_1 … B_{N−1}`` i.i.d. ``Ber(γ)`` (the blanket users of
:mod:`gpu_rs.pairs.blanket`), ``C = Σ_{j >= 1} B_j`` and ``z_j`` i.i.d. uniform, put
``S = Σ_{j < N} B_j h(z_j)``. Given ``C = c`` the reports kept are ``c + 1`` i.i.d. uniform ones, so
``E[(S)_+ | C] = (C + 1) δ_{C+1}`` and the graded blanket ``Σ_m P(C + 1 = m) δ_m`` is ``E[(S)_+ / (C + 1)]``.
For every ``m0 >= 1`` (``δ_m <= 1``, and ``1/(C + 1) <= 1/m0`` where ``C + 1 >= m0``)

    E[(S)_+ / (C + 1)] <= Σ_{c <= m0 − 2} P(C = c) δ_{c+1} + E[(S)_+] / m0.

``E[(S)_+]`` is a hinge of a sum of ``N`` independent finite-atom variables (``h`` shifted by
``s = −min h`` to be nonnegative, threshold ``N s``), which the engine certifies to a relative width
however small it is (:func:`gpu_rs.engine.tilt.hinge`; where no tilted hinge is found, or it leaves
the float range, Chernoff's ``E[(Y − y)_+] <= e^{K(θ) − θy}/(eθ)`` at the saddle point). No count is
convolved, so there is no cap on the counts and no rounding floor: at ``N = 10^5, L = 40, q = 0.475``
(about 12,850 blanket users) the bound at ``ε = 0.06`` is below ``10^-30``. The first sum takes the
lattice's ``δ_m`` (or 1) below ``m0``, and ``P(C <= k)`` below ``C``'s window from
:func:`gpu_rs.common.binomial.log_lower_tail`. Proof: docs/worst-case.md §8.2, "Every count".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gpu_rs.common.binomial import log_lower_tail
from gpu_rs.common.floats import FLOOR, SMALLEST_NORMAL, TINY, UNIT
from gpu_rs.engine import tilt
from gpu_rs.engine.laws import Law, SumLaw
from gpu_rs.pairs.counts import OUTSIDE, Binomial

REL_WIDTH = 0.25
"""Relative width asked of the hinge ``E[(S)_+]`` (only its upper end is used)."""
MAX_TERMS = 1 << 15
"""Most frequencies of the hinge's spectrum."""
CHERNOFF_BELOW = 1e-12
"""Where Chernoff's hinge already gives a bound below this, the tilted hinge (a spectrum) is not computed."""
WORTH = 0.9
"""The tilted hinge is computed only where its estimate is below this share of the caller's bound."""
BELOW_WINDOW = 256
"""Values of ``m0`` tried below the window of ``C`` (evenly spaced; any ``m0`` gives a bound)."""


def _law(values: np.ndarray, probs: np.ndarray, rel: float) -> Law:
    return Law(values, np.log(probs), probs, np.full(probs.shape, rel))


def sum_law(n: int, gamma: float, h: np.ndarray, w: np.ndarray) -> tuple[SumLaw, float] | None:
    """The law of ``S + N s`` (each summand's value raised to a float above it) and ``s``; None where a
    probability is not a normal float (``L`` near 1024), or ``h`` has no negative value."""
    s = -float(h.min())
    mixed = np.concatenate([[1.0 - gamma], gamma * w])
    if s <= 0.0 or float(w.min()) <= SMALLEST_NORMAL or float(mixed.min()) <= SMALLEST_NORMAL:
        return None
    # fl(h + s) >= (h + s)(1 − u); times 1 + 4u, rounded, it is at least h + s (values >= 0)
    v = (h + s) * (1.0 + 4.0 * UNIT)
    own = _law(v, w, 2.0 * UNIT)  # each weight correctly rounded
    parts: list[tuple[Law, int]] = [(own, 1)]
    if n > 1:  # 1 − γ correctly rounded; γ w from a correctly rounded w
        parts.append((_law(np.concatenate([[s], v]), mixed, 4.0 * UNIT), n - 1))
    return SumLaw(tuple(parts)), s


def log_hinges(law: SumLaw, lo: float, hi: float, xp: Any) -> tuple[float, float, Callable[[], float]] | None:
    """Logs of upper bounds on ``E[(Y − y)_+]`` for every ``y`` in ``[lo, hi]``: Chernoff's at the saddle point
    of the middle (cheap); an estimate of the tilted hinge's, ``e^{K − θy}/(θ² σ_θ √(2π))`` (``σ_θ`` the tilted
    standard deviation; not a bound, it only decides whether to compute it); and a function giving the tilted
    hinge's (a spectrum; never above Chernoff's). None where the middle is not above the mean or the saddle
    point is not found."""
    theta = tilt.saddle(law, 0.5 * (lo + hi), 1.0)
    tilted = None if theta is None else tilt.tilt(law, theta)
    if theta is None or tilted is None:
        return None
    _, k_log, k_err, _ = tilted
    # (x − y)_+ <= e^{θ(x − y)} / (eθ) for θ > 0, and e^{−θy} <= e^{−θ lo}
    x = k_log - theta * lo - 1.0 - math.log(theta)
    chernoff = x + k_err + 8.0 * UNIT * (abs(k_log) + abs(theta * lo) + abs(math.log(theta)) + 1.0)

    sd = tilted[0].sd
    estimate = x + 1.0 - math.log(theta * sd * math.sqrt(2.0 * math.pi)) if sd > 0.0 else chernoff

    def spectral() -> float:
        found = tilt.Tilted(tilted, 0.5 * (lo + hi), True, theta, xp).hinge(lo, hi, REL_WIDTH, 0.0, MAX_TERMS)
        if found is None or found.upper <= FLOOR:
            return chernoff
        return min(chernoff, math.log(found.upper) + 4.0 * UNIT * abs(math.log(found.upper)))

    return chernoff, min(chernoff, estimate), spectral


def least(log_h: float, n: int, gamma: float, c_law: Binomial, rows: np.ndarray) -> float:
    """``min_{m0}`` of the bound of the module docstring, given the log of an upper bound on ``E[(S)_+]``."""
    # m0 − 2 = k: in the window, the mass below it (OUTSIDE / 2) and the rows up to k, a sum of positive terms
    width = c_law.pmf.shape[0]
    grow = (1.0 + c_law.rel) * (1.0 + (width + 4) * UNIT)
    low = np.concatenate([[0.0], np.cumsum(c_law.pmf * np.minimum(rows, 1.0))]) * grow + 0.5 * OUTSIDE
    k = np.arange(c_law.lo - 1, c_law.hi + 1)
    logs = np.logaddexp(np.log(low), log_h - np.log(k + 2.0))
    # below the window: P(C <= k) in logs (it may be far below the float range)
    below = np.unique(np.linspace(-1, c_law.lo - 2, BELOW_WINDOW).astype(np.int64)) if c_law.lo >= 1 else k[:0]
    tails = np.array([log_lower_tail(n - 1, j, gamma) if j >= 0 else -math.inf for j in below.tolist()])
    logs = np.concatenate([logs, np.logaddexp(tails, log_h - np.log(below + 2.0))])
    best = float(np.min(logs))
    best += 8.0 * UNIT * (abs(best) + 1.0)  # the logs, the sums and the divisions by m0
    return 1.0 if best >= 0.0 else min(1.0, math.exp(best) * (1.0 + 4.0 * UNIT) + TINY)


def delta(
    n: int,
    gamma: float,
    h: np.ndarray,
    w: np.ndarray,
    c_law: Binomial,
    rows: np.ndarray,
    bounds: tuple[float, float],
    xp: Any,
) -> float:
    """An upper bound on ``Σ_m P(C + 1 = m) δ_m`` (module docstring), or 1 where the hinge is not found.

    ``h``, ``w``: one report's values of ``h`` (upper bounds) and their uniform weights; ``c_law``: ``C``'s
    window; ``rows[c − c_law.lo]``: an upper bound on ``δ_{c+1}`` for each count of the window; ``bounds``:
    the bound the caller needs to know it is below, and the one it has. Chernoff's hinge answers where its
    bound is at most the first or ``CHERNOFF_BELOW``, or where the tilted hinge is not expected to beat the
    second by ``WORTH`` (its estimate); else the tilted hinge's (a spectrum, the costly part).
    """
    enough, current = bounds
    found = sum_law(n, gamma, h, w)
    if found is None:
        return 1.0
    law, s = found
    y = n * s  # errs by at most u n s
    hinges = log_hinges(law, y * (1.0 - 2.0 * UNIT), y * (1.0 + 2.0 * UNIT), xp)
    if hinges is None:
        return 1.0
    value = least(hinges[0], n, gamma, c_law, rows)
    if value <= max(enough, CHERNOFF_BELOW) or least(hinges[1], n, gamma, c_law, rows) > WORTH * current:
        return value
    return min(value, least(hinges[2](), n, gamma, c_law, rows))
