"""Write the project's notebooks, without outputs, from the cell lists below.

The ``.ipynb`` files in this folder are generated: edit this script, then run ::

    python notebooks/build.py          # rewrite the notebooks
    python notebooks/build.py --check  # exit 1 if a notebook differs from this script

Cell ids are derived from the notebook name and the cell's position, so the
output is byte-for-byte reproducible. ``tests/test_notebooks.py`` executes the
notebooks and checks that they match this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

# Shared first code cell: the Agg backend, and a helper that turns a figure into
# an image/png output. It needs no GUI and no inline backend, so the notebooks
# render the same in Jupyter, under nbclient and in CI.
SETUP = '''\
import io
import math
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display

import gpu_rs

BACKEND = "auto"  # CuPy where a GPU is usable, NumPy otherwise; GPU_RS_BACKEND overrides it


def show(fig):
    """Display a figure as a PNG image and close it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    display(Image(data=buf.getvalue(), format="png"))'''


QUICKSTART = [
    (
        "md",
        """\
# Quick start: the privacy ratio and its certified tail

N users each report an L-bit vector with every bit flipped with probability q (p = 1 − q).
Seed 003 (§3) studies the pair where N − 1 users hold the zero vector and one user changes from
the zero vector to the all-ones vector; the collector's privacy ratio is then R = X / N.
*Sufficient differential privacy* asks, for every pair of neighbouring collections,

$$P[R > \\lambda] \\le \\eta, \\qquad \\lambda = e^{\\varepsilon}.$$

`gpu_rs.tail` returns an interval `lower ≤ P[R > λ] ≤ upper` that provably contains the true
tail (docs/certification.md): the characteristic function of X is known in closed form, and every
approximation (the resolution of the inversion, the mass outside its window, floating-point
round-off) is bounded and added to the interval. Each result also says which pairs it covers
(`scope`): the seed's pair is *not* the worst case (docs/worst-case.md).""",
    ),
    ("code", SETUP),
    (
        "md",
        """\
## One tail query

The first row of the seed's λ = 2 table: L = 5 bits, N = 1000 users, q = 0.2446.""",
    ),
    (
        "code",
        """\
b = gpu_rs.tail(n=1000, bits=5, q=0.2446, eps=math.log(2), backend=BACKEND)
b""",
    ),
    (
        "code",
        """\
print(f"P[R > {b.ratio:g}] is in [{b.lower:.6e}, {b.upper:.6e}]  (width {b.width:.2e})")
print(f"point estimate {b.estimate:.6e}; requested width met: {b.met}")
print(f"method {b.method!r} on {b.backend}, {b.grid_points} grid points, {b.seconds:.3f} s")
print("error budget:", b.budget)
assert b.lower <= b.estimate <= b.upper""",
    ),
    (
        "md",
        """\
## Which pairs: the scope

The default scope, `all`, covers every neighbouring pair: exact for L = 1, and for L ≥ 2 a proven
but looser upper bound, with the best pair known as lower end (its tail is the `estimate`, not the
midpoint of the two ends). `homogeneous` is the larger of both orders of the seed's pair and
`forward` the seed's own order: certified values for one pair, not guarantees. For one bit at
N = 1000 the three differ by orders of magnitude:""",
    ),
    (
        "code",
        """\
for scope in ("forward", "homogeneous", "all"):
    s = gpu_rs.tail(n=1000, bits=1, q=0.1, eps=0.5, scope=scope, backend=BACKEND)
    print(f"{scope:12s} [{s.lower:.4e}, {s.upper:.4e}]  worst: {s.worst}")
    print(f"{'':12s} {s.guarantee}")
print()
for p in b.pairs:  # the L = 5 query above (scope "all"): the best pair known, then the seed's pair's orders
    print(f"L = 5, {p.pair}: [{p.lower:.6e}, {p.upper:.6e}]")""",
    ),
    (
        "md",
        """\
The seed reports 0.006 for this case, estimated by simulation; the certified interval of the
seed's pair says its exact tail is about 0.0071 (the estimate above), and no pair's tail exceeds the
proven upper end. The closed-form moments of R (seed 003 §3.1) give the 3σ reference
point the seed used to choose q:""",
    ),
    (
        "code",
        """\
mean, var = gpu_rs.moments(n=1000, bits=5, q=0.2446)
print(f"E R = {mean:.6f}, sd R = {math.sqrt(var):.6f}, mean + 3 sd = {mean + 3 * math.sqrt(var):.4f}")
print(f"3-sigma rule q for lambda = 2: {gpu_rs.three_sigma_q(n=1000, bits=5, eps=math.log(2)):.4f}")""",
    ),
    (
        "md",
        """\
## The pmf of R, as in seed 003 §3.3

L = 5 and N = 1000, 3000, 5000, at λ = 2 and λ = e², with the seed's q values. For each case
the table gives the seed's tail reading, the certified tail at the seed's q, and the q the 3σ
rule (3.15–3.16) really gives. The seed's row N = 5000, q = 0.1778 does not follow from the 3σ
rule (it gives q ≈ 0.1963), and at q = 0.1778 the tail is about 0.043, ten times the seed's
reading.""",
    ),
    (
        "code",
        """\
L = 5
SEED_TABLES = {  # eps: [(N, q, tail reported by the seed)]
    math.log(2): [(1000, 0.2446, 0.006), (3000, 0.2109, 0.0048), (5000, 0.1778, 0.0045)],
    2.0: [(1000, 0.1692, 0.0037), (3000, 0.1424, 0.0062), (5000, 0.1310, 0.0074)],
}

cases = []
print(f"{'lambda':>7} {'N':>5} {'q':>7} {'seed':>7} {'certified tail':>27} {'3-sigma q':>9} {'s':>6}")
for eps, rows in SEED_TABLES.items():
    for n, q, seed_tail in rows:
        t0 = time.perf_counter()
        # The distribution where the figures below use it: the λ = 2 rows and the first λ = e² row.
        shown = eps == math.log(2) or n == 1000
        dist = gpu_rs.ratio_distribution(n=n, bits=L, q=q, buckets=32, backend=BACKEND) if shown else None
        tb = gpu_rs.tail(n=n, bits=L, q=q, eps=eps, scope="forward", backend=BACKEND)  # the seed's pair and order
        q3 = gpu_rs.three_sigma_q(n=n, bits=L, eps=eps)
        seconds = time.perf_counter() - t0
        cases.append((eps, n, q, dist, tb))
        print(f"{math.exp(eps):7.4g} {n:5d} {q:7.4f} {seed_tail:7.4f} "
              f"[{tb.lower:.4e}, {tb.upper:.4e}] {q3:9.4f} {seconds:6.2f}")""",
    ),
    (
        "md",
        """\
`ratio_distribution` puts its buckets where the mass is (linear over the body, logarithmic over a
heavy tail) and certifies P[R > x] at every edge; the mass outside the window is its own entry.
`dist.plot(eps=...)` draws two panels: the bucket masses with the tail beyond e^ε shaded and its
certified mass printed, and the survival function on a log axis with its certified band.""",
    ),
    (
        "code",
        """\
for eps, n, q, dist, tb in (cases[0], cases[3]):
    show(dist.plot(eps=eps))""",
    ),
    (
        "md",
        """\
The distribution also carries certified bounds on its survival function: `dist.sf(x)` returns
`(lower, upper)` for P[R > x]. Below, the certified band for the three λ = 2 cases (it is
narrower than the line width) at the bucket edges; `dist.sf(2.0)` agrees with the `tail` queries above.""",
    ),
    (
        "code",
        """\
fig, ax = plt.subplots(figsize=(7, 4))
for eps, n, q, dist, tb in cases[:3]:
    ax.fill_between(dist.edges, np.maximum(dist.sf_lower, 1e-300), dist.sf_upper, alpha=0.4)
    ax.semilogy(dist.edges, dist.sf_upper, lw=1, label=f"N = {n}, q = {q}")
    lo, hi = dist.sf(2.0)
    assert lo <= tb.upper and tb.lower <= hi, (lo, hi, tb)
ax.axvline(2.0, color="C3", ls="--", lw=1, label="λ = 2")
ax.set_xlim(0.8, 3.0)
ax.set_ylim(1e-7, 1.5)
ax.set_xlabel("x")
ax.set_ylabel("certified P[R > x]")
ax.legend()
show(fig)""",
    ),
]


CALIBRATION = [
    (
        "md",
        """\
# Calibration: the smallest certified q

`gpu_rs.calibrate(n, bits, eps, eta)` returns the smallest flip probability q (within `q_tol`)
whose **certified upper** tail bound is at most η: `tail(n, bits, c.q, eps).upper <= eta`.
The seed's 3σ rule (3.15–3.16) instead picks q from the mean and variance of R alone; this
notebook compares the two, and shows what tail the 3σ rule really risks.""",
    ),
    ("code", SETUP),
    (
        "md",
        """\
## One calibration

L = 5, N = 1000, λ = 2, η = 10⁻³ at the default precision. `steps` records every tail query
of the bisection.""",
    ),
    (
        "code",
        """\
c = gpu_rs.calibrate(n=1000, bits=5, eps=math.log(2), eta=1e-3, backend=BACKEND)
c""",
    ),
    (
        "code",
        """\
print(f"calibrated q = {c.q:.6f}: P[R > 2] in [{c.tail.lower:.4e}, {c.tail.upper:.4e}]")
print(f"3-sigma rule q = {c.three_sigma_q:.6f}: P[R > 2] in "
      f"[{c.three_sigma_tail.lower:.4e}, {c.three_sigma_tail.upper:.4e}]")
print(f"local DP q = {c.local_dp_q:.6f}")
print(f"{len(c.steps)} tail queries in {c.seconds:.2f} s, monotone near q: {c.monotone}")
assert c.tail.upper <= c.eta""",
    ),
    (
        "md",
        """\
## Calibrated q against N

For the sweeps, `q_tol = 1e-4` and `rel_width = 1e-2` keep the notebook fast. Both only
loosen *how close* the answer is to the smallest certified q: every returned q is still
certified (its upper tail bound is ≤ η). L = 5 at λ = 2 as in seed 003 §3.3, and L = 40 at
λ = e² as in §3.4 and §4. Like the seed's 3σ rule they protect the seed's pair in both orders
(`scope="homogeneous"`), which keeps the comparison like for like; the calibration above, with
the default `scope="all"`, is the one proven for every pair.""",
    ),
    (
        "code",
        """\
ETA = 1e-3
FAST = dict(q_tol=1e-4, rel_width=1e-2, scope="homogeneous", backend=BACKEND)
SWEEPS = {  # (bits, eps): values of N
    (5, math.log(2)): [1_000, 10_000, 100_000],
    (40, 2.0): [1_000, 100_000, 10_000_000],
}

results = {}
print(f"{'L':>3} {'N':>9} {'calibrated q':>12} {'3-sigma q':>9} {'tail at 3-sigma q':>25} {'local DP q':>10} {'s':>6}")
for (bits, eps), ns in SWEEPS.items():
    for n in ns:
        cal = gpu_rs.calibrate(n=n, bits=bits, eps=eps, eta=ETA, **FAST)
        assert cal.tail.upper <= ETA
        results[bits, n] = cal
        t3 = cal.three_sigma_tail
        print(f"{bits:3d} {n:9d} {cal.q:12.5f} {cal.three_sigma_q:9.5f} "
              f"[{t3.lower:.3e}, {t3.upper:.3e}] {cal.local_dp_q:10.5f} {cal.seconds:6.2f}"
              + ("" if cal.monotone else "  (tail not monotone near q)"))""",
    ),
    (
        "code",
        """\
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), constrained_layout=True)
for ax, ((bits, eps), ns) in zip(axes, SWEEPS.items()):
    cals = [results[bits, n] for n in ns]
    ax.semilogx(ns, [x.q for x in cals], "o-", label=f"calibrated, η = {ETA:g}")
    ax.semilogx(ns, [x.three_sigma_q for x in cals], "s--", label="3σ rule (3.15)")
    ax.axhline(cals[0].local_dp_q, color="C2", ls=":", label="local DP (4.2)")
    ax.set_xlabel("N")
    ax.set_ylabel("flip probability q")
    ax.set_title(f"L = {bits}, λ = {math.exp(eps):.4g}")
    ax.legend()
show(fig)""",
    ),
    (
        "md",
        """\
## A table over a grid, and q against N from it

`gpu_rs.table` runs one calibration per setting of a grid (here N × L at λ = e², η = 10⁻³,
`rel_width = 1e-2`, and `q_tol = 1e-6` since L = 1 needs q near 1e-4) on local worker
processes, appending each row to a CSV file as it finishes; a second call with the same file
computes only the rows it lacks. `gpu-rs table` is the same from the command line. The plot
reads the file back. A table's default scope is `calibrate`'s, `"all"` (every pair, the
guarantee); this one asks `scope="homogeneous"` (the seed's pair in both orders), as the sweep
above does, to keep the notebook quick.""",
    ),
    (
        "code",
        """\
import csv
import tempfile
from pathlib import Path

path = Path(tempfile.mkdtemp()) / "table.csv"
grid = dict(n=[10**3, 10**4, 10**5], bits=[1, 5, 40], eps=2.0, eta=ETA, q_tol=1e-6, rel_width=1e-2, scope="homogeneous")
t = gpu_rs.table(**grid, out=str(path), workers=2, backend=BACKEND)
print(f"{len(t.rows)} rows, {t.computed} computed in {t.seconds:.1f} s")
print(f"again: {gpu_rs.table(**grid, out=str(path), workers=2, backend=BACKEND).computed} rows computed")
print(path.read_text().splitlines()[0])""",
    ),
    (
        "code",
        """\
with open(path, newline="") as f:
    rows = [r for r in csv.DictReader(f) if not r["error"]]
fig, ax = plt.subplots(figsize=(7, 4.5))
for bits in sorted({int(r["bits"]) for r in rows}):
    points = sorted((int(r["n"]), float(r["q"])) for r in rows if int(r["bits"]) == bits)
    ax.plot(*zip(*points), "o-", label=f"L = {bits}")
ax.set_xscale("log")
ax.set_yscale("log")  # L = 1 needs q ~ 1e-4 at N = 1e5, L = 40 nearly 0.4
ax.set_xlabel("N")
ax.set_ylabel("calibrated q")
ax.set_title(f"q with certified P[R > e²] ≤ {ETA:g}, seed's pair (the table's default)", fontsize=10)
ax.legend()
show(fig)""",
    ),
    (
        "md",
        """\
## What the 3σ rule really risks

The 3σ rule does not bound the tail. Here is the certified tail P[R > λ] at the 3σ rule's q,
against the target η = 10⁻³ of the calibrated q (error bars are the certified intervals; they
are narrower than the markers). Everywhere it is above η: the 3σ rule gives an η of a few
times 10⁻³, and which one depends on N and L in a way the rule cannot tell.""",
    ),
    (
        "code",
        """\
fig, ax = plt.subplots(figsize=(7, 4.5))
for (bits, eps), ns in SWEEPS.items():
    t3 = [results[bits, n].three_sigma_tail for n in ns]
    est = np.array([t.estimate for t in t3])
    err = np.array([[t.estimate - t.lower for t in t3], [t.upper - t.estimate for t in t3]])
    ax.errorbar(ns, est, yerr=err, fmt="o-", capsize=3, label=f"3σ rule, L = {bits}, λ = {math.exp(eps):.4g}")
ax.axhline(ETA, color="k", ls="--", lw=1, label=f"η = {ETA:g}")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("N")
ax.set_ylabel("certified P[R > λ] at the 3σ rule's q")
ax.legend()
show(fig)""",
    ),
    (
        "md",
        """\
## The tail as a function of q, against η

The calibrated q for any η can be read off the certified tail as a function of q: it is where
the upper bound crosses η. The 3σ rule's q sits at one point of this curve, which fixes the η
it actually delivers. For L = 40 the tail moves in steps: when q grows, a large atom of X
crosses the threshold and a block of mass leaves the tail at once.""",
    ),
    (
        "code",
        """\
CURVES = {  # (bits, n, eps): q grid
    (5, 1000, math.log(2)): np.linspace(0.22, 0.29, 22),
    (40, 10_000_000, 2.0): np.linspace(0.33, 0.38, 26),
}
ETAS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6]

fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), constrained_layout=True)
for ax, ((bits, n, eps), qs) in zip(axes, CURVES.items()):
    t0 = time.perf_counter()
    # The seed's pair (both orders), as the 3σ rule assumes; the proven all-pairs curve is far above it.
    bounds = [gpu_rs.tail(n=n, bits=bits, q=float(q), eps=eps, rel_width=1e-2, scope="homogeneous", backend=BACKEND)
              for q in qs]
    upper = np.array([b.upper for b in bounds])
    ax.fill_between(qs, [b.lower for b in bounds], upper, alpha=0.5)
    ax.semilogy(qs, upper, lw=1, label="certified P[R > λ]")
    for i, eta in enumerate(ETAS):
        ax.axhline(eta, color="0.6", lw=0.6)
        ok = qs[upper <= eta]
        if ok.size:
            ax.plot(ok[0], eta, "k|", ms=12, label="first q of the grid with upper ≤ η" if i == 0 else None)
    q3 = gpu_rs.three_sigma_q(n=n, bits=bits, eps=eps)
    b3 = gpu_rs.tail(n=n, bits=bits, q=q3, eps=eps, scope="homogeneous", backend=BACKEND)
    ax.plot(q3, b3.upper, "rs", label=f"3σ rule: q = {q3:.4f}, tail ≤ {b3.upper:.2e}")
    ax.set_xlabel("q")
    ax.set_ylabel("P[R > λ], seed's pair (both orders)")
    ax.set_title(f"L = {bits}, N = {n:g}, λ = {math.exp(eps):.4g} ({time.perf_counter() - t0:.1f} s)")
    ax.legend(loc="lower left")
show(fig)""",
    ),
]


UTILITY = [
    (
        "md",
        """\
# Utility: what sufficient DP buys

Seed 003 §4: with one set bit per indicator vector, the count d of set bits in a column is
estimated by d̂ = (M − qN)/(p − q), with standard deviation

$$\\sigma(\\hat d) = \\sqrt{N}\\,\\frac{\\sqrt{qp}}{p - q}.$$

The √N factor is there whatever the noise; the second factor grows without bound as q → 1/2.
Local DP needs (p/q)^L ≤ λ, i.e. q ≥ 1/(1 + λ^{1/L}) (4.2), which is close to 1/2 for long
vectors; sufficient DP needs only the calibrated q.""",
    ),
    ("code", SETUP),
    (
        "code",
        """\
qs = np.linspace(0.005, 0.495, 500)
per_root_n = np.array([gpu_rs.precision_sigma(n=1, q=float(q)) for q in qs])  # sigma / sqrt(N)

fig, ax = plt.subplots(figsize=(7, 4.5))
ax.semilogy(qs, per_root_n)
ax.set_xlabel("flip probability q")
ax.set_ylabel("σ(d̂) / √N = √(qp) / (p − q)")
ax.grid(True, which="both", lw=0.3)
show(fig)""",
    ),
    (
        "md",
        """\
## Local DP against sufficient DP (seed 003 §4)

The seed's two examples: L = 5, N = 5000, λ = 2, and L = 40, N = 10⁷, λ = e². The seed leaves
η open; here η = 10⁻³ (with `q_tol = 1e-4`, `rel_width = 1e-2`, as in the calibration
notebook: the q returned is still certified). `Calibration` carries σ(d̂) at the calibrated q, at the 3σ rule's q and
at the local-DP q. The seed quotes q = 0.1778 for the first example; that is not the 3σ rule's
q, and its certified tail is about 0.043.""",
    ),
    (
        "code",
        """\
ETA = 1e-3
FAST = dict(q_tol=1e-4, rel_width=1e-2, scope="homogeneous", backend=BACKEND)
EXAMPLES = [(5, 5_000, math.log(2)), (40, 10_000_000, 2.0)]

examples = []
for bits, n, eps in EXAMPLES:
    cal = gpu_rs.calibrate(n=n, bits=bits, eps=eps, eta=ETA, **FAST)
    assert cal.tail.upper <= ETA
    examples.append(cal)
    root_n = math.sqrt(n)
    print(f"L = {bits}, N = {n}, lambda = {math.exp(eps):.4g}, eta = {ETA:g}  ({cal.seconds:.1f} s)")
    rows = [
        ("local DP (4.2)", cal.local_dp_q, cal.sigma_local_dp, None),
        ("3-sigma rule", cal.three_sigma_q, cal.sigma_three_sigma, cal.three_sigma_tail),
        ("calibrated", cal.q, cal.sigma_calibrated, cal.tail),
    ]
    for name, q, sigma, tb in rows:
        tail_text = f"[{tb.lower:.3e}, {tb.upper:.3e}]" if tb is not None else "0 (pure DP)"
        print(f"  {name:15s} q = {q:.4f}  sigma = {sigma / root_n:6.3f} sqrt(N) = {sigma:9.1f}"
              f"  3 sigma = {3 * sigma:9.0f}  tail {tail_text}")
    print(f"  precision gain over local DP: {cal.sigma_local_dp / cal.sigma_calibrated:.1f}x")

seed_q = 0.1778
tb = gpu_rs.tail(n=5_000, bits=5, q=seed_q, eps=math.log(2), backend=BACKEND)
print(f"seed's q = {seed_q} for L = 5, N = 5000: sigma = {gpu_rs.precision_sigma(n=1, q=seed_q):.3f} sqrt(N), "
      f"tail in [{tb.lower:.3e}, {tb.upper:.3e}]")""",
    ),
    (
        "md",
        """\
The seed's figures for comparison: σ = 7.5√N under local DP against 0.6√N (at q = 0.1778) for
L = 5, "12 fold"; for L = 40, local-DP aggregates "deviate 200K units" (about 3σ) against
"not exceeding 15K", "the 12.5 precision increase". The certified calibration keeps a gain of
about an order of magnitude, at a q slightly above the 3σ rule's, because the 3σ rule's tail is
above η.""",
    ),
    (
        "code",
        """\
fig, ax = plt.subplots(figsize=(7, 4.5))
ax.semilogy(qs, per_root_n, color="0.5", lw=1)
for cal, marker in zip(examples, "os"):
    label = f"L = {cal.bits}, N = {cal.n:g}"
    pts = [(cal.local_dp_q, "local DP"), (cal.three_sigma_q, "3σ rule"), (cal.q, "calibrated")]
    for (q, name), color in zip(pts, ["C3", "C1", "C0"]):
        ax.plot(q, gpu_rs.precision_sigma(n=1, q=q), marker, color=color, ms=8,
                label=f"{label}: {name}, q = {q:.4f}")
ax.set_xlabel("flip probability q")
ax.set_ylabel("σ(d̂) / √N")
ax.legend(fontsize=8)
show(fig)""",
    ),
    (
        "md",
        """\
## Cardinality reduction (seed 003 §5)

The seed (§5) says that if an original vector has at most k set bits, two users' vectors differ
in at most 2k positions, so the noise needed is that of arbitrary vectors of length L = 2k,
whatever the vectors' real length M; one-hot reports (k = 1) would need only the noise of L = 2.
The seed gives no proof. `pair_tail` computes any small pair exactly, so we can check what holds.

1. **The homogeneous pair: exact.** With a background of zero vectors and a change confined to
   2k positions, the other M − 2k bits of every report are independent noise, whoever sent it;
   the tail equals that of the L = 2k pair exactly (same fraction below).
2. **Every pair: not an equivalence.** Over every neighbouring pair of sparse collections
   (M = 3, at most one set bit) at small N, the worst tail is at most the worst over all 2-bit
   pairs at the settings below, and sometimes strictly smaller, so the seed's "equivalence" is at
   best an inequality, checked here at small N only; we have no proof for every N.""",
    ),
    (
        "code",
        """\
import itertools

# 1. the homogeneous pair: M = 3 one-hot change (positions 1 -> 2) against the L = 2 pair
a = gpu_rs.pair_tail(["000"] * 3 + ["100"], ["000"] * 3 + ["010"], q=0.2, eps=0.5)
b2 = gpu_rs.pair_tail(["00"] * 3 + ["10"], ["00"] * 3 + ["01"], q=0.2, eps=0.5)
print(f"M = 3 one-hot, zero background: {a.exact} = {float(a.exact):.8f}")
print(f"L = 2,          zero background: {b2.exact} = {float(b2.exact):.8f}")
assert a.exact == b2.exact

# 2. every pair of sparse 3-bit collections (at most one set bit) against every 2-bit pair
SPARSE = ["000", "100", "010", "001"]
for n, q, eps in [(4, 0.2, 0.5), (4, 0.1, 1.0), (3, 0.25, 0.3)]:
    worst_sparse = max(
        gpu_rs.pair_tail(list(bg) + [x], list(bg) + [y], q=q, eps=eps).upper
        for bg in itertools.combinations_with_replacement(SPARSE, n - 1)
        for x, y in itertools.permutations(SPARSE, 2)
    )
    worst_l2 = gpu_rs.worst_pairs(n, 2, q, eps).upper
    print(f"N = {n}, q = {q}, eps = {eps}: worst sparse M = 3 pair {worst_sparse:.6f}, "
          f"worst L = 2 pair {worst_l2:.6f}")
    assert worst_sparse <= worst_l2""",
    ),
    (
        "md",
        """\
Below: the calibrated q for L = 2k at N = 10⁵, λ = e², η = 10⁻³ (default scope, the homogeneous
pair, so by point 1 exactly what the seed's §5 asks for that pair), and the resulting σ(d̂)/√N;
k = 20 is an unrestricted 40-bit vector.""",
    ),
    (
        "code",
        """\
N_CARD, EPS_CARD = 100_000, 2.0
ks = [1, 2, 3, 5, 10, 20]
card = []
for k in ks:
    cal = gpu_rs.calibrate(n=N_CARD, bits=2 * k, eps=EPS_CARD, eta=ETA, **FAST)
    assert cal.tail.upper <= ETA
    card.append(cal)
    print(f"k = {k:2d} (L = {2 * k:2d}): calibrated q = {cal.q:.5f}, sigma/sqrt(N) = "
          f"{cal.sigma_calibrated / math.sqrt(N_CARD):7.3f}; local DP q = {cal.local_dp_q:.5f}, "
          f"sigma/sqrt(N) = {cal.sigma_local_dp / math.sqrt(N_CARD):7.3f}; monotone near q: {cal.monotone}"
          f"  ({cal.seconds:.1f} s)")""",
    ),
    (
        "md",
        """\
For short vectors the tail is not monotone in q: X lives on few atoms, and as q grows they
cross the threshold one at a time. `calibrate` checks a few points below and above its answer
and says so (`monotone=False`, with the offending pairs in `violations`). The q it returns is
certified, but a slightly smaller certified q may exist.""",
    ),
    (
        "code",
        """\
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.5), constrained_layout=True)
ax1.plot(ks, [c.q for c in card], "o-", label="calibrated (sufficient DP)")
ax1.plot(ks, [c.local_dp_q for c in card], "s:", label="local DP (4.2)")
ax1.set_xticks(ks)
ax1.set_xlabel("at most k set bits (L = 2k)")
ax1.set_ylabel("flip probability q")
ax1.legend()
ax2.semilogy(ks, [c.sigma_calibrated / math.sqrt(N_CARD) for c in card], "o-", label="calibrated")
ax2.semilogy(ks, [c.sigma_local_dp / math.sqrt(N_CARD) for c in card], "s:", label="local DP")
ax2.set_xticks(ks)
ax2.set_xlabel("at most k set bits (L = 2k)")
ax2.set_ylabel("σ(d̂) / √N")
ax2.legend()
fig.suptitle(f"N = {N_CARD:g}, λ = {math.exp(EPS_CARD):.4g}, η = {ETA:g}")
show(fig)""",
    ),
]


KRAND = [
    (
        "md",
        """\
# k reports per user (seed 003 §6): certified tails and calibration

Every user sends k independent randomizations of its vector and all kN records are shuffled
together (SPEC §1.3). The privacy ratio is R_k = e_k(w_1, …, w_kN) / C(kN, k). Seed 003 §6
concludes that the noise barely needs to grow with k; its moment "bounds" (6.1), (6.2) are not
bounds (docs/k-randomization.md §4). Here: certified tails for k > 1, and the §6.1 experiment
recomputed by `scripts/krand_tables.py` (its table is in docs/seed-tables.md).""",
    ),
    ("code", SETUP),
    (
        "md",
        """\
## The seed's q at L = 5, N = 1000, λ = 2 does not protect k > 1

q = 0.2446 is the seed's 3σ q for k = 1. With k reports the certified interval of the forward
tail (the seed's order) grows quickly; for k > 1 the interval comes from Maclaurin/Bonferroni
inequalities (docs/k-randomization.md §5), so it is wider than for k = 1.""",
    ),
    (
        "code",
        """\
for k in (1, 2, 3):
    b = gpu_rs.tail(1000, 5, 0.2446, ratio=2.0, k=k, scope="forward", backend=BACKEND)
    print(f"k = {k}: P[R_k > 2] in [{b.lower:.4f}, {b.upper:.4f}]  ({b.seconds:.1f} s)")""",
    ),
    (
        "md",
        """\
## §6.1 recomputed: calibrated q and the precision of the estimate

Read the table written by `python scripts/krand_tables.py` (docs/krand-table.csv): the
smallest q whose certified tail (both orders) is ≤ η, the 3σ q from the exact moments, the
seed's (6.3) q, and σ(d̂) = √(qpN/k)/(p − q) at each.""",
    ),
    (
        "code",
        """\
import csv
from pathlib import Path

table = Path(gpu_rs.__file__).resolve().parents[1] / "docs" / "krand-table.csv"
rows = list(csv.DictReader(table.open()))
fig, axes = plt.subplots(2, 2, figsize=(11, 8))
for col, bits in enumerate(("40", "5")):
    sub = [r for r in rows if r["bits"] == bits]
    k = [int(r["k"]) for r in sub]
    title = f"L = {bits}, N = {float(sub[0]['n']):g}, λ = {float(sub[0]['lam']):.3g}, η = {sub[0]['eta']}"
    ax = axes[0, col]
    for key, label, style in (("q_cal", "certified (calibrate)", "o-"), ("q_3sigma", "3σ, exact moments", "s--"),
                              ("q_seed", "seed (6.3)", "^:")):
        ax.plot(k, [float(r[key]) for r in sub], style, label=label)
    ax.set(xscale="log", xlabel="k (reports per user)", ylabel="q", title=title)
    ax.legend()
    ax = axes[1, col]
    for key, label, style in (("sigma_cal", "certified q", "o-"), ("sigma_3sigma", "3σ q", "s--"),
                              ("sigma_seed", "seed's q", "^:")):
        ax.plot(k, [float(r[key]) for r in sub], style, label=label)
    ax.set(xscale="log", yscale="log", xlabel="k (reports per user)", ylabel="σ(d̂)")
    ax.legend()
fig.tight_layout()
show(fig)""",
    ),
    (
        "md",
        """\
The certified q rises with k: more reports need more noise, against the seed's conclusion.
Whether the estimate still improves is the lower row: σ(d̂) at the certified q against k = 1.""",
    ),
]


ACCOUNTANTS = [
    (
        "md",
        """\
# Against the shuffle accountants

What the certified profile buys over the bounds people use today. The generic shuffle bounds
(Feldman–McMillan–Talwar's clones, Wang et al.'s variation ratio, Balle et al.'s privacy
blanket; `gpu_rs.reference.generic_bounds`) treat L-bit randomized response as an arbitrary
ε₀-LDP randomizer, ε₀ = L log(p/q), and hold for every pair of neighbouring collections.
gpu_rs computes δ(ε) of this randomizer itself: a certified interval for the seed's pair
(both orders) and a proven upper end for every pair. dp_accounting can do the same only where
someone hands it the pmf of the shuffled output, i.e. for one bit.""",
    ),
    ("code", SETUP),
    (
        "md",
        """\
## δ(ε) beside the generic curves

`PrivacyProfile.plot(others=...)` draws any δ(ε) curves beside the certified bands; here the
seed's pair's bands (one pair only, not a guarantee), the upper end gpu_rs proves for every pair,
and the generic bounds at N = 10⁴, one bit, ε₀ = 4. The clone-type curves level off near 10⁻¹⁵,
the float round-off they charge: that is their floor, not δ.""",
    ),
    (
        "code",
        """\
from gpu_rs.reference.generic_bounds import generic_curves

N, BITS, EPS0 = 10_000, 1, 4.0
Q = 1.0 / (1.0 + math.exp(EPS0 / BITS))
# The seed's pair in both orders: the pair whose exact pmf dp_accounting is handed below, so the
# comparison is like with like (scope="all", the default, is exact for one bit too, but it is the
# worst background's δ, not this pair's).
prof = gpu_rs.privacy_profile(N, BITS, Q, scope="homogeneous", backend=BACKEND)
# The guarantee beside it: every pair (scope="all", exact at one bit; 2 s here).
every = gpu_rs.privacy_profile(N, BITS, Q, backend=BACKEND)
curves = {"gpu_rs, every pair (proven, scope all)": lambda e: np.array([d.upper for d in every.delta(e)])}
fig, ax = plt.subplots(figsize=(7, 4.5))
prof.plot(np.linspace(0.02, 2.0, 30), ax=ax, others={**curves, **generic_curves(N, BITS, Q)})
show(fig)""",
    ),
    (
        "md",
        """\
## ε(δ = 10⁻⁶) against N (the table of docs/benchmarks.md)

Read from the cache that `scripts/profile_comparison.py` fills (in a source checkout). A gpu_rs
cell that did not finish within the script's time limit is missing from the plot. gpu_rs's
every-pair line is the upper end of the default `scope="all"`: at L = 1 the worst background
(it overlaps the seed's pair and dp_accounting's exact pmf), at L ≥ 2 the proven bound. It is
below every generic bound at every N: by 1.1–1.4 times at L = 1, 1.1–1.3 times at L = 2 (there
within 3.1 % of the variation-ratio bound with L-bit RR's β, which is not a bound for every pair),
1.8–2.4 times at L = 5, 2.5–3.3 times at L = 8 and 6.5–8.4 times at L = 40, where it is also
2.8–3.3 times below that β bound.""",
    ),
    (
        "code",
        """\
import json
from pathlib import Path

CACHE = Path(gpu_rs.__file__).resolve().parents[1] / "benchmarks" / "profile_comparison.json"
LABELS = {
    "homogeneous": "gpu_rs, seed's pair only (not a guarantee: the worst pair's ε is at least this)",
    "all": "gpu_rs, every pair (proven, scope all)",
    "fmt_closed": "FMT closed form",
    "fmt_numerical": "FMT numerical",
    "variation_ratio": "variation-ratio",
    "vr_rr": "variation-ratio, β of L-bit RR (not a bound for every pair: docs/worst-case.md §8.8)",
    "blanket": "blanket",
    "dp_accounting": "dp_accounting, exact pmf",
}
if CACHE.exists():
    cells = json.loads(CACHE.read_text())
    fig, axes = plt.subplots(1, 5, figsize=(17, 3.8), sharey=True)
    for ax, bits in zip(axes, (1, 2, 5, 8, 40)):
        q = 1.0 / (1.0 + math.exp(4.0 / bits))
        for i, (method, label) in enumerate(LABELS.items()):
            pts = []
            for n in (10**3, 10**4, 10**5, 10**6, 10**7):
                cell = cells.get(f"{method} n={n} bits={bits} q={q!r} delta=1e-06", {})
                if cell.get("status") == "ok":
                    pts.append((n, cell["value"]))
            if pts:  # the proven every-pair line on top: beyond N = 1e4 it meets the variation-ratio bound
                top = method == "all"
                ax.loglog(*zip(*pts), marker="o", ms=3, color="k" if top else f"C{i}", lw=2.2 if top else 1.2,
                          ls="--" if top else "-", zorder=3 if top else 2, label=label)
        ax.set_title(f"L = {bits}, ε₀ = 4")
        ax.set_xlabel("N")
        ax.grid(True, which="both", lw=0.3)
    axes[0].set_ylabel("ε(δ = 1e-6)")
    handles = {h.get_label(): h for ax in axes for h in ax.get_lines()}
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=4, fontsize=8, bbox_to_anchor=(0.5, -0.16))
    show(fig)
else:
    print(f"no cache at {CACHE}: run python scripts/profile_comparison.py")""",
    ),
    (
        "md",
        """\
## Composition in dp_accounting

`PrivacyProfile.to_dp_accounting()` hands the certified upper δ(ε) of both orders to
dp_accounting as a pessimistic privacy loss distribution, which composes with any other PLD
of the same discretization. Against dp_accounting's own PLD of the exact one-bit pmfs
(pessimistic and optimistic), k-fold composition:""",
    ),
    (
        "code",
        """\
from gpu_rs.reference.one_bit_pld import one_bit_pld

t0 = time.perf_counter()
ours = prof.to_dp_accounting()
print(f"export: {time.perf_counter() - t0:.1f} s")
exact = {True: one_bit_pld(N, Q, pessimistic=True), False: one_bit_pld(N, Q, pessimistic=False)}
ks = [1, 2, 5, 10, 20, 50]
rows = []
for k in ks:
    e_ours = ours.self_compose(k).get_epsilon_for_delta(1e-6)
    e_pess = exact[True].self_compose(k).get_epsilon_for_delta(1e-6)
    e_opt = exact[False].self_compose(k).get_epsilon_for_delta(1e-6)
    assert e_ours >= e_opt
    rows.append((k, e_ours, e_pess, e_opt))
    print(f"k = {k:3d}: ours {e_ours:.4f}, exact pmf pessimistic {e_pess:.4f}, optimistic {e_opt:.4f}")
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4), constrained_layout=True)
for col, style, label in ((1, "o-", "gpu_rs export (certified δ curve)"),
                          (2, "s--", "dp_accounting, exact pmf, pessimistic"),
                          (3, "^:", "dp_accounting, exact pmf, optimistic")):
    ax1.plot(ks, [r[col] for r in rows], style, label=label)
    ax2.plot(ks, [r[col] / r[3] for r in rows], style, label=label)
for ax in (ax1, ax2):
    ax.set_xscale("log")
    ax.set_xlabel("releases composed, k")
    ax.grid(True, which="both", lw=0.3)
ax1.set_ylabel("ε(δ = 1e-6)")
ax2.set_ylabel("ε / ε of the optimistic exact PLD")
ax1.legend(fontsize=8)
fig.suptitle(f"k-fold composition, N = {N:,}, L = {BITS}, q = {Q:.4g}")
show(fig)""",
    ),
    (
        "md",
        """\
## Certified composition: `gpu_rs.compose`

dp_accounting's composition of the export is floating-point FFT with truncated tails, outside
gpu_rs's certification. `gpu_rs.compose(profile, times=T)` composes the same dominating pair
itself, certified by the engine (docs/composition.md): its upper `ε(δ)` is a proven bound, and
it sits within a fraction of a percent of dp_accounting's pessimistic composition of the same
export. Its lower end is the composed seed's pair (its certified ends and the chords that
convexity extends), here close to dp_accounting's optimistic composition of the exact pair.""",
    ),
    (
        "code",
        """\
t0 = time.perf_counter()
composed = gpu_rs.compose(prof, times=50).epsilon(1e-6)
theirs = ours.self_compose(50).get_epsilon_for_delta(1e-6)
print(f"gpu_rs.compose, 50 releases: eps(1e-6) in [{composed.lower:.4f}, {composed.upper:.4f}] "
      f"({time.perf_counter() - t0:.1f} s); dp_accounting, same export: {theirs:.4f}")
assert composed.upper >= exact[False].self_compose(50).get_epsilon_for_delta(1e-6)""",
    ),
    (
        "md",
        """\
## ε(δ = 10⁻⁹) after T daily releases, N = 10⁶ (every pair)

Read from the cache that `scripts/composition_comparison.py` fills: for L = 8, 16, 40 bits at
local privacy ε₀ = 4 per report (and L = 8, q = 0.3, ε₀ = 6.8), each day's release certified for
every pair (`scope="all"`), composed over up to a year. The band is gpu_rs's certified interval
(its upper end is the guarantee), the circles dp_accounting's pessimistic composition of the same
export. At ε₀ = 4 and N = 10⁶ the every-pair bound of one release falls with L (the graded blanket
holds more users at more bits: ε(10⁻⁹) of one release 0.021, 0.014, 0.0082 at L = 8, 16, 40), and
the composed upper ends keep that order; the lower ends are the composed seed's pair, more private
still.""",
    ),
    (
        "code",
        """\
COMPOSED = Path(gpu_rs.__file__).resolve().parents[1] / "benchmarks" / "composition_comparison.json"
if COMPOSED.exists():
    cells = json.loads(COMPOSED.read_text())
    fig, ax = plt.subplots(figsize=(8, 4.8))
    settings = [(bits, 1.0 / (1.0 + math.exp(4.0 / bits))) for bits in (8, 16, 40)] + [(8, 0.3)]
    for i, (bits, q) in enumerate(settings):
        rows = [(t, cells.get(f"n=1000000 bits={bits} q={q!r} T={t} delta=1e-09")) for t in (1, 7, 30, 91, 182, 365)]
        rows = [(t, c) for t, c in rows if c]
        if not rows:
            continue
        ts = [t for t, _ in rows]
        ax.fill_between(ts, [c["lower"] for _, c in rows], [c["upper"] for _, c in rows], color=f"C{i}", alpha=0.15)
        name = f"L = {bits}, ε₀ = {bits * math.log((1 - q) / q):.3g}"
        ax.plot(ts, [c["upper"] for _, c in rows], "-", color=f"C{i}", lw=3 - 0.6 * i,
                label=f"{name}: gpu_rs.compose, upper end (proven, every pair)")
        ax.plot(ts, [c["dp_accounting"] for _, c in rows], "o", color=f"C{i}", mfc="none", ms=9 - 1.5 * i,
                label=f"{name}: dp_accounting, same export")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("releases T (days)")
    ax.set_ylabel("ε(δ = 1e-9)")
    ax.set_title("N = 10⁶, daily releases; band: certified interval")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    show(fig)
else:
    print(f"no cache at {COMPOSED}: run python scripts/composition_comparison.py")""",
    ),
]


NOTEBOOKS = {
    "01_quickstart.ipynb": QUICKSTART,
    "02_calibration.ipynb": CALIBRATION,
    "03_utility.ipynb": UTILITY,
    "04_krandomization.ipynb": KRAND,
    "05_accountants.ipynb": ACCOUNTANTS,
}


def build(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    """The notebook ``name`` with ``cells``, no outputs, and deterministic cell ids."""
    stem = name.removesuffix(".ipynb")
    nb = new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for i, (kind, source) in enumerate(cells):
        make = new_markdown_cell if kind == "md" else new_code_cell
        nb.cells.append(make(source=source, id=f"{stem}-{i:02d}"))
    nbformat.validate(nb)
    return nb


def render(name: str) -> str:
    """The exact text of the notebook file ``name``."""
    return nbformat.writes(build(name, NOTEBOOKS[name])) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report notebooks that differ from this script")
    args = parser.parse_args(argv)
    stale = []
    for name in NOTEBOOKS:
        path = HERE / name
        text = render(name)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run python notebooks/build.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
