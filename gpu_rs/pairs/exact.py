"""Exact tails for any small pair of collections (SPEC §2 ``pair_tail``).

For collections ``D`` and ``D_m`` of ``N`` users and ``L`` bits, :func:`pair_tail` returns
``P_{S ~ A(D_m)}[P(S | D_m) / P(S | D) > λ]`` by enumerating every output histogram ``S``
in exact integer arithmetic (:mod:`gpu_rs.pairs.histograms`). The only inexact step is comparing
a rational ratio with ``λ = e^ε``: a histogram whose ratio lies within a few units of
rounding of ``λ`` is counted in the upper end and not in the lower one (give ``ratio`` as a
``Fraction`` to decide every histogram exactly).

:func:`gpu_rs.pairs.worst.worst_pairs` applies the same enumeration to every neighbouring pair of a size.
"""

from __future__ import annotations

import math
import numbers
import time
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from gpu_rs.common.errors import ArgumentTypeError
from gpu_rs.common.validation import check_bool, check_open, resolve_eps
from gpu_rs.pairs.histograms import Histograms, check_size
from gpu_rs.pairs.results import Interval, PairTail

MAX_SECONDS = 60.0
"""Enumerations estimated to take longer than this are refused unless ``max_seconds`` is raised."""
TIE = 8.0 * 2.0**-53
"""Relative distance of a ratio from ``λ`` below which the comparison is left undecided."""


def as_collection(name: str, value: object) -> tuple[tuple[int, ...], ...]:
    """A collection as a tuple of bit tuples: a sequence of bit strings (``"0110"``) or a 2-D 0/1 array.

    A single string is not a collection (``"000011"`` would be six 1-bit users):
    it is refused, as is any entry that is not itself a vector of bits.
    """
    shape = f"{name} must be a non-empty sequence of bit vectors of one length, e.g. ['0110', '1010']"
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ArgumentTypeError(f"{shape}: got {value!r} (one string is one vector, not a collection)")
    rows = [_bit_vector(name, i, v) for i, v in enumerate(value)]
    if not rows or any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
        raise ValueError(f"{shape}: got {value!r}")
    return tuple(rows)


def _bit_vector(name: str, i: int, v: object) -> tuple[int, ...]:
    """Entry ``i`` of a collection as a tuple of bits."""
    if isinstance(v, str):
        if set(v) <= {"0", "1"}:
            return tuple(int(c) for c in v)
    elif isinstance(v, Iterable):
        bits = list(v)
        if all(isinstance(b, numbers.Real) and b in (0, 1) for b in bits):
            return tuple(int(b) for b in bits)
    else:
        raise ArgumentTypeError(
            f"{name} must hold bit vectors (strings like '0110' or sequences of 0/1): "
            f"entry {i} is {v!r} of type {type(v).__name__}"
        )
    raise ValueError(f"{name} must hold bit vectors (entries 0 or 1): entry {i} is {v!r}")


def as_int(vector: tuple[int, ...]) -> int:
    """A bit vector as the integer it spells in binary, first bit most significant."""
    return int("".join(map(str, vector)), 2)


def bit_string(value: int, bits: int) -> str:
    """The ``bits``-bit binary spelling of ``value``."""
    return format(value, f"0{bits}b")


def threshold(eps: float | None, ratio: object) -> tuple[float, Fraction | None]:
    """``(ε, λ)``: ``λ`` is the exact rational threshold when ``ratio`` is a ``Fraction`` or int."""
    if isinstance(ratio, (Fraction, int)) and not isinstance(ratio, bool) and eps is None:
        lam = Fraction(ratio)
        if not lam > 1:
            raise ValueError(f"ratio must be a number in (1, e^700): got {ratio!r}")
        return math.log(lam), lam
    return resolve_eps(eps, ratio), None


def split(top: np.ndarray, bottom: np.ndarray, eps: float, lam: Fraction | None, inclusive: bool) -> tuple[int, int]:
    """Mass of ``top`` where ``top/bottom > λ`` (``>=``) surely, and where undecided."""
    sure = undecided = 0
    lam_float = math.exp(eps)
    for t, b in zip(top.tolist(), bottom.tolist(), strict=True):
        if lam is not None:
            left, right = t * lam.denominator, b * lam.numerator
            sure += t if (left >= right if inclusive else left > right) else 0
            continue
        try:
            f = t / b  # correctly rounded
        except OverflowError:
            sure += t
            continue
        if abs(f - lam_float) <= TIE * 4.0 * lam_float:
            undecided += t
        elif f > lam_float:
            sure += t
    return sure, undecided


def interval(sure: int, undecided: int, scale: int) -> Interval:
    """``[sure, sure + undecided] / scale`` rounded outwards, with the exact value when decided."""
    lo, hi = Fraction(sure, scale), Fraction(sure + undecided, scale)
    lower, upper = float(lo), float(hi)
    if Fraction(lower) > lo:
        lower = math.nextafter(lower, -math.inf)
    if Fraction(upper) < hi:
        upper = math.nextafter(upper, math.inf)
    return Interval(lower, upper, lo if undecided == 0 else None, float(Fraction(undecided, scale)))


def pair_tail(
    D: object,
    D_m: object,
    q: float | Fraction,
    eps: float | None = None,
    *,
    ratio: object = None,
    inclusive: bool = False,
    max_seconds: float = MAX_SECONDS,
) -> PairTail:
    """Exact ``P_{S ~ A(D_m)}[P(S | D_m)/P(S | D) > e^eps]`` for two small collections.

    Parameters
    ----------
    D, D_m : list of str or 2-D array of 0/1
        The collections, one bit vector per user (``"0110"`` or ``[0, 1, 1, 0]``); the same
        number of users and bits. ``S`` is drawn from ``D_m``; swap them for the other order.
    q : float or Fraction
        Flip probability, ``0 < q < 1/2``, taken at its exact value.
    eps : float, optional
        Privacy level ``0 < ε < 700``; give this or ``ratio``.
    ratio : float, int or Fraction, optional
        The threshold ``λ = e^ε``; a ``Fraction`` or int is compared exactly.
    inclusive : bool
        Bound ``P[R >= λ]`` instead.
    max_seconds : float
        Refuse (``TimeBudgetError``) enumerations estimated to take longer.

    Returns
    -------
    PairTail
        ``lower <= P <= upper``; ``exact`` is the rational value when no ratio was too close to λ to decide.
    """
    start = time.perf_counter()
    D, D_m = as_collection("D", D), as_collection("D_m", D_m)
    if len(D) != len(D_m) or len(D[0]) != len(D_m[0]):
        raise ValueError(
            "D and D_m must have the same number of users and bits: "
            f"got {len(D)}x{len(D[0])} and {len(D_m)}x{len(D_m[0])}"
        )
    n, bits = len(D), len(D[0])
    q_exact = Fraction(q) if isinstance(q, Fraction) else Fraction(check_open("q", q, 0.0, 0.5))
    if not 0 < q_exact < Fraction(1, 2):
        raise ValueError(f"q must be a number in (0, 0.5): got {q!r}")
    eps, lam = threshold(eps, ratio)
    inclusive = check_bool("inclusive", inclusive)
    common = list((Counter(D) & Counter(D_m)).elements())
    rest = n - len(common)
    check_size(n, bits, len(common) + 2 * rest, check_open("max_seconds", max_seconds, 0.0, math.inf), "pair_tail")
    hist = Histograms(n, bits, q_exact)
    base = hist.law([as_int(v) for v in common])
    law = hist.law([as_int(v) for v in (Counter(D) - Counter(common)).elements()], base, len(common))
    law_m = hist.law([as_int(v) for v in (Counter(D_m) - Counter(common)).elements()], base, len(common))
    sure, undecided = split(law_m, law, eps, lam, inclusive)
    value = interval(sure, undecided, hist.denominator(n))
    return PairTail(
        tuple("".join(map(str, v)) for v in D),
        tuple("".join(map(str, v)) for v in D_m),
        float(q_exact),
        eps,
        inclusive,
        value.lower,
        value.upper,
        value.exact,
        value.undecided,
        len(law),
        time.perf_counter() - start,
    )
