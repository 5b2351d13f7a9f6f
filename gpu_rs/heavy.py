"""Condition on the few vectors that carry heavy atoms.

When an atom kept below the threshold is still large (say ``0.9 y``) but rare,
``Y`` is a bulk plus a few large jumps, and one inversion window must span them
all: its resolution then costs ``span / (bulk width)`` times more terms. Instead,
split the atoms above ``y / 16`` off as "heavy" and condition on how many zero
vectors take each of them, and on which atom the outlier takes:

    P[Y > y] = Σ_c P[c] · P[Y_light(c) > y − shift(c)],

with multinomial ``P[c]`` in closed form. Every branch is a light-only problem
in a narrow window. Branches whose heavy atoms alone exceed ``y`` are certain;
branches too improbable to matter are bounded by their probability.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .chernoff import Law, SumLaw, exact_law
from .model import UNIT

HEAVY_FRACTION = 1.0 / 16.0
"""Atoms above this fraction of the threshold are heavy: 16 of them alone exceed it."""
MAX_TYPES = 4
MAX_MEAN = 4.0
"""Conditioning is used only if at most this many heavy vectors are expected."""
MAX_BRANCHES = 200
MIN_GAIN = 4.0
"""Conditioning is used only if it narrows the window at least this much."""
PRUNE = 0.1
"""Share of the target width that may go to branches bounded by their probability alone."""


@dataclass(frozen=True)
class Branch:
    """One configuration of heavy atoms, and the light problem left given it."""

    prob: float
    law: SumLaw
    y_upper: float
    y_lower: float


@dataclass(frozen=True)
class HeavySplit:
    """The branches to solve, the certain mass, the pruned mass and the probability error."""

    branches: list[Branch]
    certain: float
    pruned: float
    prob_error: float


def restrict(law: Law, keep: np.ndarray) -> Law:
    """``law`` conditioned on its atom being one of ``keep``, renormalized."""
    if law.exact is not None:
        kept = [e for e, k in zip(law.exact, keep) if k]
        log_mass = math.log(float(sum(kept, Fraction(0))))
        return exact_law(law.values[keep], kept, law.log_probs[keep] - log_mass)
    mass = float(law.probs[keep].sum())
    rel = law.rel_error[keep] + 2.0 * float(law.rel_error.max()) + 8.0 * UNIT
    return Law(law.values[keep].copy(), law.log_probs[keep] - math.log(mass), law.probs[keep] / mass, rel)


POINT = Law(np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1))
"""The law of an outlier whose atom is heavy: its value moved into the shift."""


def _span(law: SumLaw, delta: float) -> float:
    return law.upper_quantile(delta) - law.lower_quantile(delta)


def split_heavy(law: SumLaw, y_up: float, y_lo: float, target: float) -> HeavySplit | None:
    """Branches of the heavy-atom conditioning, or None where it would not pay."""
    zero, out = law.zero, law.outlier
    heavy = zero.values > HEAVY_FRACTION * y_up
    n_heavy = int(heavy.sum())
    if n_heavy == 0 or n_heavy > MAX_TYPES or heavy.all() or not np.array_equal(zero.values, out.values):
        return None
    pz = zero.probs[heavy]
    if law.m * float(pz.sum()) > MAX_MEAN:
        return None
    po = out.probs[heavy]
    light_out_mass = float(out.probs[~heavy].sum())
    light_zero = restrict(zero, ~heavy)
    light_out = restrict(out, ~heavy) if light_out_mass > 0 else POINT
    delta = max(1e-300, 1e-3 * target)
    if _span(law, delta) < MIN_GAIN * _span(SumLaw(light_zero, light_out, law.m), delta):
        return None
    values = zero.values[heavy]
    log_pz = np.log(pz)
    log_a0 = math.log1p(-float(pz.sum()))
    outlier_branches = [(i, math.log(p)) for i, p in enumerate(po) if p > 0]
    if light_out_mass > 0:
        outlier_branches.insert(0, (None, math.log(light_out_mass)))
    m = law.m
    cap = min(m, int(1.0 / HEAVY_FRACTION))
    certain = 0.0
    items: list[tuple[float, float, SumLaw]] = []
    log_m = [0.0]
    for i in range(cap):
        log_m.append(log_m[-1] + math.log(m - i))
    for count in range(cap + 1):
        for combo in itertools.combinations_with_replacement(range(n_heavy), count):
            c = np.bincount(np.array(combo, dtype=np.int64), minlength=n_heavy) if combo else np.zeros(n_heavy, np.int64)
            log_pc = log_m[count] - sum(math.lgamma(x + 1) for x in c) + float(c @ log_pz) + (m - count) * log_a0
            base = float(c @ values)
            for which, log_po in outlier_branches:
                prob = math.exp(log_pc + log_po)
                shift = base + (values[which] if which is not None else 0.0)
                if shift * (1.0 - 32.0 * UNIT) > y_lo:
                    certain += prob
                    continue
                inner = SumLaw(light_zero, light_out if which is None else POINT, m - count)
                items.append((prob, shift, inner))
    # More than `cap` heavy zero vectors put the heavy atoms alone above y.
    rest, rest_error = _binomial_upper(m, float(pz.sum()), cap + 1) if cap < m else (0.0, 0.0)
    items.sort(key=lambda it: -it[0])
    tail_mass = 0.0
    keep_items = []
    for prob, shift, inner in reversed(items):
        if tail_mass + prob <= PRUNE * target:
            tail_mass += prob
        else:
            keep_items.append((prob, shift, inner))
    if len(keep_items) > MAX_BRANCHES:
        return None
    branches = [
        Branch(prob, inner, y_up - shift * (1.0 + 32.0 * UNIT), y_lo - shift * (1.0 - 32.0 * UNIT))
        for prob, shift, inner in reversed(keep_items)
    ]
    # Each branch probability: a log-sum of at most ~40 terms, each with a few ulp of error,
    # and the probabilities' own errors raised to the power m.
    scale = abs(log_a0) * m + sum(log_m) / max(1, cap) * cap + 64.0 + float(np.abs(log_pz).sum()) * cap
    prob_error = 16.0 * UNIT * scale + m * float(zero.rel_error.max()) + float(out.rel_error.max()) + 1e-14
    sure = certain * (1.0 - prob_error) + rest * (1.0 - rest_error)
    slack = 2.0 * (prob_error * certain + rest_error * rest)
    return HeavySplit(branches, sure, tail_mass * (1.0 + prob_error) + slack, prob_error)


def _binomial_upper(m: int, p: float, k0: int) -> tuple[float, float]:
    """``P[Bin(m, p) >= k0]`` for ``k0 > m p``, and a bound on its relative error.

    Summed in log space from ``k0`` up; terms fall at least geometrically past the mean,
    and the sum stops where the rest is below ``1e-30`` of it (bounded by the geometric
    series, which is added). The error is that of the first term's log (lgamma of
    ``m + 1`` is accurate to a few ulp of its size) plus the recursion's rounding.
    """
    log_p, log_q = math.log(p), math.log1p(-p)
    log_term = math.lgamma(m + 1) - math.lgamma(k0 + 1) - math.lgamma(m - k0 + 1) + k0 * log_p + (m - k0) * log_q
    total, k = 0.0, k0
    while k <= m:
        term = math.exp(log_term)
        total += term
        ratio = (m - k) / (k + 1) * p / (1.0 - p)
        if ratio < 0.5 and term <= 1e-30 * total:
            total += term * ratio / (1.0 - ratio)
            break
        log_term += math.log(ratio) if ratio > 0 else -math.inf
        k += 1
    scale = 3.0 * math.lgamma(m + 1) + k * abs(log_p) + m * abs(log_q) + 4.0 * (k - k0 + 4)
    return total, 16.0 * UNIT * scale
