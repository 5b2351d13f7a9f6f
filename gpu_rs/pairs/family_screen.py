"""A cheap certified upper bound on the tails of many homogeneous backgrounds at once, for the family search.

With ``T`` the sum of the ``m = n − 1`` background atoms ``V`` and ``(v_k, π_k)`` the user's
atoms (:mod:`gpu_rs.pairs.family`), ``P[T + v > 0] = Σ_k π_k P[T > −v_k]``. For any cut ``c``,

    {T > t}  ⊆  {Σ_j min(V_j, c) > t}  ∪  {some V_j > c},

so ``P[T > t] <= exp(m K_c(θ) − θ t) + m P[V > c]`` for every ``θ > 0``, with ``K_c`` the log-MGF
of ``min(V, c)`` (Chernoff on the truncated atoms plus a union bound on the atoms cut). The same
holds for ``>=``. Without the cut (``c = max V``) this is the plain Chernoff bound; the cut
matters where a few huge atoms of tiny probability (a background far from both of the user's
vectors, ``V`` up to ``(p/q)^L``) make every MGF explode. Each user atom takes its own best ``θ``
of a geometric grid around the Gaussian guess (:class:`Pass`), each cut its own sum; the bound is
the least over the cuts tried (the uncut one always among them). Any ``θ`` or ``c`` gives a valid
bound: the choices only decide how tight it is.

**Many members at once.** The members ``(d, a, b)`` of one ``(d, a)`` share the keys
``(u, w) = (i1 + j1, i0 − j1)`` of their atoms: one grid holds a block of ``b`` (keys outside a
member's support have mass exactly 0 and are masked), and a key's probability is
``Σ_j1 P[j1] P[i1 = u − j1] P[i0 = w + j1]``, one matrix product for the block (the ``(i1, i0)``
table shifted by each ``j1``, weighted by each member's law of ``j1``). The bound is then one array
expression over members, ``θ``, cuts and keys.

**Rounding.** Each binomial probability is rounded once (:func:`gpu_rs.common.binomial.pmf_float`), each
product and the sum of at most ``b + 1`` positive terms add a relative error, so a key's true mass is
at most ``P̂ (1 + ρ) + τ``, ``ρ = 2 (b + 6) u`` and ``τ`` covering products that underflowed: every
mass is raised so (``G τ`` added to every sum of ``G`` keys). The computed atoms ``V̂`` differ from
the true ones by at most ``errors`` each, so ``Σ V <= Σ V̂ + m · max errors``: every user atom is raised
by that much (and by its own error), and the bound is taken for the computed law. The truncated
MGF is a sum shifted by ``θ c`` (every term at most its mass: no overflow); its terms err by at most
``4u θ |V̂ − c| + 3u`` relative, its sum by ``G u``, and ``exp(slack)`` (:func:`_slack`) covers the
exponent's error times ``m``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu_rs.common.backend import to_numpy
from gpu_rs.common.binomial import pmf_float
from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.pairs.family import Member, signed_atoms

TINY = 2.0**-1000
"""More than the absolute error of any product of probabilities that underflowed."""
SLAB = 1 << 22
"""Members whose atoms are made at once hold at most about this many keys (the last member may pass it)."""
CELLS = 1 << 22
"""Most entries of one screening array (members × ``θ`` × cuts × keys): members are bounded in chunks of it."""


@dataclass(frozen=True)
class Pass:
    """One screening pass: ``θ`` as multiples of the Gaussian guess, and the cut levels ``m P[V > c]`` as
    multiples of a reference bound, and whether the uncut bound is taken too."""

    scales: tuple[float, ...]
    levels: tuple[float, ...]
    uncut: bool


COARSE = Pass(tuple(np.geomspace(1e-3, 1e1, 5)), (0.1,), False)
"""The pass over every member; the reference is the best tail known (a member below it is done)."""
FINE = Pass(tuple(np.geomspace(1e-6, 1e4, 61)), (0.1, 0.03, 0.01, 0.003), True)
"""The passes over the members left above the best tail; the reference is their bound so far (the union
term is best a few per cent of the bound: a level ten times too small can make the bound ten times larger)."""


@dataclass(frozen=True)
class Batch:
    """The atoms of some members, one row each, padded to one width (rows: members, columns: keys).

    ``values``, ``errors``: the atoms ``V̂`` and their error bounds; ``background``, ``user``: the computed
    masses of the keys; ``support``: the keys a row holds (the rest is padding of mass 0). A key's true
    mass is at most ``P̂ (1 + rho) + tau``.
    """

    values: np.ndarray
    errors: np.ndarray
    background: np.ndarray
    user: np.ndarray
    support: np.ndarray
    rho: float
    tau: float


@dataclass(frozen=True)
class Keys:
    """The atoms of many members, each member's keys one after the other (``sizes`` of them each)."""

    members: list[Member]
    sizes: np.ndarray
    values: np.ndarray
    errors: np.ndarray
    background: np.ndarray
    user: np.ndarray


def member_keys(members: list[Member], q: float, eps: float) -> Keys:
    """The atoms of ``members`` (module docstring): per ``(d, a)``, the key masses of every ``b`` by one
    recursion over ``b``; the values from one table over ``(alpha, beta)`` (:func:`~.family.signed_atoms`)."""
    bits = members[0].bits
    span = np.arange(-bits, bits + 1)
    table = signed_atoms(span[:, None], span[None, :], q, eps)
    groups: dict[tuple[int, int], list[Member]] = {}
    for mem in members:
        groups.setdefault((mem.d, mem.a), []).append(mem)
    order: list[Member] = []
    parts: list[list[np.ndarray]] = [[] for _ in range(5)]
    for (d, a), group in groups.items():
        bs = np.array([mem.b for mem in group])
        top = int(bs.max())
        rows, cols = a + top + 1, d - a + top + 1
        u, w = np.arange(rows)[:, None], np.arange(cols)[None, :] - top
        stacks = []
        for of_user in (False, True):  # b = 0: the (i1, i0) table; each further b adds j1's step (u + 1, w − 1)
            stack = np.zeros((top + 1, rows, cols))
            first = np.outer(pmf_float(a, q, False), pmf_float(d - a, q, not of_user))
            stack[0, : a + 1, top : top + d - a + 1] = first
            stay, move = pmf_float(1, q, of_user)  # j1 ~ Bin(b, p) (background) or Bin(b, q) (user)
            for k in range(1, top + 1):
                np.multiply(stay, stack[k - 1], out=stack[k])
                stack[k, 1:, :-1] += move * stack[k - 1, :-1, 1:]
            stacks.append(stack)
        # key (u, w) is reached by j1 in [max(0, u − a, −w), min(b, u, d − a − w)]: by the members with b >= low,
        # so each member's keys are the first ones in the order of low
        low = np.maximum(np.maximum(0, u - a), -w)
        iu, iw = np.nonzero(low <= np.minimum(u, d - a - w))
        by_low = np.argsort(low[iu, iw], kind="stable")
        iu, iw = iu[by_low], iw[by_low]
        sizes = np.searchsorted(low[iu, iw], bs, side="right")
        b = np.repeat(bs, sizes)
        j = np.arange(b.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        ku, kw = iu[j], iw[j]
        at = ((d - a - b - 2 * w[0, kw]) + bits, (2 * u[ku, 0] - a - b) + bits)
        if table[2][at].any():
            raise ValueError(f"the atoms of the members d={d}, a={a} at q={q!r}, eps={eps!r} overflow float64")
        fields = (sizes, table[0][at], table[1][at], stacks[0][b, ku, kw], stacks[1][b, ku, kw])
        for part, x in zip(parts, fields, strict=True):
            part.append(x)
        order += group
    return Keys(order, *(np.concatenate(p) for p in parts))


def packed(keys: Keys, rows: np.ndarray) -> Batch:
    """The members ``rows`` of ``keys`` as one :class:`Batch`, padded to the largest of them."""
    ends = np.cumsum(keys.sizes)
    sizes, starts = keys.sizes[rows], (ends - keys.sizes)[rows]
    width = int(sizes.max())
    col = np.arange(width)[None, :]
    support = col < sizes[:, None]
    at = np.where(support, starts[:, None] + col, 0)
    values, errors, background, user = (
        np.where(support, f[at], 0.0) for f in (keys.values, keys.errors, keys.background, keys.user)
    )
    top = max(m.b for m in (keys.members[r] for r in rows.tolist()))
    return Batch(values, errors, background, user, support, 4.0 * (top + 6) * UNIT, (top + 1) * TINY)


def batch_upper(batch: Batch, m: int, run: Pass, reference: np.ndarray, xp: Any = np) -> np.ndarray:
    """A certified upper bound on each member's tail ``P[R > e^ε]`` (and ``P[R >= e^ε]``), module docstring;
    ``reference`` scales the cut levels of ``run``, one per member. The sums over members, ``θ``, cuts and
    keys run on the array namespace ``xp``; the choice of ``θ`` and of the cuts on the host."""
    if m == 0:
        return np.ones(batch.values.shape[0])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        best = _upper(batch, m, run, reference, xp)
    return np.where(np.isfinite(best), np.minimum(best, 1.0), 1.0)


def _upper(batch: Batch, m: int, run: Pass, reference: np.ndarray, xp: Any) -> np.ndarray:
    v, pb, sup = batch.values, batch.background, batch.support
    keys = v.shape[1]
    raise_by = batch.errors + m * batch.errors.max(axis=1, keepdims=True)
    w = v + raise_by + 4.0 * UNIT * (np.abs(v) + raise_by)  # the user's atoms, raised (module docstring)
    mean = np.sum(pb * v, axis=1)
    var = np.maximum(np.sum(pb * (v - mean[:, None]) ** 2, axis=1), 1e-300)
    gap = np.maximum(-(m * mean + np.sum(batch.user * w, axis=1)), np.abs(m * mean) * 1e-6 + 1e-300)
    theta = (gap / (m * var))[:, None] * np.asarray(run.scales)[None, :]  # (members, θ)
    cuts = _cuts(v, pb, sup, m, reference[:, None] * np.asarray(run.levels)[None, :], run.uncut)  # (members, cuts)
    reach = np.abs(cuts) + np.abs(v).max(axis=1)[:, None]  # |V̂ − c| over the atoms below each cut
    w_max = np.abs(w).max(axis=1)
    v, pb, pu, sup, w, th, c = (xp.asarray(x) for x in (v, pb, batch.user, sup, w, theta, cuts))
    vv, cc, on = v[:, None, :], c[:, :, None], sup[:, None, :]
    below = on & (vv < cc)
    at_top = xp.sum(xp.where(on & (vv >= cc), pb[:, None, :], 0.0), axis=2)
    above = xp.sum(xp.where(on & (vv > cc), pb[:, None, :], 0.0), axis=2)
    diff = xp.where(below, vv - cc, 0.0)
    weight = xp.where(below, pb[:, None, :], 0.0)
    work = xp.exp(th[:, None, :, None] * diff[:, :, None, :])  # (members, cuts, θ, keys)
    s = (1.0 + batch.rho) * (xp.matmul(work, weight[..., None])[..., 0] + at_top[:, :, None]) + keys * batch.tau
    log_s = xp.log(s)
    k = th[:, None, :] * c[:, :, None] + log_s  # (members, cuts, θ)
    slack = _slack(xp, m, keys, th[:, None, :], xp.abs(c[:, :, None]), xp.asarray(reach)[:, :, None], s, log_s, k)
    exponent = (m * k + slack + 4.0 * UNIT * th[:, None, :] * xp.asarray(w_max)[:, None, None])[..., None]
    least = xp.min(exponent + (th[:, :, None] * w[:, None, :])[:, None, ...], axis=2)
    f = xp.exp(xp.where(least < 0.0, least, 0.0))  # (members, cuts, keys)
    user_sum = (1.0 + batch.rho) * xp.matmul(f, pu[:, :, None])[..., 0] + keys * batch.tau
    bound = user_sum + m * ((1.0 + batch.rho) * above + keys * batch.tau)
    best = xp.min(bound, axis=1) * (1.0 + 2.0 * (keys + 4) * UNIT) + 4.0 * UNIT
    return np.asarray(to_numpy(best), dtype=float)


def _cuts(v: np.ndarray, pb: np.ndarray, sup: np.ndarray, m: int, levels: np.ndarray, uncut: bool) -> np.ndarray:
    """Per member, the largest atom (no cut, if ``uncut``) and for each level the least atom value ``c`` whose
    mass above is at most ``level / m`` (as computed: the choice only decides how tight the bound is)."""
    order = np.argsort(-np.where(sup, v, -np.inf), axis=1, kind="stable")
    vs, ps = np.take_along_axis(v, order, axis=1), np.take_along_axis(pb, order, axis=1)
    before = np.cumsum(ps, axis=1) - ps
    index = (m * before[:, None, :] <= levels[:, :, None]).sum(axis=2) - 1
    index = np.clip(index, 0, sup.sum(axis=1, keepdims=True) - 1)
    found = np.take_along_axis(vs, index, axis=1)
    return np.concatenate([vs[:, :1], found], axis=1) if uncut else found


def _slack(xp: Any, m: int, keys: int, t: Any, cut: Any, reach: Any, s: Any, log_s: Any, k: Any) -> Any:
    """A bound on the rounding error of ``m K_c(θ)`` per ``(member, cut, θ)`` (module docstring; ``4u θ max|w|``
    for ``θ w`` is added by the caller): a term of the truncated sum errs by ``4u θ |V̂ − c| + 3u`` relative, and
    by at most ``2u`` absolute (its value is at most ``e^{−θ|V̂ − c|}`` times its mass), whichever is less."""
    spread = xp.minimum(8.0 * UNIT * t * reach, 2.0 * UNIT / s)
    per_k = spread + (keys + 8) * UNIT + UNIT * abs(log_s) + 2.0 * UNIT * t * cut
    return 1e-9 + m * per_k + 4.0 * UNIT * m * abs(k)


def screen_uppers(
    members: list[Member],
    prob: Problem,
    run: Pass,
    reference: dict[Member, float],
    deadline: float = math.inf,
    xp: Any = np,
) -> dict[Member, float]:
    """:func:`batch_upper` of each member (``reference``: see :class:`Pass`): the members' atoms made for at
    most :data:`SLAB` keys at a time, members of similar size bounded together, at most :data:`CELLS` entries
    at a time; members not reached by ``deadline`` (``perf_counter`` seconds) are left out."""
    ordered = sorted(members)  # each (d, a) together
    out: dict[Member, float] = {}
    slab: list[Member] = []
    size = 0
    for i, mem in enumerate(ordered):
        slab.append(mem)
        size += (mem.a + mem.b + 1) * (mem.d - mem.a + mem.b + 1)  # at least its keys
        if size >= SLAB or i == len(ordered) - 1:
            if time.perf_counter() >= deadline:
                break
            out.update(_slab(slab, prob, run, reference, deadline, xp))
            slab, size = [], 0
    return out


def _slab(
    members: list[Member], prob: Problem, run: Pass, reference: dict[Member, float], deadline: float, xp: Any
) -> dict[Member, float]:
    keys = member_keys(members, prob.q, prob.eps)
    by_size = np.argsort(keys.sizes, kind="stable")
    per_key = len(run.scales) * (len(run.levels) + run.uncut)
    out: dict[Member, float] = {}
    start = 0
    while start < by_size.size and time.perf_counter() < deadline:
        stop = start + 1
        while stop < by_size.size and (stop + 1 - start) * int(keys.sizes[by_size[stop]]) * per_key <= CELLS:
            stop += 1
        rows = by_size[start:stop]
        chosen = [keys.members[r] for r in rows.tolist()]
        ref = np.array([max(reference[mem], 1e-300) for mem in chosen])
        out.update(zip(chosen, batch_upper(packed(keys, rows), prob.n - 1, run, ref, xp).tolist(), strict=True))
        start = stop
    return out


def screen_upper(member: Member, prob: Problem) -> float:
    """A certified upper bound on one member's tail: the coarse pass, then the fine one referred to it."""
    coarse = screen_uppers([member], prob, COARSE, {member: 1e-3})[member]
    fine = screen_uppers([member], prob, FINE, {member: coarse})[member]
    return min(coarse, fine) if math.isfinite(fine) else coarse
