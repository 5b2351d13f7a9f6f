"""Exhaustive δ over every background of a small population (issue 32, item 3): research script.

For N users with L bits, the changing user goes x = 0…0 → x′ = 1^d 0^(L−d) (every pair is one of
these up to the mechanism's symmetries) and the N − 1 others form a background, a multiset of
vectors. The output histogram S (counts of the N reports per value in {0,1}^L) is sufficient, and
its law under a collection is the convolution of one report law M(v) per user. Every background is
visited once, depth first (a multiset of vectors in nondecreasing order; each node's law is its
parent's law convolved with one more user), and at each leaf

    δ_fwd(ε) = Σ_S (P(S | bg + x′) − e^ε P(S | bg + x))_+,   δ_rev(ε) = the same with x, x′ swapped,

for every d = 1 … L and every ε asked. Laws live on the simplex of histograms, indexed by rank.

Accuracy: every law is built from products and sums of nonnegative floats, so each entry carries a
relative error at most e = 1.01 N (K + L + 4) u (K = 2^L values, u = 2^−53: per user, K products and
K − 1 sums on top of M(v)'s L + 2 roundings). (·)_+ is 1-Lipschitz and the laws have mass 1, so
each δ is within e (1 + e^ε) + cells·u·δ of the computed value. A claim that one background beats
another is made only where the margin exceeds the two bounds together.

    python scripts/background_search.py 20 2 0.3 --eps 0.5 1 1.5
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

import numpy as np

U = 2.0**-53


@dataclass(frozen=True)
class Simplex:
    """Histograms of n reports over K values for n = 0 … N, with the maps 'one more report of z'."""

    K: int
    N: int
    sizes: tuple[int, ...]
    nxt: tuple[tuple[np.ndarray, ...], ...]
    comps: np.ndarray

    @classmethod
    def build(cls, K: int, N: int) -> Simplex:
        base = N + 1
        weights = base ** np.arange(K, dtype=np.int64)
        codes, comps = [], None
        for n in range(N + 1):
            c = np.array([t for t in _compositions(n, K)], dtype=np.int64).reshape(-1, K)
            codes.append(np.sort(c @ weights))
            if n == N:
                comps = c[np.argsort(c @ weights)]
        nxt = tuple(tuple(np.searchsorted(codes[n + 1], codes[n] + weights[z]) for z in range(K)) for n in range(N))
        return cls(K, N, tuple(len(c) for c in codes), nxt, comps)

    def add(self, law: np.ndarray, n: int, probs: np.ndarray) -> np.ndarray:
        """The law of n + 1 reports: ``law`` (n reports) with one more report of law ``probs``."""
        out = np.zeros(self.sizes[n + 1])
        for z in range(self.K):
            out[self.nxt[n][z]] += probs[z] * law
        return out


def _compositions(n: int, K: int):
    if K == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, K - 1):
            yield (first, *rest)


def report_law(v: int, L: int, q: float) -> np.ndarray:
    """M(v)(z) for z = 0 … 2^L − 1 (v and z read as binary numbers)."""
    h = np.array([bin(v ^ z).count("1") for z in range(2**L)])
    return q**h * (1 - q) ** (L - h)


@dataclass(frozen=True)
class Search:
    """Every background's δ: ``backgrounds[i]`` (counts per vector) and ``deltas[i, d − 1, o, j]``
    (order o = 0 forward, 1 reverse; ε = eps[j])."""

    N: int
    L: int
    q: float
    eps: np.ndarray
    backgrounds: np.ndarray
    deltas: np.ndarray
    errors: np.ndarray
    seconds: float


def search(N: int, L: int, q: float, eps) -> Search:
    """δ at every ε of ``eps`` for every background of N − 1 users, every d and both orders."""
    K = 2**L
    eps = np.asarray(eps, dtype=float)
    lam = np.exp(eps)[:, None]
    sx = Simplex.build(K, N)
    laws = [report_law(v, L, q) for v in range(K)]
    targets = [0] + [int("1" * d + "0" * (L - d), 2) for d in range(1, L + 1)]
    e = 1.01 * N * (K + L + 4) * U
    cells = sx.sizes[N]
    bgs, out, errs = [], [], []
    t0 = time.perf_counter()

    def visit(start: int, n: int, law: np.ndarray, counts: list[int]) -> None:
        if n == N - 1:
            full = {v: sx.add(law, n, laws[v]) for v in targets}
            row = np.empty((L, 2, len(eps)))
            err = np.empty((L, 2, len(eps)))
            for d in range(1, L + 1):
                for o, (a, b) in enumerate(((full[targets[d]], full[0]), (full[0], full[targets[d]]))):
                    row[d - 1, o] = np.maximum(a[None, :] - lam[:, :] * b[None, :], 0).sum(1)
                    err[d - 1, o] = e * (1 + lam[:, 0]) + cells * U * row[d - 1, o]
            bgs.append(tuple(counts))
            out.append(row)
            errs.append(err)
            return
        for v in range(start, K):
            counts[v] += 1
            visit(v, n + 1, sx.add(law, n, laws[v]), counts)
            counts[v] -= 1

    visit(0, 0, np.ones(1), [0] * K)
    return Search(N, L, q, eps, np.array(bgs), np.array(out), np.array(errs), time.perf_counter() - t0)


def support(bg) -> int:
    return int(np.count_nonzero(bg))


def name(bg, L: int) -> str:
    return ", ".join(f"{c}×{format(v, f'0{L}b')}" for v, c in enumerate(bg) if c)


def summarize(s: Search) -> list[dict]:
    """Per ε: the worst background over every d and order, the best on one vector, on at most two,
    and on three or more, with the certified verdicts."""
    rows = []
    best = s.deltas.max(axis=(1, 2))  # (backgrounds, ε)
    err_all = s.errors.max(axis=(0, 1, 2))
    supp = np.array([support(b) for b in s.backgrounds])
    for j, e in enumerate(s.eps):
        col = best[:, j]
        i = int(np.argmax(col))
        d, o = np.unravel_index(int(np.argmax(s.deltas[i, :, :, j])), s.deltas.shape[1:3])
        one = col[supp == 1].max()
        two = col[supp <= 2].max()
        three = col[supp >= 3].max() if np.any(supp >= 3) else -np.inf
        err = 2 * float(err_all[j])
        rows.append(
            {
                "eps": float(e),
                "trivial": bool(col[i] == 0.0),
                "worst": name(s.backgrounds[i], s.L),
                "d": int(d) + 1,
                "order": "forward" if o == 0 else "reverse",
                "delta": float(col[i]),
                "one": float(one),
                "two": float(two),
                "three": float(three),
                "err": err,
                "two_beats_three": bool(two - three > err),
                "one_is_worst": bool(one == col[i]),
                "one_certified_worst": bool(one == col[i] and np.sort(col[supp >= 2])[-1] < one - err)
                if np.any(supp >= 2)
                else True,
            }
        )
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("N", type=int)
    ap.add_argument("L", type=int)
    ap.add_argument("q", type=float, nargs="+")
    ap.add_argument("--eps", type=float, nargs="+", default=[0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0])
    ap.add_argument("--json", help="append one JSON line per (N, L, q) to this file")
    args = ap.parse_args(argv)
    for q in args.q:
        s = search(args.N, args.L, q, args.eps)
        rows = summarize(s)
        print(f"N={s.N} L={s.L} q={q} backgrounds={len(s.backgrounds)} seconds={s.seconds:.1f}", flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                rec = {"N": s.N, "L": s.L, "q": q, "backgrounds": len(s.backgrounds), "seconds": s.seconds}
                fh.write(json.dumps({**rec, "rows": rows}) + "\n")
        for r in rows:
            print(
                f"  eps={r['eps']:<5} worst {r['delta']:.6g} ({r['worst']}; d={r['d']}, {r['order']}) "
                f"one-vector {r['one']:.6g} two {r['two']:.6g} three+ {r['three']:.6g} "
                f"two>three certified {r['two_beats_three']} homogeneous-worst {r['one_is_worst']} "
                f"(certified {r['one_certified_worst']})",
                flush=True,
            )


if __name__ == "__main__":
    main()
