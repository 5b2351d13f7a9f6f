"""Homogeneous backgrounds for several bits: one pair turned into a tail of signed atoms.

A *member* of the family: ``N − 1`` users hold the same vector ``y`` and one user changes
from ``x`` to ``x′``; ``S`` is drawn with the user at ``x′`` (``D_m = bg + x′``). With
``M(v)(z) = p^L r^{h(v, z)}``, ``r = q/p``, the probability of a histogram ``S`` under
``bg + v`` is a constant times ``Σ_j M(v)(s_j) Π_{k≠j} M(y)(s_k)`` (the user is any one of
the reports), so after dividing by ``Π_k M(y)(s_k)``

    R = P(S | D_m) / P(S | D) = Σ_j A(s_j) / Σ_j B(s_j),   A = M(x′)/M(y),  B = M(x)/M(y).

``B > 0``, hence ``R > λ  ⇔  Σ_j V(s_j) > 0`` with the **signed** atom ``V = A − λB``
(``>=`` likewise): the tail is that of a sum of independent atoms, ``N − 1`` drawn from
``M(y)`` and one from ``M(x′)``. The engine sums non-negative atoms against a threshold,
so each atom is shifted by its law's smallest value ``m``: ``Σ_j V_j > 0  ⇔
Σ_j (V_j − m_j) > −Σ_j m_j``, an identity (no approximation). Atoms that decide the event
alone (``V`` plus the smallest possible rest already positive) are split off in closed
form as in :mod:`gpu_rs.engine.crossing`, and the rest goes through the engine's methods.

**Symmetry.** Flipping the bits where ``x`` is 1 (in every vector and report) and permuting
bits maps the mechanism to itself, so ``x = 0…0``, ``x′ = 1^d 0^(L−d)`` and ``y`` is fixed by
``a`` (its ones among the ``d`` changed bits) and ``b`` (its ones elsewhere); bits where
``x = x′ = y`` carry no information. A report ``z`` with ``i1`` ones on ``y``'s changed ones,
``i0`` on the other changed bits and ``j1`` on ``y``'s other ones has

    h(x′, z) − h(y, z) = d − a − b − 2 (i0 − j1),   h(x, z) − h(y, z) = 2 (i1 + j1) − a − b,

so ``V`` depends on ``(i1 + j1, i0 − j1)`` only: ``O(L²)`` distinct atoms. Under ``M(y)``,
``i1 ~ Bin(a, p)``, ``i0 ~ Bin(d − a, q)``, ``j1 ~ Bin(b, p)``; under ``M(x′)``,
``i1 ~ Bin(a, p)``, ``i0 ~ Bin(d − a, p)``, ``j1 ~ Bin(b, q)``. The other order (``S`` drawn
with the user at ``x``, ratio ``ΣB/ΣA``) is the same problem with ``x`` and ``x′`` swapped,
which the flip of the changed bits maps to the member ``(d, d − a, b)``. So the members
``1 <= d <= L``, ``0 <= a <= d``, ``0 <= b <= L − d`` in this one order cover both orders of
every homogeneous background. ``a = b = 0`` is seed 003's pair at ``d = L`` (forward order),
``a = d = L, b = 0`` its reverse order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from gpu_rs.common.binomial import pmf_exact
from gpu_rs.common.floats import EXP_LIMIT, UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.engine import chernoff
from gpu_rs.engine.atoms import log_r
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.crossing import Crossing
from gpu_rs.engine.laws import Cut, Law, SumLaw, exact_law, log_fraction, log_mass, restricted
from gpu_rs.engine.pipeline import Plan, crossed_bounds

EXACT_BITS = 12
"""Up to this many informative bits (``d + b``) the probabilities are exact rationals."""
LOG_FLOAT = -700.0
"""Beyond :data:`EXACT_BITS`, float probabilities are used while every term's log exceeds this."""
VALUE_ERROR = 16.0 * UNIT
"""Per unit of ``(A + λB)(2 + |log A| + |log λB|)``: the absolute error of a computed atom ``A − λB``."""


@dataclass(frozen=True, order=True)
class Member:
    """One homogeneous background up to symmetry (module docstring): ``x = 0…0``, ``x′ = 1^d 0…0``,
    ``y`` with ``a`` ones among the changed bits and ``b`` ones elsewhere; ``S`` drawn with the user at ``x′``."""

    bits: int
    d: int
    a: int
    b: int

    def vectors(self) -> tuple[str, str, str]:
        """``(y, x, x′)`` as bit strings."""
        L, d, a, b = self.bits, self.d, self.a, self.b
        y = "1" * a + "0" * (d - a) + "1" * b + "0" * (L - d - b)
        return y, "0" * L, "1" * d + "0" * (L - d)

    def reverse(self) -> Member:
        """The same background in the other order (``S`` drawn with the user at ``x``)."""
        return Member(self.bits, self.d, self.d - self.a, self.b)

    def describe(self, n: int) -> str:
        y, x, xm = self.vectors()
        return f"background of {n - 1} users at {y}, the user changing {x} -> {xm}, S drawn with the user at {xm}"


def members(bits: int) -> Iterator[Member]:
    """Every member for ``bits`` bits: ``Σ_d (d + 1)(L − d + 1)`` of them."""
    for d in range(1, bits + 1):
        for a in range(d + 1):
            for b in range(bits - d + 1):
                yield Member(bits, d, a, b)


def vector(v: object, name: str) -> tuple[int, ...]:
    """A bit vector given as a string of 0/1 or a sequence of 0/1."""
    items = list(v) if isinstance(v, str | list | tuple) else None
    if not items or any(str(c) not in ("0", "1") for c in items):
        raise ValueError(f"{name} must be a non-empty bit string or sequence of 0/1: got {v!r}")
    return tuple(int(str(c)) for c in items)


def member_of(background: object, before: object, after: object) -> Member:
    """The member equal to the pair ``(background, before -> after)`` in the forward order."""
    y, x, xm = vector(background, "background"), vector(before, "before"), vector(after, "after")
    if not len(y) == len(x) == len(xm):
        raise ValueError(f"background, before and after must have the same length: got {len(y)}, {len(x)}, {len(xm)}")
    changed = [i for i in range(len(x)) if x[i] != xm[i]]
    if not changed:
        raise ValueError("before and after must differ in at least one bit: a neighbouring pair changes one user")
    ones = [y[i] ^ x[i] for i in range(len(x))]
    a = sum(ones[i] for i in changed)
    return Member(len(x), len(changed), a, sum(ones) - a)


@lru_cache(maxsize=4096)
def _log_pmf(m: int, success: Fraction) -> np.ndarray:
    """``log P[Bin(m, success) = i]``, each to a few ulp."""
    return np.array([log_fraction(e) for e in pmf_exact(m, success)])


@lru_cache(maxsize=4096)
def _log_pmf_at(m: int, q: float, flipped: bool) -> np.ndarray:
    """:func:`_log_pmf` of ``Bin(m, p)`` (``flipped=False``) or ``Bin(m, q)``, cached by the float ``q``."""
    qf = Fraction(q)
    return _log_pmf(m, qf if flipped else 1 - qf)


def signed_atoms(alpha: Any, beta: Any, q: float, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The atoms ``V = A − λB`` with ``A = r^alpha``, ``λB = e^ε r^beta``, their error bounds (:data:`VALUE_ERROR`)
    and whether ``A`` or ``λB`` leaves the float64 range there (value and error then meaningless). For a
    key ``(u, w) = (i1 + j1, i0 − j1)`` of a member (module docstring), ``alpha = d − a − b − 2w`` and
    ``beta = 2u − a − b``."""
    lr = log_r(q)
    log_a = np.asarray(alpha, dtype=float) * lr
    log_lb = eps + np.asarray(beta, dtype=float) * lr
    over = np.maximum(np.abs(log_a), np.abs(log_lb)) > EXP_LIMIT
    with np.errstate(over="ignore", invalid="ignore"):
        top = np.maximum(log_a, log_lb)
        sign = np.where(log_a >= log_lb, 1.0, -1.0)
        values = sign * np.exp(top) * -np.expm1(-np.abs(log_a - log_lb))
        errors = VALUE_ERROR * (np.exp(log_a) + np.exp(log_lb)) * (2.0 + np.abs(log_a) + np.abs(log_lb))
    return values, errors, over


@dataclass(frozen=True)
class Atoms:
    """One report's signed atoms ``V = A − λB``: values, their error bounds, exact probabilities."""

    values: np.ndarray
    errors: np.ndarray
    log_probs: np.ndarray
    probs: np.ndarray
    rel: np.ndarray
    exact: tuple[Fraction, ...] | None


@lru_cache(maxsize=1024)
def report_atoms(member: Member, q: float, eps: float, user: bool, exact: bool = True) -> Atoms:
    """The atoms of a background report (``user=False``: ``z ~ M(y)``) or of the user's (``z ~ M(x′)``).

    The probabilities are exact rationals up to :data:`EXACT_BITS` informative bits (if ``exact``);
    beyond, floats: each a sum of products of three binomial probabilities, with its error bound.
    """
    d, a, b = member.d, member.a, member.b
    i1, i0, j1 = np.meshgrid(np.arange(a + 1), np.arange(d - a + 1), np.arange(b + 1), indexing="ij")
    index = ((i1 + j1) * (d - a + b + 1) + (i0 - j1 + b)).ravel()
    keys = np.unique(index)
    u, w = keys // (d - a + b + 1), keys % (d - a + b + 1) - b
    values, errors, over = signed_atoms(d - a - b - 2 * w, 2 * u - a - b, q, eps)
    if over.any():
        raise ValueError(f"the atoms of {member} at q={q!r}, eps={eps!r} overflow float64")
    logs = [_log_pmf_at(a, q, False), _log_pmf_at(d - a, q, not user), _log_pmf_at(b, q, user)]
    log_terms = (logs[0][:, None, None] + logs[1][None, :, None] + logs[2][None, None, :]).ravel()
    if (d + b > EXACT_BITS or not exact) and float(log_terms.min()) > LOG_FLOAT:
        # Each term: exp of a sum of three logs (relative error 4u per unit of |log|), then a
        # sum of at most ``log_terms.size`` positive terms.
        probs = np.bincount(index, weights=np.exp(log_terms))[keys]
        rel = 8.0 * UNIT * (4.0 + float(np.abs(log_terms).max()) + log_terms.size) * np.ones(keys.size)
        return Atoms(values, errors, np.log(probs), probs, rel, None)
    qf = Fraction(q)
    pf = 1 - qf
    pmfs = pmf_exact(a, pf), pmf_exact(d - a, pf if user else qf), pmf_exact(b, qf if user else pf)
    mass = [Fraction(0)] * int(index.max() + 1)
    flat = [f1 * f0 * fj for f1 in pmfs[0] for f0 in pmfs[1] for fj in pmfs[2]]
    for k, f in zip(index.tolist(), flat, strict=True):
        mass[k] += f
    kept = [mass[k] for k in keys.tolist()]
    law = exact_law(values, kept, np.array([log_fraction(e) for e in kept]))
    return Atoms(values, errors, law.log_probs, law.probs, law.rel_error, law.exact)


def crossing(member: Member, n: int, q: float, eps: float, inclusive: bool, exact: bool = True) -> Crossing:
    """``P[Σ_j V(s_j) > 0]`` (``>= 0`` when ``inclusive``) for ``n`` users, as the engine's split problem.

    Two equivalent forms: the upper tail ``P[Σ V > 0]``, or the lower tail ``P[Σ W < 0]`` of
    ``W = −V`` (``<= 0`` when inclusive). An atom *decides* when, with every other summand at
    its extreme, it alone makes the event certain (upper form) or impossible (lower form). Both
    kinds cannot exist at once (a certain atom plus an impossible one would give a sum that is
    both positive and not), so the form is the one whose deciding atoms exist, else the one
    whose heavy atoms (the larger of ``max V`` and ``−min V``) lie on the side split off.
    ``exact=False`` uses float probabilities (with their error bounds) for a fast screening.
    """
    parts = [(report_atoms(member, q, eps, False, exact), n - 1), (report_atoms(member, q, eps, True, exact), 1)]
    parts = [(at, c) for at, c in parts if c > 0]
    slack = sum(c * (2.0 * float(at.errors.max()) + 4.0 * UNIT * float(np.abs(at.values).max())) for at, c in parts)
    certain = _deciding(parts, 1.0, slack)
    impossible = _deciding(parts, -1.0, slack)
    if any(c.any() for c in certain):
        upper = True
    elif any(i.any() for i in impossible):
        upper = False
    else:
        upper = max(float(at.values.max()) for at, _ in parts) >= -min(float(at.values.min()) for at, _ in parts)
    return _split(parts, certain if upper else impossible, 1.0 if upper else -1.0, slack, inclusive)


def _deciding(parts: list[tuple[Atoms, int]], sign: float, slack: float) -> list[np.ndarray]:
    """Per part, the atoms ``v`` of ``sign · V`` that make ``Σ sign · V > 0`` even with the rest at its smallest."""
    lowest = sum(c * float((sign * at.values).min()) for at, c in parts)
    out = []
    for at, _ in parts:
        v = sign * at.values
        rest = lowest - float(v.min())
        out.append(v + rest > slack + 4.0 * UNIT * (abs(rest) + np.abs(v)))
    return out


def _split(
    parts: list[tuple[Atoms, int]], decide: list[np.ndarray], sign: float, slack: float, inclusive: bool
) -> Crossing:
    """The split problem for ``Σ sign · V``: above 0 (``sign = 1``) or below 0 (``sign = −1``)."""
    log_keep = err = 0.0
    laws: list[tuple[Law, int]] = []
    shift = lowest = 0.0
    for (at, c), gone in zip(parts, decide, strict=True):
        v = sign * at.values
        lowest += c * float(v.min())
        small = ~gone
        log_a, log_a_err = log_mass(at.log_probs, at.probs, at.rel, small)
        if not math.isfinite(log_a):
            return Crossing(None, -math.inf, 0.0, Cut(0.0, 0.0, inclusive, sign > 0), sign > 0)
        log_keep += c * log_a
        err += c * (log_a_err + 2.0 * UNIT * abs(log_a))
        m = float(v[small].min())
        shift += c * m
        laws.append((restricted(v - m, at.log_probs, at.probs, at.rel, at.exact, small), c))
    err += 4.0 * UNIT * abs(log_keep)
    y = -shift
    width = slack + 8.0 * UNIT * (abs(y) + abs(lowest))
    cut = Cut(y - width, y + width, inclusive, sign > 0)
    return Crossing(SumLaw(tuple(laws)), log_keep, err, cut, sign > 0)


def chernoff_upper(cross: Crossing) -> float:
    """A certified upper bound on the member's tail from the Chernoff bound of the kept sum."""
    if cross.law is None:
        return 1.0 if cross.upper else 0.0
    k_lo, k_hi = cross.keep
    if cross.upper:
        return min(1.0, 1.0 - k_lo + k_hi * chernoff.upper_tail(cross.law, cross.cut.lo))
    return min(1.0, k_hi * chernoff.lower_tail(cross.law, cross.cut.hi))


def member_bounds(member: Member, prob: Problem, inclusive: bool, plan: Plan, xp: Any) -> Bounds:
    """Certified bounds on the member's tail ``P[R > e^ε]`` for ``prob.n`` users."""
    return crossed_bounds(crossing(member, prob.n, prob.q, prob.eps, inclusive), plan, xp)
