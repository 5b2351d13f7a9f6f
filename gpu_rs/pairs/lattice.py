"""Sums of shifted copies of a nonnegative law on a lattice: the convolutions of the graded lattices.

The graded blanket (:mod:`gpu_rs.pairs.blanket`) and the graded clone bound (:mod:`gpu_rs.pairs.reduction`)
build the law of a sum of reports by adding one report at a time: the law so far, placed at each of the
report's lattice points and weighted by its probability. Every entry is a sum of nonnegative products,
so it keeps a relative error bound of one ulp per addition, which the callers apply outwards. The sums run
in the array namespace ``xp`` (NumPy, CuPy, ``array-api-strict``): the same products added in the same
order, hence the same floats on every backend. Where the law and the report's kernel are both long, a
report is added by FFT instead (:func:`add_report`): its round-off is bounded in the 1-norm
(:func:`fft_error`) and carried as an absolute error, which the caller adds to every bound it forms.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.backend import to_numpy
from gpu_rs.common.floats import UNIT

SMALL = 1000
"""Laws at most this long are convolved from all their products formed at once (:func:`shifted_sum`)."""


def shifted_sum(s: Any, shifts: list[int], weights: Any, length: int, xp: Any) -> Any:
    """``Σ_k weights[k] · s`` with ``s`` placed at ``shifts[k]``, in ``length`` cells, added key by key in order.

    Every entry is the same float as ``out[i : i + len(s)] += w * s`` key by key: the same products, the
    same order of additions; short laws form all products in one call (fewer calls), long ones one key at a
    time. ``s`` and ``weights`` are arrays of ``xp``. The three namespaces gpu_rs runs on (NumPy, CuPy,
    ``array-api-strict``) return views for basic slices, so each in-place add writes into ``out`` directly
    (no copy back; tests/test_lattice_xp.py checks the floats on each).
    """
    out, n = xp.zeros(length, dtype=xp.float64), s.shape[0]
    rows = weights[:, None] * s[None, :] if n <= SMALL else None
    for k, i in enumerate(shifts):
        part = out[i : i + n]
        part += rows[k, :] if rows is not None else weights[k] * s
    return out


def leading_count(x: np.ndarray, level: float) -> int:
    """How many of the prefix sums ``cumsum(x)`` are at most ``level`` (``x >= 0``; host).

    ``searchsorted(cumsum(x), level, side="right")`` with the same floats, but summing only prefixes of
    growing length (4-fold, from 64) until one passes ``level``: a law's tail holding a tiny mass is short, its prefix
    sum over the whole law is not (NumPy's prefix sum costs about 20 times an element-wise addition).
    """
    size = 64
    while True:
        sums = np.cumsum(x[:size])
        if size >= x.shape[0] or sums[-1] > level:
            return int(np.searchsorted(sums, level, side="right"))
        size *= 4


FFT_KEYS, FFT_LENGTH = 128, 2048
"""A report is added by FFT where its kernel has at least ``FFT_KEYS`` points and the law at least ``FFT_LENGTH``
cells (there the direct sum costs more per cell than about 6 log2 of the length)."""
FFT_SHARE = 1e-3
"""A report is added by FFT only while the FFT's round-off, carried as an absolute error, adds at most this share
of the last ``δ_m`` to the next (the caller's budget)."""
FFT_ROUNDOFF = 64.0
"""The computed FFT of length ``N`` (a power of 2) errs in the 2-norm by at most ``FFT_ROUNDOFF · u · log2 N`` times
the exact one's norm: Higham, *Accuracy and Stability of Numerical Algorithms* (2002), Thm 24.2, gives
``log2 N · η`` with ``η = μ + γ_4 (√2 + μ) ≈ 6u`` for twiddle factors accurate to ``μ ≈ u``; 64 leaves a
margin of 10 for mixed-radix libraries and less accurate twiddles."""


def fft_error(s: np.ndarray, kernel: np.ndarray, length: int) -> float:
    """A bound on the 1-norm of the error of ``s ⊛ kernel`` (``length`` cells) computed by FFT of the next power of 2.

    With ``g`` the FFT's bound, ``F`` unnormalized (``‖F x‖₂ = √N ‖x‖₂``) and ``‖F x‖_∞ <= ‖x‖₁``: the two
    forward transforms err by ``g √N ‖s‖₂`` and ``g √N ‖k‖₂``, so their product by at most
    ``g √N (‖s‖₂ ‖k‖₁ + ‖s‖₁ ‖k‖₂) + g² N ‖s‖₂ ‖k‖₂`` plus ``4u`` of its norm ``<= √N ‖s‖₁ ‖k‖₂``; the inverse
    (``F*/N``, norm ``1/√N``) maps that to the output, and adds ``g`` times its output's norm. The 1-norm is
    at most ``√length`` times the 2-norm. Both arrays are on the host; their norms get a margin of 1e-6.
    """
    size = 1 << max(0, (length - 1).bit_length())
    g = FFT_ROUNDOFF * UNIT * max(1, size.bit_length() - 1)
    s1, s2 = float(np.sum(np.abs(s))), float(np.sqrt(np.dot(s, s)))
    k1, k2 = float(np.sum(np.abs(kernel))), float(np.sqrt(np.dot(kernel, kernel)))
    l2 = (2.0 * g + 4.0 * UNIT) * (s2 * k1 + s1 * k2) + g * g * math.sqrt(size) * s2 * k2 + g * s1 * k2
    return math.sqrt(length) * l2 * (1.0 + 1e-6) * (1.0 + 2.0 * g)


def add_report(
    s: Any, shifts: list[int], weights: Any, absolute: float, budget: float, xp: Any
) -> tuple[Any, float, int]:
    """The law after one more report (``weights`` at ``shifts``), the bound on the 1-norm of its entries' absolute
    error (``absolute``, the law's, is carried through the kernel's mass), and the work, in cells times points.

    By FFT where the law and the kernel are long and the error stays within ``budget`` (:func:`fft_error`);
    else directly (:func:`shifted_sum`, no absolute error added: the NumPy floats of before).
    """
    n, span = s.shape[0], shifts[-1] + 1
    length = n + span - 1
    long = len(shifts) >= FFT_KEYS and n >= FFT_LENGTH
    host_w = to_numpy(weights) if long or absolute > 0.0 else None
    carried = absolute * float(np.sum(host_w)) * (1.0 + (len(shifts) + 2) * UNIT) if host_w is not None else 0.0
    if long and host_w is not None:
        kernel = np.zeros(span)
        kernel[shifts] = host_w
        err = fft_error(to_numpy(s), kernel, length)
        if carried + err <= budget:
            size = 1 << (length - 1).bit_length()
            spectrum = xp.fft.rfft(s, n=size) * xp.fft.rfft(xp.asarray(kernel), n=size)
            return xp.fft.irfft(spectrum, n=size)[:length], carried + err, 8 * size * size.bit_length()
    return shifted_sum(s, shifts, weights, length, xp), carried, length * len(shifts)
