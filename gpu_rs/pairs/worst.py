"""Every neighbouring pair of a small size, both orders, by exact enumeration (issue 9, item 5).

A pair is a background of ``n − 1`` users and one user who holds ``x`` in ``D`` and ``x_m``
in ``D_m``. Permuting the bits and flipping a fixed set of bits (in every vector and every
report at once) maps the mechanism to itself, so every tail is constant on the orbits of
that group (order ``L! · 2^L``); one pair per orbit is evaluated, in both orders, with the
integer arithmetic of :mod:`gpu_rs.pairs.histograms` and the comparison of :mod:`gpu_rs.pairs.exact`.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.validation import check_bool, check_int, check_open
from gpu_rs.pairs.exact import MAX_SECONDS, bit_string, interval, split, threshold
from gpu_rs.pairs.histograms import SECONDS_PER_TERM, Histograms, count_histograms
from gpu_rs.pairs.results import PairRecord, PairSearch

MAX_BITS = 4
"""Largest ``bits`` the search enumerates (``2^L`` report values per user)."""
SECONDS_PER_SPLIT = 1e-6
"""Measured cost of comparing one histogram's ratio with the threshold."""


def group(bits: int) -> list[tuple[int, ...]]:
    """The symmetries as permutations of ``0 .. 2^L − 1``: permute the bits, then flip a mask."""
    out = []
    for perm in itertools.permutations(range(bits)):
        for mask in range(2**bits):
            image = []
            for v in range(2**bits):
                moved = sum(((v >> (bits - 1 - perm[i])) & 1) << (bits - 1 - i) for i in range(bits))
                image.append(moved ^ mask)
            out.append(tuple(image))
    return out


def canonical(symmetries: list[tuple[int, ...]], background: tuple[int, ...], pair: tuple[int, int]) -> tuple:
    """The smallest image of (background, unordered pair) under the symmetries."""
    return min((tuple(sorted(g[v] for v in background)), tuple(sorted((g[pair[0]], g[pair[1]])))) for g in symmetries)


def estimate_seconds(n: int, bits: int) -> float:
    """Time of :func:`worst_pairs` (an overestimate: every background counted before symmetry)."""
    size = 2**bits
    backgrounds = math.comb(n - 1 + size - 1, size - 1) / max(1, math.factorial(bits) * size) + 1
    histograms = count_histograms(n, bits)
    per_background = (n - 1 + size) * histograms * size * SECONDS_PER_TERM
    per_background += size * (size - 1) * histograms * SECONDS_PER_SPLIT
    return 4.0 * backgrounds * per_background


def worst_pairs(
    n: int,
    bits: int,
    q: float | Fraction,
    eps: float | None = None,
    *,
    ratio: object = None,
    inclusive: bool = False,
    max_seconds: float = MAX_SECONDS,
) -> PairSearch:
    """Both orders of every neighbouring pair of ``n`` users and ``bits`` bits, exactly.

    Parameters
    ----------
    n : int
        Users, ``2 <= n``; the work grows like ``n^(2^bits)`` and is refused up front beyond ``max_seconds``.
    bits : int
        Bits per report, ``1 <= bits <= 3``.
    q : float or Fraction
        Flip probability, ``0 < q < 1/2``, at its exact value.
    eps, ratio : float, optional
        The threshold, as for :func:`gpu_rs.pair_tail`.
    inclusive : bool
        Tails ``P[R >= λ]`` instead.
    max_seconds : float
        Refuse (``TimeBudgetError``) a search estimated to take longer.

    Returns
    -------
    PairSearch
        Every orbit of pairs, largest tail first, and the homogeneous pair of seed 003.
    """
    start = time.perf_counter()
    n = check_int("n", n, 2, 1000)
    bits = check_int("bits", bits, 1, MAX_BITS)
    inclusive = check_bool("inclusive", inclusive)
    q_exact = Fraction(q) if isinstance(q, Fraction) else Fraction(check_open("q", q, 0.0, 0.5))
    if not 0 < q_exact < Fraction(1, 2):
        raise ValueError(f"q must be a number in (0, 0.5): got {q!r}")
    eps, lam = threshold(eps, ratio)
    seconds = estimate_seconds(n, bits)
    if seconds > check_open("max_seconds", max_seconds, 0.0, math.inf):
        raise TimeBudgetError(
            f"worst_pairs: every pair of n={n} users and bits={bits} would take about {seconds:.3g} s "
            f"(limit max_seconds={max_seconds:g})"
        )
    size = 2**bits
    symmetries = group(bits)
    hist = Histograms(n, bits, q_exact)
    scale = hist.denominator(n)
    seen = set()
    records = []
    for background in itertools.combinations_with_replacement(range(size), n - 1):
        if min(tuple(sorted(g[v] for v in background)) for g in symmetries) != background:
            continue
        base = hist.law(list(background))
        laws = [hist.add(base, v, n) for v in range(size)]
        for x, x_m in itertools.combinations(range(size), 2):
            key = canonical(symmetries, background, (x, x_m))
            if key in seen:
                continue
            seen.add(key)
            forward = interval(*split(laws[x_m], laws[x], eps, lam, inclusive), scale)
            reverse = interval(*split(laws[x], laws[x_m], eps, lam, inclusive), scale)
            names = tuple(bit_string(v, bits) for v in background)
            rec = PairRecord(
                names, bit_string(x, bits), bit_string(x_m, bits), bin(x ^ x_m).count("1"), forward, reverse
            )
            records.append((key, rec))
    homogeneous_key = canonical(symmetries, (0,) * (n - 1), (0, size - 1))
    homogeneous = next(rec for key, rec in records if key == homogeneous_key)
    pairs = tuple(sorted((rec for _, rec in records), key=lambda r: (-r.upper, -r.lower)))
    return PairSearch(
        n,
        bits,
        float(q_exact),
        eps,
        inclusive,
        pairs,
        homogeneous,
        max(r.lower for r in pairs),
        pairs[0].upper,
        time.perf_counter() - start,
    )
