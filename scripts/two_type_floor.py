"""Certified floors of the two-type pool over every decomposition (issue 32; docs/worst-case.md §10.5).

The two-type pool (§10.3) bounds δ of the pair x = 0…0 → x′ = 1…1 (d = L) by E[δ₂(A, B, C)]: each
background user i is labelled x, x′ or u with probabilities f_i = (α_i, β_i, γ_i) in

    F(y_i) = {f ≥ 0 : f_A M(x) + f_B M(x′) + f_C U ≤ M(y_i) pointwise},

and δ₂(a, b, c) is the δ of one report of M(x) or M(x′) among a reports of M(x), b of M(x′) and c of
U. The bound may choose the f_i at every ε. A *floor* at one background is a proven lower bound on
min over every choice of E[δ₂(A, B, C)](ε), in each order (the larger of the two is kept). Steps:

1. *Where the mean counts can be.* μ = Σ_i f_i lies in the Minkowski sum of the F(y_i), inside
   O = ∩_n {μ : n·μ ≤ Σ_i max_{v ∈ V(y_i)} n·v} for every direction n ≥ 0 (support functions of a
   Minkowski sum add), for a grid of directions and for every facet normal of the sum (cross products of
   two edges of the summands). V(y) is the exact vertex set of F(y): every 3 × 3 system of its constraints
   solved in exact rationals, the feasible solutions kept. F(y) depends on y only through its weight w
   (permutations of the bits fix x, x′ and U), so a background is given by its users per weight.
2. *Corners.* For a grid of lower corners (a_i, b_j), every μ ∈ O with μ_A ≥ a_i and μ_B ≥ b_j has
   μ_C ≤ min_n (H(n) − n_A a_i − n_B b_j)/n_C (n_C > 0), so every μ ∈ O is below one of finitely many
   corners μ̄ (coordinatewise); only the Pareto-largest are kept.
3. *Counts.* A = Σ_i 1[label_i = x] is a Poisson-binomial count over n = N − 1 users with mean
   μ_A ≤ μ̄_A; for c ≥ μ̄_A, P(A > c) ≤ P(Bin(n, μ̄_A/n) > c) (Hoeffding 1956, Theorem 4: c + 1 ≥ μ_A + 1,
   then the binomial's stochastic order in its probability). The same for B and C.
4. *Chain.* δ₂ does not increase with any count (one more report of a known law is a
   post-processing). For cut-offs c¹ ≤ … ≤ c^K and D_k ≤ δ₂(c^k), let L_k = max_{j ≥ k} D_j (still
   ≤ δ₂(c^k)), L_{K+1} = 0. Then δ₂(A, B, C) ≥ Σ_k (L_k − L_{k+1}) 1[(A, B, C) ≤ c^k], and so
   E[δ₂] ≥ Σ_k (L_k − L_{k+1}) (1 − Σ_g P(count_g > c^k_g)) (union bound).
5. *D_k* is pool_floor's certified statistic bound (an event's P′ − e^ε P, every rounding charged).

``--vertex`` (§10.5, vertex labellings) replaces steps 2–4 at a background of users at x and at one other
weight: E[δ₂] is affine in each f_i, so its least value is at a vertex of every F(y_i) (each user in one
pool, with its largest probability); the counts are then independent binomials (the users at x bounded by
(1, Ber(r^L), Ber((2q)^L))), and E[δ₂] is summed over them exactly, δ₂ bounded on a grid of counts
rounded up and the labellings on a grid rounded so that every count grows.

The floor at ε is the least over the corners. Exact rationals everywhere except the statistic, whose
floats are charged as in pool_floor. At a fixed background the two-type bound does not increase with
q (pool_floor's docstring: garbling maps every feasible f at q to a feasible f at q′ > q and the pool at
q onto the pool at q′), so a floor above η at q₀ rules out η at every q ≤ q₀.

    python scripts/two_type_floor.py 1000 5 0.2805 0.281 --points 12 --step 3 --backgrounds 9,0,990,0,0,0
    python scripts/two_type_floor.py 1000 5 0.285 --points 10 --vertex --backgrounds 9,0,990,0,0,0
    python scripts/two_type_floor.py 1000 5 0.1692 --log-ratio 2 --points 12 --step 3 --backgrounds 9,0,990,0,0,0
"""

from __future__ import annotations

import argparse
import functools
import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pool_floor as pf

Vec = tuple[Fraction, Fraction, Fraction]
TAILS = (0.3, 0.2, 0.12, 0.07, 0.04, 0.02, 0.01, 3e-3, 1e-3, 1e-4)
"""Upper-tail levels of each count's cut-off along the chain (step 4)."""


def constraints(L: int, q: float, w: int) -> list[tuple[Vec, Fraction]]:
    """F(y) for y of weight ``w``: rows ((M(x)(z), M(x′)(z), U(z)), M(y)(z)), one z per class (i ones
    among y's ones, j among its zeros), exact rationals of the float q."""
    qf = Fraction(q)
    p = 1 - qf
    out = []
    for i, j in itertools.product(range(w + 1), range(L - w + 1)):
        ones, h = i + j, w - i + j
        out.append(((qf**ones * p ** (L - ones), p**ones * qf ** (L - ones), Fraction(1, 2**L)), qf**h * p ** (L - h)))
    return out


def solve3(rows: Sequence[Vec], rhs: Sequence[Fraction]) -> Vec | None:
    """The solution of a 3 × 3 linear system in exact rationals, or None if it is singular."""
    m = [[*r, b] for r, b in zip(rows, rhs, strict=True)]
    for col in range(3):
        piv = next((k for k in range(col, 3) if m[k][col] != 0), None)
        if piv is None:
            return None
        m[col], m[piv] = m[piv], m[col]
        for k in range(3):
            if k != col and m[k][col] != 0:
                f = m[k][col] / m[col][col]
                m[k] = [a - f * b for a, b in zip(m[k], m[col], strict=True)]
    return (m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2])


@functools.cache
def vertices(L: int, q: float, w: int) -> tuple[Vec, ...]:
    """Every vertex of F(y), y of weight ``w``, exactly."""
    rows = constraints(L, q, w)
    unit = [(Fraction(int(c == 0)), Fraction(int(c == 1)), Fraction(int(c == 2))) for c in range(3)]
    planes = rows + [(u, Fraction(0)) for u in unit]
    out = set()
    for trio in itertools.combinations(planes, 3):
        f = solve3([t[0] for t in trio], [t[1] for t in trio])
        if f is None or min(f) < 0:
            continue
        if all(sum((a * b for a, b in zip(g, f, strict=True)), Fraction(0)) <= m for g, m in rows):
            out.add(f)
    return tuple(sorted(out))


def directions(steps: int = 12) -> list[Vec]:
    """Directions n ≥ 0 for the outer region O: (1, t, s), (0, 1, s), the axes; t, s ∈ {0} ∪ 2^(k/2)."""
    ts = [Fraction(0)] + [Fraction(2) ** k if k >= 0 else Fraction(1, 2**-k) for k in range(-steps, steps + 1)]
    ts += [Fraction(math.sqrt(2)) * t for t in ts[1:]]
    one, zero = Fraction(1), Fraction(0)
    out = {(one, t, s) for t in ts for s in ts} | {(zero, one, s) for s in ts} | {(zero, zero, one)}
    return sorted(out)


def cross(u: Vec, v: Vec) -> Vec:
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def facet_directions(L: int, q: float, weights: Sequence[int]) -> list[Vec]:
    """Candidate facet normals n ≥ 0 of the Minkowski sum of the F(w): cross products of two edges of the
    summands (a facet of a Minkowski sum of 3-polytopes is spanned by two edges of them)."""
    edges: set[Vec] = {
        (u[0] - v[0], u[1] - v[1], u[2] - v[2])
        for w in weights
        for u, v in itertools.combinations(vertices(L, q, w), 2)
    }
    out = set()
    for e1, e2 in itertools.combinations(sorted(edges), 2):
        n = cross(e1, e2)
        if all(x <= 0 for x in n):
            n = (-n[0], -n[1], -n[2])
        if all(x >= 0 for x in n) and any(x > 0 for x in n):
            top = max(n)
            out.add((n[0] / top, n[1] / top, n[2] / top))
    return sorted(out)


def support(L: int, q: float, per_weight: dict[int, int], n: Vec) -> Fraction:
    """max n·μ over the Minkowski sum of the users' F(y): Σ_w users_w · max_{v ∈ V(w)} n·v."""
    return sum(
        (
            c * max(sum((a * b for a, b in zip(n, v, strict=True)), Fraction(0)) for v in vertices(L, q, w))
            for w, c in per_weight.items()
            if c
        ),
        Fraction(0),
    )


def corners(L: int, q: float, per_weight: dict[int, int], step: int) -> list[Vec]:
    """Pareto-largest corners μ̄ such that every mean count vector of the two-type labels lies below one."""
    dirs = sorted(set(directions()) | set(facet_directions(L, q, [w for w, c in per_weight.items() if c])))
    H = {n: support(L, q, per_weight, n) for n in dirs}
    one, zero = Fraction(1), Fraction(0)
    a_max, b_max = H[(one, zero, zero)], H[(zero, one, zero)]
    found = []
    for i in range(math.floor(a_max / step) + 1):
        for j in range(math.floor(b_max / step) + 1):
            a, b = Fraction(i * step), Fraction(j * step)
            if any(n[0] * a + n[1] * b > h for n, h in H.items()):
                continue
            c = min((h - n[0] * a - n[1] * b) / n[2] for n, h in H.items() if n[2] > 0)
            found.append((min(a + step, a_max), min(b + step, b_max), c))
    # keep every corner that no other one exceeds by a margin in every coordinate (keeping extra corners
    # only lowers the floor; the margin makes float rounding unable to drop a corner that is not dominated)
    arr = np.array([[float(x) for x in u] for u in found])
    keep = [
        u for u, row in zip(found, arr, strict=True) if not np.any(np.all(arr > row + 1e-9 * (1 + np.abs(row)), axis=1))
    ]
    return keep


def count_laws(n_users: int, mean: Vec) -> list[pf.CountLaw]:
    """Certified laws of Bin(n, μ̄_g / n) for the three labels."""
    return [pf.binomial(n_users, min(m / n_users, Fraction(1))) for m in mean]


def chain(laws: Sequence[pf.CountLaw], mean: Vec) -> list[tuple[tuple[int, int, int], float]]:
    """Cut-offs c¹ ≤ … ≤ c^K (one per level of TAILS) and a certified upper bound on P(some count > c^k)."""
    out = []
    for tau in TAILS:
        cut, miss = [], 0.0
        for law, m in zip(laws, mean, strict=True):
            c = max(math.ceil(m), 0)
            while c < law.law.size - 1 and law.upper_tail(c) > tau:
                c += 1
            cut.append(c)
            miss += law.upper_tail(c) if c < law.law.size - 1 else 0.0
        out.append(((cut[0], cut[1], cut[2]), math.nextafter(miss, math.inf)))
    return out


def corner_floor(
    cls: pf.Classes, cuts: list[tuple[tuple[int, int, int], float]], lam: float, forward: bool, cells: int
) -> float:
    """A lower bound on E[δ₂] in one order at one e^ε for every labelling whose mean counts are below the
    corner whose chain is ``cuts`` (step 4)."""
    first, second = (cls.xp, cls.x) if forward else (cls.x, cls.xp)
    schedule: list[np.ndarray] = []
    at, prev = [], (0, 0, 0)
    for (ca, cb, cc), _ in cuts:
        schedule += [cls.x] * (ca - prev[0]) + [cls.xp] * (cb - prev[1]) + [cls.uniform] * (cc - prev[2])
        prev = (ca, cb, cc)
        at.append(len(schedule))
    ca, cb, cc = cuts[0][0]
    total = max(1, ca + cb + cc)
    best = [0.0] * len(cuts)
    for ref in ((ca * cls.x + cb * cls.xp + cc * cls.uniform) / total, cls.x, cls.xp):
        k = pf.test_values(first, second, ref, lam, cells)
        if k is None:
            continue
        vals = pf.statistic_deltas(schedule, set(at), k, first, second, lam)
        best = [max(b, vals[t]) for b, t in zip(best, at, strict=True)]
    levels = [max(best[k:]) for k in range(len(best))] + [0.0]
    total_f = Fraction(0)
    for k, (_, miss) in enumerate(cuts):
        keep = 1 - Fraction(miss)
        if keep > 0:
            total_f += (Fraction(levels[k]) - Fraction(levels[k + 1])) * keep
    f = float(total_f)
    return max(0.0, f if Fraction(f) <= total_f else math.nextafter(f, -math.inf))


def order_floors(
    N: int, L: int, q: float, per_weight: dict[int, int], lams: np.ndarray, step: int = 2, cells: int = 128
) -> dict[bool, list[float]]:
    """{forward: floors}: in each order, a lower bound on min over every labelling of E[δ₂(A, B, C)] at
    each e^ε of ``lams`` (forward: δ_{P′‖P}, P′ the collection with the changing user at x′)."""
    if sum(per_weight.values()) != N - 1:
        raise ValueError("the background must hold N - 1 users")
    cls = pf.classes(L, q, 0)
    plan = [chain(count_laws(N - 1, mu), mu) for mu in corners(L, q, per_weight, step)]
    return {
        fwd: [min(corner_floor(cls, cuts, float(lam), fwd, cells) for cuts in plan) for lam in lams]
        for fwd in (True, False)
    }


def two_type_floor(
    N: int, L: int, q: float, per_weight: dict[int, int], lams: np.ndarray, step: int = 2, cells: int = 128
) -> list[float]:
    """Floors of the two-type pool's δ (the larger order) at each e^ε of ``lams``."""
    both = order_floors(N, L, q, per_weight, lams, step, cells)
    return [max(a, b) for a, b in zip(both[True], both[False], strict=True)]


def grid_up(values: np.ndarray, grid: Sequence[int]) -> np.ndarray:
    """For a law over 0 … len − 1, the mass of each cell (grid[k − 1], grid[k]] put on grid[k] (beyond the
    last point: dropped)."""
    out = np.zeros(len(grid))
    prev = -1
    for k, g in enumerate(grid):
        out[k] = values[prev + 1 : g + 1].sum() if prev + 1 < values.size else 0.0
        prev = g
    return out


def vertex_floors(
    N: int, L: int, q: float, m0: int, w: int, lams: np.ndarray, dense: Sequence[bool], step: int = 10, cells: int = 64
) -> dict[bool, list[float]]:
    """{forward: floors} of the two-type pool over every labelling at the background "m0 users at x, the
    rest at weight w" (docs/worst-case.md §10.5, the vertex labellings): each weight-w user sends itself
    to one pool with its largest probability (n_A, n_B, n_C users, n_A + n_B + n_C = N − 1 − m0, the grid
    rounded up), each user at x is bounded by (1, Ber(r^L), Ber((2q)^L)); the counts are independent, and
    E[δ₂] is summed exactly over them with δ₂ bounded below on a grid of counts (rounded up)."""
    n = N - 1 - m0
    qf = Fraction(q)
    r = qf / (1 - qf)
    al, be, ga = r**w, r ** (L - w), (2 * qf) ** L
    cls = pf.classes(L, q, 0)
    a_top = m0 + math.ceil(float(al) * n + 6 * math.sqrt(float(al) * n) + 6)
    b_mean, c_mean = float(be) * n + m0 * float(r**L), float(ga) * (n + m0)
    fine_b = list(range(0, 41, 2)) + list(range(46, math.ceil(b_mean + 6 * math.sqrt(b_mean) + 12), 6))
    fine_c = list(range(0, 25, 3)) + list(range(32, math.ceil(c_mean + 6 * math.sqrt(c_mean) + 12), 8))
    coarse_b, coarse_c = [*fine_b[::5], fine_b[-1]], [*fine_c[::4], fine_c[-1]]
    laws_a: dict[int, np.ndarray] = {}
    laws_b: dict[int, np.ndarray] = {}
    laws_c: dict[int, np.ndarray] = {}
    plan = []
    for i in range(n // step + 1):
        for j in range((n - i * step) // step + 1):
            na, nb, nc = min((i + 1) * step, n), min((j + 1) * step, n), n - i * step - j * step
            if na not in laws_a:
                law = np.zeros(a_top + 1)
                low = pf.binomial(na, al).lower()[: a_top + 1 - m0]
                law[m0 : m0 + low.size] = low
                laws_a[na] = law
            if nb not in laws_b:
                laws_b[nb] = pf.poisson_binomial([be, r**L], [nb, m0]).lower()
            if nc not in laws_c:
                laws_c[nc] = pf.binomial(nc + m0, ga).lower()
            plan.append((na, nb, nc))
    out: dict[bool, list[float]] = {True: [], False: []}
    for lam, fine in zip(lams, dense, strict=True):
        gb, gc = (fine_b, fine_c) if fine else (coarse_b, coarse_c)
        pa = np.array([laws_a[na] for na, _, _ in plan])
        pb = np.array([grid_up(laws_b[nb], gb) for _, nb, _ in plan])
        pc = np.array([grid_up(laws_c[nc], gc) for _, _, nc in plan])
        for fwd in (True, False):
            first, second = (cls.xp, cls.x) if fwd else (cls.x, cls.xp)
            D = np.zeros((a_top + 1, len(gb), len(gc)))
            for kb, b in enumerate(gb):
                for kc, c in enumerate(gc):
                    ref = (80 * cls.x + b * cls.xp + c * cls.uniform) / (80 + b + c)
                    k = pf.test_values(first, second, ref, float(lam), cells)
                    if k is None:
                        continue
                    sched = [cls.uniform] * c + [cls.xp] * b + [cls.x] * a_top
                    vals = pf.statistic_deltas(sched, range(b + c, b + c + a_top + 1), k, first, second, float(lam))
                    D[:, kb, kc] = [vals[b + c + a] for a in range(a_top + 1)]
            inner = np.tensordot(pa, D, axes=(1, 0))  # sums of nonnegative products: every rounding relative
            sums = (inner * pb[:, :, None] * pc[:, None, :]).sum(axis=(1, 2))
            terms = D.size + 8
            out[fwd].append(min(pf.down(float(v), pf.grow(terms)) for v in sums))
    return out


def combined_tail(
    N: int, L: int, q: float, spec: list[int], lams: np.ndarray, ratio: float, step: int, vertex: bool = False
) -> dict:
    """Tail floors of the blanket, the cross-cloned pools, the two-type pool and their least at one background
    (``vertex``: the two-type pool by :func:`vertex_floors`, for users at x and at one other weight only)."""
    per_weight = dict(enumerate(spec))
    bg = pf.weight_background(L, per_weight)
    fl = pf.floors(N, q, lams, bg, ratio, ("blanket", "cross-cloned"))
    deltas = dict(fl.deltas)
    if vertex:
        (w,) = [k for k, c in per_weight.items() if c and k != 0]
        gaps = np.log(ratio) - np.log(lams)
        both = vertex_floors(N, L, q, per_weight.get(0, 0), w, lams, [g <= 0.2 + 1e-9 for g in gaps], step)
        deltas["two-type (every labelling)"] = [max(a, b) for a, b in zip(both[True], both[False], strict=True)]
    else:
        deltas["two-type (every labelling)"] = two_type_floor(N, L, q, per_weight, lams, step)
    forms = ("blanket", "cross-cloned", "two-type (every labelling)")
    deltas["least of all"] = [min(v) for v in zip(*(deltas[k] for k in forms), strict=True)]
    deltas.pop("pooled (least)", None)
    return {k: pf.tail_floor(v, lams, ratio) for k, v in deltas.items()}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    pf.setting_arguments(ap, 20)
    ap.add_argument("--step", type=int, default=2, help="grid step of the corners, in users")
    ap.add_argument("--backgrounds", nargs="+", default=["9,0,990,0,0,0"])
    ap.add_argument("--vertex", action="store_true", help="the two-type pool by vertex labellings (§10.5)")
    args = pf.parse_setting(ap, argv)
    lams = pf.lam_grid(args.ratio, args.points)
    for q in args.q:
        for spec in args.backgrounds:
            counts = [int(c) for c in spec.split(",")]
            tails = combined_tail(args.N, args.L, q, counts, lams, args.ratio, args.step, args.vertex)
            cells = "  ".join(f"{k} {v:.4g}" for k, v in tails.items())
            print(
                f"N={args.N} L={args.L} q={q} λ={args.ratio} users per weight {spec}: tail floors  {cells}", flush=True
            )


if __name__ == "__main__":
    main()
