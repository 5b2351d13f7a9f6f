"""Certified floors: how low can the pooled bounds go at one background (issue 32; docs/worst-case.md §10.4).

Every pooled bound for every pair (the graded blanket, §8.2; cross-cloned homogeneous pools, §8.9;
the two-type pool, §10.3) has one form. Each background user i is, independently, put into a
shuffled *pool* as a draw from one of a few fixed laws W_g with probability κ_i(g), where
Σ_g κ_i(g) W_g ≤ M(y_i) pointwise; every other report is revealed with its identity. So
δ_pair(ε) ≤ E[δ_pool(counts)(ε)], and δ_pool does not increase with any count (one more report of
a known law is a post-processing). The laws allowed define the bound:

- graded blanket (§8.2): W = U, the uniform law, κ ≤ γ = (2q)^L;
- cross-cloned pool at y* (§8.9): W = M(y*), κ_i ≤ r^{h(y_i, y*)};
- two-type pool (§10.3): W ∈ {M(x), M(x′), U}, κ_i(x) ≤ r^{h(y_i, x)}, κ_i(x′) ≤ r^{h(y_i, x′)},
  κ_i(U) ≤ γ.

*Floor.* Fix one background and the pair x = 0…0 → x′ = 1…1 (d = L). A pool count is
stochastically at most the Poisson-binomial count C̄ of the largest κ (couple user by user), so a
pool of one type has E[δ_pool(C)] ≥ E[δ_pool(C̄)] ≥ Σ_c P(C̄ = c) δ_stat(c), and the two-type pool has
E[δ₂] ≥ (1 − Σ_g P(C̄_g > c_g)) δ₂(c) for any cut-offs c (union bound), where δ_stat(c) ≥ 0 is the
P′(E) − e^ε P(E) of an event E of the pool's output (data processing), each order on its own. The
events are E = {Σ_j k(z_j) > θ}, θ the best integer, k = round(h / s) an integer function of a report's class
(ones among y*'s ones, ones among its zeros), h = (M(x′) − e^ε M(x)) / ρ (forward; the reverse order
swaps x and x′), s = range(h) / cells, ρ the pool's law (for one law this is, up to the rounding,
the likelihood-ratio test: δ_pool = E[(Σ h)_+]/m, §8.5). Every tail floor is then stepped through
§8.3 on a grid of e^ε (δ does not increase with ε).

*Certified numerics* (docs/worst-case.md §10.4). Every law is a float array built from nonnegative
terms only, so each entry carries a two-sided relative error bound (1 + u)^n − 1 ≤ 1.01 n u, n the
roundings on its longest path (u = 2⁻⁵³, round to nearest), plus an absolute TINY = 2⁻¹⁰²² per
operation for underflow (gradual or flushed), charged as ABS per probability:

- one report's class laws (M(x), M(x′), M(y*), U) are exact rationals of the float q, rounded to
  nearest (one rounding);
- C̄'s law is built Bernoulli by Bernoulli (κ and 1 − κ exact rationals rounded once): 3 roundings
  per user and entry;
- the law of Σ_j k(z_j) is built report by report, each entry a sum of at most A products (A
  classes): A + 2 roundings per report. Every 8 reports the ends holding at most TRIM of computed
  mass are dropped; the exact counterpart is a sub-measure, so tails computed from it are lower
  bounds on P′(E) and, with the dropped mass D added, upper bounds on P(E);
- tails are cumulative sums (one rounding per cell), combined with the changing user's class law.

Then δ_stat(c) ≥ (P̂′ − ABS)/(1 + e) − e^ε ((P̂ + ABS)(1 + e) + D), e the bound at that count, in
exact rationals and rounded down, and every sum of nonnegative products is multiplied by
1 − 1.01 (terms + 4) u and rounded down. The floats only choose the tests, θ and the grid; a poor
choice can only make a floor smaller.

*Monotone in q* (docs/worst-case.md §10.4): at a fixed background every pooled bound, computed
exactly, does not increase with q, so a floor above η at q₀ rules out certifying η at every q ≤ q₀
(``--bisect``).

    python scripts/pool_floor.py 1000 5 0.285 --backgrounds 387,0,0,310,105,197 308,55,0,330,115,191
    python scripts/pool_floor.py 1000 5 0.2987 0.3019 --points 160 --bisect --tol 0.0005 \
        --backgrounds 308,55,0,330,115,191
    python scripts/pool_floor.py 1000 5 0.1692 --log-ratio 2 --backgrounds 387,0,0,310,105,197
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

UNIT = 2.0**-53
"""Unit roundoff of binary64, round to nearest."""
TINY = 2.0**-1022
"""Absolute error allowed per floating-point operation (underflow, gradual or flushed to zero)."""
ABS = 1e-280
"""Absolute error charged to every computed probability: at least 2 · TINY times every operation a
computation performs (asserted below 10^25 operations)."""
TRIM = 1e-22
"""Computed mass dropped at most at each end of a sum's law per trim (every TRIM_EVERY reports)."""
TRIM_EVERY = 8
MASS = 1e-15
"""Counts of C̄ with less computed mass are charged δ = 0."""
LEVELS = (32, 128, 512)
"""Lattice cells per report's range of h: a coarse pass everywhere, finer where the floor binds."""


def grow(n: int) -> float:
    """An upper bound on (1 + u)^n − 1 and on 1/(1 − u)^n − 1 (n u ≤ 10⁻³)."""
    x = n * UNIT
    if x > 1e-3:
        raise ValueError(f"{n} roundings: the linear error bound needs n u ≤ 1e-3")
    return 1.01 * x


def to_float(x: Fraction) -> float:
    """``x`` rounded to nearest: relative error at most u (``x`` is 0 or normal, checked)."""
    f = float(x)
    if f != 0.0 and abs(f) < 2.0**-1022:
        raise ValueError("a class probability is subnormal: the relative bound does not hold")
    return f


def down(x: float, rel: float) -> float:
    """A float at most x (1 − rel) for x ≥ 0 (one rounding, then one step down)."""
    return max(0.0, math.nextafter(x * (1.0 - rel), -math.inf))


@dataclass(frozen=True)
class Classes:
    """The class laws of one report for y* of weight ``w``, x = 0…0 and x′ = 1…1: class (i, j) holds
    the reports with i ones among y*'s ``w`` ones and j among its L − w zeros. Exact rationals of the
    float q (``exact``) and the same rounded to nearest (arrays)."""

    exact: dict[str, list[Fraction]]
    ystar: np.ndarray
    x: np.ndarray
    xp: np.ndarray
    uniform: np.ndarray


def classes(L: int, q: float, w: int) -> Classes:
    """The class laws for y* of weight ``w`` (w = 0: a report's number of ones)."""
    qf = Fraction(q)
    pf = 1 - qf
    laws: dict[str, list[Fraction]] = {"ystar": [], "x": [], "xp": [], "uniform": []}
    for i, j in itertools.product(range(w + 1), range(L - w + 1)):
        many = math.comb(w, i) * math.comb(L - w, j)
        laws["ystar"].append(many * pf**i * qf ** (w - i) * qf**j * pf ** (L - w - j))
        laws["x"].append(many * qf ** (i + j) * pf ** (L - i - j))
        laws["xp"].append(many * pf ** (i + j) * qf ** (L - i - j))
        laws["uniform"].append(Fraction(many, 2**L))
    arrays = {k: np.array([to_float(v) for v in vs]) for k, vs in laws.items()}
    return Classes(laws, arrays["ystar"], arrays["x"], arrays["xp"], arrays["uniform"])


@dataclass(frozen=True)
class CountLaw:
    """A count's law in floats: each entry within relative ``rel`` (both sides) and ABS of the truth."""

    law: np.ndarray
    rel: float

    def lower(self) -> np.ndarray:
        """Lower bounds on the masses (0 below 10⁻²⁵⁰, where ABS is no longer below u times the mass)."""
        lo = self.law * (1.0 - self.rel - 4 * UNIT)
        return np.where(self.law >= 1e-250, lo, 0.0)

    def upper_tail(self, c: int) -> float:
        """An upper bound on P(count > c) (a sum under 10⁻²⁴⁰ is raised to it, which covers ABS per entry)."""
        rest = self.law[c + 1 :]
        s = max(float(rest.sum()), 1e-240)
        return math.nextafter(s * (1.0 + self.rel) * (1.0 + grow(rest.size + 8)), math.inf)


def poisson_binomial(probs: Sequence[Fraction], counts: Sequence[int]) -> CountLaw:
    """Law of Σ_i Ber(κ_i), ``counts[g]`` users of probability ``probs[g]``, Bernoulli by Bernoulli."""
    law, steps = np.ones(1), 0
    for pr, n in zip(probs, counts, strict=True):
        if n == 0 or pr == 0:
            continue
        a, b = to_float(pr), to_float(1 - pr)
        for _ in range(n):
            new = np.zeros(law.size + 1)
            new[:-1] = law * b
            new[1:] += law * a
            law, steps = new, steps + 1
    return CountLaw(law, grow(3 * steps + 1))


def binomial(n: int, pr: Fraction) -> CountLaw:
    """Law of Bin(n, pr) (as :func:`poisson_binomial`)."""
    return poisson_binomial([pr], [n])


def test_values(first: np.ndarray, second: np.ndarray, ref: np.ndarray, lam: float, cells: int) -> np.ndarray | None:
    """k = round(h / s), h = (first − λ second)/ref, s = range(h)/cells (None if h is constant)."""
    h = (first - lam * second) / ref
    step = (h.max() - h.min()) / cells
    if not step > 0:
        return None
    return np.round(h / step).astype(np.int64)


def best_threshold(
    law: np.ndarray,
    base: int,
    k: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    lam: float,
    dropped: Fraction,
    rel: Fraction,
) -> float:
    """A certified lower bound on max over θ of P′(E_θ) − λ P(E_θ), E_θ = {S + k(z) > θ}: S the pool's sum,
    whose computed law ``law`` (index i holds S = base + i) is within relative ``rel`` and ABS of an exact
    sub-measure of S's law that lacks mass ``dropped``; z the changing user's report (class laws ``first``
    under P′, ``second`` under P). θ is chosen in floats, its bound certified in exact rationals."""
    kmin, kmax = int(k.min()), int(k.max())
    tail = np.cumsum(law[::-1])[::-1]
    pad = kmax - kmin + 2
    full = np.concatenate([np.full(pad, tail[0]), tail, np.zeros(pad)])
    # θ = base + J, J = kmin − 1 … law.size + kmax (beyond, the event is sure or empty);
    # P(E_θ) = Σ_t second_t full[pad + J + 1 − k_t]
    js = np.arange(kmin - 1, law.size + kmax + 1)
    shifted = np.stack([full[pad + js + 1 - int(kt)] for kt in k])
    hi = second @ shifted
    lo = first @ shifted
    e = float(rel) + grow(law.size + first.size + 4)
    j = int(np.argmax(lo * (1 - e) - lam * (hi * (1 + e) + float(dropped))))
    e_f, abs_f = Fraction(e), Fraction(ABS)
    p_up = (Fraction(float(hi[j])) + abs_f) * (1 + e_f) + dropped
    pp_lo = (Fraction(float(lo[j])) - abs_f) / (1 + e_f)
    val = pp_lo - Fraction(lam) * p_up
    return 0.0 if val < Fraction(1e-250) else math.nextafter(float(val), -math.inf)


def statistic_deltas(
    schedule: Sequence[np.ndarray],
    at: Iterable[int],
    k: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    lam: float,
) -> dict[int, float]:
    """Certified lower bounds on max_θ P′(E_θ) − λ P(E_θ), E_θ = {Σ_j k(z_j) > θ}, for the pool of the first c
    reports of ``schedule`` (their class laws, in order) and the changing user, whose class law is
    ``first`` under P′ and ``second`` under P, at every c in ``at`` (module docstring: the bounds)."""
    at = set(at)
    last = min(len(schedule), max(at, default=0))
    kmin, kmax = int(k.min()), int(k.max())
    atoms = max((int(np.count_nonzero(law)) for law in schedule), default=1)
    law, base, dropped = np.ones(1), 0, Fraction(0)
    abs_f = Fraction(ABS)
    out: dict[int, float] = {}
    for c in range(last + 1):
        if c in at:
            out[c] = best_threshold(law, base, k, first, second, lam, dropped, Fraction(grow((atoms + 2) * c)))
        if c == last:
            break
        pr = schedule[c]
        new = np.zeros(law.size + kmax - kmin)
        for t in np.flatnonzero(pr):
            s = int(k[t]) - kmin
            new[s : s + law.size] += pr[t] * law
        law, base = new, base + kmin
        if (c + 1) % TRIM_EVERY == 0:
            cum = np.cumsum(law)
            lo = int(np.searchsorted(cum, TRIM, side="right"))
            hi = int(np.searchsorted(cum, cum[-1] - TRIM, side="left")) + 1
            if lo > 0 or hi < law.size:
                gone = Fraction(float(law[:lo].sum() + law[hi:].sum()))
                e = Fraction(grow((atoms + 2) * (c + 1) + 2 * law.size))
                dropped += (gone + abs_f) * (1 + e)
                law, base = law[lo:hi].copy(), base + lo
    return out


def expected_floor(masses: CountLaw, deltas: Callable[[Sequence[int]], dict[int, float]]) -> float:
    """A lower bound on E[δ(C)] from lower bounds on C's masses and on δ at each count holding mass."""
    lo = masses.lower()
    counts = [int(c) for c in np.flatnonzero(masses.law >= MASS)]
    vals = deltas(counts)
    terms = [float(lo[c]) * vals[c] for c in counts]
    return down(math.fsum(terms), grow(len(terms) + 4))


def member(cls: Classes, ref: np.ndarray, pool: np.ndarray, lam: float, forward: bool, cells: int):
    """The δ lower bounds of the pool of i.i.d. ``pool`` reports, as a function of the counts."""
    first, second = (cls.xp, cls.x) if forward else (cls.x, cls.xp)

    def deltas(counts: Sequence[int]) -> dict[int, float]:
        k = test_values(first, second, ref, lam, cells)
        if k is None:
            return dict.fromkeys(counts, 0.0)
        top = max(counts, default=0)
        return statistic_deltas([pool] * top, counts, k, first, second, lam)

    return deltas


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


@dataclass
class Background:
    """A background: ``users[v]`` users at vector v of {0,1}^L."""

    L: int
    users: dict[int, int]

    def pools(self, q: float) -> dict[tuple, tuple[int, CountLaw]]:
        """The distinct cross-cloned pools: key → (weight of y*, law of C̄). y* with the same weight
        and the same multiset of (distance, users) have the same member and the same count."""
        r = Fraction(q) / (1 - Fraction(q))
        out: dict[tuple, tuple[int, CountLaw]] = {}
        for ys in range(2**self.L):
            hist: dict[int, int] = {}
            for v, n in self.users.items():
                hist[hamming(v, ys)] = hist.get(hamming(v, ys), 0) + n
            key = (ys.bit_count(), tuple(sorted(hist.items())))
            if key not in out:
                out[key] = (ys.bit_count(), poisson_binomial([r**h for h, _ in key[1]], [n for _, n in key[1]]))
        return out


def weight_background(L: int, per_weight: dict[int, int]) -> Background:
    """``per_weight[w]`` users spread evenly over the C(L, w) vectors of weight w (a multiple of it)."""
    users: dict[int, int] = {}
    for w, n in per_weight.items():
        vs = [v for v in range(2**L) if v.bit_count() == w]
        if n % len(vs):
            raise ValueError(f"{n} users do not spread evenly over the {len(vs)} vectors of weight {w}")
        users.update({v: n // len(vs) for v in vs if n})
    return Background(L, users)


OUTER_GAPS = (3.0, 1.5, 0.8, 0.5, 0.3, 0.005, 0.002, 0.001)
"""Gaps ε′ − ε always on the grid, around the dense part (they only guard its ends)."""


def lam_grid(ratio: float, points: int, gaps: tuple[float, float] = (0.2, 0.01)) -> np.ndarray:
    """e^ε on a grid: ``points`` gaps ε′ − ε from ``gaps[0]`` down to ``gaps[1]`` geometrically with the
    OUTER_GAPS outside that range, then e^ε′ = ``ratio`` (floats; the grid is the floats themselves, ε
    their logarithms)."""
    e1 = math.log(ratio)
    inner = np.geomspace(*gaps, points)
    outer = [g for g in OUTER_GAPS if not gaps[1] <= g <= gaps[0]]
    return np.append(np.exp(e1 - np.sort(np.concatenate([inner, outer]))[::-1]), ratio)


def tail_floor(delta: Sequence[float], lams: Sequence[float], ratio: float) -> float:
    """A lower bound on inf over every ε < ε′ of δ(ε) / (1 − e^{ε − ε′}), for every e^ε′ ≤ ``ratio``, from
    lower bounds ``delta`` on a nonincreasing δ at the increasing grid ``lams`` of e^ε, whose last point is
    ``ratio``: on [ε_j, ε_{j+1}] the ratio is at least δ(ε_{j+1}) / (1 − λ_j/ratio), below ε_0 at least
    δ(ε_0). Exact rationals, rounded down."""
    lams = [Fraction(v) for v in lams]
    if not (all(a < b for a, b in itertools.pairwise(lams)) and lams[-1] == Fraction(ratio)):
        raise ValueError("the grid must increase to ratio")
    vals = [Fraction(delta[0])]
    vals += [Fraction(d) / (1 - lo / Fraction(ratio)) for d, lo in zip(delta[1:], lams[:-1], strict=True)]
    low = min(vals)
    f = float(low)
    return f if Fraction(f) <= low else math.nextafter(f, -math.inf)


@dataclass
class Floors:
    """Floors of δ at each grid point and their tails, with what the refinement did."""

    lams: np.ndarray
    ratio: float
    deltas: dict[str, list[float]]
    passes: int

    def tails(self) -> dict[str, float]:
        return {k: tail_floor(v, self.lams, self.ratio) for k, v in self.deltas.items()}


def blanket_floor(N: int, L: int, q: float, lams: np.ndarray, cells: int = LEVELS[-1]) -> list[float]:
    """Floors of the graded blanket's δ (the same in both orders) at each e^ε of ``lams``."""
    cls = classes(L, q, 0)
    count = binomial(N - 1, (2 * Fraction(q)) ** L)
    return [expected_floor(count, member(cls, cls.uniform, cls.uniform, lam, True, cells)) for lam in lams]


def cross_cloned_floor(
    N: int, q: float, lams: np.ndarray, bg: Background, ratio: float, levels: Sequence[int] = LEVELS
) -> tuple[list[float], int]:
    """Floors of the cross-cloned pools' δ (max over orders of the least over every y*) at each e^ε,
    the coarsest level everywhere and finer levels where the tail floor binds; and the passes made."""
    if sum(bg.users.values()) != N - 1:
        raise ValueError("the background must hold N - 1 users")
    pools = bg.pools(q)
    cls = {w: classes(bg.L, q, w) for w in {w for w, _ in pools.values()}}
    best: dict[tuple[int, bool, tuple], tuple[float, int]] = {}
    passes = 0

    def run(j: int, fwd: bool, key: tuple, level: int) -> None:
        nonlocal passes
        w, count = pools[key]
        c = cls[w]
        val = expected_floor(count, member(c, c.ystar, c.ystar, float(lams[j]), fwd, levels[level]))
        old = best.get((j, fwd, key), (0.0, -1))[0]
        best[(j, fwd, key)] = (max(old, val), level)
        passes += 1

    for j, fwd, key in itertools.product(range(len(lams)), (True, False), pools):
        run(j, fwd, key, 0)

    def value(j: int) -> float:
        return max(min(best[(j, fwd, key)][0] for key in pools) for fwd in (True, False))

    r = Fraction(ratio)
    while True:
        scores = [Fraction(value(0))] + [
            Fraction(value(j + 1)) / (1 - Fraction(float(lams[j])) / r) for j in range(len(lams) - 1)
        ]
        j = int(np.argmin([float(s) for s in scores]))
        todo = []
        for fwd in (True, False):
            key = min(pools, key=lambda kk, f=fwd: best[(j, f, kk)][0])
            if best[(j, fwd, key)][1] < len(levels) - 1:
                todo.append((fwd, key))
        if not todo:
            break
        for fwd, key in todo:
            run(j, fwd, key, best[(j, fwd, key)][1] + 1)
    return [value(j) for j in range(len(lams))], passes


def two_type_floor(N: int, q: float, lams: np.ndarray, bg: Background, cells: int = LEVELS[-1]) -> list[float]:
    """Floors of the two-type pool's δ (§10.3) at each e^ε: every count cut where its certified upper
    tail is at most ``miss`` (three choices), the tails subtracted (union bound), the pool's statistics
    with ρ each pool law and their mixture, the better order."""
    if sum(bg.users.values()) != N - 1:
        raise ValueError("the background must hold N - 1 users")
    L, qf = bg.L, Fraction(q)
    r = qf / (1 - qf)
    cls = classes(L, q, 0)
    vs = list(bg.users)
    ns = [bg.users[v] for v in vs]
    laws = [
        poisson_binomial([r ** hamming(v, 0) for v in vs], ns),
        poisson_binomial([r ** hamming(v, 2**L - 1) for v in vs], ns),
        binomial(N - 1, (2 * qf) ** L),
    ]
    out = [0.0] * len(lams)
    for miss in (0.3, 0.1, 0.01):
        cuts = [int(np.argmax(np.cumsum(cl.law) >= 1 - miss)) for cl in laws]
        kept = 1.0 - math.nextafter(math.fsum(cl.upper_tail(c) for cl, c in zip(laws, cuts, strict=True)), math.inf)
        if kept <= 0:
            continue
        kept = down(kept, 4 * UNIT)
        schedule = [cls.x] * cuts[0] + [cls.xp] * cuts[1] + [cls.uniform] * cuts[2]
        total = max(1, sum(cuts))
        mix = (cuts[0] * cls.x + cuts[1] * cls.xp + cuts[2] * cls.uniform) / total
        for j, lam in enumerate(lams):
            for fwd, ref in itertools.product((True, False), (cls.x, cls.xp, cls.uniform, mix)):
                first, second = (cls.xp, cls.x) if fwd else (cls.x, cls.xp)
                k = test_values(first, second, ref, float(lam), cells)
                if k is None:
                    continue
                d = statistic_deltas(schedule, [len(schedule)], k, first, second, float(lam))[len(schedule)]
                out[j] = max(out[j], down(kept * d, 4 * UNIT))
    return out


def floors(
    N: int,
    q: float,
    lams: np.ndarray,
    bg: Background,
    ratio: float,
    kinds: Sequence[str] = ("blanket", "cross-cloned", "two-type"),
    levels: Sequence[int] = LEVELS,
) -> Floors:
    """Certified lower bounds on each pooled bound's δ at each e^ε of ``lams`` (ending at ``ratio``), at
    background ``bg`` and the pair 0…0 → 1…1 (the blanket's does not depend on the background)."""
    out: dict[str, list[float]] = {}
    passes = 0
    if "blanket" in kinds:
        out["blanket"] = blanket_floor(N, bg.L, q, lams, levels[-1])
    if "cross-cloned" in kinds:
        out["cross-cloned"], passes = cross_cloned_floor(N, q, lams, bg, ratio, levels)
    if "blanket" in kinds and "cross-cloned" in kinds:
        out["pooled (least)"] = [min(a, b) for a, b in zip(out["blanket"], out["cross-cloned"], strict=True)]
    if "two-type" in kinds:
        out["two-type"] = two_type_floor(N, q, lams, bg, levels[-1])
    return Floors(lams, ratio, out, passes)


def pooled_tail(
    N: int,
    q: float,
    bg: Background,
    ratio: float,
    lams: np.ndarray,
    levels: Sequence[int] = LEVELS,
    blanket_only: bool = False,
) -> float:
    """The certified floor of the tail that the blanket, the clone bounds and the cross-cloned pools can
    certify together at ``bg`` (the least of the blanket's and the pools' tail floors), or that the
    blanket and the clone bounds (the default curve) can certify."""
    if blanket_only:
        return floors(N, q, lams, bg, ratio, ("blanket",), levels).tails()["blanket"]
    return floors(N, q, lams, bg, ratio, ("blanket", "cross-cloned"), levels).tails()["pooled (least)"]


def bisect_q(
    N: int,
    bg: Background,
    ratio: float,
    eta: float,
    lo: float,
    hi: float,
    lams: np.ndarray,
    tol: float = 1e-3,
    blanket_only: bool = False,
) -> tuple[float, float, dict[float, float]]:
    """(q_lo, q_hi, floors): the pooled tail floor exceeds ``eta`` at q_lo and not at q_hi (bisection to
    ``tol``). Every pooled bound, computed exactly, does not increase with q at a fixed background, so
    the floor at q_lo rules out certifying ``eta`` at every q ≤ q_lo."""
    seen = {q: pooled_tail(N, q, bg, ratio, lams, blanket_only=blanket_only) for q in (lo, hi)}
    if not (seen[lo] > eta >= seen[hi]):
        raise ValueError(f"the floor does not cross {eta} between {lo} and {hi}: {seen}")
    while hi - lo > tol:
        mid = round((lo + hi) / 2, 6)
        seen[mid] = pooled_tail(N, mid, bg, ratio, lams, blanket_only=blanket_only)
        lo, hi = (mid, hi) if seen[mid] > eta else (lo, mid)
    return lo, hi, seen


def climb(N: int, L: int, q: float, per_weight: list[int], ratio: float, lams: np.ndarray, step: int) -> list[int]:
    """A local search over backgrounds spread evenly by weight: move ``step`` vector-sets of users
    between two weights while the coarse pooled tail floor (one level) grows. Only a search: its
    answer is then floored at every level."""

    def score(spec: list[int]) -> float:
        bg = weight_background(L, dict(enumerate(spec)))
        return pooled_tail(N, q, bg, ratio, lams, LEVELS[:1])

    best, val = list(per_weight), score(per_weight)
    improved = True
    while improved:
        improved = False
        for a, b in itertools.permutations(range(L + 1), 2):
            move = step * math.lcm(math.comb(L, a), math.comb(L, b))
            if best[a] < move:
                continue
            cand = list(best)
            cand[a] -= move
            cand[b] += move
            v = score(cand)
            if v > val:
                best, val, improved = cand, v, True
                print(f"  climb: {','.join(map(str, best))} coarse floor {val:.4g}", flush=True)
    return best


def setting_arguments(ap: argparse.ArgumentParser, points: int) -> None:
    """The floor scripts' common arguments: N, L, the q's, the tail's λ′ and the dense grid's size."""
    ap.add_argument("N", type=int)
    ap.add_argument("L", type=int)
    ap.add_argument("q", type=float, nargs="+")
    ap.add_argument("--ratio", type=float, default=2.0, help="λ′ = e^ε′ of the tail, taken as the exact float")
    ap.add_argument("--log-ratio", type=float, help="ε′ instead: the float one step above exp(ε′), at least e^ε′")
    ap.add_argument("--points", type=int, default=points, help="values of ε′ − ε in the dense range")


def parse_setting(ap: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parsed arguments, ``ratio`` the float one step above exp(ε′) where ``--log-ratio`` was given."""
    args = ap.parse_args(argv)
    if args.log_ratio is not None:
        args.ratio = math.nextafter(math.exp(args.log_ratio), math.inf)
    return args


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    setting_arguments(ap, 80)
    ap.add_argument("--gaps", type=float, nargs=2, default=(0.2, 0.01), help="the dense range of ε′ − ε")
    ap.add_argument("--kinds", nargs="+", default=["blanket", "cross-cloned"])
    ap.add_argument(
        "--backgrounds",
        nargs="+",
        default=["387,0,0,310,105,197"],
        help="users per weight 0 … L (x = 0…0), comma-separated; each a multiple of C(L, w)",
    )
    ap.add_argument("--eta", type=float, default=1e-3)
    ap.add_argument("--bisect", action="store_true", help="bisect q between the two values given for the pooled floor")
    ap.add_argument("--blanket-only", action="store_true", help="bisect the blanket's floor (the default curve's)")
    ap.add_argument("--tol", type=float, default=1e-3, help="the bisection's width in q")
    ap.add_argument("--climb", type=int, default=0, help="first search backgrounds, moving this many vector-sets")
    args = parse_setting(ap, argv)
    lams = lam_grid(args.ratio, args.points, tuple(args.gaps))
    specs = [[int(c) for c in spec.split(",")] for spec in args.backgrounds]
    if args.climb:
        specs = [climb(args.N, args.L, args.q[0], spec, args.ratio, lams, args.climb) for spec in specs]
    if args.bisect:
        for spec in specs:
            bg = weight_background(args.L, dict(enumerate(spec)))
            lo, hi, seen = bisect_q(
                args.N, bg, args.ratio, args.eta, args.q[0], args.q[-1], lams, args.tol, args.blanket_only
            )
            steps = "  ".join(f"q={q}: {v:.4g}" for q, v in sorted(seen.items()))
            print(
                f"users per weight {','.join(map(str, spec))}: floor > {args.eta} up to q = {lo}, "
                f"not at {hi}  ({steps})"
            )
        return
    for q in args.q:
        for spec_list in specs:
            spec = ",".join(map(str, spec_list))
            bg = weight_background(args.L, dict(enumerate(spec_list)))
            fl = floors(args.N, q, lams, bg, args.ratio, args.kinds)
            cells = "  ".join(f"{k} {v:.4g}" for k, v in fl.tails().items())
            print(
                f"N={args.N} L={args.L} q={q} λ={args.ratio} users per weight {spec}: tail floors  {cells}"
                f"  ({fl.passes} passes)",
                flush=True,
            )


if __name__ == "__main__":
    main()
