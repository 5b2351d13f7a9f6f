"""How low can pooled bounds go? Certified lower bounds on the pool bounds at one background (issue 32).

Every pooled bound for every pair (docs/worst-case.md §8.2, §8.5, issue 29 item 5, issue 32 item 2)
has the same form. Each background user i is, independently, put into a shuffled *pool* as a draw
from one of a few fixed component laws W_g with probability κ_i(g), where Σ_g κ_i(g) W_g ≤ M(y_i)
pointwise; every other report is revealed with its identity. The pool's type counts are revealed,
so δ_pair(ε) ≤ E[δ_pool(counts)(ε)], and δ_pool is nonincreasing in every count (one more report
of a known law is a post-processing). The component laws allowed define the bound:

- graded blanket (§8.2): W = U, the uniform law; κ ≤ γ = (2q)^L.
- cross-cloned pool at y* (issue 29 item 5): W = M(y*); κ_i ≤ r^{h(y_i, y*)}.
- two-type pool (issue 32 item 2): W ∈ {M(x), M(x′), U}; κ_i(x) ≤ r^{h(y_i, x)},
  κ_i(x′) ≤ r^{h(y_i, x′)}, κ_i(U) ≤ γ.

*Floor.* Fix one background. Each pool count is stochastically at most the Poisson-binomial count
with the largest κ's above (couple user by user), so for any cut-offs c_g,
E[δ_pool(counts)] ≥ P(every count ≤ c_g) · δ_pool(c)(ε) ≥ (1 − Σ_g P(PB_g > c_g)) · δ_pool(c)(ε).
δ_pool(c) is at least the δ of any statistic of the pool's output (data processing); at d = L
(x = 0…0, x′ = 1…1) a report's law matters here only through its weight class, and the statistics
used are the total number of ones and the counts of the two extreme classes, whose laws are exact
small convolutions. So floor(ε) = (1 − Σ_g P(PB_g > c_g)) · max_stat δ_stat(c)(ε) is a lower bound
on the bound's δ at that background and pair, and min_ε floor(ε)/(1 − e^{ε − ε′}) a lower bound on
the tail the bound can certify through §8.3 (its best case: the step is lossless for the pool).

Floats throughout: the laws are sums of nonnegative terms except the 2-D FFT convolution, whose
absolute error (below 1e-13 per cell here) is subtracted, cell count times, from each δ.

    python scripts/pool_floor.py 1000 5 0.285 --ratio 2 --backgrounds 319,0,0,0,0,320
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np
from scipy import signal, special, stats

FFT_CELL_ERROR = 1e-13


def class_law(L: int, q: float, ones: int) -> np.ndarray:
    """Law of the number of ones of a report of a vector with ``ones`` ones (x = 0…0)."""
    p = 1 - q
    a = stats.binom.pmf(np.arange(ones + 1), ones, p)
    b = stats.binom.pmf(np.arange(L - ones + 1), L - ones, q)
    return np.convolve(a, b)


def uniform_law(L: int) -> np.ndarray:
    return stats.binom.pmf(np.arange(L + 1), L, 0.5)


def power_1d(law: np.ndarray, n: int) -> np.ndarray:
    """Law of the sum of n i.i.d. draws from ``law`` (support 0 … len − 1), by squaring."""
    out, base = np.ones(1), law
    while n:
        if n & 1:
            out = np.convolve(out, base)
        n >>= 1
        if n:
            base = np.convolve(base, base)
    return out


def extremes_law(law: np.ndarray, n: int, k: int) -> np.ndarray:
    """Joint law of (#reports in classes ≤ k, #reports in classes ≥ L − k) among n i.i.d. reports."""
    L = len(law) - 1
    lo, hi = law[: k + 1].sum(), law[L - k :].sum()
    mid = max(1.0 - lo - hi, 0.0)
    i = np.arange(n + 1)[:, None]
    j = np.arange(n + 1)[None, :]
    ok = i + j <= n
    with np.errstate(divide="ignore", invalid="ignore"):
        lg = (
            special.gammaln(n + 1)
            - special.gammaln(i + 1)
            - special.gammaln(j + 1)
            - special.gammaln(np.where(ok, n - i - j, 0) + 1)
            + special.xlogy(i, lo)
            + special.xlogy(j, hi)
            + special.xlogy(np.where(ok, n - i - j, 0), mid)
        )
    return np.where(ok, np.exp(lg), 0.0)


def hockey(a: np.ndarray, b: np.ndarray, eps: np.ndarray, slack: float = 0.0) -> np.ndarray:
    """max over both orders of Σ (a − e^ε b)_+, less ``slack``."""
    a, b = a.ravel(), b.ravel()
    lam = np.exp(eps)[:, None]
    f = np.maximum(a[None, :] - lam * b[None, :], 0).sum(1)
    r = np.maximum(b[None, :] - lam * a[None, :], 0).sum(1)
    return np.maximum(np.maximum(f, r) - slack, 0.0)


@dataclass(frozen=True)
class Pool:
    """A pool: ``groups`` of (count, class law); the changing user reports from class law
    ``x_law`` or ``xp_law``."""

    groups: tuple[tuple[int, np.ndarray], ...]
    x_law: np.ndarray
    xp_law: np.ndarray

    def delta_ones(self, eps: np.ndarray) -> np.ndarray:
        """δ of the total number of ones (exact 1-D convolutions)."""
        base = np.ones(1)
        for n, law in self.groups:
            base = np.convolve(base, power_1d(law, n))
        return hockey(np.convolve(base, self.xp_law), np.convolve(base, self.x_law), eps)

    def delta_extremes(self, eps: np.ndarray, k: int) -> np.ndarray:
        """δ of (#reports with at most k ones, #reports with at least L − k ones)."""
        base = np.ones((1, 1))
        for n, law in self.groups:
            base = signal.fftconvolve(base, extremes_law(law, n, k))
        base = np.maximum(base, 0.0)
        a = signal.fftconvolve(base, extremes_law(self.xp_law, 1, k))
        b = signal.fftconvolve(base, extremes_law(self.x_law, 1, k))
        return hockey(np.maximum(a, 0), np.maximum(b, 0), eps, slack=2 * a.size * FFT_CELL_ERROR * (1 + np.exp(eps)))

    def delta(self, eps: np.ndarray, full: bool = True) -> np.ndarray:
        """The largest of the statistics' δ: a lower bound on the pool's δ (``full=False``: the
        total number of ones and the extreme classes only)."""
        L = len(self.x_law) - 1
        ks = range((L - 1) // 2 + 1) if full else range(1)
        return np.max([self.delta_ones(eps)] + [self.delta_extremes(eps, k) for k in ks], axis=0)


def pb_law(probs: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Law of the Poisson-binomial count with ``counts[i]`` users of probability ``probs[i]``."""
    law = np.ones(1)
    for pr, n in zip(probs, counts, strict=True):
        if n and pr > 0:
            law = np.convolve(law, stats.binom.pmf(np.arange(n + 1), n, min(pr, 1.0)))
    return law


def upper_cut(law: np.ndarray, miss: float) -> tuple[int, float]:
    """Smallest c with P(count > c) ≤ miss, and P(count > c)."""
    above = np.append(np.cumsum(law[::-1])[::-1], 0.0)[1:]  # above[c] = P(count > c)
    c = int(np.argmax(above <= miss))
    return c, float(above[c])


def one_pool_floor(law: np.ndarray, make, eps: np.ndarray, blocks: int = 12, full: bool = True) -> np.ndarray:
    """Lower bound on E[δ_pool(C)] for a pool of one type whose count C is at most (stochastically)
    the count with law ``law``: blocks of counts, each charged δ at its upper end (δ_pool is
    nonincreasing in C); ``make(c)`` is the pool with c reports."""
    cdf = np.cumsum(law)
    edges = sorted({int(np.searchsorted(cdf, t)) for t in np.linspace(0, 1, blocks + 1)[1:-1]} | {len(law) - 1})
    out, lo = np.zeros_like(eps), 0
    for hi in edges:
        mass = law[lo : hi + 1].sum()
        if mass > 0:
            out += mass * make(hi).delta(eps, full)
        lo = hi + 1
    return out


def weight_background(L: int, per_weight: dict[int, int]) -> dict[int, int]:
    """``per_weight[w]`` users spread evenly over the C(L, w) vectors of weight w (a multiple of it)."""
    bg: dict[int, int] = {}
    for w, n in per_weight.items():
        vs = [v for v in range(2**L) if bin(v).count("1") == w]
        if n % len(vs):
            raise ValueError(f"{n} users do not spread evenly over the {len(vs)} vectors of weight {w}")
        bg.update({v: n // len(vs) for v in vs if n})
    return bg


def floors(N: int, L: int, q: float, eps: np.ndarray, bg: dict[int, int]) -> dict[str, np.ndarray]:
    """Lower bounds on δ(ε) of each pooled bound at background ``bg`` and the pair 0…0 → 1…1."""
    if sum(bg.values()) != N - 1:
        raise ValueError("the background must hold N - 1 users")
    r = q / (1 - q)
    x, xp = 0, 2**L - 1
    vs = np.array(list(bg))
    ns = np.array([bg[v] for v in vs])
    cx, cxp, un = class_law(L, q, 0), class_law(L, q, L), uniform_law(L)

    def h(a: int, b: np.ndarray) -> np.ndarray:
        return np.array([bin(a ^ int(v)).count("1") for v in b])

    gamma = (2 * q) ** L
    law_u = pb_law(np.array([gamma]), np.array([N - 1]))
    out = {"blanket": one_pool_floor(law_u, lambda c: Pool(((c, un),), cx, cxp), eps)}
    # two-type pool {M(x), M(x′), U}: every count cut at one quantile, the misses charged in full
    law_a, law_b = pb_law(r ** h(x, vs), ns), pb_law(r ** h(xp, vs), ns)
    best = np.zeros_like(eps)
    for miss in (0.3, 0.1, 0.03, 0.01, 1e-3):
        (ca, ma), (cb, mb), (cu, mu) = upper_cut(law_a, miss), upper_cut(law_b, miss), upper_cut(law_u, miss)
        pool = Pool(((ca, cx), (cb, cxp), (cu, un)), cx, cxp)
        best = np.maximum(best, max(0.0, 1 - ma - mb - mu) * pool.delta(eps))
    out["two-type"] = best

    # cross-cloned pool at every y*, the least of them: a cheap floor for every y*, the full one
    # for those whose cheap floor could still be the least
    def cross(ys: int, full: bool) -> np.ndarray:
        cl = class_law(L, q, bin(ys).count("1"))
        return one_pool_floor(pb_law(r ** h(ys, vs), ns), lambda c: Pool(((c, cl),), cx, cxp), eps, full=full)

    # a background symmetric under bit permutations (x, x′ are fixed by them) needs one y* per weight
    symmetric = all(bg.get(v, 0) == bg.get(int(f"{(1 << bin(v).count('1')) - 1:0{L}b}", 2), 0) for v in range(2**L))
    reps = [(1 << w) - 1 for w in range(L + 1)] if symmetric else list(range(2**L))
    cheap = {ys: cross(ys, False) for ys in reps}
    least = None
    for ys in sorted(cheap, key=lambda y: tail_floor(cheap[y], eps, math.e)):
        if least is not None and np.all(cheap[ys] >= least):
            continue
        val = np.maximum(cross(ys, True), cheap[ys])
        least = val if least is None else np.minimum(least, val)
    out["cross-cloned"] = least
    return out


def tail_floor(delta: np.ndarray, eps: np.ndarray, ratio: float) -> float:
    """min over ε < log ratio of δ(ε) / (1 − e^{ε − ε′})."""
    e1 = math.log(ratio)
    ok = eps < e1
    return float(np.min(delta[ok] / (1 - np.exp(eps[ok] - e1))))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("N", type=int)
    ap.add_argument("L", type=int)
    ap.add_argument("q", type=float, nargs="+")
    ap.add_argument("--ratio", type=float, default=2.0)
    ap.add_argument(
        "--backgrounds",
        nargs="+",
        default=["319,0,0,0,0,320", "349,0,0,0,0,0", "9,0,500,490,0,0"],
        help="users per weight 0 … L (x = 0…0), comma-separated; each a multiple of C(L, w)",
    )
    args = ap.parse_args(argv)
    e1 = math.log(args.ratio)
    eps = np.concatenate([e1 - np.geomspace(30, 0.005, 40), [e1 - 0.001]])
    for q in args.q:
        for spec in args.backgrounds:
            per = {w: int(c) for w, c in enumerate(spec.split(","))}
            fl = floors(args.N, args.L, q, eps, weight_background(args.L, per))
            cells = "  ".join(f"{k} {tail_floor(v, eps, args.ratio):.3g}" for k, v in fl.items())
            print(
                f"N={args.N} L={args.L} q={q} λ={args.ratio} users per weight {spec}: tail floors  {cells}", flush=True
            )


if __name__ == "__main__":
    main()
