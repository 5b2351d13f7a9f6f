"""Independent oracles for *every* neighbouring pair (SPEC §1.1, scope ``"all"``).

Never imports ``gpu_rs``: NumPy, SciPy and ``fractions`` only.  See docs/worst-case.md for
the mathematics; this docstring is the map.

The model
---------
``N`` users hold vectors in {0,1}^L; each bit is flipped independently with probability
``q`` (``p = 1 - q``, ``r = q / p``), so ``M(x)(z) = p^L r^{d(x, z)}``.  The collector sees
the multiset (histogram) ``S`` of the ``N`` reports.  ``D`` and ``Dp`` differ in one user's
vector (replace-one).  For the ordered pair, ``S ~ A(Dp)`` and ``R(S) = P(S|Dp) / P(S|D)``:

* tail   ``P_{Dp}[R > lam]`` (strict; ``inclusive=True`` gives ``>=``),
* delta  ``delta_{Dp||D}(eps) = E_{Dp}[(1 - e^eps / R)_+] = sum_S (P(S|Dp) - e^eps P(S|D))_+``.

The other order is the same call with the arguments swapped.

Contents
--------
Exact, small collections (enumerate every output histogram):
    ``pair_distribution``, ``pair_tail``, ``pair_delta``, ``pair_stats``
    ``search_pairs``           every pair for N <= 6, L <= 3 up to symmetry
    ``homogeneous_v_ratio``    the closed-form ratio for backgrounds at one vector v
L = 1, any N (exact binomial sums in log space):
    ``l1_pair_tail``, ``l1_all_pairs``
Backgrounds at one vector v, moderate N (exact, conditioning on counts):
    ``homogeneous_v_tail``
Proven bounds for all pairs (reductions; docs/worst-case.md §3):
    ``clone_prob``, ``blanket_prob``, ``reduced_delta``, ``reduced_delta_grid``,
    ``tail_from_delta``, ``all_pairs_bound``, ``reduced_delta_mc``
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import special, stats

__all__ = [
    "all_pairs_bound",
    "as_collection",
    "blanket_prob",
    "canonical_pair",
    "clone_prob",
    "hamming",
    "homogeneous_v_ratio",
    "homogeneous_v_tail",
    "l1_all_pairs",
    "l1_pair_tail",
    "pair_delta",
    "pair_distribution",
    "pair_stats",
    "pair_tail",
    "reduced_delta",
    "reduced_delta_grid",
    "reduced_delta_mc",
    "reduced_types",
    "search_pairs",
    "tail_from_delta",
]


# --------------------------------------------------------------------------------------
# collections
# --------------------------------------------------------------------------------------
def _vec(v):
    if isinstance(v, str):
        return tuple(int(ch) for ch in v)
    return tuple(int(b) for b in v)


def as_collection(D):
    """A collection as a sorted tuple of bit tuples (users are unordered).  Accepts bit
    strings (``"011"``) or sequences of bits."""
    vs = [_vec(v) for v in D]
    if not vs:
        raise ValueError("a collection needs at least one user")
    L = len(vs[0])
    if any(len(v) != L for v in vs) or any(b not in (0, 1) for v in vs for b in v):
        raise ValueError(f"all vectors must be bit vectors of one length: {D!r}")
    return tuple(sorted(vs))


def hamming(x, y):
    return sum(a != b for a, b in zip(_vec(x), _vec(y)))


def _index(v):
    out = 0
    for b in v:
        out = 2 * out + b
    return out


def _report_probs(x, q):
    """``[M(x)(z) for z in 0 .. 2^L - 1]`` (Fraction if q is)."""
    L = len(x)
    p = 1 - q
    xi = _index(x)
    return [q ** bin(xi ^ z).count("1") * p ** (L - bin(xi ^ z).count("1")) for z in range(2**L)]


def _convolve(dist, probs):
    """Add one user whose report has law ``probs`` to a law over count vectors."""
    new = {}
    for key, pr in dist.items():
        for z, pz in enumerate(probs):
            k2 = key[:z] + (key[z] + 1,) + key[z + 1 :]
            new[k2] = new.get(k2, 0) + pr * pz
    return new


def pair_distribution(D, q):
    """Exact law of the output histogram of collection ``D``: ``{counts: probability}``,
    ``counts[z]`` = number of reports equal to ``z`` (``z`` read as a binary number, first
    bit most significant).  Dict convolution user by user; exact with ``Fraction`` q."""
    D = as_collection(D)
    L = len(D[0])
    dist = {(0,) * (2**L): (Fraction(1) if isinstance(q, Fraction) else 1.0)}
    for x in D:
        dist = _convolve(dist, _report_probs(x, q))
    return dist


def _prep(D, Dp, q, exact):
    D, Dp = as_collection(D), as_collection(Dp)
    if len(D) != len(Dp) or len(D[0]) != len(Dp[0]):
        raise ValueError("neighbouring collections have the same N and L")
    if exact:
        q = Fraction(q)
    if not 0 < q < Fraction(1, 2):
        raise ValueError(f"q must be in (0, 1/2): {q!r}")
    return D, Dp, q


def pair_tail(D, Dp, q, lam, inclusive=False, exact=False):
    """``P_{S ~ A(Dp)}[P(S|Dp)/P(S|D) > lam]`` (``>=`` if ``inclusive``), by enumerating
    every output histogram.  With ``exact=True`` (or Fraction ``q`` and ``lam``) everything
    is rational, so ties ``R = lam`` are decided exactly; returns a Fraction then."""
    exact = exact or (isinstance(q, Fraction) and isinstance(lam, Fraction))
    D, Dp, q = _prep(D, Dp, q, exact)
    lam = Fraction(lam) if exact else float(lam)
    P0, P1 = pair_distribution(D, q), pair_distribution(Dp, q)
    total = 0 * q
    for key, p1 in P1.items():
        p0 = P0[key]
        # R > lam  <=>  p1 > lam p0   (p0 > 0: every histogram is possible under both)
        if (p1 >= lam * p0) if inclusive else (p1 > lam * p0):
            total += p1
    return total


def pair_delta(D, Dp, q, eps):
    """``delta_{Dp||D}(eps) = sum_S (P(S|Dp) - e^eps P(S|D))_+`` (float)."""
    D, Dp, q = _prep(D, Dp, q, False)
    lam = math.exp(eps)
    P0, P1 = pair_distribution(D, q), pair_distribution(Dp, q)
    return float(sum(max(p1 - lam * P0[k], 0.0) for k, p1 in P1.items()))


def pair_stats(D, Dp, q, lams, eps=None):
    """Both orders at once, float: ``dict`` with ``tail_fwd[i] = P_{Dp}[R > lams[i]]``,
    ``tail_rev[i] = P_D[1/R > lams[i]]``, ``delta_fwd[j]``, ``delta_rev[j]`` at ``eps[j]``
    (default ``log(lams)``) and ``min_gap``: the smallest relative distance of a log-ratio to a
    threshold (a float tie warning; < 1e-9 means strict/inclusive may matter)."""
    D, Dp, q = _prep(D, Dp, q, False)
    lams = np.atleast_1d(np.asarray(lams, dtype=float))
    eps = np.log(lams) if eps is None else np.atleast_1d(np.asarray(eps, dtype=float))
    P0, P1 = pair_distribution(D, q), pair_distribution(Dp, q)
    keys = list(P1)
    a = np.array([P1[k] for k in keys], dtype=float)
    b = np.array([P0[k] for k in keys], dtype=float)
    return _stats_arrays(a, b, lams, eps)


def _stats_arrays(a, b, lams, eps):
    lr = np.log(a) - np.log(b)
    ll = np.log(lams)
    tf = np.array([a[lr > t].sum() for t in ll])
    tr = np.array([b[-lr > t].sum() for t in ll])
    df = np.array([np.maximum(a - math.exp(e) * b, 0).sum() for e in eps])
    dr = np.array([np.maximum(b - math.exp(e) * a, 0).sum() for e in eps])
    gap = float(np.min(np.abs(np.abs(lr)[:, None] - ll[None, :]))) if ll.size else np.inf
    return {"tail_fwd": tf, "tail_rev": tr, "delta_fwd": df, "delta_rev": dr, "min_gap": gap}


# --------------------------------------------------------------------------------------
# exhaustive search up to symmetry
# --------------------------------------------------------------------------------------
def _group(L):
    """The hyperoctahedral group: permute the bits, then XOR a mask.  It maps the mechanism to
    itself (M(g x)(g z) = M(x)(z)), so every statistic of a pair is invariant.  It contains the
    bit permutations and the global complement (mask 1...1)."""
    perms = list(itertools.permutations(range(L)))
    masks = list(itertools.product((0, 1), repeat=L))
    return [(pm, mk) for pm in perms for mk in masks]


def _apply(g, v):
    pm, mk = g
    return tuple(v[pm[i]] ^ mk[i] for i in range(len(v)))


def canonical_pair(bg, x, xp, group=None):
    """Canonical representative of (background multiset, {x, xp}) under the group."""
    L = len(x)
    group = group or _group(L)
    best = None
    for g in group:
        b = tuple(sorted(_apply(g, v) for v in bg))
        pr = tuple(sorted((_apply(g, x), _apply(g, xp))))
        key = (b, pr)
        if best is None or key < best:
            best = key
    return best


def search_pairs(N, L, q, lam, eps=None, top=5):
    """Every neighbouring pair with ``N`` users and ``L`` bits, up to symmetry.

    Backgrounds are multisets of ``N - 1`` vectors; the changed user goes ``x -> xp``; both
    orders of each pair are evaluated (``fwd``: S ~ A(Dp) with Dp = bg + xp; ``rev``: the
    swap).  Symmetry: the hyperoctahedral group (bit permutations x XOR masks, which includes
    the global complement) and the order of the users.  Float arithmetic; ``min_gap`` reports
    the closest log-ratio to ``log lam`` over all pairs (re-check near-ties with
    ``pair_tail(..., exact=True)``).

    Returns a dict: ``pairs`` (one record per orbit: ``bg, x, xp, d, tail_fwd, tail_rev,
    delta_fwd, delta_rev``), ``worst_tail`` and ``worst_delta`` (the ``top`` records with the
    largest max over both orders), ``homogeneous`` (the record of the seed's pair), ``max_by_d``
    (per Hamming distance d: the largest tail and delta), ``min_gap``.
    Cost: N = 6, L = 3 takes a few seconds.
    """
    if L > 3 or N > 7:
        raise ValueError(f"search_pairs is meant for N <= 6, L <= 3: N={N}, L={L}")
    eps = math.log(lam) if eps is None else float(eps)
    q = float(q)
    group = _group(L)
    verts = list(itertools.product((0, 1), repeat=L))
    probs = {v: _report_probs(v, q) for v in verts}
    seen = set()
    records = []
    min_gap = np.inf
    for bg in itertools.combinations_with_replacement(verts, N - 1):
        cb = tuple(sorted(bg))
        if min(tuple(sorted(_apply(g, v) for v in cb)) for g in group) != cb:
            continue  # not the canonical background of its orbit
        base = {(0,) * (2**L): 1.0}
        for v in cb:
            base = _convolve(base, probs[v])
        with_x = {v: _convolve(base, probs[v]) for v in verts}
        for x, xp in itertools.combinations(verts, 2):
            key = canonical_pair(cb, x, xp, group)
            if key in seen:
                continue
            seen.add(key)
            P0, P1 = with_x[x], with_x[xp]
            ks = list(P1)
            a = np.array([P1[k] for k in ks])
            b = np.array([P0[k] for k in ks])
            st = _stats_arrays(a, b, np.array([lam]), np.array([eps]))
            min_gap = min(min_gap, st["min_gap"])
            records.append(
                {
                    "bg": cb,
                    "x": x,
                    "xp": xp,
                    "d": hamming(x, xp),
                    "tail_fwd": float(st["tail_fwd"][0]),
                    "tail_rev": float(st["tail_rev"][0]),
                    "delta_fwd": float(st["delta_fwd"][0]),
                    "delta_rev": float(st["delta_rev"][0]),
                }
            )
    zero, one = (0,) * L, (1,) * L
    hom_key = canonical_pair(((0,) * L,) * (N - 1), zero, one, group)
    hom = next(
        rec for rec in records if canonical_pair(rec["bg"], rec["x"], rec["xp"], group) == hom_key
    )

    def tmax(rec):
        return max(rec["tail_fwd"], rec["tail_rev"])

    def dmax(rec):
        return max(rec["delta_fwd"], rec["delta_rev"])

    by_d = {}
    for rec in records:
        e = by_d.setdefault(rec["d"], {"tail": 0.0, "delta": 0.0, "tail_pair": None, "delta_pair": None})
        if tmax(rec) > e["tail"]:
            e["tail"], e["tail_pair"] = tmax(rec), rec
        if dmax(rec) > e["delta"]:
            e["delta"], e["delta_pair"] = dmax(rec), rec
    return {
        "pairs": records,
        "worst_tail": sorted(records, key=tmax, reverse=True)[:top],
        "worst_delta": sorted(records, key=dmax, reverse=True)[:top],
        "homogeneous": hom,
        "max_by_d": by_d,
        "min_gap": min_gap,
    }


# --------------------------------------------------------------------------------------
# L = 1: every pair, any N
# --------------------------------------------------------------------------------------
class _L1:
    """Exact log-space laws for L = 1.  Background: ``a`` zeros and ``c`` ones; the count of
    ones among the background reports is ``K_bg = Bin(a, q) + Bin(c, p)`` with pmf ``f``.
    ``D`` adds a user holding 0, ``Dp`` one holding 1, so
    ``P_D(k) = q f(k-1) + p f(k)`` and ``P_Dp(k) = p f(k-1) + q f(k)``."""

    def __init__(self, N, q):
        self.N, self.q, self.p = int(N), float(q), 1.0 - float(q)
        self.lq, self.lp = math.log(self.q), math.log1p(-self.q)
        self.lf = special.gammaln(np.arange(self.N + 3) + 1.0)

    def _lb(self, n, j, lsucc, lfail):
        j = np.asarray(j)
        ok = (j >= 0) & (j <= n)
        jj = np.clip(j, 0, n)
        out = self.lf[n] - self.lf[jj] - self.lf[n - jj] + jj * lsucc + (n - jj) * lfail
        return np.where(ok, out, -np.inf)

    def _mode(self, a, c, k):
        """Argmax over j of b1(j) b2(k - j) (log-concave in j): root of the quadratic
        ``r^2 (a - j)(k - j) = (j + 1)(c - k + j + 1)``."""
        r2 = (self.q / self.p) ** 2
        A = r2 - 1.0
        B = -(r2 * (a + k) + (c - k + 1) + 1.0)
        C = r2 * a * k - (c - k + 1)
        disc = max(B * B - 4 * A * C, 0.0)
        j = (-B - math.sqrt(disc)) / (2 * A) if A != 0 else -C / B
        lo, hi = max(0, k - c), min(a, k)
        return int(min(max(round(j), lo), hi))

    def logf(self, a, c, ks):
        """``log f(k)`` for the ints in ``ks`` (window of 12 conditional sd around the mode,
        checked: edge terms must lie 40 nats below the peak, else the window widens)."""
        out = []
        sd = math.sqrt(self.p * self.q * min(a, c) + 1.0)
        for k in ks:
            if k < 0 or k > a + c:
                out.append(-np.inf)
                continue
            lo_b, hi_b = max(0, k - c), min(a, k)
            j0 = self._mode(a, c, k)
            W = int(12 * sd) + 20
            while True:
                j = np.arange(max(lo_b, j0 - W), min(hi_b, j0 + W) + 1)
                t = self._lb(a, j, self.lq, self.lp) + self._lb(c, k - j, self.lp, self.lq)
                m = t.max()
                edge_ok = (j[0] == lo_b or t[0] < m - 40) and (j[-1] == hi_b or t[-1] < m - 40)
                if edge_ok:
                    break
                W *= 2
            out.append(m + math.log(np.exp(t - m).sum()))
        return np.array(out)

    def log_ratio(self, a, c, k):
        """``log R(k) = log P_Dp(k) - log P_D(k)`` (nondecreasing in k: f is log-concave)."""
        f0, f1 = self.logf(a, c, [k - 1, k])
        num = np.logaddexp(self.lp + f0, self.lq + f1)
        den = np.logaddexp(self.lq + f0, self.lp + f1)
        return float(num - den)

    def upper_tail_f(self, a, c, k):
        """``P[K_bg >= k]`` = sum_j b1(j) P[Bin(c, p) >= k - j]."""
        if k <= 0:
            return 1.0
        if k > a + c:
            return 0.0
        sd1 = math.sqrt(self.p * self.q * a + 1.0)
        j0 = self._mode(a, c, min(k, a + c))
        W = int(12 * sd1) + 20
        lo = max(0, min(int(a * self.q) - W, j0 - W))
        hi = min(a, max(int(a * self.q) + W, j0 + W))
        j = np.arange(lo, hi + 1)
        lb1 = self._lb(a, j, self.lq, self.lp)
        sf2 = special.bdtrc(k - j - 1, c, self.p)  # P[Bin(c, p) > k - j - 1]
        sf2 = np.where(k - j <= 0, 1.0, np.where(k - j > c, 0.0, sf2))
        return float(np.sum(np.exp(lb1) * sf2))

    def tail(self, a, c, lam, inclusive=False, k_start=None):
        """``P_Dp[R > lam]`` and the threshold count ``k*`` (R(k) > lam iff k >= k*)."""
        ll = math.log(lam)

        def hit(k):
            if k > self.N:
                return True
            lr = self.log_ratio(a, c, k)
            return lr >= ll if inclusive else lr > ll

        k = int(self.N * self.q) if k_start is None else int(k_start)
        k = min(max(k, 0), self.N + 1)
        # walk (doubling steps) to bracket the crossing, then bisect
        if hit(k):
            step, hi = 1, k
            lo = k - 1
            while lo >= 0 and hit(lo):
                hi = lo
                lo = hi - step
                step *= 2
            lo = max(lo, -1)
        else:
            step, lo = 1, k
            hi = k + 1
            while hi <= self.N and not hit(hi):
                lo = hi
                hi = lo + step
                step *= 2
            hi = min(hi, self.N + 1)
        while hi - lo > 1:  # invariant: not hit(lo) (or lo = -1), hit(hi) (or hi = N + 1)
            mid = (lo + hi) // 2
            if hit(mid):
                hi = mid
            else:
                lo = mid
        ks = hi
        if ks > self.N:
            return 0.0, ks
        t = self.p * self.upper_tail_f(a, c, ks - 1) + self.q * self.upper_tail_f(a, c, ks)
        return min(t, 1.0), ks


def l1_pair_tail(a, c, q, lam, inclusive=False):
    """L = 1, background ``a`` zeros and ``c`` ones, the user changes 0 -> 1:
    ``P_{Dp}[P(S|Dp)/P(S|D) > lam]`` exactly (log-space binomial sums; float result)."""
    return _L1(a + c + 1, q).tail(int(a), int(c), lam, inclusive)[0]


def l1_all_pairs(N, q, lam, inclusive=False, a_values=None):
    """L = 1: the tail of every neighbouring pair, exactly.

    Every background is (``a`` zeros, ``c = N - 1 - a`` ones).  Only the change 0 -> 1 in the
    forward order (S ~ A(Dp), Dp = background + a one) needs computing: the global complement
    maps the pair (bg (a, c), 1 -> 0, forward) to (bg (c, a), 0 -> 1, forward), and the reverse
    order of (bg (a, c), 0 -> 1) is the forward order of (bg (a, c), 1 -> 0), i.e. of
    (bg (c, a), 0 -> 1).  So ``max_a tails[a]`` is the worst tail over all pairs and both
    orders.  (Checked against ``pair_tail`` for N <= 8 in tests/test_pairs_oracles.py.)

    ``R(k)`` is nondecreasing in the count ``k`` of ones (``f`` is log-concave), so each tail
    is ``P_Dp[K >= k*]``; ``k*`` is found by bracketing from the previous ``a``'s threshold
    and bisection, each ratio from two windowed log-sum-exps; the tail is a sum of
    ``b1(j) * bdtrc``.  Cost ~ ``N * sqrt(N)``: N = 1e4 in about a second, N = 1e5 in tens of
    seconds (pass ``a_values`` to restrict).

    Returns ``{"a": array, "tails": array, "argmax": a*, "max": tail, "kstar": array}``.
    """
    ev = _L1(N, q)
    avals = np.arange(N) if a_values is None else np.asarray(a_values, dtype=int)
    tails = np.empty(avals.size)
    kst = np.empty(avals.size, dtype=np.int64)
    k_prev = None
    for i, a in enumerate(avals):
        t, ks = ev.tail(int(a), int(N - 1 - a), lam, inclusive, k_start=k_prev)
        tails[i], kst[i] = t, ks
        k_prev = ks if ks <= N else None
    i = int(np.argmax(tails))
    return {"a": avals, "tails": tails, "argmax": int(avals[i]), "max": float(tails[i]), "kstar": kst}
