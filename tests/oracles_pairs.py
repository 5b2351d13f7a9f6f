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
    "homogeneous_v_mc",
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
    return sum(a != b for a, b in zip(_vec(x), _vec(y), strict=False))


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
            k2 = (*key[:z], key[z] + 1, *key[z + 1 :])
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
    hom = next(rec for rec in records if canonical_pair(rec["bg"], rec["x"], rec["xp"], group) == hom_key)

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
        """log pmf of Bin(n, succ) at the int array ``j`` (-inf outside 0..n)."""
        j = np.asarray(j)
        ok = (j >= 0) & (j <= n)
        jj = np.where(ok, j, 0)
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
        """``log f(k)`` for a short run of consecutive ints ``ks``, one 2-D window of about
        10 conditional sd around the mode (checked: the edge terms must lie 40 nats below the
        peak of their row, else the window doubles)."""
        ks = np.asarray(ks, dtype=np.int64)
        sd = math.sqrt(self.p * self.q * min(a, c) + 1.0)
        kin = ks[(ks >= 0) & (ks <= a + c)]
        out = np.full(ks.shape, -np.inf)
        if kin.size == 0:
            return out
        jm = [self._mode(a, c, int(k)) for k in (kin[0], kin[-1])]
        W = int(10 * sd) + 10
        while True:
            j = np.arange(max(0, min(jm) - W), min(a, max(jm) + W) + 1)
            K = kin[:, None]
            t = self._lb(a, j[None, :], self.lq, self.lp) + self._lb(c, K - j[None, :], self.lp, self.lq)
            m = t.max(axis=1)
            lo_b = np.maximum(0, kin - c)
            hi_b = np.minimum(a, kin)
            ok_lo = (j[0] <= lo_b) | (t[:, 0] < m - 40)
            ok_hi = (j[-1] >= hi_b) | (t[:, -1] < m - 40)
            if np.all(ok_lo & ok_hi):
                break
            W *= 2
        res = m + np.log(np.exp(t - m[:, None]).sum(axis=1))
        out[(ks >= 0) & (ks <= a + c)] = res
        return out

    def log_ratios(self, a, c, ks):
        """``log R(k) = log P_Dp(k) - log P_D(k)`` for consecutive ``ks`` (nondecreasing in k:
        f is log-concave)."""
        ks = np.asarray(ks, dtype=np.int64)
        lf = self.logf(a, c, np.concatenate([[ks[0] - 1], ks]))
        f0, f1 = lf[:-1], lf[1:]
        num = np.logaddexp(self.lp + f0, self.lq + f1)
        den = np.logaddexp(self.lq + f0, self.lp + f1)
        with np.errstate(invalid="ignore"):  # both -inf outside 0..N: masked by the caller
            return num - den, lf

    def upper_tail_f(self, a, c, k):
        """``P[K_bg >= k]`` = sum_j b1(j) P[Bin(c, p) >= k - j]; one ``bdtrc`` at the top of
        the window, the other survival values by adding pmf terms downwards."""
        if k <= 0:
            return 1.0
        if k > a + c:
            return 0.0
        sd1 = math.sqrt(self.p * self.q * a + 1.0)
        j0 = self._mode(a, c, k)
        W = int(10 * sd1) + 10
        lo = max(0, min(int(a * self.q) - W, j0 - W))
        hi = min(a, max(int(a * self.q) + W, j0 + W))
        j = np.arange(lo, hi + 1)
        lb1 = self._lb(a, j, self.lq, self.lp)
        i = k - j  # need P[Bin(c, p) >= i], i decreasing along j
        i_top = int(i[0])  # largest i
        base = float(special.bdtrc(i_top, c, self.p)) if 0 <= i_top < c else (1.0 if i_top < 0 else 0.0)
        # sf(i) = P[>= i] = base + sum_{i <= m <= i_top} pmf(m)
        pm = np.exp(self._lb(c, i, self.lp, self.lq))
        sf2 = base + np.cumsum(pm)
        sf2 = np.where(i <= 0, 1.0, np.minimum(sf2, 1.0))
        return float(np.sum(np.exp(lb1) * sf2))

    def tail(self, a, c, lam, inclusive=False, k_start=None):
        """``P_Dp[R > lam]`` and the threshold count ``k*`` (R(k) > lam iff k >= k*)."""
        ll = math.log(lam)
        N = self.N

        def hits(ks):
            lr, _ = self.log_ratios(a, c, ks)
            h = lr >= ll if inclusive else lr > ll
            return np.where(ks > N, True, np.where(ks < 0, False, h))

        k = int(N * self.q) if k_start is None else int(k_start)
        k = min(max(k, 0), N + 1)
        ks = np.arange(k - 2, k + 3)
        h = hits(ks)
        if h[0] or not h[-1]:  # crossing outside the local window: bracket, then bisect
            if h[0]:
                lo, hi, step = k - 3, k - 2, 4
                while lo >= 0 and hits(np.array([lo]))[0]:
                    hi, lo, step = lo, lo - step, step * 2
                lo = max(lo, -1)
            else:
                lo, hi, step = k + 2, k + 3, 4
                while hi <= N and not hits(np.array([hi]))[0]:
                    lo, hi, step = hi, hi + step, step * 2
                hi = min(hi, N + 1)
            while hi - lo > 1:  # not hit(lo) (or lo = -1), hit(hi) (or hi = N + 1)
                mid = (lo + hi) // 2
                if hits(np.array([mid]))[0]:
                    hi = mid
                else:
                    lo = mid
            kstar = hi
        else:
            kstar = int(ks[np.argmax(h)])
        if kstar > N:
            return 0.0, kstar
        # P_Dp[K >= k*] = p P[K_bg >= k* - 1] + q P[K_bg >= k*]
        fk = float(np.exp(self.logf(a, c, [kstar - 1])[0]))
        ut = self.upper_tail_f(a, c, kstar)
        return min(self.p * (ut + fk) + self.q * ut, 1.0), kstar


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


# --------------------------------------------------------------------------------------
# backgrounds at one vector v (the "homogeneous at v" family)
# --------------------------------------------------------------------------------------
def homogeneous_v_ratio(counts, v, x, xp, q):
    """The closed-form ratio for ``D = (N-1 x v, x)``, ``Dp = (N-1 x v, xp)`` at the output
    histogram ``counts`` (as in ``pair_distribution``):

        R = sum_j M(xp)(s_j)/M(v)(s_j)  /  sum_j M(x)(s_j)/M(v)(s_j)

    over all N reports s_j.  (P(S|D) = C * sum_j M(x)(s_j) prod_{i != j} M(v)(s_i), C the
    number of orderings; divide by prod_i M(v)(s_i).)"""
    v, x, xp = _vec(v), _vec(x), _vec(xp)
    pv, px, pxp = _report_probs(v, q), _report_probs(x, q), _report_probs(xp, q)
    num = sum(c * pxp[z] / pv[z] for z, c in enumerate(counts) if c)
    den = sum(c * px[z] / pv[z] for z, c in enumerate(counts) if c)
    return num / den


def _v_types(v, x, xp, q):
    """Report types for backgrounds at v: returns ``(ea, e0, lv, lx, lxp)`` over the joint
    types ``(k_T0, k_T1, k_U1)``: ``ea``/``e0`` the exponents of ``M(xp)/M(v)`` and
    ``M(x)/M(v)`` in powers of r, and the log-probabilities of each type under M(v), M(x),
    M(xp).  Coordinates are classed by (x' != x, v != x): T0, T1, U0, U1 (U0 never matters)."""
    v, x, xp = _vec(v), _vec(x), _vec(xp)
    T0 = sum(1 for a, b, c in zip(x, xp, v, strict=False) if a != b and c == a)
    T1 = sum(1 for a, b, c in zip(x, xp, v, strict=False) if a != b and c != a)
    U1 = sum(1 for a, b, c in zip(x, xp, v, strict=False) if a == b and c != a)
    p = 1.0 - q
    ks = list(itertools.product(range(T0 + 1), range(T1 + 1), range(U1 + 1)))
    ea = np.array([T0 - 2 * k0 + 2 * k2 - U1 for k0, k1, k2 in ks], dtype=float)
    e0 = np.array([2 * k1 - T1 + 2 * k2 - U1 for k0, k1, k2 in ks], dtype=float)

    def lb(n, k, pr):
        return math.log(math.comb(n, k)) + k * math.log(pr) + (n - k) * math.log(1 - pr)

    # ones counted relative to x (x taken as 0 after XOR): v has ones on T1 and U1,
    # xp has ones on T0 and T1.
    lv = np.array([lb(T0, k0, q) + lb(T1, k1, p) + lb(U1, k2, p) for k0, k1, k2 in ks])
    lx = np.array([lb(T0, k0, q) + lb(T1, k1, q) + lb(U1, k2, q) for k0, k1, k2 in ks])
    lxp = np.array([lb(T0, k0, p) + lb(T1, k1, p) + lb(U1, k2, q) for k0, k1, k2 in ks])
    return ea, e0, lv, lx, lxp


def homogeneous_v_tail(N, v, x, xp, q, lam, order="fwd", tol=1e-14):
    """Tail for ``D = (N-1 x v, x)``, ``Dp = (N-1 x v, xp)``; ``order="fwd"``:
    ``P_Dp[R > lam]``, ``"rev"``: ``P_D[1/R > lam]``.  Via the ratio formula (see
    ``homogeneous_v_ratio``): ``R > lam`` iff ``sum_j (r^ea_j - lam r^e0_j) > 0``.

    Exact by conditioning on the counts of the report types (all but the last two; the last
    split is a binomial sum), pruning count ranges whose mass is below ``tol``: returns
    ``(lo, hi)`` with the pruned mass in the width.  Feasible while the number of types is
    small (L <= 2 at N ~ 1e3; L = 3 at N ~ 50)."""
    q = float(q)
    r = q / (1.0 - q)
    ea, e0, lv, lx, lxp = _v_types(v, x, xp, q)
    if order == "fwd":
        h = r**ea - lam * r**e0
        ltarget = lxp
    elif order == "rev":
        h = r**e0 - lam * r**ea
        ltarget = lx
    else:
        raise ValueError(f"order must be 'fwd' or 'rev': {order!r}")
    lo = hi = 0.0
    for t_idx in range(h.size):
        res = _iid_sum_tail(h, np.exp(lv), N - 1, -h[t_idx], tol)
        w = math.exp(ltarget[t_idx])
        lo += w * res[0]
        hi += w * res[1]
    return lo, min(hi, 1.0)


def _iid_sum_tail(h, pr, n, t, tol=1e-14):
    """``P[sum of n iid h-values > t]`` (types with probabilities ``pr``), exact by
    conditioning on the type counts one at a time (the last two types by a binomial sf),
    pruning each count to a central range; returns ``(lo, hi)``."""
    h = np.asarray(h, dtype=float)
    pr = np.asarray(pr, dtype=float)
    keep = pr > 0
    h, pr = h[keep], pr[keep] / pr[keep].sum()
    K = h.size
    if K == 1 or n == 0:
        v = 1.0 if n * (h[0] if K else 0.0) > t else 0.0
        return v, v
    cells = [(0.0, n, 0.0)]  # (log prob, remaining, partial sum)
    dropped = 0.0
    tail_pr = np.cumsum(pr[::-1])[::-1]  # pr_i + ... + pr_K
    for i in range(K - 2):
        split = min(pr[i] / tail_pr[i], 1.0)
        new = []
        for lp, rem, s in cells:
            if rem == 0:
                new.append((lp, 0, s))
                continue
            if tol > 0:
                mu, sd = rem * split, math.sqrt(rem * split * (1 - split))
                z = math.sqrt(2 * math.log(1 / tol)) + 2
                a = max(0, math.floor(mu - z * sd - 3))
                b = min(rem, math.ceil(mu + z * sd + 3))
            else:
                a, b = 0, rem
            ks = np.arange(a, b + 1)
            lk = stats.binom.logpmf(ks, rem, split)
            out = (stats.binom.cdf(a - 1, rem, split) if a > 0 else 0.0) + stats.binom.sf(b, rem, split)
            dropped += math.exp(lp) * float(out)
            for k, l in zip(ks, lk, strict=False):
                if lp + l > math.log(tol) - 10 if tol > 0 else True:
                    new.append((lp + float(l), rem - int(k), s + int(k) * h[i]))
                else:
                    dropped += math.exp(lp + float(l))
        cells = new
    # last two types: sum = s + k h[K-2] + (rem - k) h[K-1], k ~ Bin(rem, split)
    split = min(pr[K - 2] / tail_pr[K - 2], 1.0)
    lp = np.array([c[0] for c in cells])
    rem = np.array([c[1] for c in cells], dtype=float)
    s = np.array([c[2] for c in cells])
    dh = h[K - 2] - h[K - 1]
    base = s + rem * h[K - 1]
    if dh == 0:
        prob = (base > t).astype(float)
    else:
        c = (t - base) / dh
        if dh > 0:  # need k > c
            kk = np.floor(c)
            prob = np.where(kk < 0, 1.0, stats.binom.sf(kk, rem, split))
        else:  # need k < c
            kk = np.ceil(c) - 1
            prob = np.where(kk < 0, 0.0, stats.binom.cdf(kk, rem, split))
    S = float(np.sum(np.exp(lp) * prob))
    return S, S + dropped


# --------------------------------------------------------------------------------------
# proven bounds over all pairs: the reduced pairs (docs/worst-case.md §3)
# --------------------------------------------------------------------------------------
def clone_prob(L, d, q):
    """``p_d = 2 r^L / (1 + r^d)``: the largest ``c`` with ``M(y) >= c (M(x) + M(x'))/2``
    pointwise for every y, when ``d(x, x') = d`` (min over y, z of
    ``2 r^{d(y,z)} / (r^{d(x,z)} + r^{d(x',z)})``; attained at z = x, y = complement of z)."""
    r = q / (1.0 - q)
    return 2.0 * r**L / (1.0 + r**d)


def blanket_prob(L, q):
    """``gamma = (2q)^L = sum_z min_y M(y)(z)``: every ``M(y)`` contains ``gamma * Uniform``;
    no common component of all the ``M(y)`` is larger (``min_y M(y)(z) = q^L`` for all z)."""
    return (2.0 * q) ** L


def reduced_types(L, d, q, kind="blanket"):
    """The per-report types of a reduced pair.

    ``kind="clone"``: types are the weights w = 0..d of the report on the d differing bits;
    background (clone) law ``mu = (Bin(d, q) + Bin(d, p)) / 2``, target ``P0 = Bin(d, q)``
    (under D) and ``P1 = Bin(d, p)`` (under Dp); ``gamma = p_d``.
    ``kind="blanket"``: types (a, b) = (ones on the L - d common bits, ones on the d
    differing bits), x read as 0 on every bit; background law uniform on {0,1}^L,
    ``P0 = Bin(L-d, q) x Bin(d, q)``, ``P1 = Bin(L-d, q) x Bin(d, p)``; ``gamma = (2q)^L``.

    Returns a dict with ``gamma``, ``ref`` (background law of the types), ``P0``, ``P1``,
    ``f0 = P0 / ref``, ``f1 = P1 / ref``.  In the reduced pair with m reports (C ~ Bin(N-1,
    gamma) background reports and the target), ``R = sum f1(z_j) / sum f0(z_j)`` and
    ``delta_m(eps) = E_{ref^m}[(sum_j (f1 - e^eps f0)(z_j))_+] / m``.
    """
    p = 1.0 - q
    if not 1 <= d <= L:
        raise ValueError(f"d must be in 1..L: d={d}, L={L}")
    if kind == "clone":
        w = np.arange(d + 1)
        c = np.array([math.comb(d, int(k)) for k in w], dtype=float)
        P0 = c * q**w * p ** (d - w)
        P1 = c * p**w * q ** (d - w)
        ref = 0.5 * (P0 + P1)
        gamma = clone_prob(L, d, q)
    elif kind == "blanket":
        e = L - d
        A, B = np.meshgrid(np.arange(e + 1), np.arange(d + 1), indexing="ij")
        A, B = A.ravel(), B.ravel()
        ca = np.array([math.comb(e, int(k)) for k in A], dtype=float)
        cb = np.array([math.comb(d, int(k)) for k in B], dtype=float)
        ref = ca * cb / 2.0**L
        common = ca * q**A * p ** (e - A)
        P0 = common * cb * q**B * p ** (d - B)
        P1 = common * cb * p**B * q ** (d - B)
        gamma = blanket_prob(L, q)
    else:
        raise ValueError(f"kind must be 'clone' or 'blanket': {kind!r}")
    return {"gamma": gamma, "ref": ref, "P0": P0, "P1": P1, "f0": P0 / ref, "f1": P1 / ref}


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


def _delta_m_exact(ty, m, lams):
    """``delta_m`` for each lam by enumerating the multisets of m reports (multinomial)."""
    K = ty["ref"].size
    T = _compositions(m, K)
    lref = np.log(ty["ref"])
    logp = special.gammaln(m + 1) - special.gammaln(T + 1).sum(axis=1) + T @ lref
    pw = np.exp(logp)
    s1, s0 = T @ ty["f1"], T @ ty["f0"]
    return np.array([float(np.sum(pw * np.maximum(s1 - lam * s0, 0.0))) / m for lam in lams])


def reduced_delta(N, L, d, q, eps, kind="blanket", m_max=None, max_rows=3_000_000, tol=1e-16):
    """delta of the reduced pair (both orders are equal: the pair is symmetric), exactly for
    the numbers of reports m in ``[m_lo, M]`` by enumerating multisets, the rest bracketed.

    ``delta = sum_m P(C + 1 = m) delta_m``, ``C ~ Bin(N - 1, gamma)`` (m is visible in the
    reduced output, so the mixture over m is exact), and ``delta_m`` is nonincreasing in m
    (one more background report is a post-processing: add an independent draw from ``ref``).
    So ``lo = sum_{m_lo <= m <= M} P(m) delta_m <= delta <= lo + P(m < m_lo) + P(m > M)
    delta_M = hi``.  ``m_lo`` is the first m with ``P(m' < m) > tol``; ``M = min(N, m_max)``,
    lowered until the enumeration (sum over m of C(m + K - 1, K - 1) rows) fits in
    ``max_rows``.  Returns ``(lo, hi)`` arrays over ``eps`` (equal when nothing is cut).
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    lams = np.exp(eps)
    ty = reduced_types(L, d, q, kind)
    K = ty["ref"].size
    g = ty["gamma"]
    m_lo = max(1, int(stats.binom.ppf(tol, N - 1, g)))  # P(C < m_lo - 1) <= tol
    while m_lo > 1 and stats.binom.cdf(m_lo - 2, N - 1, g) > tol:
        m_lo -= 1
    M = N if m_max is None else min(N, int(m_max))
    rows = 0
    for m in range(m_lo, M + 1):
        rows += math.comb(m + K - 1, K - 1)
        if rows > max_rows:
            M = max(m - 1, m_lo)
            break
    lo = np.zeros(eps.size)
    dm = np.ones(eps.size)
    for m in range(m_lo, M + 1):
        dm = _delta_m_exact(ty, m, lams)
        lo += float(stats.binom.pmf(m - 1, N - 1, g)) * dm
    below = float(stats.binom.cdf(m_lo - 2, N - 1, g)) if m_lo > 1 else 0.0
    above = float(stats.binom.sf(M - 1, N - 1, g))  # P(C >= M) = P(m > M)
    hi = lo + below + above * dm
    return lo, np.minimum(hi, 1.0)


def _m_blocks(N, gamma, tol=1e-15, max_points=80):
    """Points m_0 < m_1 < ... covering the m = C + 1 that carry mass (P(m < m_0) and
    P(m > last) are each below tol): every m if there are at most ``max_points``, else an
    even spread."""
    c_hi = min(int(stats.binom.isf(tol, N - 1, gamma)) + 2, N - 1)
    c_lo = max(int(stats.binom.ppf(tol, N - 1, gamma)) - 2, 0)
    if c_hi - c_lo + 1 <= max_points:
        return list(range(c_lo + 1, c_hi + 2))
    return sorted({round(float(v)) for v in np.linspace(c_lo + 1, c_hi + 1, max_points)})


def reduced_delta_grid(N, L, d, q, eps, kind="blanket", step=1e-3, tol=1e-15, max_points=80):
    """delta of the reduced pair for larger N, as a bracket ``(lo, hi)`` per eps.

    Per report ``h = f1 - e^eps f0`` is rounded up (for ``hi``) or down (for ``lo``) to the grid
    ``step * Z``; ``E[(sum of m rounded h)_+] / m`` is then monotone in the rounding, so it
    brackets ``delta_m``.  The m-fold law is an FFT power (no window: the full support is
    kept, so nothing wraps).  The mixture over m uses blocks ``[m_i, m_{i+1})`` and the
    monotonicity of ``delta_m``: ``hi`` charges each block with ``delta_{m_i}``, ``lo`` with
    ``delta_{m_{i+1}}`` (blocks are single m where there are few enough m to take all); the mass
    of m beyond the last point (< tol) goes into ``hi`` whole.
    Cost: about 2 x len(blocks) FFTs of length ~ m * (max h - min h) / step per eps.
    FFT round-off (~1e-16 * length * max|h| m) is not bounded here: a float oracle.
    """
    from scipy import fft as sfft

    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    ty = reduced_types(L, d, q, kind)
    g = ty["gamma"]
    pts = _m_blocks(N, g, tol, max_points)
    cdf = lambda m: float(stats.binom.cdf(m - 1, N - 1, g)) if m >= 1 else 0.0  # noqa: E731
    out_lo, out_hi = [], []
    for e in eps:
        h = ty["f1"] - math.exp(e) * ty["f0"]
        vals = {}
        for side, rnd in (("hi", np.ceil), ("lo", np.floor)):
            idx = rnd(h / step).astype(np.int64)
            imin, imax = int(idx.min()), int(idx.max())
            pmf = np.zeros(imax - imin + 1)
            np.add.at(pmf, idx - imin, ty["ref"])
            dm = {}
            for m in pts:
                n = sfft.next_fast_len(m * (imax - imin) + 1, real=True)
                law = sfft.irfft(sfft.rfft(pmf, n) ** m, n)[: m * (imax - imin) + 1]
                s = (np.arange(law.size) + m * imin) * step
                dm[m] = float(np.sum(law[s > 0] * s[s > 0])) / m
            vals[side] = dm
        hi = lo = 0.0
        for i, m in enumerate(pts):
            m_next = pts[i + 1] if i + 1 < len(pts) else None
            mass = (cdf(m_next - 1) if m_next else 1.0) - cdf(m - 1)
            hi += mass * vals["hi"][m]
            if m_next == m + 1:  # a block of one m
                lo += mass * vals["lo"][m]
            else:
                lo += mass * (vals["lo"][m_next] if m_next else 0.0)
        hi += cdf(pts[0] - 1)  # m below the first point: delta_m <= 1 (the last block is open)
        out_lo.append(max(lo, 0.0))
        out_hi.append(min(hi, 1.0))
    return np.array(out_lo), np.array(out_hi)


def reduced_delta_mc(N, L, d, q, eps, kind="blanket", samples=200_000, seed=0):
    """Monte Carlo estimate of the reduced pair's delta (any size): samples C, the target's
    type under Dp and the background types, and averages ``(1 - e^eps sum f0 / sum f1)_+``.
    Returns ``(estimate, standard error)`` arrays over eps.  Not a bound: for orientation
    where the exact sums are out of reach (e.g. L = 40)."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    ty = reduced_types(L, d, q, kind)
    rng = np.random.default_rng(seed)
    C = rng.binomial(N - 1, ty["gamma"], size=samples)
    K = ty["ref"].size
    tgt = rng.choice(K, size=samples, p=ty["P1"] / ty["P1"].sum())
    s1, s0 = ty["f1"][tgt].copy(), ty["f0"][tgt].copy()
    ref = ty["ref"] / ty["ref"].sum()
    for k in range(int(C.max()) if samples else 0):
        act = np.nonzero(k < C)[0]
        z = rng.choice(K, size=act.size, p=ref)
        s1[act] += ty["f1"][z]
        s0[act] += ty["f0"][z]
    est, se = [], []
    for e in eps:
        v = np.maximum(1.0 - math.exp(e) * s0 / s1, 0.0)
        est.append(v.mean())
        se.append(v.std() / math.sqrt(samples))
    return np.array(est), np.array(se)


def tail_from_delta(eps, delta, lam):
    """``P[R > lam] <= min over eps < log lam of delta(eps) / (1 - e^eps / lam)``.

    (delta(eps) = E_P[(1 - e^eps/R)_+] >= P[R > lam] (1 - e^eps/lam).)  Any upper bound on
    delta at any eps gives a valid bound; returns ``(bound, best eps)``."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    delta = np.atleast_1d(np.asarray(delta, dtype=float))
    ok = eps < math.log(lam)
    if not np.any(ok):
        return 1.0, None
    vals = delta[ok] / (1.0 - np.exp(eps[ok]) / lam)
    i = int(np.argmin(vals))
    return float(min(vals[i], 1.0)), float(eps[ok][i])


def all_pairs_bound(N, L, q, lam, kind="blanket", eps=None, method="exact", **kw):
    """Proven bounds over every neighbouring pair (both orders) with N users and L bits.

    ``delta_all(eps) <= max_d delta_red,d(eps)`` and
    ``tail_all(lam) <= max_d min_{eps < log lam} delta_red,d(eps) / (1 - e^eps / lam)``.
    ``method="exact"`` uses ``reduced_delta`` (upper end of its bracket), ``"grid"``
    ``reduced_delta_grid`` (upper end).  ``eps`` defaults to a grid below ``log lam``.
    Returns a dict: ``tail`` (the bound), ``d`` (the distance attaining it), ``per_d``
    (d -> (tail bound, best eps)), ``eps``, ``delta`` (d -> delta upper bounds on ``eps``).
    """
    ll = math.log(lam)
    if eps is None:
        eps = ll - np.array([0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5])
    eps = np.asarray(eps, dtype=float)
    per_d, dl = {}, {}
    for d in range(1, L + 1):
        if method == "exact":
            _, hi = reduced_delta(N, L, d, q, eps, kind, **kw)
        elif method == "grid":
            _, hi = reduced_delta_grid(N, L, d, q, eps, kind, **kw)
        else:
            raise ValueError(f"method must be 'exact' or 'grid': {method!r}")
        dl[d] = hi
        per_d[d] = tail_from_delta(eps, hi, lam)
    dstar = max(per_d, key=lambda k: per_d[k][0])
    return {"tail": per_d[dstar][0], "d": dstar, "per_d": per_d, "eps": eps, "delta": dl}


def homogeneous_v_mc(N, v, x, xp, q, lam, order="fwd", samples=1_000_000, seed=0):
    """Monte Carlo tail for backgrounds at v (any L): multinomial type counts of the N - 1
    background reports, the target's type, and the ratio formula.  Returns
    ``(estimate, lo, hi)`` with a 99.9% Clopper-Pearson interval."""
    q = float(q)
    r = q / (1.0 - q)
    ea, e0, lv, lx, lxp = _v_types(v, x, xp, q)
    if order == "fwd":
        h, lt = r**ea - lam * r**e0, lxp
    else:
        h, lt = r**e0 - lam * r**ea, lx
    rng = np.random.default_rng(seed)
    pv = np.exp(lv) / np.exp(lv).sum()
    pt = np.exp(lt) / np.exp(lt).sum()
    hits, done = 0, 0
    while done < samples:
        s = min(200_000, samples - done)
        cnt = rng.multinomial(N - 1, pv, size=s)
        tot = cnt @ h + h[rng.choice(h.size, size=s, p=pt)]
        hits += int(np.count_nonzero(tot > 0))
        done += s
    a = 1e-3
    lo = 0.0 if hits == 0 else float(stats.beta.ppf(a / 2, hits, samples - hits + 1))
    hi = 1.0 if hits == samples else float(stats.beta.ppf(1 - a / 2, hits + 1, samples - hits))
    return hits / samples, lo, hi
