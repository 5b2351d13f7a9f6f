"""``gpu-rs pmf``: the distribution of ``R`` in buckets, certified at every edge."""

from __future__ import annotations

import argparse
import importlib.util
import math
from typing import Any

from gpu_rs.cli.arguments import (
    PLOT_SUFFIXES,
    add_common,
    add_run_options,
    checked,
    integer,
    out_file,
    short,
)
from gpu_rs.cli.output import EXIT_OK, fmt, print_json
from gpu_rs.cli.progress import Progress

CSV_HELP = (
    "write the distribution to FILE as CSV; its header row names the columns kind, r_left, r_right, prob, prob_lower, "
    "prob_upper, sf_lower, sf_upper: one 'bucket' row per bucket (r_left, r_right], framed by a 'below' row "
    "(R <= first edge) and an 'above' row (R > last edge); prob is the estimate, prob_lower/prob_upper "
    "its certified bounds, sf_lower/sf_upper certified bounds on P[R > r_left]"
)


def _scope(text: str) -> str:
    if text != "forward":
        raise argparse.ArgumentTypeError(
            f"--scope must be 'forward' for pmf (the distribution of the seed's pair in its order; "
            f"use gpu-rs tail --scope all for a guarantee over every pair): got {text!r}"
        )
    return text


def _range(text: str) -> tuple[float, float]:
    parts = text.split(":")
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError:
        lo = hi = math.nan
    if len(parts) != 2 or not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise argparse.ArgumentTypeError(f"--range must be A:B with finite numbers A < B: got {text!r}")
    return lo, hi


def register(sub: Any) -> None:
    """Add ``gpu-rs pmf`` to the subcommands."""
    p = sub.add_parser(
        "pmf",
        help="the distribution of R in buckets, certified at every edge",
        description="The distribution of R = X/N for the seed's pair in its order (scope forward), in buckets: "
        "certified bounds on P[R > x] at every edge, on every bucket's mass and on the mass outside the "
        "window; optionally a CSV file and a figure.",
    )
    add_common(p, q=True, eps_required=False)
    p.add_argument(
        "--scope",
        type=_scope,
        default="forward",
        help="which pair: only 'forward' (the seed's pair in its order) has one distribution; default: forward",
    )
    p.add_argument(
        "--buckets",
        type=checked("--buckets", integer(2, 1 << 24), integer=True),
        default=64,
        metavar="B",
        help="number of buckets, 2 <= B <= 2^24 within the memory budget; default: 64",
    )
    p.add_argument(
        "--range",
        type=_range,
        default=None,
        metavar="A:B",
        help="show R in (A, B]; default: linear steps over the body, logarithmic over a heavy tail",
    )
    p.add_argument("--log", action="store_true", help="equal ratios instead of equal steps over --range (A > 0)")
    p.add_argument("--csv", type=out_file("--csv"), metavar="FILE", help=CSV_HELP)
    p.add_argument(
        "--plot",
        type=out_file("--plot", PLOT_SUFFIXES),
        metavar="FILE.png",
        help=f"plot the bucket masses and the sf with its certified band to FILE, one of {', '.join(PLOT_SUFFIXES)} "
        "(needs matplotlib: gpu-rs[plot])",
    )
    add_run_options(p, json_help="print one JSON object (RatioDistribution.to_dict()) on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import gpu_rs
    from gpu_rs.common.validation import resolve_eps

    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--plot needs matplotlib: pip install 'gpu-rs[plot]'")
    if args.log and args.range is None:
        raise ValueError("--log needs --range A:B: the default grid already has a logarithmic tail")
    if args.log and args.range[0] <= 0.0:
        raise ValueError(f"--range must be A:B with 0 < A < B for --log: got {args.range[0]:g}:{args.range[1]:g}")
    has_eps = args.eps is not None or args.ratio is not None
    eps = resolve_eps(args.eps, args.ratio) if has_eps else None
    with Progress("computing the distribution", quiet=args.quiet):
        d = gpu_rs.ratio_distribution(
            args.n, args.bits, args.q, backend=args.backend, buckets=args.buckets, range=args.range, log=args.log
        )
        tail = d.sf(math.exp(eps)) if eps is not None else None
    if args.csv is not None:
        d.to_csv(args.csv)
    if args.plot is not None:
        d.plot(args.plot, eps=eps)
    if args.json:
        print_json(d)
        return EXIT_OK
    e = d.edges
    print(f"R = X/N  n={d.n}, bits={d.bits}, q={short(d.q)}")
    print(f"  scope       {d.scope}: {d.guarantee}")
    print(f"  mean        {d.mean:.8g}  (closed form)")
    print(f"  variance    {d.var:.8g}  (closed form)")
    if args.range is not None:
        grid = "logarithmic" if args.log else "linear"
    else:
        grid = "linear, then logarithmic over the tail" if d.log_tail else "linear"
    print(f"  buckets     {len(d.probs)} over ({float(e[0]):.6g}, {float(e[-1]):.6g}], {grid}")
    print(f"  below       P[R <= {float(e[0]):.6g}] in [{fmt(d.below[0], '.4e')}, {fmt(d.below[1], '.4e')}]")
    print(f"  above       P[R > {float(e[-1]):.6g}] in [{fmt(d.above[0], '.4e')}, {fmt(d.above[1], '.4e')}]")
    print(
        f"  total mass  buckets + below + above in [{d.total_lower:.12g}, {d.total_upper:.12g}] "
        "(certified; the true total 1 lies inside, nothing clipped or renormalised)"
    )
    if tail is not None and eps is not None:
        print(f"  P[R > {math.exp(eps):.6g}] in [{fmt(tail[0], '.4e')}, {fmt(tail[1], '.4e')}]  (certified)")
    reach = "every edge within" if d.met else "NOT every edge within"
    print(f"  edges       {reach} relative 1e-2 (absolute 1e-10); {d.refined} asked again of tail's engine")
    print(f"  backend {d.backend}, {d.grid_points} terms, {d.seconds:.3g} s")
    if args.csv is not None:
        print(f"wrote {args.csv}")
    if args.plot is not None:
        print(f"wrote {args.plot}")
    return EXIT_OK
