"""Oracles for composition, written from the definitions alone (never import gpu_rs).

* :func:`one_bit_pair`: the exact laws of the count of ones of ``N`` one-bit reports for one
  neighbouring pair (a background of ``ones`` users holding 1, one user changing 0 → 1), as
  rationals;
* :func:`composed_delta`: ``δ(ε) = Σ_x (P^T(x) − e^ε Q^T(x))_+`` of the ``T``-fold product, exact:
  outcomes are grouped by their likelihood ratio (a rational), which multiplies under products;
  ``e^ε`` is taken to 40 digits (``decimal``), so the answer errs by far less than 1e-30;
* :func:`monte_carlo_delta`: ``E[(1 − e^{ε − Σ ℓ_i})_+]`` of i.i.d. losses by sampling, with a
  confidence interval.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def _add(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def one_bit_pair(n: int, q: Fraction, ones: int) -> tuple[list[Fraction], list[Fraction]]:
    """``(P, Q)``: the count of ones under ``D_m`` (the user holds 1) and ``D`` (the user holds 0)."""
    background = _add(_binomial(n - 1 - ones, q), _binomial(ones, 1 - q))
    return _add(background, [q, 1 - q]), _add(background, [1 - q, q])


def _ratios(p: list[Fraction], q: list[Fraction]) -> dict[Fraction | None, tuple[Fraction, Fraction]]:
    """``{P(x)/Q(x) (None for Q(x) = 0): (P mass, Q mass)}``."""
    out: dict[Fraction | None, tuple[Fraction, Fraction]] = {}
    for a, b in zip(p, q, strict=True):
        key = None if b == 0 else a / b
        old = out.get(key, (Fraction(0), Fraction(0)))
        out[key] = (old[0] + a, old[1] + b)
    return out


def composed_delta(p: list[Fraction], q: list[Fraction], times: int, eps: list[float]) -> list[float]:
    """``δ_{P^T‖Q^T}(ε)`` at each ``ε``, exact up to the 40-digit ``e^ε``."""
    one = _ratios(p, q)
    total = {Fraction(1): (Fraction(1), Fraction(1))}
    for _ in range(times):
        nxt: dict[Fraction | None, tuple[Fraction, Fraction]] = {}
        for r1, (a1, b1) in total.items():
            for r2, (a2, b2) in one.items():
                key = None if r1 is None or r2 is None else r1 * r2
                old = nxt.get(key, (Fraction(0), Fraction(0)))
                nxt[key] = (old[0] + a1 * a2, old[1] + b1 * b2)
        total = nxt
    getcontext().prec = 40
    out = []
    for e in eps:
        lam = Decimal(e).exp()
        s = Decimal(0)
        for r, (a, b) in total.items():
            if r is None or (r > 0 and Decimal(r.numerator) / Decimal(r.denominator) > lam):
                s += Decimal(a.numerator) / Decimal(a.denominator) - lam * Decimal(b.numerator) / Decimal(b.denominator)
        out.append(float(s))
    return out


def monte_carlo_delta(
    losses: np.ndarray, probs: np.ndarray, infinity: float, times: int, eps: float, samples: int, seed: int
) -> tuple[float, float]:
    """``(estimate, half-width)`` of ``E[(1 − e^{ε − Σ ℓ_i})_+]`` for ``times`` i.i.d. losses (six standard errors)."""
    rng = np.random.default_rng(seed)
    weights = np.append(probs, infinity)
    weights = weights / weights.sum()
    values = np.append(losses, np.inf)
    draws = values[rng.choice(values.size, size=(samples, times), p=weights)].sum(axis=1)
    payoff = np.where(np.isinf(draws), 1.0, np.maximum(0.0, -np.expm1(eps - np.where(np.isinf(draws), 0.0, draws))))
    return float(payoff.mean()), 6.0 * float(payoff.std()) / math.sqrt(samples) + 1e-12


def _records(bits: int, q: Fraction, held: int) -> list[Fraction]:
    """The law of one randomized report of the vector ``held`` (each bit flipped with probability ``q``)."""
    return [q ** bin(r ^ held).count("1") * (1 - q) ** (bits - bin(r ^ held).count("1")) for r in range(1 << bits)]


def _shuffled(bits: int, q: Fraction, k: int, vectors: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
    """The law of the multiset (counts per record value) of ``k`` reports of every vector."""
    law = {tuple([0] * (1 << bits)): Fraction(1)}
    for v in vectors:
        one = _records(bits, q, v)
        for _ in range(k):
            nxt: dict[tuple[int, ...], Fraction] = {}
            for counts, pr in law.items():
                for r, pr_r in enumerate(one):
                    key = (*counts[:r], counts[r] + 1, *counts[r + 1 :])
                    nxt[key] = nxt.get(key, Fraction(0)) + pr * pr_r
            law = nxt
    return law


def krand_every_pair(n: int, bits: int, q: Fraction, k: int, eps: float) -> tuple[float, float]:
    """``(max tail P[R_k > e^ε], max δ(ε))`` over every neighbouring pair and both orders, exact.

    Users hold any vectors; one user's vector changes (by relabeling with XOR, from 0 to any other);
    every user sends ``k`` reports and the collector sees the multiset of all ``kn``.
    """
    import itertools

    getcontext().prec = 40
    lam = Decimal(eps).exp()

    def dec(x: Fraction) -> Decimal:
        return Decimal(x.numerator) / Decimal(x.denominator)

    tail = delta = 0.0
    for others in itertools.combinations_with_replacement(range(1 << bits), n - 1):
        base = _shuffled(bits, q, k, others)
        for changed in range(1, 1 << bits):
            laws = [_shuffled(bits, q, k, (0,)), _shuffled(bits, q, k, (changed,))]
            whole = []
            for law in laws:
                out: dict[tuple[int, ...], Fraction] = {}
                for c1, p1 in base.items():
                    for c2, p2 in law.items():
                        key = tuple(a + b for a, b in zip(c1, c2, strict=True))
                        out[key] = out.get(key, Fraction(0)) + p1 * p2
                whole.append(out)
            for p, qq in (whole, whole[::-1]):
                t = sum((dec(v) for s, v in p.items() if dec(v) > lam * dec(qq[s])), Decimal(0))
                d = sum((dec(v) - lam * dec(qq[s]) for s, v in p.items() if dec(v) > lam * dec(qq[s])), Decimal(0))
                tail, delta = max(tail, float(t)), max(delta, float(d))
    return tail, delta
