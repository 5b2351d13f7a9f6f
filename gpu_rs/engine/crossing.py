"""Split off the atoms that decide the event alone (both tails).

All atoms are positive. For an upper tail ``P[X > t]``, one record whose atom
exceeds ``t`` makes the event certain; for a lower tail ``P[X < t]``, one such
record makes it impossible. With ``A`` the event that no record has such an atom,

    P[X > t] = 1 − P[A] (1 − P[Y > y | A]),      P[X < t] = P[A] · P[Y < y | A],

where, given ``A``, the records are independent with their laws restricted to the
remaining atoms, ``Y = X − Σ count · w_min`` is ``X`` shifted by each kind's smallest
atom, and ``y = t − Σ count · w_min``. ``P[A] = Π a_i^count_i`` is a closed form, so
single records with many flipped bits are treated exactly and apart. A lower tail
of ``Y`` is bounded directly by every method (see :class:`gpu_rs.engine.laws.Cut`), so
small lower tails keep their relative accuracy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_rs.common.floats import EXP_LIMIT, TINY, UNIT
from gpu_rs.engine.atoms import Kind, record_atoms
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.laws import Cut, SumLaw, log_mass, restricted


@dataclass(frozen=True)
class Query:
    """``P[X > t]`` (``X >= t`` when ``inclusive``; ``<``/``<=`` when not ``upper``).

    ``X`` sums ``count`` records of each ``Kind``; ``log_t`` is ``log t`` with absolute
    error at most ``log_t_error``.
    """

    bits: int
    q: float
    parts: tuple[tuple[Kind, int], ...]
    log_t: float
    upper: bool = True
    inclusive: bool = False
    log_t_error: float = 0.0


@dataclass(frozen=True)
class Crossing:
    """The problem left once the deciding atoms are split off.

    Attributes
    ----------
    law : SumLaw or None
        Law of ``Y`` given ``A`` (each kind restricted, shifted to start at 0, and for a
        lattice scaled to unit steps); None where ``P[A] = 0``.
    log_keep, keep_error : float
        ``log P[A]`` as computed, and a bound on its absolute error.
    cut : Cut
        The event on ``Y``: ``Y > y`` for an upper tail, ``Y < y`` for a lower tail.
    upper : bool
        Which tail of ``X`` is asked.
    """

    law: SumLaw | None
    log_keep: float
    keep_error: float
    cut: Cut
    upper: bool

    @property
    def keep(self) -> tuple[float, float]:
        """``P[A]`` bracketed."""
        # An upper bound that underflows stands as the smallest positive float: P[A] > 0.
        hi = max(math.exp(min(0.0, self.log_keep + self.keep_error)), TINY)
        return math.exp(self.log_keep - self.keep_error), hi

    def combine(self, inner: Bounds) -> Bounds:
        """The answer for ``X`` from bounds on ``P[Y ∈ cut | A]``."""
        k_lo, k_hi = self.keep
        if self.upper:
            gone_lo = -math.expm1(min(0.0, self.log_keep + self.keep_error))
            gone_hi = -math.expm1(self.log_keep - self.keep_error)
            return inner.crossed(k_lo, k_hi, gone_lo, gone_hi).rounded().clipped()
        return inner.scaled(k_lo, k_hi).rounded().clipped()


def _threshold(query: Query, mins: float, value_error: float) -> tuple[float, float]:
    """``y = t − mins`` and a bound on its absolute error (``mins = Σ count · w_min``)."""
    if query.log_t > EXP_LIMIT:
        raise ValueError(f"the threshold e^{query.log_t:.4g} overflows float64: eps is too large for n")
    t = math.exp(query.log_t)
    y = t - mins
    err = (
        t * (query.log_t_error + 2.0 * UNIT * (1.0 + abs(query.log_t)))
        + mins * (value_error + 4.0 * UNIT)
        + 4.0 * UNIT * (t + mins)
    )
    return y, err


def split(query: Query) -> Crossing:
    """Split off the atoms that alone decide ``query`` (see the module docstring)."""
    kinds = [(record_atoms(query.bits, query.q, kind), count) for kind, count in query.parts if count > 0]
    value_error = max(at.value_error for at, _ in kinds)
    margin = value_error + query.log_t_error + 8.0 * UNIT * (1.0 + abs(query.log_t))
    log_keep = err = 0.0
    laws = []
    mins = 0.0
    for at, count in kinds:
        small = at.log_values <= query.log_t + margin
        log_a, log_a_err = log_mass(at.log_probs, at.probs, at.prob_error, small)
        if not math.isfinite(log_a):
            # Every atom of this kind decides: the tail is 1 (upper) or 0 (lower).
            y = math.exp(min(query.log_t, EXP_LIMIT))
            return Crossing(None, -math.inf, 0.0, Cut(y, y, query.inclusive, query.upper), query.upper)
        log_keep += count * log_a
        err += count * (log_a_err + 2.0 * UNIT * abs(log_a))
        mins += count * math.exp(at.log_values[0])
        laws.append((at, small, count))
    err += 4.0 * UNIT * abs(log_keep)
    y, y_err = _threshold(query, mins, value_error)
    slack = value_error + 8.0 * UNIT
    # One bit: every kind has the atoms {w_0, w_1} and Y = step · J with integer J;
    # work in units of the step (the gaps become exactly 0 and 1).
    lattice = query.bits == 1 and len({kind.power for kind, _ in query.parts}) == 1
    steps = [float(at.gaps[1]) for at, _ in kinds if at.gaps.shape[0] > 1]
    step = steps[0] if lattice and steps else 1.0
    if lattice:
        y, y_err = y / step, y_err / step
        slack += 4.0 * UNIT
    parts = tuple(
        (restricted(at.gaps / step, at.log_probs, at.probs, at.prob_error, at.exact, small), count)
        for at, small, count in laws
    )
    width = y_err + abs(y) * slack  # absolute: y may be 0 (the threshold at the smallest sum)
    cut = Cut(y - width, y + width, query.inclusive, query.upper)
    return Crossing(SumLaw(parts), log_keep, err, cut, query.upper)
