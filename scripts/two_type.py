"""δ of two-type backgrounds at d = L, by Monte Carlo of an exact likelihood ratio (issue 32, items 1, 3).

The background holds a users at x = 0…0 and b at x′ = 1…1; the changing user is at x (collection
P: a + 1 at x, b at x′) or at x′ (collection P′: a at x, b + 1 at x′). M(x) and M(x′) are uniform
within weight classes, so the counts h_t of reports with t ones (t = 0 … L) are sufficient. With
w_t = C(L, t) q^t p^(L−t) (a report of x in class t) and w̄_t = w_(L−t) (of x′), a collection of A users
at x and B at x′ gives

    P_{A,B}(h) = A! B! / Π_t h_t! · [u^A] Π_t (w̄_t + u w_t)^{h_t}.

[u^k] Π_t (w̄_t + u w_t)^{h_t} = Π_t (w̄_t + u w_t)^{h_t} u^−k P(K_u = k), K_u = Σ_t Bin(h_t, π_t(u)),
π_t(u) = u w_t / (w̄_t + u w_t): the posterior count of reports assigned to x. So

    R(h) = P′(h) / P(h) = (b + 1)/(a + 1) · u · P(K_u = a) / P(K_u = a + 1)   for every u > 0.

`ratio` evaluates it with u tilted so that E K_u = a + 1/2 (the two masses near the mode) and the
law of K_u from its characteristic function on N + 1 points (no aliasing: 0 ≤ K_u ≤ N);
tests/test_two_type.py checks it against the exact ratio of every histogram of small populations.
δ_{P′‖P}(ε) = E_{P′}[(1 − e^ε / R)_+] and δ_{P‖P′}(ε) = E_P[(1 − e^ε R)_+] are then estimated by
sampling h (a Monte Carlo estimate with its standard error, not a bound).

    python scripts/two_type.py 1000 5 0.2446 --eps 0.2 0.4 0.6

`class_reveal` is a proven upper bound on the same δ (docs/worst-case.md §10.6, the pair-class
reduction): one-bit problems per pair of classes {t, L − t}, exact in floats; loose, see there.
"""

from __future__ import annotations

import argparse
import itertools
import math

import numpy as np
from scipy import special


def class_weights(L: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(w, w̄): the law of a report's number of ones for x = 0…0 and for x′ = 1…1."""
    t = np.arange(L + 1)
    w = special.comb(L, t) * q**t * (1 - q) ** (L - t)
    return w, w[::-1].copy()


def ratio(h: np.ndarray, a: int, b: int, q: float) -> np.ndarray:
    """R(h) = P(h | a at x, b + 1 at x′) / P(h | a + 1 at x, b at x′) for each row of ``h`` (class counts)."""
    h = np.atleast_2d(np.asarray(h, dtype=float))
    L = h.shape[1] - 1
    n = round(float(h[0].sum()))
    w, wb = class_weights(L, q)
    lw = np.log(w) - np.log(wb)  # log of w_t / w̄_t
    # tilt: log u with Σ_t h_t π_t(u) = a + 1/2, by bisection on the (monotone) mean
    lo = np.full(len(h), -80.0)
    hi = np.full(len(h), 80.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        mean = (h * special.expit(mid[:, None] + lw[None, :])).sum(1)
        big = mean > a + 0.5
        hi = np.where(big, mid, hi)
        lo = np.where(big, lo, mid)
    lu = (lo + hi) / 2
    pi = special.expit(lu[:, None] + lw[None, :])  # (samples, classes)
    omega = np.exp(2j * np.pi * np.arange(n + 1) / (n + 1))
    logphi = (h[:, :, None] * np.log1p(pi[:, :, None] * (omega[None, None, :] - 1))).sum(1)
    phi = np.exp(logphi)
    ks = np.array([a, a + 1])
    coef = (phi[:, :, None] * omega[None, :, None] ** (-ks[None, None, :])).real.mean(1)
    return (b + 1) / (a + 1) * np.exp(lu) * coef[:, 0] / coef[:, 1]


def ratio3(h: np.ndarray, a: int, b: int, c: int, q: float) -> np.ndarray:
    """R(h) for pools with ``c`` uniform reports as well (the two-type pool of §10.3 at fixed counts):
    P(h | a at x, b + 1 at x′, c of U) / P(h | a + 1 at x, b at x′, c of U), for each row of ``h``.

    With β_t = C(L, t)/2^L, P_{A,B,C}(h) = A! B! C!/Π_t h_t! · [u^A v^C] Π_t (w̄_t + u w_t + v β_t)^{h_t}, so
    R(h) = (b + 1)/(a + 1) · u₀ · P(K = a, J = c)/P(K = a + 1, J = c) for every u₀, v₀ > 0, where each report
    of class t is, independently, x with probability ∝ u₀ w_t, U with ∝ v₀ β_t and x′ with ∝ w̄_t, and K, J
    count the x and U reports. u₀, v₀ are tilted so that E K = a + 1/2 and E J = c; the joint law of (K, J)
    comes from its characteristic function, on transforms past 24 standard deviations of each count."""
    h = np.atleast_2d(np.asarray(h, dtype=float))
    L = h.shape[1] - 1
    n = round(float(h[0].sum()))
    w, wb = class_weights(L, q)
    beta = special.comb(L, np.arange(L + 1)) / 2.0**L
    lw, lb = np.log(w) - np.log(wb), np.log(beta) - np.log(wb)
    lu, lv = np.zeros(len(h)), np.full(len(h), -5.0)

    def probs(lu: np.ndarray, lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ex, eu = lu[:, None] + lw[None, :], lv[:, None] + lb[None, :]
        top = np.maximum(np.maximum(ex, eu), 0.0)
        zx, zu, z0 = np.exp(ex - top), np.exp(eu - top), np.exp(-top)
        tot = zx + zu + z0
        return zx / tot, zu / tot

    for _ in range(30):  # alternate bisections on each (monotone) mean
        for which in (0, 1):
            lo, hi = np.full(len(h), -80.0), np.full(len(h), 80.0)
            for _ in range(60):
                mid = (lo + hi) / 2
                px, pu = probs(mid, lv) if which == 0 else probs(lu, mid)
                mean = (h * (px if which == 0 else pu)).sum(1)
                big = mean > (a + 0.5 if which == 0 else c)
                hi, lo = np.where(big, mid, hi), np.where(big, lo, mid)
            if which == 0:
                lu = (lo + hi) / 2
            else:
                lv = (lo + hi) / 2
    px, pu = probs(lu, lv)
    # transforms of sizes past 24 standard deviations of K and of J (aliasing below 1e-100 of the masses
    # read, by Bernstein's inequality), or n + 1 (none)
    sizes = [min(n + 1, 64 + int(48 * math.sqrt(float((h * pr * (1 - pr)).sum(1).max())))) for pr in (px, pu)]
    wk, wj = (np.exp(2j * np.pi * np.arange(m) / m) for m in sizes)
    grid = (
        (1 - px - pu)[:, :, None, None]
        + px[:, :, None, None] * wk[None, None, :, None]
        + pu[:, :, None, None] * wj[None, None, None, :]
    )
    phi = np.exp((h[:, :, None, None] * np.log(grid)).sum(1))
    back_c = wj ** (-c)
    coef = [(phi * wk[None, :, None] ** (-k) * back_c[None, None, :]).real.mean((1, 2)) for k in (a, a + 1)]
    return (b + 1) / (a + 1) * np.exp(lu) * coef[0] / coef[1]


def binomial_pmf(n: int, p: float) -> np.ndarray:
    """The law of Bin(n, p) on 0 … n (floats)."""
    k = np.arange(n + 1)
    return special.binom(n, k) * p**k * (1 - p) ** (n - k)


def class_reveal(a: int, b: int, L: int, q: float, eps) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds (forward, reverse) on δ of the two-type pair, per ε, by revealing every user's pair class.

    A report's pair class c = min(t, L − t) has the law π_c = w_c + w_(L−c) under x and under x′ alike;
    given it, the report is on the high side (t = L − c) with probability ρ_c = w_(L−c)/π_c under x and
    1 − ρ_c under x′. Revealing each user's class (the changing user's too) leaves, in the changing
    user's class, one-bit randomized response among Bin(a, π_c) reports of Ber(ρ_c) and Bin(b, π_c) of
    Ber(1 − ρ_c), and every other class independent of the change; so δ ≤ Σ_c π_c E[δ_c].
    """
    lam = np.exp(np.asarray(eps, dtype=float))[:, None]
    w, _ = class_weights(L, q)
    out = np.zeros((2, lam.shape[0]))
    for c in range((L + 2) // 2):
        pi = w[c] + w[L - c] if 2 * c != L else w[c]
        rho = w[L - c] / (w[c] + w[L - c]) if 2 * c != L else 0.5
        pa, pb = binomial_pmf(a, pi), binomial_pmf(b, pi)
        for i, j in itertools.product(range(a + 1), range(b + 1)):
            if pa[i] * pb[j] < 1e-300:
                continue
            base = np.convolve(binomial_pmf(i, rho), binomial_pmf(j, 1 - rho))  # high sides among the others
            px = np.concatenate([base * (1 - rho), [0.0]]) + np.concatenate([[0.0], base * rho])
            pxp = np.concatenate([base * rho, [0.0]]) + np.concatenate([[0.0], base * (1 - rho)])
            weight = pi * pa[i] * pb[j]
            out[0] += weight * np.maximum(pxp[None, :] - lam * px[None, :], 0).sum(1)
            out[1] += weight * np.maximum(px[None, :] - lam * pxp[None, :], 0).sum(1)
    return out[0], out[1]


def sample(a: int, b: int, L: int, q: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Class counts of ``a`` reports of x and ``b`` of x′."""
    w, wb = class_weights(L, q)
    return rng.multinomial(a, w, size=size) + rng.multinomial(b, wb, size=size)


def deltas(a: int, b: int, L: int, q: float, eps, samples: int = 20_000, seed: int = 0, chunk: int = 2_000, c: int = 0):
    """Monte Carlo estimates (forward, reverse), each (mean, standard error) per ε: forward is
    δ_{P′‖P} (S from a at x, b + 1 at x′), reverse δ_{P‖P′}; with ``c`` reports of U in the pool as well
    (:func:`ratio3`)."""
    rng = np.random.default_rng(seed)
    lam = np.exp(np.asarray(eps, dtype=float))
    beta = special.comb(L, np.arange(L + 1)) / 2.0**L
    out = []
    for forward in (True, False):
        vals = []
        for start in range(0, samples, chunk):
            m = min(chunk, samples - start)
            h = sample(a, b + 1, L, q, m, rng) if forward else sample(a + 1, b, L, q, m, rng)
            if c:
                h = h + rng.multinomial(c, beta, size=m)
            R = ratio3(h, a, b, c, q) if c else ratio(h, a, b, q)
            vals.append(np.maximum(1 - (lam[None, :] / R[:, None] if forward else lam[None, :] * R[:, None]), 0))
        v = np.concatenate(vals)
        out.append((v.mean(0), v.std(0, ddof=1) / math.sqrt(len(v))))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("N", type=int)
    ap.add_argument("L", type=int)
    ap.add_argument("q", type=float)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.2, 0.4, 0.6])
    ap.add_argument("--a", type=int, nargs="+", help="users at x (default: a sweep)")
    ap.add_argument("--samples", type=int, default=20_000)
    args = ap.parse_args(argv)
    n = args.N - 1
    sweep = args.a or sorted(
        {0, n // 100, n // 20, n // 10, n // 5, n // 3, n // 2, 2 * n // 3, 4 * n // 5, 9 * n // 10, n}
    )
    for a in sweep:
        (f, fs), (r, rs) = deltas(a, n - a, args.L, args.q, args.eps, args.samples)
        cells = "  ".join(
            f"ε={e}: fwd {fm:.4g}±{fe:.2g} rev {rm:.4g}±{re:.2g}"
            for e, fm, fe, rm, re in zip(args.eps, f, fs, r, rs, strict=True)
        )
        print(f"a={a} b={n - a}  {cells}", flush=True)


if __name__ == "__main__":
    main()
