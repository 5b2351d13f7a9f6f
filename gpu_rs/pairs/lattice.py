"""Sums of shifted copies of a nonnegative law on a lattice: the convolutions of the graded lattices.

The graded blanket (:mod:`gpu_rs.pairs.blanket`) and the graded clone bound (:mod:`gpu_rs.pairs.reduction`)
build the law of a sum of reports by adding one report at a time: the law so far, placed at each of the
report's lattice points and weighted by its probability. Every entry is a sum of nonnegative products,
so it keeps a relative error bound of one ulp per addition, which the callers apply outwards. The sums run
in the array namespace ``xp`` (NumPy, CuPy, ``array-api-strict``): the same products added in the same
order, hence the same floats on every backend.
"""

from __future__ import annotations

from typing import Any

SMALL = 1000
"""Laws at most this long are convolved from all their products formed at once (:func:`shifted_sum`)."""


def shifted_sum(s: Any, shifts: list[int], weights: Any, length: int, xp: Any) -> Any:
    """``Σ_k weights[k] · s`` with ``s`` placed at ``shifts[k]``, in ``length`` cells, added key by key in order.

    Every entry is the same float as ``out[i : i + len(s)] += w * s`` key by key: the same products, the
    same order of additions; short laws form all products in one call (fewer calls), long ones one key at a
    time. ``s`` and ``weights`` are arrays of ``xp``.
    """
    out, n = xp.zeros(length, dtype=xp.float64), s.shape[0]
    rows = weights[:, None] * s[None, :] if n <= SMALL else None
    for k, i in enumerate(shifts):
        out[i : i + n] += rows[k, :] if rows is not None else weights[k] * s
    return out
