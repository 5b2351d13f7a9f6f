"""Independent oracles for k-randomization (SPEC §1.3, seed 003 §6).  Never imports gpu_rs.

The model
---------
``n`` users, ``bits`` = L bits, flip probability ``q`` (``p = 1 - q``, ``r = q/p``).  Every
user sends ``k`` independent randomizations of its vector (each bit flipped independently
with probability ``q``, independently across the ``k`` reports); the ``M = k n`` records of
all users are shuffled together and the collector sees their multiset.

* ``D^k``: every user holds the zero vector (``k n`` zero records).
* ``D_m^k``: user 0 holds the all-ones vector (its ``k`` records are randomized ones), the
  other ``n - 1`` users hold zero vectors (``n0 = k (n - 1)`` zero records).

The claimed ratio (SPEC §1.3) is ``R_k = P(S | D_m^k) / P(S | D^k) = e_k(w) / C(M, k)``,
``w_i = r^(L - 2 l_i)`` per record, ``l_i`` its number of set bits.  ``k = 1`` is ``X / n``.

Oracles
-------
``shuffled_law_sequences``  the law of the shuffled multiset from the definition: every
                            ordered list of ``M`` records, user by user; tiny cases only.
``shuffled_law``            the same law as a sum over which ``k`` records are the outlier's
                            (two multinomials); no claim about the ratio is used.
``esym`` / ``esym_counts``  elementary symmetric polynomials (exact DP).
``tail_brute`` / ``moments_brute``   exact (Fraction) tail and moments of ``P_m / P_0``.
``joint_law``               law of (outlier records' levels, zero records' level counts):
                            what the tail-bound inequalities are checked on.
``tail_counts``             L = 1, 2 and ``n`` up to ~1000: exact thresholds (Fractions) and
                            log-space probabilities; ``exact=True`` uses Fractions throughout.
``bound_*``                 the certified tail bounds of docs/k-randomization.md §5, computed
                            exactly from ``joint_law`` (tiny cases), for bracket checks.
``monte_carlo_tail_k``      any L: sampled level counts, Clopper-Pearson interval.

All exact functions take ``q`` and ``lam`` as ``Fraction`` (a float is converted exactly).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import stats

__all__ = [
    "bound_bonferroni",
    "bound_bonferroni_conditional",
    "bound_conditional",
    "bound_maclaurin",
    "bound_maclaurin_conditional",
    "ell",
    "ell_trunc",
    "esym",
    "esym_counts",
    "joint_law",
    "levels",
    "moments_brute",
    "monte_carlo_tail_k",
    "ratio_formula",
    "shuffled_law",
    "shuffled_law_sequences",
    "tail_brute",
    "tail_counts",
    "tail_counts_reverse",
    "tail_joint",
]


def _F(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


# --------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------
def levels(bits, q):
    """``(w, pi0, pi1)`` indexed by the level l = 0..L (number of set bits), exact.

    ``w[l] = r^(L - 2l)``, ``pi0[l] = C(L,l) q^l p^(L-l)`` (a randomized zero vector),
    ``pi1[l] = C(L,l) p^l q^(L-l)`` (a randomized all-ones vector).
    """
    L = int(bits)
    q = _F(q)
    p = 1 - q
    r = q / p
    w = [r ** (L - 2 * l) for l in range(L + 1)]
    pi0 = [math.comb(L, l) * q**l * p ** (L - l) for l in range(L + 1)]
    pi1 = [math.comb(L, l) * p**l * q ** (L - l) for l in range(L + 1)]
    return w, pi0, pi1


def esym(values, kmax):
    """``[e_0, ..., e_kmax]`` of ``values`` (exact for Fractions)."""
    e = [Fraction(1)] + [Fraction(0)] * kmax
    for v in values:
        for j in range(kmax, 0, -1):
            e[j] += v * e[j - 1]
    return e


def esym_counts(counts, w, kmax):
    """``[e_0..e_kmax]`` of the collection with ``counts[l]`` copies of ``w[l]``:
    coefficients of ``prod_l (1 + w_l t)^counts[l]``."""
    e = [Fraction(1)] + [Fraction(0)] * kmax
    for c, wl in zip(counts, w, strict=True):
        if c == 0:
            continue
        f = [math.comb(c, j) * wl**j for j in range(min(c, kmax) + 1)]
        new = [Fraction(0)] * (kmax + 1)
        for i, ei in enumerate(e):
            if ei == 0:
                continue
            for j, fj in enumerate(f):
                if i + j > kmax:
                    break
                new[i + j] += ei * fj
        e = new
    return e


def _popcount(x):
    return bin(x).count("1")


# --------------------------------------------------------------------------------------
# the law of the shuffled output
# --------------------------------------------------------------------------------------
def shuffled_law_sequences(n, bits, q, k, max_sequences=2**20):
    """Law of the shuffled multiset of records, from the definition.

    Enumerates every ordered list of the ``M = k n`` records (user 0's ``k`` records first,
    then user 1's, ...), each record a bit vector ``x in {0,1}^L`` (an int), with the
    probability that the users' independent randomizations produce it; shuffling maps a list
    to its multiset (the sorted tuple).  Returns ``{multiset: (P under D_m^k, P under D^k)}``.
    """
    L, M = int(bits), int(k) * int(n)
    q = _F(q)
    p = 1 - q
    V = 2**L
    n_sequences = V**M
    if n_sequences > max_sequences:
        raise ValueError(f"{V}^{M} sequences is too many for the brute force")
    # P(record x | original vector): zero original -> q^|x| p^(L-|x|); ones -> p^|x| q^(L-|x|)
    from_zero = [q ** _popcount(x) * p ** (L - _popcount(x)) for x in range(V)]
    from_one = [p ** _popcount(x) * q ** (L - _popcount(x)) for x in range(V)]
    law = {}
    for seq in itertools.product(range(V), repeat=M):
        pm = Fraction(1)
        p0 = Fraction(1)
        for pos, x in enumerate(seq):
            user = pos // k
            pm *= from_one[x] if user == 0 else from_zero[x]
            p0 *= from_zero[x]
        key = tuple(sorted(seq))
        a, b = law.get(key, (Fraction(0), Fraction(0)))
        law[key] = (a + pm, b + p0)
    return law


def _count_vectors(total, parts):
    """All tuples of ``parts`` nonnegative ints summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _count_vectors(total - first, parts - 1):
            yield (first, *rest)


def _multinomial(counts):
    out = math.factorial(sum(counts))
    for c in counts:
        out //= math.factorial(c)
    return out


def shuffled_law(n, bits, q, k):
    """Law of the shuffled multiset, by counts over the ``2^L`` record types.

    Under ``D^k`` the multiset with type counts ``s`` has probability
    ``multinomial(M; s) prod_x pi0(x)^s_x``.  Under ``D_m^k`` the outlier's ``k`` records
    have type counts ``t <= s`` (a multinomial over ``k``) and the others ``s - t`` (a
    multinomial over ``M - k``): ``P_m(s) = sum_t mult(k; t) prod pi1^t mult(M-k; s-t)
    prod pi0^(s-t)``.  Returns ``{multiset as sorted tuple: (P_m, P_0)}``, the same keys as
    :func:`shuffled_law_sequences`.
    """
    L, M, k = int(bits), int(k) * int(n), int(k)
    q = _F(q)
    p = 1 - q
    V = 2**L
    from_zero = [q ** _popcount(x) * p ** (L - _popcount(x)) for x in range(V)]
    from_one = [p ** _popcount(x) * q ** (L - _popcount(x)) for x in range(V)]

    def prob(counts, pr):
        out = Fraction(_multinomial(counts))
        for c, px in zip(counts, pr, strict=True):
            out *= px**c
        return out

    outl = [(t, prob(t, from_one)) for t in _count_vectors(k, V)]
    law = {}
    for s in _count_vectors(M, V):
        p0 = prob(s, from_zero)
        pm = Fraction(0)
        for t, pt in outl:
            if all(ti <= si for ti, si in zip(t, s, strict=True)):
                rest = tuple(si - ti for si, ti in zip(s, t, strict=True))
                pm += pt * prob(rest, from_zero)
        key = tuple(x for x in range(V) for _ in range(s[x]))
        law[key] = (pm, p0)
    return law


def ratio_formula(multiset, bits, q, k):
    """``e_k(w) / C(M, k)`` for a multiset of records (bit vectors as ints)."""
    L = int(bits)
    w, _, _ = levels(L, q)
    ws = [w[_popcount(x)] for x in multiset]
    return esym(ws, k)[k] / math.comb(len(ws), k)


def tail_brute(n, bits, q, k, lam, inclusive=False, law=None):
    """Exact ``P_{D_m^k}[P_m(S)/P_0(S) > lam]`` (``>=`` with ``inclusive``), by brute force
    over every multiset; the ratio is computed from the law, not from the e_k formula."""
    lam = _F(lam)
    law = shuffled_law(n, bits, q, k) if law is None else law
    total = Fraction(0)
    for pm, p0 in law.values():
        ratio = pm / p0
        if (ratio >= lam) if inclusive else (ratio > lam):
            total += pm
    return total


def moments_brute(n, bits, q, k, law=None):
    """Exact ``(E R_k, Var R_k)`` under ``D_m^k``, ``R_k = P_m/P_0``, by brute force."""
    law = shuffled_law(n, bits, q, k) if law is None else law
    m1 = sum(pm * (pm / p0) for pm, p0 in law.values())
    m2 = sum(pm * (pm / p0) ** 2 for pm, p0 in law.values())
    return m1, m2 - m1 * m1


# --------------------------------------------------------------------------------------
# the law of (outlier records, zero records) by levels
# --------------------------------------------------------------------------------------
def joint_law(n, bits, q, k):
    """Exact law of the records by level, split by origin, under ``D_m^k``.

    Returns ``(outl, zero)`` with ``outl`` a list of ``(u, P(u))``, ``u`` the sorted tuple of
    the ``k`` outlier records' levels, and ``zero`` a list of ``(c, P(c))``, ``c`` the count
    vector (by level) of the ``n0 = k (n - 1)`` zero records.  The two are independent.
    """
    L, k = int(bits), int(k)
    n0 = k * (int(n) - 1)
    _, pi0, pi1 = levels(L, q)
    outl = []
    for t in _count_vectors(k, L + 1):
        pr = Fraction(_multinomial(t))
        for c, pl in zip(t, pi1, strict=True):
            pr *= pl**c
        u = tuple(l for l in range(L + 1) for _ in range(t[l]))
        outl.append((u, pr))
    zero = []
    for c in _count_vectors(n0, L + 1):
        pr = Fraction(_multinomial(c))
        for cl, pl in zip(c, pi0, strict=True):
            pr *= pl**cl
        zero.append((c, pr))
    return outl, zero


def tail_joint(n, bits, q, k, lam, inclusive=False):
    """Exact tail from :func:`joint_law` and the e_k formula (Fractions)."""
    L, k = int(bits), int(k)
    M = k * int(n)
    w, _, _ = levels(L, q)
    C = _F(lam) * math.comb(M, k)
    outl, zero = joint_law(n, bits, q, k)
    total = Fraction(0)
    for u, pu in outl:
        cu = [0] * (L + 1)
        for l in u:
            cu[l] += 1
        for c, pc in zero:
            ek = esym_counts([a + b for a, b in zip(cu, c, strict=True)], w, k)[k]
            if (ek >= C) if inclusive else (ek > C):
                total += pu * pc
    return total


# --------------------------------------------------------------------------------------
# L = 1, 2, large n: enumerate the total counts
# --------------------------------------------------------------------------------------
def _ek_total(counts, w, k):
    return esym_counts(counts, w, k)[k]


def _first_crossing(f, lo, hi):
    """Smallest integer ``x`` in ``[lo, hi]`` with ``f(x)`` true for a monotone predicate,
    ``hi + 1`` if none."""
    if lo > hi or not f(hi):
        return hi + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if f(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _log_binom_pmf(m, pr):
    j = np.arange(m + 1)
    return stats.binom.logpmf(j, m, pr)


def tail_counts(n, bits, q, k, lam, inclusive=False, exact=False):
    """Exact tail for L = 1 or 2 and ``n`` up to ~1000 by enumerating the total level counts.

    ``R_k`` depends on the records only through the counts ``c_l`` of records at each level
    (``e_k = [t^k] prod_l (1 + w_l t)^(c_l)``), and it increases when a record moves to a
    higher level (every ``e_k`` is increasing in each argument and ``w_l`` increases with
    ``l``).  The counts are the sum of the outlier's multinomial (``k`` records, ``pi1``)
    and the zero records' multinomial (``n0`` records, ``pi0``).

    * L = 1: ``c_1 = A + B``, ``A ~ Bin(k, p)``, ``B ~ Bin(n0, q)``; the threshold
      ``t = min{c_1 : R_k > lam}`` is found by exact bisection (Fractions);
      ``P = sum_a P[A = a] P[B >= t - a]``.
    * L = 2: for every ``c_2`` the threshold on ``c_1`` (monotone in ``c_1``), exact; the zero
      records' ``B_2 ~ Bin(n0, q^2)`` and ``B_1 | B_2 ~ Bin(n0 - B_2, 2pq / (1 - q^2))``;
      the outlier's ``(A_1, A_2)`` are enumerated.

    Decisions ``R_k > lam`` are exact for the given (rational) ``q`` and ``lam``.
    Probabilities: log-space binomial pmfs and survival functions (SciPy), relative
    accuracy ~1e-13; ``exact=True`` computes them as Fractions instead (slow; for checks).
    Returns a float (a Fraction with ``exact=True``).
    """
    L, k, n = int(bits), int(k), int(n)
    if L not in (1, 2):
        raise ValueError("tail_counts handles bits = 1 or 2")
    qF, lamF = _F(q), _F(lam)
    pF = 1 - qF
    M, n0 = k * n, k * (n - 1)
    w, pi0, pi1 = levels(L, qF)
    C = lamF * math.comb(M, k)

    def crosses(counts):
        e = _ek_total(counts, w, k)
        return e >= C if inclusive else e > C

    if exact:
        return _tail_counts_exact(L, k, n0, M, w, pi0, pi1, crosses)
    qf, pf = float(qF), float(pF)
    if L == 1:
        t = _first_crossing(lambda c1: crosses((M - c1, c1)), 0, M)
        total = 0.0
        for a in range(k + 1):
            pa = math.comb(k, a) * pf**a * qf ** (k - a)
            need = t - a  # B >= need
            if need <= 0:
                total += pa
            elif need <= n0:
                total += pa * float(stats.binom.sf(need - 1, n0, qf))
        return total
    # L = 2: thresholds t(c2) = min{c1 : R(c0, c1, c2) > lam}, non-increasing in c2
    thr = np.empty(M + 1, dtype=np.int64)
    prev = M + 1
    for c2 in range(M + 1):
        hi = min(prev, M - c2 + 1)
        thr[c2] = _first_crossing(lambda c1, c2=c2: crosses((M - c1 - c2, c1, c2)), 0, hi - 1) if hi > 0 else 0
        prev = thr[c2]
    b2 = np.arange(n0 + 1)
    log_pb2 = _log_binom_pmf(n0, qf * qf)
    s1 = 2.0 * qf / (1.0 + qf)  # P[level 1 | level < 2] = 2pq / (p^2 + 2pq) for a zero record
    total = 0.0
    for a in _count_vectors(k, 3):
        a0, a1, a2 = a
        pa = float(_multinomial(a) * pi1[0] ** a0 * pi1[1] ** a1 * pi1[2] ** a2)
        need = thr[a2 + b2] - a1  # B1 >= need
        size = n0 - b2
        sure = need <= 0
        mid = ~sure & (need <= size)
        acc = math.fsum(np.exp(log_pb2[sure]))
        if np.any(mid):
            acc += math.fsum(np.exp(log_pb2[mid] + stats.binom.logsf(need[mid] - 1, size[mid], s1)))
        total += pa * acc
    return total


def tail_counts_reverse(n, bits, q, k, lam, inclusive=False):
    """Exact reverse-order tail ``P_{D^k}[1/R_k > lam] = P[e_k < C(M, k)/lam]`` for L = 1, 2.

    Under ``D^k`` all ``M = k n`` records are zero records, so the level counts are one
    multinomial(``M``, ``pi0``).  ``e_k`` increases with each count moved up a level, so for
    every ``c_2`` the event is ``c_1 < t(c_2)`` with an exact (Fraction) threshold.  L = 1:
    ``c_1 ~ Bin(M, q)``; L = 2: ``c_2 ~ Bin(M, q^2)``, ``c_1 | c_2 ~ Bin(M - c_2, 2q/(1 + q))``.
    Probabilities in log space (SciPy), relative accuracy ~1e-13.
    """
    L, k, n = int(bits), int(k), int(n)
    if L not in (1, 2):
        raise ValueError("tail_counts_reverse handles bits = 1 or 2")
    qF, lamF = _F(q), _F(lam)
    M = k * n
    w, _, _ = levels(L, qF)
    C = Fraction(math.comb(M, k)) / lamF

    def fails(counts):  # not in the event: e_k >= C (e_k > C when inclusive)
        e = _ek_total(counts, w, k)
        return e > C if inclusive else e >= C

    qf = float(qF)
    if L == 1:
        t = _first_crossing(lambda c1: fails((M - c1, c1)), 0, M)  # event: c1 < t
        return float(stats.binom.cdf(t - 1, M, qf)) if t > 0 else 0.0
    log_pb2 = _log_binom_pmf(M, qf * qf)
    s1 = 2.0 * qf / (1.0 + qf)
    terms = []
    for c2 in range(M + 1):
        t = _first_crossing(lambda c1, c2=c2: fails((M - c1 - c2, c1, c2)), 0, M - c2)
        if t == 0:
            break  # e_k grows with c2: no larger c2 is in the event either
        terms.append(math.exp(log_pb2[c2] + stats.binom.logcdf(t - 1, M - c2, s1)))
    return math.fsum(terms)


def _tail_counts_exact(L, k, n0, M, w, pi0, pi1, crosses):
    total = Fraction(0)
    if L == 1:
        t = _first_crossing(lambda c1: crosses((M - c1, c1)), 0, M)
        for a in range(k + 1):
            pa = math.comb(k, a) * pi1[1] ** a * pi1[0] ** (k - a)
            for b in range(max(0, t - a), n0 + 1):
                total += pa * math.comb(n0, b) * pi0[1] ** b * pi0[0] ** (n0 - b)
        return total
    outl = [(a, _multinomial(a) * pi1[0] ** a[0] * pi1[1] ** a[1] * pi1[2] ** a[2]) for a in _count_vectors(k, 3)]
    for b in _count_vectors(n0, 3):
        pb = _multinomial(b) * pi0[0] ** b[0] * pi0[1] ** b[1] * pi0[2] ** b[2]
        for a, pa in outl:
            if crosses(tuple(x + y for x, y in zip(a, b, strict=True))):
                total += pa * pb
    return total


# --------------------------------------------------------------------------------------
# tail-bound inequalities (docs/k-randomization.md §5)
# --------------------------------------------------------------------------------------
def ell(m, s1, s2):
    """``max(0, s1^m - C(m,2) s2 s1^(m-2)) / m!`` (``m >= 2``); ``s1`` for m = 1, 1 for m = 0.

    For non-negative numbers with power sums ``s1 = sum w``, ``s2 = sum w^2``:
    ``e_m(w) >= ell(m, s1, s2)`` (Bonferroni), non-decreasing in ``s1``, non-increasing in
    ``s2``.
    """
    if m == 0:
        return Fraction(1)
    if m == 1:
        return _F(s1)
    s1, s2 = _F(s1), _F(s2)
    val = s1 ** (m - 2) * (s1 * s1 - math.comb(m, 2) * s2)
    return max(Fraction(0), val) / math.factorial(m)


def ell_trunc(m, s1, tau):
    """``ell(m, s1, tau * s1)``: the bound for numbers in ``[0, tau]`` (then ``s2 <= tau s1``)."""
    return ell(m, s1, _F(tau) * _F(s1))


def _p1_law(zero, w, power=1):
    """Law of ``sum_l c_l w_l^power`` over the zero records' count vectors: list of (value, P)."""
    out = {}
    for c, pc in zero:
        v = sum(cl * wl**power for cl, wl in zip(c, w, strict=True))
        out[v] = out.get(v, 0) + pc
    return sorted(out.items())


def _sf(law, b):
    """``P[value > b]`` for a law given as a sorted list of (value, P)."""
    return sum((pr for v, pr in law if v > b), Fraction(0))


def _cmp(x, C, inclusive):
    return x >= C if inclusive else x > C


def _maclaurin_G(E, s1, nl, k):
    """``sum_j E_j C(nl, k-j) (s1/nl)^(k-j)``: Maclaurin on ``nl`` records with sum ``s1``."""
    tot = Fraction(0)
    for j in range(k + 1):
        m = k - j
        if m == 0:
            tot += E[j]
        elif nl >= m:
            tot += E[j] * math.comb(nl, m) * (s1 / nl) ** m
    return tot


def bound_maclaurin(n, bits, q, k, lam, inclusive=False):
    """Upper bound ``P[p1 > M lam^(1/k)]`` (``>=``), ``p1`` the sum of all ``M`` records' w.

    Maclaurin: ``e_k / C(M,k) <= (p1 / M)^k``.  Computed as ``P[p1^k > M^k lam]`` (exact).
    """
    L, k = int(bits), int(k)
    M = k * int(n)
    w, _, _ = levels(L, q)
    lam = _F(lam)
    outl, zero = joint_law(n, bits, q, k)
    total = Fraction(0)
    for u, pu in outl:
        su = sum(w[l] for l in u)
        for c, pc in zero:
            p1 = su + sum(cl * wl for cl, wl in zip(c, w, strict=True))
            if _cmp(p1**k, M**k * lam, inclusive):
                total += pu * pc
    return total


def bound_maclaurin_conditional(n, bits, q, k, lam, inclusive=False):
    """Upper bound conditional on the outlier records ``u``.

    ``e_k(u ∪ v) = sum_j e_j(u) e_(k-j)(v) <= sum_j e_j(u) C(n0, k-j) (P1/n0)^(k-j)``
    (Maclaurin on the zero records ``v`` alone), so
    ``P[R_k > lam] <= sum_u P(u) P[G_u(P1) > lam C(M,k)]`` with ``G_u`` increasing in the
    zero records' sum ``P1``.  For ``n = 1`` (no zero records) this is the exact tail.
    """
    L, k = int(bits), int(k)
    M = k * int(n)
    n0 = M - k
    w, _, _ = levels(L, q)
    C = _F(lam) * math.comb(M, k)
    outl, zero = joint_law(n, bits, q, k)
    p1law = _p1_law(zero, w)
    total = Fraction(0)
    for u, pu in outl:
        eu = esym([w[l] for l in u], k)
        total += pu * sum((pr for P1, pr in p1law if _cmp(_maclaurin_G(eu, P1, n0, k), C, inclusive)), Fraction(0))
    return total


def _b_candidates(p2law):
    # P2 <= b events: b at each support value, plus b = +inf (None)
    return [v for v, _ in p2law] + [None]


def bound_bonferroni(n, bits, q, k, lam, inclusive=False):
    """Unconditioned lower bound ``max_b (P[ell_k(p1, b) > lam C(M,k)] - P[p2 > b])_+``.

    On ``{p2 <= b}``: ``e_k >= ell_k(p1, p2) >= ell_k(p1, b)``; ``p1``, ``p2`` are the power
    sums of all ``M`` records.  Union bound: ``P[A ∩ B^c] >= P[A] - P[B]``.  Returns
    ``(bound, best_b)``.
    """
    L, k = int(bits), int(k)
    M = k * int(n)
    w, _, _ = levels(L, q)
    C = _F(lam) * math.comb(M, k)
    outl, zero = joint_law(n, bits, q, k)
    pairs = {}
    for u, pu in outl:
        su1 = sum(w[l] for l in u)
        su2 = sum(w[l] ** 2 for l in u)
        for c, pc in zero:
            s1 = su1 + sum(cl * wl for cl, wl in zip(c, w, strict=True))
            s2 = su2 + sum(cl * wl**2 for cl, wl in zip(c, w, strict=True))
            key = (s1, s2)
            pairs[key] = pairs.get(key, 0) + pu * pc
    p1law = {}
    p2law = {}
    for (a, b), pr in pairs.items():
        p1law[a] = p1law.get(a, 0) + pr
        p2law[b] = p2law.get(b, 0) + pr
    p1law, p2law = sorted(p1law.items()), sorted(p2law.items())
    best, best_b = Fraction(0), None
    for b in _b_candidates(p2law):
        if b is None:
            # ell_k(p1, inf) = 0 for k >= 2; for k = 1 ell_1 = p1
            pa = sum((pr for s, pr in p1law if _cmp(s, C, inclusive)), Fraction(0)) if k == 1 else Fraction(0)
            pb = Fraction(0)
        else:
            pa = sum((pr for s, pr in p1law if _cmp(ell(k, s, b), C, inclusive)), Fraction(0))
            pb = _sf(p2law, b)
        if pa - pb > best:
            best, best_b = pa - pb, b
    return best, best_b


def _H(eu, P1, b, k):
    """``sum_j e_j(u) ell_(k-j)(P1, b)`` (``b = None``: +inf, only m <= 1 terms survive)."""
    s = Fraction(0)
    for j in range(k + 1):
        m = k - j
        if b is None and m >= 2:
            continue
        s += eu[j] * ell(m, P1, b if b is not None else 0)
    return s


def bound_bonferroni_conditional(n, bits, q, k, lam, inclusive=False):
    """Lower bound conditional on the outlier records ``u``:

    ``sum_u P(u) max_b (P[H_u(P1; b) > lam C(M,k)] - P[P2 > b])_+``,
    ``H_u(s; b) = sum_j e_j(u) ell_(k-j)(s, b)``, ``P1``, ``P2`` the zero records' power sums
    (independent of ``u``).  ``H_u(., b)`` is non-decreasing, so the first event is
    ``{P1 > a_u(b)}``: a one-dimensional tail.
    """
    L, k = int(bits), int(k)
    M = k * int(n)
    w, _, _ = levels(L, q)
    C = _F(lam) * math.comb(M, k)
    outl, zero = joint_law(n, bits, q, k)
    p1law = _p1_law(zero, w, 1)
    p2law = _p1_law(zero, w, 2)
    total = Fraction(0)
    for u, pu in outl:
        eu = esym([w[l] for l in u], k)
        best = Fraction(0)
        for b in _b_candidates(p2law):
            pa = sum((pr for s, pr in p1law if _cmp(_H(eu, s, b, k), C, inclusive)), Fraction(0))
            pb = Fraction(0) if b is None else _sf(p2law, b)
            best = max(best, pa - pb)
        total += pu * best
    return total


def _H_trunc(E, s1, b, tau, k):
    """``sum_j E_j ell_(k-j)(s1, min(b, tau s1))`` (``b = None``: no union bound, ``tau s1``)."""
    bb = tau * s1 if b is None else min(b, tau * s1)
    return sum(E[j] * ell(k - j, s1, bb) for j in range(k + 1))


def bound_conditional(n, bits, q, k, lam, cut, inclusive=False, union=True):
    """Lower and upper bounds conditional on the outlier records and the *heavy* zero records.

    Zero records at levels ``l > cut`` are heavy.  Given the outlier levels ``u`` and the heavy
    count vector ``h`` (the known records ``K``, with ``E_j = e_j(K)``), the ``n' = n0 - |h|``
    light records are i.i.d. on levels ``<= cut``, atoms in ``[w_0, tau]``, ``tau = w[cut]``;
    ``S1``, ``S2`` are their power sums (so ``S2 <= tau S1``).  Then

    * upper: ``e_k <= G(S1) = sum_j E_j C(n', k-j) (S1/n')^(k-j)`` (Maclaurin on the light
      records), ``P[R_k > lam | K] <= P[G(S1) > lam C(M,k) | K]``;
    * lower: on ``{S2 <= b}``, ``e_k >= H_b(S1) = sum_j E_j ell_(k-j)(S1, min(b, tau S1))``,
      ``P[R_k > lam | K] >= P[H_b(S1) > lam C(M,k) | K] - P[S2 > b | K]``, maximised over
      ``b`` (``b = inf`` needs no union bound; ``union=False`` uses only that).

    ``cut = bits`` conditions on the outlier records only.  Returns ``(lower, upper)``.
    """
    L, k, cut = int(bits), int(k), int(cut)
    M = k * int(n)
    w, _, _ = levels(L, q)
    tau = w[cut]
    C = _F(lam) * math.comb(M, k)
    outl, zero = joint_law(n, bits, q, k)
    groups = {}  # heavy part -> list of (S1, S2, P)
    for c, pc in zero:
        light = c[: cut + 1]
        s1 = sum(cl * wl for cl, wl in zip(light, w[: cut + 1], strict=True))
        s2 = sum(cl * wl**2 for cl, wl in zip(light, w[: cut + 1], strict=True))
        groups.setdefault(c[cut + 1 :], []).append((s1, s2, pc, sum(light)))
    lower = upper = Fraction(0)
    for u, pu in outl:
        for h, rows in groups.items():
            nl = rows[0][3]
            known = [w[l] for l in u] + [w[cut + 1 + i] for i, ch in enumerate(h) for _ in range(ch)]
            E = esym(known, k)
            upper += pu * sum(
                (pc for s1, _, pc, _ in rows if _cmp(_maclaurin_G(E, s1, nl, k), C, inclusive)), Fraction(0)
            )
            cands = [None, *(sorted({s2 for _, s2, _, _ in rows}) if union else [])]
            best = Fraction(0)
            for b in cands:
                pa = sum((pc for s1, _, pc, _ in rows if _cmp(_H_trunc(E, s1, b, tau, k), C, inclusive)), Fraction(0))
                pb = Fraction(0) if b is None else sum((pc for _, s2, pc, _ in rows if s2 > b), Fraction(0))
                best = max(best, pa - pb)
            lower += pu * best
    return lower, upper


# --------------------------------------------------------------------------------------
# Monte Carlo (any L, float)
# --------------------------------------------------------------------------------------
def _esym_counts_float(counts, w, k):
    """``e_k`` for many samples at once: ``counts`` is (S, L+1), ``w`` float atoms.

    Multiplies the truncated polynomials ``(1 + w_l t)^(c_l) = sum_j C(c_l, j) w_l^j t^j``;
    every coefficient is non-negative, so there is no cancellation.
    """
    S = counts.shape[0]
    e = np.zeros((S, k + 1))
    e[:, 0] = 1.0
    for l, wl in enumerate(w):
        c = counts[:, l].astype(np.float64)
        f = np.empty((S, k + 1))
        f[:, 0] = 1.0
        for j in range(1, k + 1):
            f[:, j] = f[:, j - 1] * np.maximum(c - (j - 1), 0.0) / j * wl
        new = np.zeros_like(e)
        for i in range(k + 1):
            new[:, i:] += e[:, i : i + 1] * f[:, : k + 1 - i]
        e = new
    return e[:, k]


def monte_carlo_tail_k(n, bits, q, k, lam, samples, seed, inclusive=False, conf=0.999):
    """Monte Carlo ``P[R_k > lam]`` with a Clopper-Pearson interval: ``(estimate, lo, hi)``.

    Samples the level counts of the outlier's ``k`` records (``multinomial(k, pi1)``) and of
    the ``n0`` zero records (``multinomial(n0, pi0)``) with NumPy; ``R_k`` from the counts.
    """
    L, k, n = int(bits), int(k), int(n)
    M, n0 = k * n, k * (n - 1)
    q = float(q)
    p = 1.0 - q
    l = np.arange(L + 1)
    w = np.exp((L - 2 * l) * (math.log(q) - math.log(p)))
    logc = np.array([math.log(math.comb(L, j)) for j in range(L + 1)])
    pi0 = np.exp(logc + l * math.log(q) + (L - l) * math.log(p))
    pi1 = pi0[::-1].copy()
    pi0, pi1 = pi0 / pi0.sum(), pi1 / pi1.sum()
    rng = np.random.default_rng(seed)
    C = float(lam) * math.comb(M, k)
    hits, done = 0, 0
    while done < samples:
        s = min(100_000, samples - done)
        counts = rng.multinomial(k, pi1, size=s) + rng.multinomial(n0, pi0, size=s)
        ek = _esym_counts_float(counts, w, k)
        hits += int(np.count_nonzero(ek >= C if inclusive else ek > C))
        done += s
    a = 1.0 - conf
    lo = 0.0 if hits == 0 else float(stats.beta.ppf(a / 2, hits, samples - hits + 1))
    hi = 1.0 if hits == samples else float(stats.beta.ppf(1 - a / 2, hits + 1, samples - hits))
    return hits / samples, lo, hi
