"""Exact laws of the shuffled output of a small collection, in integer arithmetic.

The collector sees the histogram ``S`` of the ``N`` randomized reports: ``S[z]`` counts the
reports equal to ``z`` (``z`` read as a binary number, first bit most significant). With
``q = a/b`` in lowest terms, each report of a user holding ``v`` has probability
``M(v)(z) = a^d (b − a)^(L − d) / b^L`` (``d`` the Hamming distance of ``v`` and ``z``), so
``P(S | n users) · b^(nL)`` is an integer. :class:`Histograms` keeps these integers for
every histogram of ``n`` reports and adds users one at a time:

    P(S | users, v) = Σ_z M(v)(z) P(S − e_z | users).

Nothing is rounded: a float ``q`` is taken at its exact binary value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gpu_rs.common.errors import TimeBudgetError

SECONDS_PER_TERM = 4e-7
"""Measured cost of one integer multiply-add of the recursion (NumPy object arrays, 2-core CPU)."""


def count_histograms(n: int, bits: int) -> int:
    """Number of histograms of ``n`` reports of ``bits`` bits: ``C(n + 2^L − 1, 2^L − 1)``."""
    return math.comb(n + 2**bits - 1, 2**bits - 1)


def estimate_seconds(n: int, bits: int, users: int) -> float:
    """Time to add ``users`` users one at a time up to ``n`` reports of ``bits`` bits."""
    per_user = count_histograms(n, bits) * 2**bits
    return SECONDS_PER_TERM * per_user * users


def check_size(n: int, bits: int, users: int, max_seconds: float, what: str) -> None:
    """Refuse up front (``TimeBudgetError``) work estimated to take longer than ``max_seconds``."""
    if bits > 6 or (n + 1) ** (2**bits) >= 2**62:
        raise TimeBudgetError(f"{what}: {2**bits} possible reports and n={n} are too many to enumerate")
    seconds = estimate_seconds(n, bits, users)
    if seconds > max_seconds:
        raise TimeBudgetError(
            f"{what}: enumerating the {count_histograms(n, bits):,} histograms of n={n} reports of "
            f"{bits} bits would take about {seconds:.3g} s (limit max_seconds={max_seconds:g})"
        )


@dataclass(frozen=True)
class Level:
    """Every histogram of ``n`` reports, and the parents ``S − e_z`` of each at level ``n − 1``."""

    n: int
    counts: np.ndarray
    """``(H, K)`` int array, one histogram per row, in increasing order of :func:`codes`."""
    parents: tuple[np.ndarray, ...]
    """``parents[z][i]``: row of ``counts[i] − e_z`` at level ``n − 1`` (−1 where ``counts[i, z] = 0``)."""


def codes(counts: np.ndarray, n: int) -> np.ndarray:
    """Mixed-radix code of each histogram row (base ``n + 1``); increasing along a level."""
    base = (n + 1) ** np.arange(counts.shape[1] - 1, -1, -1, dtype=np.int64)
    return counts.astype(np.int64) @ base


class Histograms:
    """The integer-scaled laws of histograms for ``N`` reports of ``L`` bits at ``q = a/b``.

    Parameters
    ----------
    n : int
        Largest number of reports (levels ``0 .. n`` are built on demand).
    bits : int
        Bits per report.
    q : Fraction
        The flip probability, exactly.
    """

    def __init__(self, n: int, bits: int, q: Fraction) -> None:
        self.n, self.bits, self.q = n, bits, q
        self.size = 2**bits
        a, b = q.numerator, q.denominator
        table = [a**d * (b - a) ** (bits - d) for d in range(bits + 1)]
        weight = [[table[bin(v ^ z).count("1")] for z in range(self.size)] for v in range(self.size)]
        self.weights = np.array(weight, dtype=object)
        """``weights[v, z] = M(v)(z) · b^L``, an integer."""
        self.scale = b**bits
        self.levels = [Level(0, np.zeros((1, self.size), dtype=np.int64), ())]

    def level(self, n: int) -> Level:
        """Every histogram of ``n`` reports (built from the levels below)."""
        while len(self.levels) <= n:
            below = self.levels[-1]
            m = below.n + 1
            grown = np.concatenate([below.counts + np.eye(self.size, dtype=np.int64)[z] for z in range(self.size)])
            counts = np.unique(grown, axis=0)
            counts = counts[np.argsort(codes(counts, self.n))]
            known = codes(below.counts, self.n)
            parents = []
            for z in range(self.size):
                parent = counts.copy()
                parent[:, z] -= 1
                rows = np.searchsorted(known, codes(np.maximum(parent, 0), self.n))
                parents.append(np.where(counts[:, z] > 0, rows, -1))
            self.levels.append(Level(m, counts, tuple(parents)))
        return self.levels[n]

    def start(self) -> np.ndarray:
        """The law of no reports: the empty histogram, with probability 1."""
        return np.array([1], dtype=object)

    def add(self, law: np.ndarray, vector: int, n: int) -> np.ndarray:
        """The law of ``n`` reports from the law of ``n − 1`` and one more user holding ``vector``."""
        level = self.level(n)
        out = np.zeros(level.counts.shape[0], dtype=object)
        extended = np.concatenate([law, np.array([0], dtype=object)])  # row −1 reads 0
        for z in range(self.size):
            out = out + self.weights[vector, z] * extended[level.parents[z]]
        return out

    def law(self, users: list[int], base: np.ndarray | None = None, start: int = 0) -> np.ndarray:
        """The law of the histograms of ``users`` (vectors as ints) added to ``base`` (``start`` reports)."""
        law = self.start() if base is None else base
        for i, v in enumerate(users):
            law = self.add(law, v, start + i + 1)
        return law

    def denominator(self, n: int) -> int:
        """``b^(nL)``: the integers of a level-``n`` law divided by this are the probabilities."""
        return self.scale**n
