"""``gpu-rs tail``: certified bounds on ``P[R > e^eps]``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from gpu_rs.cli.arguments import (
    add_common,
    add_rel_width,
    add_run_options,
    add_scope,
    add_search_seconds,
    between,
    checked,
    eps_kwargs,
    given,
    short,
)
from gpu_rs.cli.output import EXIT_OK, fmt, interval, op, print_json, relative_width, warn_unmet
from gpu_rs.cli.progress import Progress
from gpu_rs.common.limits import FAMILY_SECONDS, POOLS_ALL_SECONDS, POOLS_SECONDS, POOLS_USERS


def register(sub: Any) -> None:
    """Add ``gpu-rs tail`` to the subcommands."""
    p = sub.add_parser(
        "tail",
        help="certified bounds on P[R > e^eps]",
        description="Certified bounds lower <= P[R > e^eps] <= upper (P[R >= e^eps] with --inclusive).",
    )
    add_common(p, q=True, eps_required=True)
    p.add_argument("--inclusive", action="store_true", help="bound P[R >= e^eps] instead")
    add_rel_width(p, "target width relative to the tail")
    p.add_argument(
        "--abs-width",
        type=checked("--abs-width", between(0.0, 1.0, closed=True)),
        metavar="W",
        help="absolute width that is always good enough, 0 <= W < 1 (API default 1e-12)",
    )
    add_scope(p)
    add_search_seconds(
        p,
        "search the homogeneous backgrounds for the best pair known",
        f"{FAMILY_SECONDS:g}, where the engine evaluates members for a tenth of the screening's time; above it, "
        f"for all of S; from {POOLS_SECONDS:g} on, the upper end also tries the cross-cloned pools (up to "
        f"{POOLS_USERS:g} users; at every N from {POOLS_ALL_SECONDS:g} on)",
    )
    add_run_options(p, json_help="print one JSON object (TailBound.to_dict()) on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import gpu_rs

    with Progress("computing the tail", quiet=args.quiet):
        b = gpu_rs.tail(
            args.n,
            args.bits,
            args.q,
            scope=args.scope,
            k=args.k,
            inclusive=args.inclusive,
            backend=args.backend,
            **eps_kwargs(args),
            **given(rel_width=args.rel_width, abs_width=args.abs_width, search_seconds=args.search_seconds),
        )
    warn_unmet(b)
    if args.json:
        print_json(b)
        return EXIT_OK
    estimate = " (the best pair known's, pairs[0]; the upper end is a proven bound)" if b.bound_only else ""
    print(f"P[R {op(b.inclusive)} {b.ratio:.6g}]  n={b.n}, bits={b.bits}, q={short(b.q)}, eps={b.eps:.6g}")
    print(f"  lower     {fmt(b.lower, '.6e')}")
    print(f"  estimate  {fmt(b.estimate, '.6e')}{estimate}")
    print(f"  upper     {fmt(b.upper, '.6e')}")
    met = "" if b.met else ", NOT MET"
    print(f"  width     {fmt(b.width, '.3e')} ({relative_width(b)}; asked rel_width {b.rel_width:g}{met})")
    print(f"  {b.method}, backend {b.backend}, {b.grid_points} grid points, {b.seconds:.3g} s")
    print(f"  scope     {b.scope}: {b.guarantee}")
    if b.scope != "forward" or len(b.pairs) > 1:
        print(f"  worst     {b.worst}")
        for pair in distinct(b.pairs):
            print(f"  pair      {pair.pair}: {interval(pair, '.6e')}")
    return EXIT_OK


def distinct(pairs: Sequence[Any]) -> list[Any]:
    """``pairs`` with each pair once: under ``scope="all"`` the best pair known (first) may be one of the
    seed's pair's orders that follow it, with the same bounds from the same computation."""
    out: list[Any] = []
    for pair in pairs:
        if not any((p.lower, p.upper, p.method) == (pair.lower, pair.upper, pair.method) for p in out):
            out.append(pair)
    return out
