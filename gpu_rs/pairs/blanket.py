"""The graded privacy blanket: every other user hides the changing one with probability ``(2q)^L``.

Every report ``z`` has ``M(y)(z) >= q^L = γ / 2^L`` with ``γ = (2q)^L``, for every vector ``y``:
each other user is, with probability ``γ`` and independently, a *blanket* user whose report
is uniform on ``{0,1}^L``, and otherwise reports from a law that does not depend on the
changing user (Balle, Bell, Gascón and Nissim, "The privacy blanket of the shuffle model",
CRYPTO 2019). ``q^L = min_y M(y)(z)``, so no component common to every ``M(y)`` is larger;
the clone component ``p_d (M(x) + M(x'))/2`` of :mod:`gpu_rs.pairs.clones` lies inside it.
Revealing the other users' reports with their identities is a refinement, so ``δ(ε)`` of
every pair at distance ``d`` is at most ``Σ_m P(C + 1 = m) δ_m(ε)``, ``C ~ Bin(N − 1, γ)``,
where ``δ_m`` is the divergence of the changing user's report among ``m − 1`` uniform ones:

    δ_m(ε) = E[(Σ_{j <= m} h(z_j))_+] / m,   h = f' − e^ε f,   z_j i.i.d. uniform,

``f = M(x)/U``, ``f' = M(x')/U``. With ``a`` ones among the unchanged bits and ``b`` among the
changed ones (``x`` read as zeros), ``f = (2p)^L r^(a + b)`` and ``f' = (2p)^L r^(a + d − b)``.
The pair is symmetric (flipping the changed bits swaps ``f`` and ``f'`` and keeps ``U``), so
the bound holds in both orders. Rounding every ``h`` up to a lattice of step ``s`` can only
raise ``δ_m`` (by at most ``s``), and ``δ_m`` does not increase with ``m`` (one more uniform
report is a post-processing), so counts beyond the lattice's reach are charged the last
value computed. Where the range of ``h`` is too wide (large ``L``), ``h`` is clipped to
``[−H, H]`` and ``E[(h − H)_+]`` added (see :func:`kernel`). The derivation is in
docs/worst-case.md (§8.2, "The graded blanket").
"""

from __future__ import annotations

import math

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs.counts import OUTSIDE, binomial

CELLS = 4e3
"""Lattice steps across one report's range of ``h`` (the step is also at most ``STEP``)."""
MAX_CELLS = 1e5
"""Lattice steps across one report's range of ``h`` beyond which ``h`` is clipped (see :func:`kernel`)."""
CLIPPED_CELLS = 1.5e4
"""Lattice steps across the clipped range."""
STEP = 2e-3
"""Largest lattice step: it bounds what rounding adds to ``δ_m``."""
WORK = 1.5e8
"""Lattice cells convolved per ``(d, ε)``; counts beyond reach use monotonicity."""
NEGLIGIBLE = 1e-12
"""Blanket counts are convolved up to the one above which at most this mass of ``C`` lies."""


def blanket_probability(bits: int, q: float) -> float:
    """``γ = (2q)^L``, rounded down (a smaller blanket is still a valid decomposition)."""
    return (2.0 * q) ** bits * (1.0 - 4.0 * (bits + 2) * UNIT)


def clip_level(h: np.ndarray, w: np.ndarray) -> float:
    """The level ``H`` minimising what clipping and rounding add, ``E[(h − H)_+]`` plus the step.

    The candidates are the positive values of ``h`` (the largest one means no clipping above).
    """
    best, arg = math.inf, float(h.max())
    for level in np.sort(h[h > 0])[::-1]:
        step = max(STEP, (float(level) + min(float(level), -float(h.min()))) / CLIPPED_CELLS)
        cost = float(np.dot(w, np.maximum(h - level, 0.0))) + step
        if cost < best:
            best, arg = cost, float(level)
    return arg


def kernel(bits: int, q: float, d: int, eps: float) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """Lattice indices of ``h`` (clipped, rounded up), their uniform weights, the step, the weights'
    relative error, and the bound ``E[(h − H)_+]`` that clipping adds to ``δ_m``.

    ``(Σ h_j)_+ <= (Σ min(h_j, H))_+ + Σ (h_j − H)_+`` and raising values below ``−H`` to ``−H``
    can only raise ``(·)_+``, so the clipped lattice plus the added mean is an upper bound.
    """
    lr, p = log_r(q), 1.0 - q
    a = np.arange(bits - d + 1)[:, None]
    b = np.arange(d + 1)[None, :]
    base = bits * math.log(2.0 * p)
    f0 = np.exp(base + (a + b) * lr)
    f1 = np.exp(base + (a + d - b) * lr)
    h = (f1 - math.exp(eps) * f0).ravel()
    # exp, log and the products above err by a few ulp of values at most (2p)^L (1 + e^ε) in size.
    slack = 64.0 * UNIT * (1.0 + bits * abs(lr) + abs(base)) * float(np.max(f1 + math.exp(eps) * f0))
    counts = [math.comb(bits - d, i) * math.comb(d, j) for i in range(bits - d + 1) for j in range(d + 1)]
    w = np.array(counts, dtype=float) / 2.0**bits  # exact: integers below 2^53, a power of 2
    added = 0.0
    step = min(STEP, float(h.max() - h.min()) / CELLS)
    if float(h.max() - h.min()) > MAX_CELLS * step and float(h.max()) > 0.0:
        level = clip_level(h + slack, w)
        added = float(np.dot(w, np.maximum(h + slack - level, 0.0))) * (1.0 + 4.0 * w.shape[0] * UNIT)
        h = np.clip(h, -level, level)
        step = max(STEP, float(h.max() - h.min()) / CLIPPED_CELLS)
    idx = np.ceil((h + slack) / step).astype(np.int64)
    keys, inverse = np.unique(idx, return_inverse=True)
    merged = np.zeros(keys.shape[0])
    np.add.at(merged, inverse, w)
    return keys, merged, step, 4.0 * UNIT * w.shape[0], added


def deltas(bits: int, q: float, d: int, eps: float, m_max: int) -> np.ndarray:
    """Upper bounds on ``δ_m(ε)`` for ``m = 1 … m_max`` (row ``m − 1``), each capped by the one before."""
    keys, w, step, rel_w, added = kernel(bits, q, d, eps)
    lo, span = int(keys[0]), int(keys[-1] - keys[0])
    shift = keys - lo
    s = np.ones(1)
    out = np.ones(m_max)
    for m in range(1, m_max + 1):
        nxt = np.zeros(s.shape[0] + span)
        for i, wi in zip(shift, w, strict=True):
            nxt[int(i) : int(i) + s.shape[0]] += wi * s
        s = nxt
        values = (np.arange(s.shape[0]) + m * lo) * step  # the lattice point of each entry
        pos = values > 0
        mean_pos = float(np.dot(s[pos], values[pos]))
        rel = 2.0 * (m * (shift.shape[0] * UNIT + rel_w) + s.shape[0] * UNIT)
        value = min(1.0, (mean_pos * (1.0 + rel) / m + added) * (1.0 + 4.0 * UNIT) + 4.0 * UNIT)
        out[m - 1] = min(value, out[m - 2]) if m > 1 else value
    return out


def reach(bits: int, q: float, d: int, eps: float, m_hi: int) -> int:
    """The largest ``m`` whose lattice fits in ``WORK`` cells of convolution (at least 1, at most ``m_hi``)."""
    keys, w, _, _, _ = kernel(bits, q, d, eps)
    per = float(keys[-1] - keys[0] + 1) * w.shape[0]
    return max(1, min(m_hi, int(math.sqrt(2.0 * WORK / per))))


def delta_upper(n: int, bits: int, q: float, d: int, eps: float) -> float:
    """An upper bound on ``δ(ε)`` over every pair at distance ``d``, in either order (1 where out of reach)."""
    gamma = blanket_probability(bits, q)
    c_law = binomial(n - 1, gamma)
    keys, w, _, _, _ = kernel(bits, q, d, eps)
    if float(keys[-1] - keys[0] + 1) * w.shape[0] > WORK:
        return 1.0
    above = np.cumsum(c_law.pmf[::-1])[::-1]
    enough = np.nonzero(above <= NEGLIGIBLE)[0]
    c_top = c_law.lo + int(enough[0]) if enough.shape[0] else c_law.hi
    m_max = reach(bits, q, d, eps, c_top + 1)
    dm = deltas(bits, q, d, eps, m_max)
    total = OUTSIDE
    for c, pc in zip(range(c_law.lo, c_law.hi + 1), c_law.pmf, strict=True):
        total += float(pc) * (1.0 + c_law.rel) * float(dm[min(c + 1, m_max) - 1])
    return min(1.0, total * (1.0 + 2.0 * (c_law.hi - c_law.lo + 4) * UNIT))
