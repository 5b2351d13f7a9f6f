"""Split off the atoms that decide the event alone (both tails).

All atoms are positive. For an upper tail ``P[X > t]``, one record whose atom
exceeds ``t`` makes the event certain; for a lower tail ``P[X < t]``, one such
record makes it impossible. With ``A`` the event that no record has such an atom,

    P[X > t] = 1 − P[A] (1 − P[Y > y | A]),      P[X < t] = P[A] · P[Y < y | A],

where, given ``A``, the records are independent with their laws restricted to the
remaining atoms, ``Y = X − Σ count · w_min`` is ``X`` shifted by each kind's smallest
atom, and ``y = t − Σ count · w_min``. ``P[A] = Π a_i^count_i`` is a closed form, so
single records with many flipped bits are treated exactly and apart.

Everything is computed in units of a scale ``s`` (the lattice step for one bit, the
threshold where ``t`` nears the float64 limit, else 1) from the logs of the atoms, so
atoms and thresholds beyond float64 (``L = 128`` and ``q = 1e-4`` give atoms near
``1e±512``) never overflow. Kept atoms whose probability is below the smallest normal
float are set aside too: the event that some record takes one has probability at most
:attr:`Crossing.dropped`, which widens the answer (truncation). A lower tail
of ``Y`` is bounded directly by every method (see :class:`gpu_rs.engine.laws.Cut`), so
small lower tails keep their relative accuracy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from gpu_rs.common.floats import SMALLEST_NORMAL, TINY, UNIT
from gpu_rs.engine import precise
from gpu_rs.engine.atoms import Kind, record_atoms
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.laws import Cut, SumLaw, log_mass, restricted


@dataclass(frozen=True)
class Query:
    """``P[X > t]`` (``X >= t`` when ``inclusive``; ``<``/``<=`` when not ``upper``).

    ``X`` sums ``count`` records of each ``Kind``; ``log_t`` is ``log t`` with absolute
    error at most ``log_t_error``. Where ``exact = (n, x)`` is given, ``t = n e^x`` exactly
    (``log_t`` and its error then only steer the float arithmetic, and ``log_t_error`` may be 0).
    """

    bits: int
    q: float
    parts: tuple[tuple[Kind, int], ...]
    log_t: float
    upper: bool = True
    inclusive: bool = False
    log_t_error: float = 0.0
    exact: tuple[int, float] | None = None


BIG = 1e300
"""A threshold beyond every sum of kept atoms, standing for one beyond float64."""
SCALE_FROM = 600.0
"""Beyond ``log t = SCALE_FROM`` the sum is computed in units of ``t`` (``e^709`` overflows)."""


@dataclass(frozen=True)
class Crossing:
    """The problem left once the deciding atoms are split off.

    Attributes
    ----------
    law : SumLaw or None
        Law of ``Y`` given ``A`` (each kind restricted, shifted to start at 0, in units of
        the scale); None where ``P[A] = 0`` to float precision (no atom is kept).
    log_keep, keep_error : float
        ``log P[A]`` as computed, and a bound on its absolute error.
    cut : Cut
        The event on ``Y``: ``Y > y`` for an upper tail, ``Y < y`` for a lower tail.
    upper : bool
        Which tail of ``X`` is asked.
    dropped : float
        Bound on the probability that some record takes a kept atom whose probability
        underflows (those atoms are left out of ``A`` and of ``Y``).
    """

    law: SumLaw | None
    log_keep: float
    keep_error: float
    cut: Cut
    upper: bool
    dropped: float = 0.0

    @property
    def keep(self) -> tuple[float, float]:
        """``P[A]`` bracketed."""
        # An upper bound that underflows stands as the smallest positive float: P[A] > 0.
        if self.log_keep == -math.inf:
            return 0.0, 0.0
        hi = max(math.exp(min(0.0, self.log_keep + self.keep_error)), TINY)
        return math.exp(self.log_keep - self.keep_error), hi

    def combine(self, inner: Bounds) -> Bounds:
        """The answer for ``X`` from bounds on ``P[Y ∈ cut | A]``.

        The records that took a set-aside atom are counted as crossing (upper tail) or as
        not in the event (lower tail); the truth differs by at most :attr:`dropped`.
        """
        k_lo, k_hi = self.keep
        if self.upper:
            gone_lo = -math.expm1(min(0.0, self.log_keep + self.keep_error))
            gone_hi = -math.expm1(self.log_keep - self.keep_error)
            out = inner.crossed(k_lo, k_hi, gone_lo, gone_hi).rounded()
            below, above = self.dropped, 0.0
        else:
            out = inner.scaled(k_lo, k_hi).rounded()
            below, above = 0.0, self.dropped
        if below or above:
            out = out.widened(below, above, "truncation")
        return out.clipped()


def _scale(query: Query, log_t: Decimal) -> Decimal:
    """``log s``: the unit of ``Y`` (``t`` for thresholds near the float64 limit, else 1)."""
    return log_t if query.log_t > SCALE_FROM else Decimal(0)


def _cut(query: Query, y: Decimal, y_err: float, slack: float, count: int, lattice: bool) -> Cut:
    """The event on ``Y``: ``y`` widened by its error and the values' (``slack``, relative).

    On a lattice (``Y`` an integer count) a threshold known to lie strictly between two
    integers is moved to the half-integer between them: the event is the same, exactly.
    Where ``y`` exceeds float64 only its lower end is kept (the kept atoms are all below ``t``).
    """
    if y > Decimal(BIG):
        return Cut(BIG, math.inf, query.inclusive, query.upper)
    yf = float(y)
    if lattice:
        k = math.floor(y)
        if k + y_err < y < k + 1 - y_err:
            return Cut(k + 0.5, k + 0.5, query.inclusive, query.upper)
    # Values and shifts below the normal range are off by at most SMALLEST_NORMAL each.
    width = y_err + 2.0 * UNIT * abs(yf) + abs(yf) * slack + 4.0 * (count + 1) * SMALLEST_NORMAL
    return Cut(yf - width, yf + width, query.inclusive, query.upper)


def split(query: Query) -> Crossing:
    """Split off the atoms that alone decide ``query`` (see the module docstring)."""
    kinds = [(kind, count, record_atoms(query.bits, query.q, kind)) for kind, count in query.parts if count > 0]
    log_t = precise.log_threshold(query.log_t, query.exact)
    margin = precise.log_margin(log_t, 0.0 if query.exact else query.log_t_error)
    # One bit: every kind has the atoms {w_0, w_1} and Y = J (w_1 − w_0) with integer J;
    # work in units of the step (the values are exactly 0 and 1).
    lattice = query.bits == 1 and len({kind.power for kind, _, _ in kinds}) == 1
    log_s = _scale(query, log_t)
    log_keep = err = dropped = 0.0
    mins = Decimal(0)
    laws = []
    decided = True
    for kind, count, at in kinds:
        hi, lo = precise.log_values(query.bits, query.q, kind.power)
        hi, lo = hi[: at.log_values.shape[0]], lo[: at.log_values.shape[0]]  # a light kind keeps l <= top
        small, ambiguous = precise.crosses(hi, lo, log_t, margin)
        decided = decided and not ambiguous.any()
        normal = small & (at.probs >= SMALLEST_NORMAL)
        # A set-aside atom's probability is below the smallest normal (an exact one rounded,
        # or exp of an accurate log); 2 SMALLEST_NORMAL bounds it with its error.
        dropped += count * 2.0 * SMALLEST_NORMAL * int((small & ~normal).sum())
        log_a, log_a_err = log_mass(at.log_probs, at.probs, at.prob_error, normal)
        if not math.isfinite(log_a):
            # Every atom of this kind decides (or is set aside): the tail is 1 (upper) or 0 (lower).
            return Crossing(None, -math.inf, 0.0, Cut(BIG, BIG), query.upper, min(1.0, dropped))
        log_keep += count * log_a
        err += count * (log_a_err + 2.0 * UNIT * abs(log_a))
        mins = precise.CONTEXT.add(mins, count * precise.exp(precise.to_decimal(hi[0], lo[0]) - log_s))
        values = np.array([0.0, 1.0])[: hi.shape[0]] if lattice else precise.scaled_gaps(hi, lo, log_s)
        laws.append((restricted(values, at.log_probs, at.probs, at.prob_error, at.exact, normal), count))
    err += 4.0 * UNIT * abs(log_keep)
    dropped = min(1.0, dropped)
    law = SumLaw(tuple(laws))
    if decided and law.count == 1:
        # One record, every atom certainly on one side of t: given A it is below t.
        return Crossing(None, log_keep, err, Cut(BIG, BIG), query.upper, dropped)
    t = precise.exp(log_t - log_s)
    y = t - mins
    # Decimal rounding (40 digits) of t and mins, and the threshold's own error.
    y_err = float(t + mins) * 1e-36 + float(t) * math.expm1(margin)
    slack = 0.0 if lattice else precise.VALUE_ERROR + 8.0 * UNIT
    if lattice:
        hi, lo = precise.log_values(query.bits, query.q, kinds[0][0].power)
        w0, w1 = (precise.exp(precise.to_decimal(hi[i], lo[i]) - log_s) for i in (0, 1))
        step = w1 - w0
        y, y_err = y / step, y_err / float(step) + 1e-36 * float(abs(y / step))
    cut = _cut(query, y, y_err, slack, law.count, lattice)
    return Crossing(law, log_keep, err, cut, query.upper, dropped)
