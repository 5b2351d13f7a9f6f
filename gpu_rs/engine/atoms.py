"""The atoms of one randomized record (seed 003 §3), with exact probabilities.

A record with ``l`` set bits contributes ``w_l = r^(L − 2l)`` to ``X`` (``r = q/p``);
for k-randomization the engine also sums ``w_l²``, so a record kind carries a
``power``. A zero vector sets ``l ~ Bin(L, q)`` bits, the all-ones outlier
``l ~ Bin(L, p)``. Values are kept in log space (``L`` up to 1024 neither
overflows nor silently underflows), and the gaps ``w_l − w_0`` are formed
without cancellation. Up to :data:`EXACT_BITS` bits the probabilities are exact
rationals: ``q`` is a float, hence a rational, and so is ``C(L, l) q^l p^(L−l)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gpu_rs.common.floats import EXP_LIMIT, UNIT, split_exact

EXACT_BITS = 128
"""Up to this many bits the probabilities are computed exactly, as rationals."""


@dataclass(frozen=True)
class Kind:
    """A kind of record: a zero vector or the all-ones outlier, its atoms raised to ``power``.

    With ``top`` set, the record is conditioned on having at most ``top`` set bits (the
    "light" records of k-randomization's conditioning).
    """

    outlier: bool
    power: int = 1
    top: int | None = None

    def __str__(self) -> str:
        name = "one" if self.outlier else "zero"
        name = name if self.power == 1 else f"{name}^{self.power}"
        return name if self.top is None else f"{name}[l <= {self.top}]"


ZERO = Kind(False)
ONE = Kind(True)


@dataclass(frozen=True)
class Atoms:
    """Atoms ``w_l^power`` (``l = 0..L``) of one record kind, and their probabilities (host arrays).

    Attributes
    ----------
    log_values : ndarray
        ``power (L − 2l) log r``, increasing in ``l``.
    gaps : ndarray
        ``w_l^power − w_0^power >= 0``, formed without cancellation (``inf`` beyond float64).
    value_error : float
        Relative error bound of every ``exp(log_values)`` and every gap.
    log_probs, probs : ndarray
        Probabilities of ``l`` set bits, and their logs (kept where ``probs`` underflows).
    probs_lo : ndarray
        Low parts: ``probs + probs_lo`` carries about 106 bits where ``exact`` is known.
    prob_error : ndarray
        Relative error bound of each ``probs + probs_lo``.
    exact : tuple of Fraction or None
        The exact probabilities (``bits <= 128``).
    """

    log_values: np.ndarray
    gaps: np.ndarray
    value_error: float
    log_probs: np.ndarray
    probs: np.ndarray
    probs_lo: np.ndarray
    prob_error: np.ndarray
    exact: tuple[Fraction, ...] | None


def log_r(q: float) -> float:
    """``log(q/p) = −log1p((1 − 2q)/q)``: relative error at most ``4 u`` (no cancellation near 1/2)."""
    return -math.log1p((1.0 - 2.0 * q) / q)


def eps_top(bits: int, q: float) -> float:
    """``L log(p/q)`` as computed (not raised): where grids of ``ε`` end (the profile's export, a composition's
    losses). Proofs that need a value at least the largest loss use :func:`largest_loss`."""
    return bits * math.log((1.0 - q) / q)


def largest_loss(d: int, q: float) -> float:
    """``d log(p/q)`` raised by 8 ulp (:func:`log_r` errs by at most ``4 u``): at least the largest privacy loss
    of a pair at Hamming distance ``d`` (the ratio of one report is at most ``(p/q)^d``), where its ``δ`` is 0."""
    return d * -log_r(q) * (1.0 + 8.0 * UNIT)


@lru_cache(maxsize=64)
def _zero_vector(
    bits: int, q: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[Fraction, ...] | None]:
    """Probabilities of ``l`` set bits for a zero vector: logs, floats, low parts, errors, exact."""
    log_q, log_p = math.log(q), math.log1p(-q)
    comb = [math.comb(bits, k) for k in range(bits + 1)]
    l = np.arange(bits + 1, dtype=np.float64)
    log_comb = np.array([math.log(c) for c in comb])
    log_probs = log_comb + l * log_q + (bits - l) * log_p
    prob_error = 8.0 * UNIT * (2.0 + log_comb + bits * (abs(log_q) + abs(log_p)))
    probs = np.exp(log_probs)
    probs_lo = np.zeros_like(probs)
    p = 1.0 - q
    for k in range(bits + 1):
        if k * log_q + (bits - k) * log_p > -EXP_LIMIT:
            # Direct products are far more accurate than exp of a long log sum:
            # float(comb), two correctly rounded powers, p = 1 - q and two products.
            probs[k] = float(comb[k]) * (q**k * p ** (bits - k))
            log_probs[k] = math.log(probs[k])
            prob_error[k] = (bits + 8.0) * UNIT
    exact = None
    if bits <= EXACT_BITS:
        qf = Fraction(q)
        pf = 1 - qf
        exact = tuple(comb[k] * qf**k * pf ** (bits - k) for k in range(bits + 1))
        for k, e in enumerate(exact):
            probs[k], probs_lo[k], prob_error[k] = split_exact(e)
            if probs[k] > 0:
                log_probs[k] = math.log(probs[k])
    for arr in (log_probs, probs, probs_lo, prob_error):
        arr.flags.writeable = False
    return log_probs, probs, probs_lo, prob_error, exact


def record_atoms(bits: int, q: float, kind: Kind = ZERO) -> Atoms:
    """The atoms of one record of ``kind`` for ``bits`` bits flipped with probability ``q``."""
    lr = log_r(q)
    power = kind.power
    l = np.arange(bits + 1, dtype=np.float64)
    log_values = power * (bits - 2.0 * l) * lr
    # w_l^s - w_0^s = w_0^s (r^(-2ls) - 1) with d = -2 l s log r > 0, without cancellation.
    d = -2.0 * power * l[1:] * lr
    gaps = np.zeros(bits + 1)
    with np.errstate(over="ignore"):  # atoms beyond float64 are inf; they always cross the threshold
        gaps[1:] = np.exp(power * bits * lr + d + np.log(-np.expm1(-d)))
    # log r has relative error 4u, so each log value errs by 5u |log value| + u, and exp
    # turns that into a relative error; the gap's expm1 term adds a few u.
    value_error = 8.0 * UNIT * (2.0 + 2.0 * power * bits * abs(lr))
    log_probs, probs, probs_lo, prob_error, exact = _zero_vector(bits, q)
    if kind.outlier:
        log_probs, probs, probs_lo, prob_error = (a[::-1] for a in (log_probs, probs, probs_lo, prob_error))
        exact = exact[::-1] if exact is not None else None
    if kind.top is not None and kind.top < bits:
        return _light(Atoms(log_values, gaps, value_error, log_probs, probs, probs_lo, prob_error, exact), kind.top)
    return Atoms(log_values, gaps, value_error, log_probs, probs, probs_lo, prob_error, exact)


def _light(at: Atoms, top: int) -> Atoms:
    """``at`` conditioned on at most ``top`` set bits: levels ``0 … top``, renormalized
    (exactly with rational probabilities; otherwise the log-sum's error is added)."""
    keep = slice(0, top + 1)
    if at.exact is not None:
        kept = at.exact[keep]
        total = sum(kept, Fraction(0))
        split = [split_exact(e / total) for e in kept]
        probs = np.array([s[0] for s in split])
        lo = np.array([s[1] for s in split])
        err = np.array([s[2] for s in split])
        logs = np.where(
            probs > 0,
            np.log(np.where(probs > 0, probs, 1.0)),
            at.log_probs[keep] - (math.log(total.numerator) - math.log(total.denominator)),
        )
        return Atoms(
            at.log_values[keep], at.gaps[keep], at.value_error, logs, probs, lo, err, tuple(e / total for e in kept)
        )
    log_total = float(np.logaddexp.reduce(at.log_probs[keep]))
    logs = at.log_probs[keep] - log_total
    err = at.prob_error[keep] + 2.0 * float(at.prob_error[keep].max()) + 8.0 * UNIT * (top + 2 + abs(log_total))
    return Atoms(at.log_values[keep], at.gaps[keep], at.value_error, logs, np.exp(logs), np.zeros(top + 1), err, None)
