"""Independent reference computations ("oracles") for the tail of the privacy ratio.

Everything here is written from SPEC §1 alone, with NumPy/SciPy, and must never import
``gpu_rs``: the point is to check the engine against code that shares nothing with it.

The quantity
------------
``n`` users, ``bits`` = L bits, flip probability ``q`` in (0, 1/2), ``p = 1 - q``,
``r = q / p``.  A randomized vector with ``l`` set bits contributes ``w_l = r**(L - 2 l)``.
There are ``n - 1`` zero vectors (``l ~ Bin(L, q)``) and one all-ones outlier
(``l ~ Bin(L, p)``).  ``X`` is the sum of the ``n`` atoms, ``R = X / n`` and the tail is
``P[R > lam]`` (strict, the default) or ``P[R >= lam]`` (``inclusive=True``), i.e. a tail of
``X`` at the threshold ``t = n * lam``.

Oracles
-------
``tail_L1``          exact for L = 1, any n (binomial sums, SciPy's ``binom.sf``).
``tail_L2``          exact for L = 2 (condition on the number of two-bit zero vectors).
``tail_condition``   any L; conditions on the counts level by level (heaviest atom first)
                     and finishes with a binomial tail.  With ``tol=0`` it is exact; with
                     ``tol > 0`` it prunes improbable branches and returns an interval
                     ``(lo, hi)`` that accounts for every pruned mass.
``tail_enumerate``   enumerate every count vector (small n and L), log-multinomial pmf.
``tail_convolve``    dict-based sequential convolution over count vectors; works with
                     ``fractions.Fraction`` inputs for fully exact rational arithmetic.
``moments_X`` / ``moments_X_brute`` / ``moments_R``   closed-form and brute-force moments.
``monte_carlo_tail`` NumPy multinomial sampling with a Clopper-Pearson interval.

Lattice points
--------------
``X`` is discrete.  If the threshold ``t = n * lam`` coincides with (or lies within
floating-point error of) an attainable value of ``X``, then "strict" vs "inclusive" matters
and neither the oracle nor the engine can decide ``X > t`` reliably in floating point.  The
helpers ``l1_lattice_distance`` / ``l2_lattice_distance`` report how far ``t`` is from the
nearest attainable value (in units of the lattice step); tests use them to keep their
parameters away from such points.  For the general-L oracles the attainable values are
dense and generic ``lam`` is safe; ``tail_convolve`` with ``Fraction`` inputs is exact even
at ties.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import special, stats

__all__ = [
    "atoms",
    "clopper_pearson",
    "l1_lattice_distance",
    "l1_midpoint_lam",
    "l2_lattice_distance",
    "lattice_gap",
    "moments_R",
    "moments_X",
    "moments_X_brute",
    "monte_carlo_tail",
    "pmf_enumerate",
    "tail_L1",
    "tail_L2",
    "tail_condition",
    "tail_convolve",
    "tail_enumerate",
]


# --------------------------------------------------------------------------------------
# basic pieces
# --------------------------------------------------------------------------------------
def _check(n, bits, q):
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer: {n!r}")
    if int(bits) != bits or bits < 1:
        raise ValueError(f"bits must be a positive integer: {bits!r}")
    if not 0 < q < 0.5:
        raise ValueError(f"q must be in (0, 1/2): {q!r}")
    return int(n), int(bits), float(q)


def atoms(bits, q):
    """Return ``(w, log_pi0, log_pi1)`` indexed by l = 0..L.

    ``w[l] = r**(L - 2 l)``; ``log_pi0[l] = log P[zero vector has l set bits]``;
    ``log_pi1[l] = log P[outlier has l set bits]``.
    """
    L = int(bits)
    q = float(q)
    lq, lp = math.log(q), math.log1p(-q)
    lr = lq - lp
    l = np.arange(L + 1)
    w = np.exp((L - 2 * l) * lr)
    logc = special.gammaln(L + 1) - special.gammaln(l + 1) - special.gammaln(L - l + 1)
    log_pi0 = logc + l * lq + (L - l) * lp
    log_pi1 = logc + l * lp + (L - l) * lq
    return w, log_pi0, log_pi1


def _threshold(n, lam):
    return float(n) * float(lam)


# --------------------------------------------------------------------------------------
# L = 1
# --------------------------------------------------------------------------------------
def _l1_c(n, q, lam):
    """K (number of one-bit vectors) must exceed ``c`` for X > t (L = 1)."""
    p = 1.0 - q
    r = q / p
    t = _threshold(n, lam)
    # X = K / r + (n - K) r = n r + K (1/r - r).  1/r - r = (p^2 - q^2)/(pq) = (p - q)/(pq).
    # c = (t - n r) / (1/r - r) = (t - n r) p q / (p - q); written this way to avoid
    # cancellation in 1/r - r when q is close to 1/2.
    return (t - n * r) * (p * q) / (p - q)


def l1_lattice_distance(n, q, lam):
    """Distance of the L = 1 threshold ``c`` to the nearest integer (lattice units)."""
    c = _l1_c(n, q, lam)
    return abs(c - round(c))


def l1_count_sf(n, q, k):
    """Exact ``P[K >= k]`` for ``K = Bin(n - 1, q) + Bernoulli(p)``, the L = 1 count of set bits.

    ``P[K >= k] = p P[K0 >= k - 1] + q P[K0 >= k]`` with ``K0 ~ Bin(n - 1, q)``.
    """
    p, m = 1.0 - q, n - 1

    def ge(j):  # P[K0 >= j]
        if j <= 0:
            return 1.0
        if j > m:
            return 0.0
        return float(stats.binom.sf(j - 1, m, q))

    return p * ge(k - 1) + q * ge(k)


def tail_L1(n, q, lam, inclusive=False):
    """Exact ``P[X > n lam]`` (or ``>=``) for L = 1.

    ``K = Bin(n - 1, q) + Bernoulli(p)`` vectors have their bit set; X > t iff K > c with
    ``c = (t - n r)/(1/r - r)``.  Strict: ``K >= floor(c) + 1``; inclusive:
    ``K >= ceil(c)``.  If ``c`` is within ~1e-9 of an integer the answer depends on the
    rounding of ``t`` itself (see ``l1_lattice_distance``); callers should avoid that.

    Accuracy: SciPy's ``binom.sf`` (Boost ``ibeta``) is accurate to a few ulps relative,
    also deep in the tail; the combination below adds two nonnegative terms.
    """
    n, _, q = _check(n, 1, q)
    c = _l1_c(n, q, lam)
    if inclusive:
        kmin = math.ceil(c)
    else:
        kmin = math.floor(c) + 1
    return l1_count_sf(n, q, kmin)


# --------------------------------------------------------------------------------------
# L = 2
# --------------------------------------------------------------------------------------
def _l2_parts(n, q, lam):
    p = 1.0 - q
    r = q / p
    r2 = r * r
    t = _threshold(n, lam)
    m = n - 1
    j2 = np.arange(m + 1, dtype=np.float64)
    mm = m - j2  # vectors with l in {0, 1}
    out = []
    w_out = np.array([r2, 1.0, 1.0 / r2])  # outlier l = 0, 1, 2
    logp_out = np.array([2 * math.log(q), math.log(2 * p * q), 2 * math.log(p)])
    for lo_, wo in zip(logp_out, w_out, strict=False):
        # X = j2 / r^2 + T1 + (mm - T1) r^2 + wo > t  <=>  T1 > c
        c = (t - wo - j2 / r2 - mm * r2) / (1.0 - r2)
        out.append((lo_, c))
    return m, j2, mm, out


def l2_lattice_distance(n, q, lam):
    """Smallest distance of the L = 2 conditional thresholds to an integer (over all j2
    values and outlier states that carry non-negligible probability)."""
    n, _, q = _check(n, 2, q)
    m, j2, mm, parts = _l2_parts(n, q, lam)
    lp2 = stats.binom.logpmf(j2, m, q * q)
    keep = lp2 > -80
    d = np.inf
    for _, c in parts:
        cc = c[keep & (c >= 0) & (c <= mm)]
        if cc.size:
            d = min(d, float(np.min(np.abs(cc - np.round(cc)))))
    return d


def tail_L2(n, q, lam, inclusive=False):
    """Exact ``P[X > n lam]`` (or ``>=``) for L = 2.

    Condition on the outlier's l and on ``j2 ~ Bin(n - 1, q^2)``, the number of zero
    vectors with both bits set; the remaining ``n - 1 - j2`` vectors have one bit set with
    probability ``2pq / (2pq + p^2) = 2q / (1 + q)``, so the count of one-bit vectors is
    binomial and the tail is a binomial ``sf``.  Summed in log space (``logsumexp``) so
    tails far below 1e-300 would still be representable as logs; returned as a float.
    """
    n, _, q = _check(n, 2, q)
    m, j2, mm, parts = _l2_parts(n, q, lam)
    lp2 = stats.binom.logpmf(j2, m, q * q)
    pi1 = 2 * q / (1 + q)
    terms = []
    for lo_, c in parts:
        k = np.ceil(c) - 1 if inclusive else np.floor(c)  # P[T1 > k]
        k = np.clip(k, -1, mm)
        with np.errstate(divide="ignore"):
            lsf = np.where(k < 0, 0.0, np.where(k >= mm, -np.inf, stats.binom.logsf(k, mm, pi1)))
        terms.append(lo_ + lp2 + lsf)
    allt = np.concatenate(terms)
    allt = allt[np.isfinite(allt)]
    if allt.size == 0:
        return 0.0
    return float(np.exp(special.logsumexp(allt)))


# --------------------------------------------------------------------------------------
# any L: level-by-level conditioning
# --------------------------------------------------------------------------------------
def _quantile_range(rem, pr, tol):
    """Range [lo, hi] of Bin(rem, pr) outside of which there is at most about ``tol`` mass
    (Bernstein-type width, union over the entries of ``rem``).  Only a heuristic choice of
    range: the mass outside is computed exactly by ``_outside_mass`` and accounted for."""
    rem = np.asarray(rem, dtype=np.float64)
    if tol <= 0:
        return 0, int(rem.max())
    z = math.sqrt(2.0 * math.log(1.0 / tol))
    mu = rem * pr
    sd = np.sqrt(rem * pr * (1.0 - pr))
    pad = z * sd + z * z / 3.0 + 2.0
    lo = math.floor(float(np.min(mu - pad)))
    hi = math.ceil(float(np.max(mu + pad)))
    return max(lo, 0), min(hi, int(rem.max()))


def _outside_mass(rem, pr, lo, hi):
    """P[Bin(rem, pr) < lo] + P[Bin(rem, pr) > hi] (vectorized over rem)."""
    rem = np.asarray(rem, dtype=np.float64)
    below = stats.binom.cdf(lo - 1, rem, pr) if lo > 0 else np.zeros_like(rem)
    above = stats.binom.sf(hi, rem, pr)
    return below + above


def tail_condition(n, bits, q, lam, inclusive=False, tol=1e-16):
    """``P[X > n lam]`` for any L by conditioning on the counts, heaviest atom first.

    Given the outlier's l and the counts ``T_L, ..., T_{l+1}`` with ``rem`` zero vectors
    left, ``T_l ~ Bin(rem, pi_l / (pi_0 + ... + pi_l))``.  Levels L..4 are looped in
    Python, level 3 (and 2) are NumPy grids, and the last split (T_1 vs T_0) is a binomial
    ``sf``.  With ``tol == 0`` nothing is pruned and the result is exact up to floating
    point (cost grows like n^(L-1)).

    With ``tol > 0``: each level keeps a central range of its binomial (the mass outside
    is computed exactly and added to the upper end); cells with probability below
    ``tol * 1e-3`` are dropped (mass added); level 2 is only expanded in the band where the
    final binomial tail is not within ~tol of 0 or 1, using monotonicity in T_2 to bound
    the rest (see ``banded_level2``).

    Returns ``(lo, hi)`` with ``lo <= P <= hi``, modulo floating-point rounding, which is
    included as a relative 1e-11 (ample for these sums of at most ~1e8 positive terms).
    """
    n, L, q = _check(n, bits, q)
    w, lpi0, lpi1 = atoms(L, q)
    pi0 = np.exp(lpi0)
    t = _threshold(n, lam)
    # conditional split probability at level l: pi_l / sum_{j<=l} pi_j
    cum = np.cumsum(pi0)
    split = pi0 / cum
    acc = {"S": 0.0, "dropped": 0.0}

    lfact = special.gammaln(np.arange(n + 2) + 1.0)

    def _logpmf(k, m, pr):
        """Binomial log-pmf via a log-factorial table; -inf where k > m."""
        k, m = np.broadcast_arrays(k, m)
        ok = k <= m
        ki = k.astype(np.int64)
        mi = m.astype(np.int64)
        kmi = np.where(ok, mi - ki, 0)
        out = lfact[mi] - lfact[ki] - lfact[kmi] + k * math.log(pr) + (m - k) * math.log1p(-pr)
        return np.where(ok, out, -np.inf)

    def final_sf(rem, s):
        """P[T1 > k] for the last split: T1 ~ Bin(rem, pi1/(pi0+pi1)),
        X = s + rem w0 + T1 (w1 - w0)."""
        pr = split[1]
        c = (t - s - rem * w[0]) / (w[1] - w[0])
        kk = np.ceil(c) - 1 if inclusive else np.floor(c)  # want P[T1 > kk]
        kk = np.clip(kk, -1, rem)
        sf = np.where(kk < 0, 1.0, 0.0)
        mid = (kk >= 0) & (kk < rem)
        if np.any(mid):
            sf[mid] = stats.binom.sf(kk[mid], rem[mid], pr)
        return sf

    def expand(glp, grem, gs, lev):
        """Condition on T_lev for every cell (central range, exact dropped mass)."""
        pr = split[lev]
        lo, hi = _quantile_range(grem, pr, tol)
        acc["dropped"] += float(np.sum(np.exp(glp) * _outside_mass(grem, pr, lo, hi)))
        K = np.arange(lo, hi + 1, dtype=np.float64)[None, :]
        R = grem[:, None]
        lpk = _logpmf(K, R, pr)
        glp = (glp[:, None] + lpk).ravel()
        grem = (R - K).ravel()
        gs = (gs[:, None] + K * w[lev] + 0.0 * R).ravel()
        ok = np.isfinite(glp) & (grem >= 0)
        if tol > 0:
            small = ok & (glp < math.log(tol) - 7)
            acc["dropped"] += float(np.sum(np.exp(glp[small])))
            ok &= ~small
        return glp[ok], grem[ok], gs[ok]

    def banded_level2(glp, grem, gs):
        """Condition on T_2 only where the final binomial tail is non-trivial.

        Within a row (fixed higher counts) P[X > t | T_2] is nondecreasing in T_2: one more
        two-bit vector lowers the T_1 threshold by (w2 - w0)/(w1 - w0) >= 1 while the number
        of remaining vectors drops by 1, and Bin(m, .) <= Bin(m - 1, .) + 1.  So the cells
        above the band contribute between P[T_2 > hi] * sf(hi) and P[T_2 > hi], and those
        below between 0 and P[T_2 < lo] * sf(lo); both gaps go into the interval."""
        pr2, pr1 = split[2], split[1]
        d = w[1] - w[0]
        A = (t - gs - grem * w[0]) / d - grem * pr1
        B = (w[2] - w[0]) / d - pr1
        z = math.sqrt(2.0 * math.log(1.0 / tol)) + 1.0
        D = z * np.sqrt(grem * pr1 * (1.0 - pr1)) + z * z / 3.0 + 3.0
        blo = np.clip(np.floor((A - D) / B), 0, grem)
        bhi = np.clip(np.ceil((A + D) / B), 0, grem)
        bhi = np.maximum(bhi, blo)
        W = int(np.max(bhi - blo)) + 1
        T2 = blo[:, None] + np.arange(W, dtype=np.float64)[None, :]
        valid = bhi[:, None] >= T2
        T2 = np.minimum(T2, bhi[:, None])
        R = grem[:, None]
        clp = glp[:, None] + _logpmf(T2, R, pr2)
        crem = R - T2
        cs = gs[:, None] + T2 * w[2]
        sf = final_sf(crem.ravel(), cs.ravel()).reshape(crem.shape)
        acc["S"] += float(np.sum(np.where(valid, np.exp(clp) * sf, 0.0)))
        s_lo = sf[:, 0]
        s_hi = sf[np.arange(len(grem)), (bhi - blo).astype(np.int64)]
        above = stats.binom.sf(bhi, grem, pr2)
        below = np.where(blo > 0, stats.binom.cdf(blo - 1, grem, pr2), 0.0)
        pw = np.exp(glp)
        acc["S"] += float(np.sum(pw * above * s_hi))
        acc["dropped"] += float(np.sum(pw * (above * (1.0 - s_hi) + below * s_lo)))

    def leaf(rem, s, lp):
        """Levels min(L, 3)..0 for ``rem`` vectors, partial sum ``s``, log-prob ``lp``."""
        h = min(L, 3)
        glp = np.array([lp])
        grem = np.array([float(rem)])
        gs = np.array([s])
        for lev in range(h, 2, -1):
            glp, grem, gs = expand(glp, grem, gs, lev)
            if glp.size == 0:
                return
        if h >= 2:
            if tol > 0:
                banded_level2(glp, grem, gs)
                return
            glp, grem, gs = expand(glp, grem, gs, 2)
            if glp.size == 0:
                return
        acc["S"] += float(np.sum(np.exp(glp) * final_sf(grem, gs)))

    def rec(lev, rem, s, lp):
        if lev <= 3 or L <= 3:
            leaf(rem, s, lp)
            return
        pr = split[lev]
        lo, hi = _quantile_range(np.array([rem]), pr, tol)
        acc["dropped"] += math.exp(lp) * float(_outside_mass(np.array([rem]), pr, lo, hi)[0])
        ks = np.arange(lo, hi + 1)
        lps = _logpmf(ks.astype(np.float64), float(rem), pr)
        for k, lpk in zip(ks, lps, strict=False):
            if tol > 0 and lp + lpk < math.log(tol) - 7:
                acc["dropped"] += math.exp(lp + lpk)
                continue
            rec(lev - 1, rem - int(k), s + int(k) * w[lev], lp + lpk)

    for lo_ut in range(L + 1):
        rec(L, n - 1, float(w[lo_ut]), float(lpi1[lo_ut]))
    S = acc["S"]
    lo = S - 1e-11 * S
    hi = S + acc["dropped"] + 1e-11 * S
    return max(lo, 0.0), min(hi, 1.0)


# --------------------------------------------------------------------------------------
# small n: enumeration and dict convolution
# --------------------------------------------------------------------------------------
def _compositions(total, parts):
    """All vectors of ``parts`` nonnegative ints summing to ``total`` (one row each)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    rem = np.array([total], dtype=np.int64)
    for _ in range(parts - 1):
        counts = rem + 1
        idx = np.repeat(np.arange(rem.size), counts)
        offs = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.concatenate([rows[idx], offs[:, None]], axis=1)
        rem = rem[idx] - offs
    return np.concatenate([rows, rem[:, None]], axis=1)


def tail_enumerate(n, bits, q, lam, inclusive=False):
    """Exact tail by enumerating every count vector (T_0..T_L) of the n - 1 zero vectors
    and every l of the outlier, with log-multinomial probabilities (``math.lgamma`` via
    ``scipy.special.gammaln``).  Meant for n <= ~50, L <= 4."""
    n, L, q = _check(n, bits, q)
    w, lpi0, lpi1 = atoms(L, q)
    T = _compositions(n - 1, L + 1)
    logp = special.gammaln(n) - special.gammaln(T + 1).sum(axis=1) + T @ lpi0
    X0 = T @ w
    t = _threshold(n, lam)
    total = 0.0
    for lo_ in range(L + 1):
        X = X0 + w[lo_]
        hit = t <= X if inclusive else t < X
        total += float(np.sum(np.exp(logp[hit] + lpi1[lo_])))
    return total


def pmf_enumerate(n, bits, q):
    """Full distribution of X for small n, L: ``(values, probs)`` over every (count vector,
    outlier l) pair (values not merged)."""
    n, L, q = _check(n, bits, q)
    w, lpi0, lpi1 = atoms(L, q)
    T = _compositions(n - 1, L + 1)
    logp = special.gammaln(n) - special.gammaln(T + 1).sum(axis=1) + T @ lpi0
    X0 = T @ w
    vals = (X0[:, None] + w[None, :]).ravel()
    probs = np.exp(logp[:, None] + lpi1[None, :]).ravel()
    return vals, probs


def lattice_gap(n, bits, q, lam):
    """Relative distance ``min |X - t| / t`` of the threshold ``t = n lam`` to the attainable
    values of X (small n, L; enumeration).  Tests require this to be far above float error
    so that strict/inclusive and float rounding of ``t`` cannot matter."""
    vals, _ = pmf_enumerate(n, bits, q)
    t = _threshold(n, lam)
    return float(np.min(np.abs(vals - t)) / t)


def l1_midpoint_lam(n, q, target):
    """A ratio ``lam`` for L = 1 whose threshold sits halfway between two lattice points and
    whose exact tail is close to ``target``: ``c = k - 1/2`` where ``P[K >= k] ~ target``.
    Returns ``(lam, k)``; the exact tail is then ``P[K >= k]`` for strict and inclusive."""
    n, _, q = _check(n, 1, q)
    p = 1.0 - q
    r = q / p
    # smallest k with tail <= target (search over the exact tail)
    lo, hi = 0, n + 1  # P[K >= 0] = 1, P[K >= n + 1] = 0

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if l1_count_sf(n, q, mid) > target:
            lo = mid
        else:
            hi = mid
    k = hi
    c = k - 0.5
    lam = (n * r + c * (p - q) / (p * q)) / n
    return lam, k


def tail_convolve(n, bits, q, lam, inclusive=False):
    """Tail by sequential convolution over count vectors kept in a dict.

    Independent of ``tail_enumerate``: no multinomial coefficients, the pmf is built by
    adding one vector at a time.  Works with floats, or exactly with ``fractions.Fraction``
    ``q`` and ``lam`` (then atoms, probabilities and the comparison are all rational, so
    lattice ties are decided exactly).  Cost ~ n * C(n + L, L); keep n, L small.
    """
    L = int(bits)
    exact = isinstance(q, Fraction)
    one = Fraction(1) if exact else 1.0
    p = one - q
    r = q / p
    w = [r ** (L - 2 * l) for l in range(L + 1)]
    pi0 = [math.comb(L, l) * q**l * p ** (L - l) for l in range(L + 1)]
    pi1 = [math.comb(L, l) * p**l * q ** (L - l) for l in range(L + 1)]
    dist = {tuple([0] * (L + 1)): one}
    for _ in range(int(n) - 1):
        new = {}
        for key, pr in dist.items():
            for l in range(L + 1):
                k2 = list(key)
                k2[l] += 1
                k2 = tuple(k2)
                new[k2] = new.get(k2, 0) + pr * pi0[l]
        dist = new
    t = (Fraction(n) * lam) if exact else float(n) * float(lam)
    total = 0 * one
    for key, pr in dist.items():
        x0 = sum(c * wl for c, wl in zip(key, w, strict=False))
        for l in range(L + 1):
            x = x0 + w[l]
            if (x >= t) if inclusive else (x > t):
                total += pr * pi1[l]
    return total


# --------------------------------------------------------------------------------------
# moments
# --------------------------------------------------------------------------------------
def moments_X(n, bits, q):
    """Closed-form (mean, variance) of X (SPEC §1)."""
    n, L, q = _check(n, bits, q)
    p = 1.0 - q
    phi = (p**3 + q**3) / (p * q)
    ex1 = phi**L
    var0 = phi**L - 1.0
    var1 = (phi**2 + phi - 1.0) ** L - phi ** (2 * L)
    return (n - 1) * 1.0 + ex1, (n - 1) * var0 + var1


def moments_X_brute(n, bits, q):
    """(mean, variance) of X from the atom pmfs directly (no phi)."""
    n, L, q = _check(n, bits, q)
    w, lpi0, lpi1 = atoms(L, q)
    pi0, pi1 = np.exp(lpi0), np.exp(lpi1)
    m0, m1 = float(pi0 @ w), float(pi1 @ w)
    v0 = float(pi0 @ (w - m0) ** 2)
    v1 = float(pi1 @ (w - m1) ** 2)
    return (n - 1) * m0 + m1, (n - 1) * v0 + v1


def moments_R(n, bits, q):
    """Closed-form (mean, variance) of R = X / n."""
    m, v = moments_X(n, bits, q)
    return m / n, v / n**2


# --------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------
def clopper_pearson(k, N, conf=0.999):
    a = 1.0 - conf
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, N - k + 1))
    hi = 1.0 if k == N else float(stats.beta.ppf(1 - a / 2, k + 1, N - k))
    return lo, hi


def monte_carlo_tail(n, bits, q, lam, samples, seed, inclusive=False, conf=0.999, chunk=200_000):
    """Monte Carlo estimate of the tail with an exact Clopper-Pearson interval.

    Samples the count vector of the n - 1 zero vectors with ``numpy`` ``multinomial`` and
    the outlier's l with ``binomial``.  Returns ``(estimate, lo, hi)``.
    """
    n, L, q = _check(n, bits, q)
    w, lpi0, _ = atoms(L, q)
    pi0 = np.exp(lpi0)
    pi0 = pi0 / pi0.sum()  # multinomial wants sum exactly <= 1
    rng = np.random.default_rng(seed)
    t = _threshold(n, lam)
    hits = 0
    done = 0
    while done < samples:
        s = min(chunk, samples - done)
        T = rng.multinomial(n - 1, pi0, size=s)
        lo_ = rng.binomial(L, 1.0 - q, size=s)
        X = T @ w + w[lo_]
        hits += int(np.count_nonzero(t <= X if inclusive else t < X))
        done += s
    lo, hi = clopper_pearson(hits, samples, conf)
    return hits / samples, lo, hi


# --------------------------------------------------------------------------------------
# the reverse order of the homogeneous pair, and general sums of record atoms
# --------------------------------------------------------------------------------------
def reverse_tail_L1(n, q, lam, inclusive=False):
    """Exact ``P[X' < n / lam]`` (``<=`` if inclusive) for L = 1, ``X'`` the sum of ``n``
    zero-vector atoms: the reverse order's tail ``P_D[n / X' > lam]``.

    ``X' = n r + K (1/r - r)`` with ``K ~ Bin(n, q)``; ``X' < t`` iff ``K < c`` with
    ``c = (t - n r) p q / (p - q)``.
    """
    n, _, q = _check(n, 1, q)
    p = 1.0 - q
    r = q / p
    c = (n / lam - n * r) * (p * q) / (p - q)
    kmax = math.floor(c) if inclusive else math.ceil(c) - 1
    if kmax < 0:
        return 0.0
    return float(stats.binom.cdf(kmax, n, q))


def reverse_lattice_distance_L1(n, q, lam):
    """Distance of the reverse-order L = 1 threshold ``c`` to the nearest integer."""
    p = 1.0 - q
    c = (n / lam - n * q / p) * (p * q) / (p - q)
    return abs(c - round(c))


def reverse_tail_L2(n, q, lam, inclusive=False):
    """Exact ``P[X' < n / lam]`` for L = 2 by conditioning on the number ``j2`` of two-bit
    vectors (``Bin(n, q^2)``); the one-bit count among the rest is ``Bin(n - j2, 2q/(1+q))``."""
    n, _, q = _check(n, 2, q)
    p = 1.0 - q
    r = q / p
    r2 = r * r
    t = n / lam
    j2 = np.arange(n + 1, dtype=np.float64)
    mm = n - j2
    # X' = j2 / r^2 + T1 + (mm - T1) r^2 < t  <=>  T1 < c
    c = (t - j2 / r2 - mm * r2) / (1.0 - r2)
    kmax = np.floor(c) if inclusive else np.ceil(c) - 1  # P[T1 <= kmax]
    lp2 = stats.binom.logpmf(j2, n, q * q)
    kk = np.minimum(kmax, mm)
    with np.errstate(divide="ignore"):
        lcdf = np.where(kk < 0, -np.inf, stats.binom.logcdf(np.maximum(kk, 0), mm, 2 * q / (1 + q)))
    terms = lp2 + lcdf
    terms = terms[np.isfinite(terms)]
    return float(np.exp(special.logsumexp(terms))) if terms.size else 0.0


def tail_sum_enumerate(bits, q, zeros, ones, t, upper=True, inclusive=False, power=1):
    """``P[S > t]`` (``>=``; ``<``/``<=`` if not ``upper``) for ``S`` the sum of ``zeros``
    zero-vector atoms and ``ones`` outlier atoms, each raised to ``power``, by enumerating
    both count vectors (small counts only). Returns ``(probability, min relative gap of t
    to an attainable value)``."""
    w, lpi0, lpi1 = atoms(bits, q)
    w = w**power
    L = int(bits)

    def outcomes(m, lpi):
        if m == 0:
            return np.zeros(1), np.zeros(1)
        T = _compositions(m, L + 1)
        return T @ w, special.gammaln(m + 1) - special.gammaln(T + 1).sum(axis=1) + T @ lpi

    v0, l0 = outcomes(zeros, lpi0)
    v1, l1 = outcomes(ones, lpi1)
    S = (v0[:, None] + v1[None, :]).ravel()
    lp = (l0[:, None] + l1[None, :]).ravel()
    if upper:
        hit = t <= S if inclusive else t < S
    else:
        hit = t >= S if inclusive else t > S
    gap = float(np.min(np.abs(S - t)) / t)
    return float(np.exp(lp[hit]).sum()), gap


# --------------------------------------------------------------------------------------
# the privacy profile's hinges (issue 19), L = 2, any n, in log space
# --------------------------------------------------------------------------------------
def log_delta_L2(n, q, eps, forward=True):
    """``log δ(ε)`` of the homogeneous pair for L = 2, summed exactly over every count vector.

    ``X′ = n_0 w_0 + n_1 w_1 + n_2 w_2`` is the sum of ``n`` zero-vector atoms (multinomial
    counts); with ``λ = e^ε``, ``δ_{P‖Q} = E[(X′ − nλ)_+]/n`` and ``δ_{Q‖P} = λ E[(n/λ − X′)_+]/n``
    (SPEC §1, the likelihood ratio ``R = X′/n`` under ``D``). Positive terms only, summed with
    ``logsumexp``: relative accuracy about ``1e-12`` at any size of ``δ``. Loops over ``n_2``.
    """
    n, L, q = _check(n, 2, q)
    w, lpi0, _ = atoms(L, q)
    lam = math.exp(eps)
    t = n * lam if forward else n / lam
    logs = []
    for n2 in range(n + 1):
        n1 = np.arange(n - n2 + 1, dtype=np.float64)
        n0 = n - n2 - n1
        x = n0 * w[0] + n1 * w[1] + n2 * w[2]
        gap = x - t if forward else t - x
        keep = gap > 0
        if not keep.any():
            continue
        logp = (
            special.gammaln(n + 1.0)
            - special.gammaln(n0[keep] + 1.0)
            - special.gammaln(n1[keep] + 1.0)
            - special.gammaln(n2 + 1.0)
            + n0[keep] * lpi0[0]
            + n1[keep] * lpi0[1]
            + n2 * lpi0[2]
        )
        logs.append(special.logsumexp(logp + np.log(gap[keep])))
    if not logs:
        return -math.inf
    scale = -math.log(n) + (0.0 if forward else eps)
    return float(special.logsumexp(np.array(logs))) + scale
