"""Sums of shifted copies of a nonnegative law on a lattice: the convolutions of the graded lattices.

The graded blanket (:mod:`gpu_rs.pairs.blanket`) and the graded clone bound (:mod:`gpu_rs.pairs.reduction`)
build the law of a sum of reports by adding one report at a time: the law so far, placed at each of the
report's lattice points and weighted by its probability. Every entry is a sum of nonnegative products,
so it keeps a relative error bound of one ulp per addition, which the callers apply outwards.
"""

from __future__ import annotations

import numpy as np

SMALL = 1000
"""Laws at most this long are convolved from all their products formed at once (:func:`shifted_sum`)."""


def shifted_sum(s: np.ndarray, shifts: list[int], weights: np.ndarray, length: int) -> np.ndarray:
    """``Σ_k weights[k] · s`` with ``s`` placed at ``shifts[k]``, in ``length`` cells, added key by key in order.

    Every entry is the same float as ``out[i : i + len(s)] += w * s`` key by key: the same products, the
    same order of additions; short laws form all products in one call (fewer calls), long ones one key at a time.
    """
    out, n = np.zeros(length), s.shape[0]
    if n <= SMALL:
        for i, row in zip(shifts, np.multiply.outer(weights, s), strict=True):
            part = out[i : i + n]
            np.add(part, row, out=part)
        return out
    term = np.empty(n)
    for i, w in zip(shifts, weights.tolist(), strict=True):
        np.multiply(s, w, out=term)
        part = out[i : i + n]
        np.add(part, term, out=part)
    return out
