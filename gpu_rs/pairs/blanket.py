"""The graded privacy blanket: every other user hides the changing one with probability ``(2q)^L``.

Every report ``z`` has ``M(y)(z) >= q^L = γ / 2^L`` with ``γ = (2q)^L``, for every vector ``y``: each other user
is, with probability ``γ`` and independently, a *blanket* user whose report is uniform on ``{0,1}^L``, and
otherwise reports from a law that does not depend on the changing user (Balle, Bell, Gascón and Nissim, "The
privacy blanket of the shuffle model", CRYPTO 2019). ``q^L = min_y M(y)(z)``, so no component common to every
``M(y)`` is larger; the clone component ``p_d (M(x) + M(x'))/2`` of :mod:`gpu_rs.pairs.clones` lies inside it.
Revealing the other users' reports with their identities is a refinement, so ``δ(ε)`` of every pair at distance
``d`` is at most ``Σ_m P(C + 1 = m) δ_m(ε)``, ``C ~ Bin(N − 1, γ)``, where ``δ_m`` is the divergence of the
changing user's report among ``m − 1`` uniform ones:

    δ_m(ε) = E[(Σ_{j <= m} h(z_j))_+] / m,   h = f' − e^ε f,   z_j i.i.d. uniform,

``f = M(x)/U``, ``f' = M(x')/U``. With ``a`` ones among the unchanged bits and ``b`` among the changed ones (``x``
read as zeros), ``f = (2p)^L r^(a + b)`` and ``f' = (2p)^L r^(a + d − b)``. The pair is symmetric (flipping the
changed bits swaps ``f`` and ``f'`` and keeps ``U``), so the bound holds in both orders. Each value of ``h`` is
moved onto the two lattice points around it, with weights whose mean is at least ``h`` (a mean-preserving spread,
pushed up by a hair): ``(·)_+`` is convex and increasing, so by Jensen's inequality this can only raise ``δ_m``,
and it adds only a second-order amount, so the lattice can be coarse (``CELLS`` steps). ``δ_m`` does not increase
with ``m`` (one more uniform report is a post-processing), so counts beyond the lattice's reach are charged the
last value computed; where that charge matters, where the lattice cannot reach ``C`` at all, or near its rounding
floor, the hinge of the whole blanket sum bounds every count at once (:mod:`gpu_rs.pairs.blanket_sum`: no cap, no
floor). Where the range of ``h`` is wide (large ``L``), ``h`` is clipped to ``[−H, H]`` and ``E[(h − H)_+]`` added
(:func:`spread`). The derivation is in docs/worst-case.md (§8.2, "The graded blanket").
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

from gpu_rs.common.backend import to_numpy
from gpu_rs.common.floats import SMALLEST_NORMAL, UNIT
from gpu_rs.common.logspace import comb_row
from gpu_rs.engine.atoms import largest_loss, log_r
from gpu_rs.pairs import blanket_sum
from gpu_rs.pairs.counts import OUTSIDE, Binomial, binomial
from gpu_rs.pairs.lattice import FFT_SHARE, add_report, leading_count

CELLS = (256, 4096)
"""Lattice steps across one report's (clipped) range of ``h``: the first lattice, and the finest (4-fold steps)."""
RATIO = 32.0
"""Refinement stops once a standard deviation of one report's ``h`` spans this many steps."""
SLACK = 1e-6
"""Slack, in lattice steps, covering the float error of ``h / step``; it raises the spread's mean."""
WORK = 1e8
"""Lattice cells times kernel points convolved per lattice; counts beyond reach use monotonicity."""
NEGLIGIBLE = 1e-12
"""Blanket counts are convolved up to the one above which at most this mass of ``C`` lies."""
MAGNITUDE = 300.0
"""The blanket is not tried where ``L log(2p) + |ε|``, the log of ``h``'s range, exceeds this."""
CANDIDATES = 1 << 22
"""Candidate levels times values of ``h`` that :func:`clip_level` compares at once (its memory and time)."""
REPORTS = 2000
"""At most this many reports are convolved; larger counts get the last value, or the hinge of the whole sum."""
SIGMAS = 8.0
"""The lattice is skipped where it stops this many standard deviations below ``C``'s mean."""
HINGE_BELOW, SHORT = 1e-9, 1e-2
"""The hinge of the whole sum is tried where the lattice's bound is below ``HINGE_BELOW`` (its floor is about
1e-15), or where the counts past the lattice's rows hold more than ``SHORT`` of its bound."""
MAX_COUNTS = 1 << 22
"""The lattice is not tried where ``C`` reaches beyond this count: its rows (one float per count up to ``C``'s top)
would not fit (N = 1e9 near q = 1/2: 6 GB); the hinge of the whole sum answers there."""
TAIL = 1e-16
"""Mass at either end of the sum's law moved inwards every ``MOVE_EVERY`` reports (see :func:`deltas`)."""
MOVE_EVERY = 4


class Kernel(NamedTuple):
    """One report's ``h`` on the lattice: ``P(h = keys[i] · step) = weights[i]`` (after the spread)."""

    keys: np.ndarray
    weights: np.ndarray
    step: float
    rel: float
    """Relative error bound of each weight."""
    added: float
    """``E[(h − H)_+]``, added to every ``δ_m`` for the clipping (0 without clipping)."""


def blanket_probability(bits: int, q: float) -> float:
    """``γ = (2q)^L``, rounded down (a smaller blanket is still a valid decomposition)."""
    return (2.0 * q) ** bits * (1.0 - 4.0 * (bits + 2) * UNIT)


def clip_level(h: np.ndarray, w: np.ndarray, cells: int) -> float:
    """The level ``H`` minimising the cost of clipping ``h`` to ``[−H, H]`` plus an estimate of what the spread adds.

    Clipping above adds ``E[(h − H)_+]``; raising the values below ``−H`` loosens by at most
    ``E[(−H − h)_+]`` (``(·)_+`` is 1-Lipschitz). Spreading onto a lattice of step ``s`` adds
    noise of variance at most ``s²/4`` per report, which raises ``E[(Σ h)_+] / m`` by about
    ``s² g / 8``, ``g`` the density of ``Σ h`` at 0, estimated by ``1/(σ √(2π))``, with ``s`` the
    range over ``cells``. The candidates are the values of ``|h|`` (the largest one means no clipping), or
    an evenly spaced share of them (the largest kept) where comparing all would exceed ``CANDIDATES``
    cells (large ``L``). Any level gives a valid bound; this only picks one.
    """
    levels = np.unique(np.abs(h))[::-1]
    most = max(2, CANDIDATES // h.shape[0])
    if levels.shape[0] > most:  # every ``levels.shape[0] / most``-th value, the largest kept
        levels = levels[np.unique(np.linspace(0, levels.shape[0] - 1, most).astype(np.int64))]
    levels = levels[:, None]
    clipped = np.clip(h[None, :], -levels, levels)
    step = (clipped.max(axis=1) - clipped.min(axis=1)) / cells
    sigma = np.sqrt(np.maximum(clipped**2 @ w - (clipped @ w) ** 2, 1e-300))
    cost = np.abs(h[None, :] - clipped) @ w + step * step / (8.0 * sigma * math.sqrt(2.0 * math.pi))
    return float(levels[int(np.argmin(cost)), 0])


def report_values(bits: int, q: float, d: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds on the values of one report's ``h`` (one per ``(a, b)``), and their exact uniform weights."""
    lr, p = log_r(q), 1.0 - q
    a = np.arange(bits - d + 1)[:, None]
    b = np.arange(d + 1)[None, :]
    base = bits * math.log(2.0 * p)
    f0 = np.exp(base + (a + b) * lr)
    f1 = np.exp(base + (a + d - b) * lr)
    # exp, log and the products below err by a few ulp of values at most (2p)^L (1 + e^ε) in size.
    slack = 64.0 * UNIT * (1.0 + bits * abs(lr) + abs(base)) * float(np.max(f1 + math.exp(eps) * f0))
    return (f1 - math.exp(eps) * f0).ravel() + slack, uniform_weights(bits, d)


@functools.lru_cache(maxsize=16)
def uniform_weights(bits: int, d: int) -> np.ndarray:
    """``P(a, b) = C(L − d, a) C(d, b) / 2^L`` under the uniform report, in the order of :func:`report_values`.

    Each is the integer ratio correctly rounded (exact while the count is below ``2^53``), and
    never below the smallest normal double: a weight rounded up keeps every bound an upper bound
    (each ``δ_m`` integrates a nonnegative function against these weights), and a normal weight
    keeps the relative error the kernel assumes. No ``2^L`` is formed as a float (``L = 1024`` overflows).
    """
    scale = 1 << bits
    w = np.array([i * j / scale for i in comb_row(bits - d) for j in comb_row(d)])
    w = np.maximum(w, SMALLEST_NORMAL)
    w.setflags(write=False)
    return w


def spread(h: np.ndarray, w: np.ndarray, level: float, cells: int) -> Kernel:
    """``h`` clipped to ``[−level, level]`` and spread onto ``cells`` lattice steps across its range.

    ``(Σ h_j)_+ <= (Σ min(h_j, H))_+ + Σ (h_j − H)_+`` and raising values below ``−H`` to ``−H``
    can only raise ``(·)_+``, so the clipped lattice plus the added mean is an upper bound.
    A value ``x`` steps above ``i − 1`` goes to ``i`` with weight ``θ >= x − (i − 1)`` and to
    ``i − 1`` with ``1 − θ``: mean at least ``x``.
    """
    added = float(np.dot(w, np.maximum(h - level, 0.0))) * (1.0 + 4.0 * w.shape[0] * UNIT)
    h = np.clip(h, -level, level)
    magnitude = float(np.max(np.abs(h)))
    step = max(float(h.max() - h.min()) / cells, 1e-7 * magnitude, 1e-300)
    x = h / step  # errs by at most UNIT |x| <= 1e7 UNIT, far below SLACK
    upper = np.ceil(x + SLACK)
    theta = np.minimum(1.0, x - (upper - 1.0) + SLACK)
    idx = np.concatenate([upper - 1.0, upper]).astype(np.int64)
    keys, inverse = np.unique(idx, return_inverse=True)
    merged = np.zeros(keys.shape[0])
    np.add.at(merged, inverse, np.concatenate([w * (1.0 - theta), w * theta]))
    keep = merged > 0.0
    return Kernel(keys[keep], merged[keep], step, 4.0 * UNIT * (w.shape[0] + 2), added)


def deltas(
    kern: Kernel, m_max: int, masses: np.ndarray | None = None, enough: float = -1.0, xp: Any = np
) -> tuple[np.ndarray, int, int]:
    """Upper bounds on ``δ_m(ε)`` for ``m = 1 … m_max`` (row ``m − 1``), each capped by the one before,
    the cells times kernel points convolved, and the rows computed (the others repeat the last).

    With ``masses`` (the weight of each row in the caller's sum ``Σ masses[m − 1] δ_m``), the rows stop as
    soon as that sum, every row not yet computed charged the last one, is at most ``enough`` (a bound:
    ``δ_m`` does not increase with ``m``), which the full sum would then be too, up to round-off.

    Three steps keep the law of the sum short, none of which can lower a bound:
    - mass at a point ``v`` with ``v + (m_max − m) · max(keys) <= 0`` after ``m`` reports can never
      make ``(Σ h)_+`` positive for any ``m' <= m_max``: it is dropped (exact);
    - every ``MOVE_EVERY`` reports, the lowest points holding at most ``TAIL`` of mass are moved up
      to the next one (raising a sum can only raise ``(·)_+``);
    - the highest points holding at most ``TAIL`` are moved down to the point ``t`` below them,
      and ``Σ P(v) (v − t)`` is added to every later ``E[(Σ h)_+]``: ``(v + F)_+ <= (v − t) + (t + F)_+``.
    Once ``WORK`` is spent, or after ``REPORTS`` reports, the remaining rows repeat the last. The convolutions
    run in ``xp`` (:mod:`gpu_rs.pairs.lattice`; an FFT's round-off is carried as an absolute error and added to
    every sum over the law), the short sums over the law on the host."""
    keys, step = kern.keys, kern.step
    lo, hi = int(keys[0]), int(keys[-1])
    shifts = (keys - lo).tolist()
    if masses is None:
        masses, enough = np.zeros(m_max), -1.0  # no stopping on the sum
    above = np.cumsum(masses[::-1])[::-1] - masses  # the mass of the later rows
    s, first = xp.ones(1, dtype=xp.float64), 0  # the law of the sum on lattice points first, first + 1, ...
    weights = xp.asarray(kern.weights)
    out = np.ones(m_max)
    extra, rel, work, done, absolute = 0.0, 0.0, 0, 0.0, 0.0
    for m in range(1, m_max + 1):
        scale = max(abs(first + lo + s.shape[0] + hi - lo), s.shape[0] + hi - lo, abs(first + lo)) * step
        budget = FFT_SHARE * out[m - 2] * m / scale if m > 1 else 0.0  # the FFT's error: <= FFT_SHARE of δ_{m−1}
        nxt, absolute, cost = add_report(s, shifts, weights, absolute, budget, xp)
        work += cost
        first += lo
        drop = max(0, min(nxt.shape[0], -(m_max - m) * hi - first + 1))
        s, first = nxt[drop:], first + drop
        rel += (len(shifts) + 1 + s.shape[0]) * UNIT + kern.rel  # convolution, and the moves below
        if s.shape[0] > 2 and m % MOVE_EVERY == 0:
            low = leading_count(to_numpy(s), TAIL)
            if 0 < low < s.shape[0] - 1:
                s[low] += float(np.sum(to_numpy(s[:low])))
                s, first = s[low:], first + low
            host = to_numpy(s)
            top = host.shape[0] - 1 - leading_count(host[::-1], TAIL)
            if 0 < top < host.shape[0] - 1:
                moved = (
                    float(np.dot(host[top + 1 :], np.arange(1, host.shape[0] - top))) + absolute * host.shape[0]
                ) * step
                extra += moved * (1.0 + 2.0 * (rel + (host.shape[0] + 4) * UNIT))
                s[top] += float(np.sum(host[top + 1 :]))
                s = s[: top + 1]
        host = to_numpy(s)
        values = (np.arange(host.shape[0]) + first) * step  # the lattice point of each entry
        pos = values > 0
        top_value = absolute * max(abs(float(values[-1])), abs(float(values[0]))) if host.shape[0] else 0.0
        mean_pos = (float(np.dot(host[pos], values[pos])) + top_value) * (
            1.0 + 2.0 * (rel + (host.shape[0] + 4) * UNIT)
        )
        value = min(1.0, ((mean_pos + extra) / m + kern.added) * (1.0 + 8.0 * UNIT) + 4.0 * UNIT)
        out[m - 1] = min(value, out[m - 2]) if m > 1 else value
        done += float(masses[m - 1]) * out[m - 1]
        if s.shape[0] == 0 or work > WORK or m >= REPORTS or done + float(above[m - 1]) * out[m - 1] <= enough:
            out[m:] = out[m - 1]
            break
    return out, work, m


def reaches(n: int, bits: int, q: float, sigmas: float) -> bool:
    """Whether the lattice (at most ``REPORTS`` reports) reaches the blanket counts ``C ~ Bin(N − 1, (2q)^L)``
    takes, to ``sigmas`` standard deviations below their mean (else the hinge of the whole sum answers alone)."""
    mean = (n - 1) * blanket_probability(bits, q)
    return mean - sigmas * math.sqrt(mean) <= REPORTS


def lattice_delta(
    h: np.ndarray, w: np.ndarray, c_law: Binomial, enough: float, settle: bool, xp: Any
) -> tuple[float, np.ndarray, float]:
    """The lattice's bound (:func:`deltas` summed against ``C``'s window), the rows it charges each count of
    the window, and the mass of the counts beyond the rows it computed (charged the last one).

    Starts on ``CELLS[0]`` steps and refines 4-fold while the bound exceeds ``enough``, a standard deviation of
    ``h`` spans fewer than ``RATIO`` steps, and the finer lattice fits in ``WORK``: the least bound is returned."""
    above = np.cumsum(c_law.pmf[::-1])[::-1]
    c_top = c_law.lo + int(np.argmax(above <= NEGLIGIBLE)) if above[-1] <= NEGLIGIBLE else c_law.hi
    counts = np.arange(c_law.lo, c_law.hi + 1)
    if c_top >= MAX_COUNTS:
        return 1.0, np.ones(counts.shape[0]), 1.0  # the rows' memory (see MAX_COUNTS)
    # The weight of each row of deltas(...) in the total below, to stop its rows once the total is surely below enough.
    rows = np.bincount(np.minimum(counts, c_top), c_law.pmf, c_top + 1) * (1.0 + c_law.rel)
    short = (enough - OUTSIDE) / (1.0 + 2.0 * (c_law.hi - c_law.lo + 8) * UNIT)
    best, cells = (1.0, np.ones(counts.shape[0]), 1.0), CELLS[0]
    while True:
        kern = spread(h, w, clip_level(h, w, cells), cells)
        dm, work, reached = deltas(kern, c_top + 1, rows if settle else None, short, xp)
        total = OUTSIDE
        for c, pc in zip(range(c_law.lo, c_law.hi + 1), c_law.pmf, strict=True):
            total += float(pc) * (1.0 + c_law.rel) * float(dm[min(c, c_top)])
        value = total * (1.0 + 2.0 * (c_law.hi - c_law.lo + 4) * UNIT)
        if value < best[0]:
            beyond = float(np.sum(c_law.pmf[counts >= reached])) + OUTSIDE
            best = (value, dm[np.minimum(counts, c_top)], beyond)
        at = kern.keys * kern.step
        sigma = math.sqrt(max(float(np.dot(kern.weights, at**2)) - float(np.dot(kern.weights, at)) ** 2, 0.0))
        if best[0] <= enough or 4 * cells > CELLS[1] or RATIO * kern.step <= sigma or 5 * work > WORK:
            return best
        cells *= 4


def blanket_delta(
    n: int, bits: int, q: float, d: int, eps: float, enough: float = -1.0, *, settle: bool = False, xp: Any = np
) -> float:
    """An upper bound on ``δ(ε)`` over every pair at distance ``d``, in either order: 0 exactly where ``ε`` is at
    least their largest loss (:func:`~gpu_rs.engine.atoms.largest_loss`; every value of ``h`` is then at most 0).

    The lattice (:func:`lattice_delta`) where it reaches ``C``'s counts; the hinge of the whole sum
    (:mod:`gpu_rs.pairs.blanket_sum`, taking the lattice's rows for the low counts) where it does not, where the
    lattice's bound is below ``HINGE_BELOW`` (its rounding floor is about 1e-15), or where the counts past its rows
    hold more than ``SHORT`` of its bound: the least is returned. With ``settle``, for a caller that only asks
    whether the bound is at most ``enough``: a lattice stops its counts as soon as its bound is surely at most
    ``enough`` (see :func:`deltas`), and the value returned is then only known to be at most ``enough``.
    """
    if eps >= largest_loss(d, q):
        return 0.0
    if bits * math.log(2.0 * (1.0 - q)) + abs(eps) > MAGNITUDE:
        return 1.0  # h spans more than doubles can square: no blanket bound here
    gamma = blanket_probability(bits, q)
    c_law = binomial(n - 1, gamma) if gamma > 0.0 else binomial(0, 0.5)  # γ below the smallest double: C = 0
    h, w = report_values(bits, q, d, eps)
    value, rows, beyond = 1.0, np.ones(c_law.pmf.shape[0]), 1.0
    if reaches(n, bits, q, SIGMAS):
        value, rows, beyond = lattice_delta(h, w, c_law, enough, settle, xp)
    if eps > 0.0 and gamma > 0.0 and value > enough and (value < HINGE_BELOW or beyond > SHORT * value):
        value = min(value, blanket_sum.delta(n, gamma, h, w, c_law, rows, (enough, value), xp))
    return min(1.0, value)
