"""The conditioning method: split off rare heavy atoms and solve each configuration apart.

When an atom kept below the threshold is still large (say ``0.9 y``) but rare,
``Y`` is a bulk plus a few large jumps, and one inversion window must span them
all: its resolution then costs ``span / (bulk width)`` times more terms. Instead,
split the atoms above ``y / 16`` off as "heavy" and condition on how many
summands take each of them:

    P[Y > y] = Σ_c P[c] · P[Y_light(c) > y − shift(c)],

with multinomial ``P[c]`` in closed form. Every branch is a light-only problem in
a narrow window. Branches whose heavy atoms alone exceed ``y`` are certain (so is
"more than 16 heavy summands", a binomial tail summed directly), and branches too
improbable to matter are bounded by their probability. For a lower tail
``P[Y < y]`` the same branches are solved, and those that certainly pass ``y``
contribute nothing. The largest part is the
bulk; every other part must be small (at most 16 summands) and is enumerated whole.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.laws import POINT, Cut, Law, SumLaw, restrict

HEAVY_FRACTION = 1.0 / 16.0
"""Atoms above this fraction of the threshold are heavy: 16 of them alone exceed it."""
CAP = 16
"""At most this many heavy summands are enumerated: more of them certainly cross."""
MAX_TYPES = 4
MAX_MEAN = 4.0
"""Conditioning is used only if at most this many heavy summands are expected."""
MAX_BRANCHES = 200
MIN_GAIN = 4.0
"""Conditioning is used only if it narrows the window at least this much."""
PRUNE = 0.1
"""Share of the target width that may go to branches bounded by their probability alone."""
SLIP = 32.0 * UNIT
"""Relative error of a branch's shift (a sum of at most 16 heavy atoms)."""


@dataclass(frozen=True)
class Branch:
    """One configuration of heavy atoms: its probability and the light problem left given it."""

    prob: float
    law: SumLaw
    cut: Cut


@dataclass(frozen=True)
class HeavySplit:
    """The branches to solve, the certain mass and its error, the pruned mass, the probability error."""

    branches: list[Branch]
    certain: float
    certain_error: float
    pruned: float
    prob_error: float


def _span(law: SumLaw, delta: float) -> float:
    return chernoff.upper_quantile(law, delta) - chernoff.lower_quantile(law, delta)


def _configs(law: Law, heavy: np.ndarray, m: int, most: int) -> list[tuple[int, float, float, int]]:
    """``(heavy count, log-probability, shift, light count)`` of every configuration of ``m`` copies.

    Types are "light" (all light atoms together) and each heavy atom; at most
    ``most`` summands take heavy atoms. ``log(m!/(m − t)!)`` is a sum of ``t <= 16``
    logs, so each log-probability is accurate to a few ulp of its terms.
    """
    p_heavy = law.probs[heavy]
    light_mass = 1.0 - float(p_heavy.sum())
    log_light = math.log1p(-float(p_heavy.sum())) if light_mass > 0 else -math.inf
    values, log_ph = law.values[heavy], np.log(p_heavy)
    out = []
    head = 0.0
    for t in range(min(m, most) + 1):
        if t > 0:
            head += math.log(m - t + 1)
        if t < m and light_mass <= 0.0:
            continue
        for combo in itertools.combinations_with_replacement(range(values.shape[0]), t):
            c = np.bincount(np.array(combo, dtype=np.int64), minlength=values.shape[0])
            log_p = (
                head - sum(math.lgamma(x + 1) for x in c) + float(c @ log_ph) + ((m - t) * log_light if m > t else 0.0)
            )
            out.append((t, log_p, float(c @ values), m - t))
    return out


def split_heavy(law: SumLaw, cut: Cut, target: float) -> HeavySplit | None:
    """Branches of the heavy-atom conditioning, or None where it would not pay."""
    if cut.lo <= 0.0:
        return None
    bulk_i = max(range(len(law.parts)), key=lambda i: law.parts[i][1])
    heavy = [part.values > HEAVY_FRACTION * cut.lo for part, _ in law.parts]
    bulk, m = law.parts[bulk_i]
    hb = heavy[bulk_i]
    if not any(h.any() for h in heavy) or hb.all() or hb.sum() > MAX_TYPES:
        return None
    if any(c > CAP and h.any() and i != bulk_i for i, ((_, c), h) in enumerate(zip(law.parts, heavy, strict=True))):
        return None
    if any(h.sum() > MAX_TYPES for h in heavy):
        return None
    expected = sum(c * float(part.probs[h].sum()) for (part, c), h in zip(law.parts, heavy, strict=True))
    if expected > MAX_MEAN:
        return None
    lights = [restrict(part, ~h) if (~h).any() else POINT for (part, _), h in zip(law.parts, heavy, strict=True)]
    delta = max(FLOOR, 1e-3 * target)
    light_law = SumLaw(tuple((lt, c) for lt, (_, c) in zip(lights, law.parts, strict=True)))
    if _span(law, delta) < MIN_GAIN * _span(light_law, delta):
        return None
    small = [i for i in range(len(law.parts)) if i != bulk_i]
    small_configs = itertools.product(*(_configs(law.parts[i][0], heavy[i], law.parts[i][1], CAP) for i in small))
    p_bulk = float(bulk.probs[hb].sum())
    certain = rest = 0.0
    items: list[tuple[float, float, SumLaw]] = []
    for combo in small_configs:
        s = sum(t for t, _, _, _ in combo)
        if s > CAP:
            continue
        log_small = sum(lp for _, lp, _, _ in combo)
        shift_small = sum(sh for _, _, sh, _ in combo)
        if CAP - s < m:
            rest += math.exp(log_small) * _binomial_upper(m, p_bulk, CAP - s + 1)
        for _, log_b, shift_b, light_b in _configs(bulk, hb, m, CAP - s):
            prob = math.exp(log_small + log_b)
            shift = shift_small + shift_b
            if shift * (1.0 - SLIP) > cut.hi:
                # The heavy atoms alone pass the threshold: Y > y is certain, Y < y impossible.
                certain += prob
                continue
            parts = [(lights[bulk_i], light_b)] + [(lights[i], cfg[3]) for i, cfg in zip(small, combo, strict=True)]
            inner = SumLaw(tuple((lt, c) for lt, c in parts if c > 0) or ((POINT, 1),))
            items.append((prob, shift, inner))
    items.sort(key=lambda it: it[0])
    pruned, kept = 0.0, []
    for prob, shift, inner in items:
        if pruned + prob <= PRUNE * target:
            pruned += prob
        else:
            kept.append((prob, shift, inner))
    if len(kept) > MAX_BRANCHES:
        return None
    branches = [Branch(prob, inner, cut.shifted(shift, SLIP)) for prob, shift, inner in reversed(kept)]
    # Each probability is a log-sum of a few dozen terms, each a few ulp off, and the
    # probabilities' own errors raised to the power of the counts.
    # Each log-probability sums at most ~40 terms of size log m, |log p_heavy| and
    # m |log(1 - heavy mass)| <= 2 m h; the probabilities' own errors enter t times for
    # the heavy atoms and m h / (1 - h) times through the light mass (m h <= MAX_MEAN).
    scale = 64.0 + sum(
        CAP * (math.log(c) + float(np.abs(np.log(part.probs[h])).sum())) + 2.0 * c * float(part.probs[h].sum())
        for (part, c), h in zip(law.parts, heavy, strict=True)
        if h.any()
    )
    prob_error = 16.0 * UNIT * scale + (CAP + 2.0 * MAX_MEAN) * law.prob_error + 64.0 * UNIT
    rest_error = (
        16.0 * UNIT * (CAP * (math.log(m) + abs(math.log(max(p_bulk, FLOOR)))) + 2.0 * m * p_bulk + 64.0) + prob_error
    )
    if not cut.above:
        certain = rest = 0.0
    sure = (certain + rest) * (1.0 - max(prob_error, rest_error))
    certain_error = 2.0 * max(prob_error, rest_error) * (certain + rest)
    return HeavySplit(branches, sure, certain_error, pruned * (1.0 + prob_error), prob_error)


def mixture(split: HeavySplit, parts: list[Bounds]) -> Bounds:
    """``Σ_b P[b] · P[Y ∈ cut | b]`` plus the certain and pruned mass, with its budget.

    Each branch's width enters scaled by its probability; the probability errors
    ``e`` add ``e P[b] (upper_b + lower_b)`` (round-off), the pruned branches their mass
    (truncation), and the certain mass its error (round-off).
    """
    e = split.prob_error
    lower = split.certain + sum(b.prob * (1.0 - e) * r.lower for b, r in zip(split.branches, parts, strict=True))
    upper = (
        split.certain
        + split.certain_error
        + split.pruned
        + sum(b.prob * (1.0 + e) * r.upper for b, r in zip(split.branches, parts, strict=True))
    )
    budget = ErrorBudget(truncation=split.pruned, roundoff=split.certain_error)
    for b, r in zip(split.branches, parts, strict=True):
        budget = budget.plus(r.budget.scaled(b.prob)).add(roundoff=b.prob * e * (r.upper + r.lower))
    return Bounds.make(
        lower, upper, budget, "conditioned", sum(r.terms for r in parts), max((r.memory for r in parts), default=0)
    )


def _binomial_upper(m: int, p: float, k0: int) -> float:
    """``P[Bin(m, p) >= k0]`` for ``k0 > m p`` and ``k0 <= 17``, summed from ``k0`` up.

    ``log C(m, k0)`` is a sum of ``k0`` logs; terms fall at least geometrically past the
    mean; the sum stops where the rest is below ``1e-30`` of it, and the geometric
    series bounding the rest is added. The relative error is ``rest_error`` in
    :func:`split_heavy`.
    """
    if k0 > m or p <= 0.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    log_term = sum(math.log((m - i) / (i + 1)) for i in range(k0)) + k0 * log_p + (m - k0) * log_q
    total, k = 0.0, k0
    while k <= m:
        term = math.exp(log_term)
        total += term
        ratio = (m - k) / (k + 1) * p / (1.0 - p)
        if ratio < 0.5 and term <= 1e-30 * total:
            total += term * ratio / (1.0 - ratio)
            break
        if ratio <= 0:
            break
        log_term += math.log(ratio)
        k += 1
    return total
