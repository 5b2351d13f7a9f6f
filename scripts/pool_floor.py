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
δ_pool(c) is at least the δ of any statistic of the pool's output (data processing). At d = L
(x = 0…0, x′ = 1…1) the statistics used are functions of each report's number of ones t (valid for
every pool, exact for pools of x and x′ reports): the total number of ones, whose law is an exact
small convolution, and the linear tests {Σ_j f(t_j) > 0} (f on an integer lattice; any event E
gives δ ≥ P′(E) − e^ε P(E)), whose laws are FFT convolutions. So
floor(ε) = (1 − Σ_g P(PB_g > c_g)) · max_stat δ_stat(c)(ε) is a lower bound
on the bound's δ at that background and pair, and min_ε floor(ε)/(1 − e^{ε − ε′}) a lower bound on
the tail the bound can certify through §8.3 (its best case: the step is lossless for the pool).

Floats throughout: the laws are sums of nonnegative terms except the FFT convolutions, whose
absolute error (below 1e-13 per cell here; not proven) is subtracted, cell count times, from each δ.

    python scripts/pool_floor.py 1000 5 0.285 --ratio 2 --backgrounds 319,0,0,0,0,320
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

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

    def delta_tests(self, eps: np.ndarray, cells: int = 512) -> np.ndarray:
        """Largest P′(E) − e^ε P(E) (both orders) over the linear tests E = {Σ_j f(t_j) > 0}, with
        f = round((w̄ − e^ε w) / ρ / s) on an integer lattice (s = range / ``cells``) and ρ one of the
        pool's class laws or their mixture. Any event gives a lower bound on δ, rounded or not; for
        a pool of one law ρ the unrounded test is the optimal one (§8.5: δ = E[(Σ h)_+]/m)."""
        total = sum(n for n, _ in self.groups)
        refs = [law for n, law in self.groups if n]
        if len(refs) > 1:
            refs.append(sum(n * law for n, law in self.groups) / total)
        out = np.zeros_like(eps)
        for j, e in enumerate(eps):
            lam = math.exp(e)
            for first, second in ((self.xp_law, self.x_law), (self.x_law, self.xp_law)):
                for rho in refs:
                    f = (first - lam * second) / np.maximum(rho, 1e-300)
                    step = (f.max() - f.min()) / cells
                    if step <= 0:
                        continue
                    k = np.round(f / step).astype(np.int64)
                    lo = int(k.min())
                    size = (total + 1) * int(k.max() - lo) + 1
                    m = 1 << math.ceil(math.log2(size))
                    log_phi = np.zeros(m // 2 + 1, dtype=complex)
                    waves = np.exp(-2j * np.pi * np.outer(np.arange(m // 2 + 1), k - lo) / m)
                    for n, law in self.groups:
                        if n:
                            log_phi += n * np.log(waves @ law)
                    base = np.exp(log_phi)
                    a = np.maximum(np.fft.irfft(base * (waves @ first), m), 0)
                    b = np.maximum(np.fft.irfft(base * (waves @ second), m), 0)
                    # sum value v = index + (total + 1) lo; the event is v > 0
                    cut = -(total + 1) * lo + 1
                    err = m * FFT_CELL_ERROR
                    val = a[cut:size].sum() - lam * b[cut:size].sum() - (1 + lam) * err
                    out[j] = max(out[j], val)
        return out

    def delta(self, eps: np.ndarray, full: bool = True) -> np.ndarray:
        """The largest of the statistics' and tests' δ: a lower bound on the pool's δ (``full=False``:
        the total number of ones only)."""
        parts = [self.delta_ones(eps)]
        if full:
            parts.append(self.delta_tests(eps))
        return np.max(parts, axis=0)


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


def one_pool_floor(law: np.ndarray, make, eps: np.ndarray, blocks: int = 6, full: bool = True) -> np.ndarray:
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


def floors(
    N: int, L: int, q: float, eps: np.ndarray, bg: dict[int, int], kinds=("blanket", "cross-cloned", "two-type")
):
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
    out = {}
    if "blanket" in kinds:
        out["blanket"] = one_pool_floor(law_u, lambda c: Pool(((c, un),), cx, cxp), eps)
    # two-type pool {M(x), M(x′), U}: every count cut at one quantile, the misses charged in full
    law_a, law_b = pb_law(r ** h(x, vs), ns), pb_law(r ** h(xp, vs), ns)
    best = np.zeros_like(eps)
    for miss in (0.3, 0.1, 0.01) if "two-type" in kinds else ():
        (ca, ma), (cb, mb), (cu, mu) = upper_cut(law_a, miss), upper_cut(law_b, miss), upper_cut(law_u, miss)
        pool = Pool(((ca, cx), (cb, cxp), (cu, un)), cx, cxp)
        best = np.maximum(best, max(0.0, 1 - ma - mb - mu) * pool.delta(eps))
    if "two-type" in kinds:
        out["two-type"] = best

    # cross-cloned pool at every y*, the least of them: a cheap floor for every y*, the full one
    # for those whose cheap floor could still be the least
    def cross(ys: int, full: bool) -> np.ndarray:
        cl = class_law(L, q, bin(ys).count("1"))
        return one_pool_floor(pb_law(r ** h(ys, vs), ns), lambda c: Pool(((c, cl),), cx, cxp), eps, full=full)

    # a background symmetric under bit permutations (x, x′ are fixed by them) needs one y* per weight
    symmetric = all(bg.get(v, 0) == bg.get(int(f"{(1 << bin(v).count('1')) - 1:0{L}b}", 2), 0) for v in range(2**L))
    reps = [(1 << w) - 1 for w in range(L + 1)] if symmetric else list(range(2**L))
    cheap = {ys: cross(ys, False) for ys in reps} if "cross-cloned" in kinds else {}
    least = None
    for ys in sorted(cheap, key=lambda y: float(cheap[y].sum())):
        if least is not None and np.all(cheap[ys] >= least):
            continue
        val = np.maximum(cross(ys, True), cheap[ys])
        least = val if least is None else np.minimum(least, val)
    if "cross-cloned" in kinds:
        out["cross-cloned"] = least
    return out


def tail_floor(delta: np.ndarray, eps: np.ndarray, ratio: float) -> float:
    """A lower bound on inf over every ε < ε′ = log ratio of δ(ε) / (1 − e^{ε − ε′}) from lower bounds
    ``delta`` on a nonincreasing δ at the increasing grid ``eps``, whose last point is ε′: on
    [ε_j, ε_{j+1}] the ratio is at least δ(ε_{j+1}) / (1 − e^{ε_j − ε′}), below ε_0 at least δ(ε_0)."""
    e1 = math.log(ratio)
    if not (np.all(np.diff(eps) > 0) and eps[-1] == e1):
        raise ValueError("eps must increase to log(ratio)")
    return float(min(delta[0], np.min(delta[1:] / (1 - np.exp(eps[:-1] - e1)))))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("N", type=int)
    ap.add_argument("L", type=int)
    ap.add_argument("q", type=float, nargs="+")
    ap.add_argument("--ratio", type=float, default=2.0)
    ap.add_argument("--points", type=int, default=20, help="values of ε below log(ratio)")
    ap.add_argument("--kinds", nargs="+", default=["blanket", "cross-cloned", "two-type"])
    ap.add_argument(
        "--backgrounds",
        nargs="+",
        default=["319,0,0,0,0,320", "349,0,0,0,0,0", "9,0,500,490,0,0"],
        help="users per weight 0 … L (x = 0…0), comma-separated; each a multiple of C(L, w)",
    )
    args = ap.parse_args(argv)
    e1 = math.log(args.ratio)
    eps = np.append(e1 - np.geomspace(1.5, 0.01, args.points), e1)
    for q in args.q:
        for spec in args.backgrounds:
            per = {w: int(c) for w, c in enumerate(spec.split(","))}
            fl = floors(args.N, args.L, q, eps, weight_background(args.L, per), args.kinds)
            cells = "  ".join(f"{k} {tail_floor(v, eps, args.ratio):.3g}" for k, v in fl.items())
            print(
                f"N={args.N} L={args.L} q={q} λ={args.ratio} users per weight {spec}: tail floors  {cells}", flush=True
            )


if __name__ == "__main__":
    main()
