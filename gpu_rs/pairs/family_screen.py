"""A cheap certified upper bound on one homogeneous background's tail, for screening the family.

With ``T`` the sum of the ``m = n − 1`` background atoms ``V`` and ``(v_k, π_k)`` the user's
atoms (:mod:`gpu_rs.pairs.family`), ``P[T + v > 0] = Σ_k π_k P[T > −v_k]``. For any cut ``c``,

    {T > t}  ⊆  {Σ_j min(V_j, c) > t}  ∪  {some V_j > c},

so ``P[T > t] <= exp(m K_c(θ) − θ t) + m P[V > c]`` for every ``θ > 0``, with ``K_c`` the log-MGF
of ``min(V, c)`` (Chernoff on the truncated atoms plus a union bound on the atoms cut). The same
holds for ``>=``. Without the cut (``c = max V``) this is the plain Chernoff bound; the cut
matters where a few huge atoms of tiny probability (a background far from both of the user's
vectors, ``V`` up to ``(p/q)^L``) make every MGF explode. The cuts tried are the levels where
``m P[V > c]`` falls below ``10^-1 … 10^-16``; ``θ`` runs over a fixed geometric grid around the
Gaussian guess; the user's atoms are merged into at most :data:`GROUPS` groups of consecutive
values, each at its largest value (the bound is increasing in ``v``). Any ``θ``, ``c`` or grouping
gives a valid bound: the choices only decide how tight it is.

**Rounding.** The computed atoms ``V̂`` differ from the true ones by at most ``errors`` each, so
``Σ V <= Σ V̂ + m · max errors``: every user atom is raised by that much (and by its own error),
and the bound is taken for the computed law. The log-MGF below a cut is a sum over the atoms
sorted by value (in stretches between cuts, each shifted by its largest term, then a running
``logaddexp``); each term or step errs by at most ``4u`` per unit of the magnitudes involved,
``m K`` multiplies that by ``m``, and the probabilities' relative error ``rel`` adds ``2 m rel``:
``exp(slack)`` covers it all (:func:`_slack`).
"""

from __future__ import annotations

import math

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.pairs.family import Member, report_atoms

SCALES = np.geomspace(1e-6, 1e4, 61)
"""Multiples of the Gaussian guess of ``θ`` tried."""
CUTS = 10.0 ** -np.arange(1.0, 17.0)
"""Levels of ``m P[V > c]`` at which the background atoms are cut."""
GROUPS = 128
"""At most this many groups of the user's atoms."""


def screen_upper(member: Member, prob: Problem) -> float:
    """A certified upper bound on the member's tail ``P[R > e^ε]`` (and ``P[R >= e^ε]``), module docstring."""
    m = prob.n - 1
    if m == 0:
        return 1.0
    bg = report_atoms(member, prob.q, prob.eps, False, False)
    user = report_atoms(member, prob.q, prob.eps, True, False)
    order = np.argsort(bg.values, kind="stable")
    values, log_probs, probs = bg.values[order], bg.log_probs[order], bg.probs[order]
    size = values.size
    # above[i] >= P[V > values[i]]: the mass of the atoms after i (a sum of at most ``size`` terms).
    above = np.concatenate([np.cumsum(probs[::-1])[::-1][1:], [0.0]])
    above = above * (1.0 + float(bg.rel.max()) + 2.0 * (size + 2) * UNIT)
    cuts = np.unique(np.concatenate([np.searchsorted(-m * above, -CUTS), [size - 1]]))
    cuts = cuts[cuts < size]
    # Atoms near the float64 limit (tiny q, large eps) overflow squares and exponents on the way: the
    # bound is then inf or NaN, and 1 (trivial) is returned instead.
    with np.errstate(over="ignore", invalid="ignore"):
        w = user.values + user.errors + m * float(bg.errors.max())
        w_group, p_group = _groups(w, user.probs)
        mean = float(np.dot(probs, values))
        var = max(float(np.dot(probs, (values - mean) ** 2)), 1e-300)
        gap = max(-(m * mean + float(np.dot(user.probs, w))), abs(m * mean) * 1e-6 + 1e-300)
        thetas = gap / (m * var) * SCALES
        # The log-MGF of the atoms below each cut, then the atoms at or above it lumped at the cut.
        below = _below(log_probs[None, :] + np.outer(thetas, values), cuts)
        log_top = np.log(np.maximum(above[cuts] + probs[cuts], 1e-320))
        k = np.logaddexp(below, log_top[None, :] + np.outer(thetas, values[cuts]))
        slack = _slack(m, thetas, k, values, log_probs, w, float(max(bg.rel.max(), user.rel.max())))
        exponent = m * k[:, :, None] + (thetas[:, None, None] * w_group[None, None, :]) + slack[:, :, None]
        terms = np.exp(np.minimum(0.0, exponent.min(axis=0)))
        bound = terms @ p_group + m * above[cuts]
        best = float(bound.min()) * (1.0 + float(user.rel.max()) + 2.0 * (w.size + 2) * UNIT) + 4.0 * UNIT
    return min(1.0, best) if math.isfinite(best) else 1.0


def _below(x: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """``log Σ_{j < c} exp(x[:, j])`` for each cut ``c`` (sorted, distinct): the sum of each stretch
    between cuts (shifted by its largest term), then a running ``logaddexp`` over the stretches."""
    out = np.full((x.shape[0], cuts.size), -np.inf)
    inner = cuts[cuts > 0]
    if inner.size == 0:
        return out
    starts = np.concatenate([[0], inner[:-1]])
    x = x[:, : inner[-1]]
    peak = np.maximum.reduceat(x, starts, axis=1)
    sums = np.add.reduceat(np.exp(x - np.repeat(peak, np.diff(np.append(starts, inner[-1])), axis=1)), starts, axis=1)
    out[:, cuts.size - inner.size :] = np.logaddexp.accumulate(peak + np.log(sums), axis=1)
    return out


def _groups(w: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The user's atoms merged into at most :data:`GROUPS` runs of consecutive values, each at its largest."""
    order = np.argsort(w, kind="stable")
    w, probs = w[order], probs[order]
    if w.size <= GROUPS:
        return w, probs
    edges = np.linspace(0, w.size, GROUPS + 1).astype(int)
    mass = np.add.reduceat(probs, edges[:-1]) * (1.0 + 2.0 * (w.size + 2) * UNIT)
    return w[edges[1:] - 1], mass


def _slack(
    m: int, thetas: np.ndarray, k: np.ndarray, values: np.ndarray, log_probs: np.ndarray, w: np.ndarray, rel: float
) -> np.ndarray:
    """A bound on the rounding error of ``m K_c(θ) + θ w`` per ``(θ, cut)`` (module docstring)."""
    size = values.size + 2
    terms = float(np.abs(log_probs).max()) + 2.0 * thetas * float(np.abs(values).max())  # |x| and |θ c|
    per_k = 4.0 * UNIT * size * (terms + 1.0) + 2.0 * rel
    total = m * per_k[:, None] + 4.0 * UNIT * (m * np.abs(k) + (thetas * float(np.abs(w).max()))[:, None])
    return 1e-9 + total
