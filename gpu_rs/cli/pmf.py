"""``gpu-rs pmf``: the bucketed distribution of ``R``."""

from __future__ import annotations

import argparse
import importlib.util
import math
from typing import Any

from gpu_rs.cli.arguments import (
    PLOT_SUFFIXES,
    add_common,
    add_run_options,
    out_file,
    short,
)
from gpu_rs.cli.output import EXIT_OK, print_json
from gpu_rs.cli.progress import Progress


def register(sub: Any) -> None:
    """Add ``gpu-rs pmf`` to the subcommands."""
    p = sub.add_parser(
        "pmf",
        help="the bucketed distribution of R",
        description="The bucketed pmf of R = X/N: summary, and optionally a CSV file and a plot.",
    )
    add_common(p, q=True, eps_required=False)
    p.add_argument(
        "--csv",
        type=out_file("--csv"),
        metavar="FILE",
        help="write the distribution to FILE as CSV, one row per bucket; its header row names the columns",
    )
    p.add_argument(
        "--plot",
        type=out_file("--plot", PLOT_SUFFIXES),
        metavar="FILE.png",
        help=f"plot the pmf to FILE, one of {', '.join(PLOT_SUFFIXES)} (needs matplotlib: gpu-rs[plot])",
    )
    add_run_options(p, json_help="print one JSON object (RatioDistribution.to_dict()) on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import gpu_rs
    from gpu_rs.common.validation import resolve_eps

    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--plot needs matplotlib: pip install 'gpu-rs[plot]'")
    has_eps = args.eps is not None or args.ratio is not None
    eps = resolve_eps(args.eps, args.ratio) if has_eps else None
    with Progress("computing the distribution", quiet=args.quiet):
        d = gpu_rs.ratio_distribution(args.n, args.bits, args.q, backend=args.backend)
    if args.csv is not None:
        d.to_csv(args.csv)
    if args.plot is not None:
        plot(d, args.plot, eps)
    if args.json:
        print_json(d)
        return EXIT_OK
    print(f"R = X/N  n={d.n}, bits={d.bits}, q={short(d.q)}")
    print(f"  mean        {d.mean:.8g}  (closed form)")
    print(f"  variance    {d.var:.8g}  (closed form)")
    print(f"  buckets     {len(d.values)} from {float(d.values[0]):.6g}, width {d.step:.3g}")
    print(f"  total mass  {float(d.probs.sum()):.12g}  (estimate; outside the window <= {d.outside:.2e})")
    if eps is not None:
        lam = math.exp(eps)
        lo, hi = d.sf(lam)
        print(f"  P[R > {lam:.6g}] in [{lo:.4e}, {hi:.4e}]")
    print(f"  backend {d.backend}, {d.grid_points} grid points, {d.seconds:.3g} s")
    if args.csv is not None:
        print(f"wrote {args.csv}")
    if args.plot is not None:
        print(f"wrote {args.plot}")
    return EXIT_OK


def plot(d: Any, path: str, eps: float | None) -> None:
    d.plot(path, eps=eps)
