"""``gpu-rs profile``: the certified privacy profile, ``delta(eps)`` on one ``eps`` or a grid, or ``eps(delta)``."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import sys
import time
from typing import Any

from gpu_rs.cli.arguments import (
    add_common,
    add_rel_width,
    add_releases,
    add_run_options,
    add_scope,
    add_search_seconds,
    add_target,
    checked,
    given,
    integer,
    short,
)
from gpu_rs.cli.output import EXIT_OK, PROG, fmt, interval, print_json
from gpu_rs.cli.progress import Progress
from gpu_rs.common.limits import MAX_QUERIES, PROFILE_SEARCH_SECONDS

MAX_GRID = 10_000
"""Most values of ``eps`` in one ``--eps-grid``."""


def eps_grid(text: str) -> list[float]:
    """``A:B:K`` (``K`` values from ``A`` to ``B``, evenly spaced) or a comma-separated list."""
    try:
        if ":" in text:
            a, b, k = text.split(":")
            count = int(k)
            lo, hi = float(a), float(b)
            if not 1 <= count <= MAX_GRID or not lo <= hi:
                raise ValueError
            return [lo + (hi - lo) * i / max(1, count - 1) for i in range(count)]
        values = [float(x) for x in text.split(",") if x.strip()]
        if not 1 <= len(values) <= MAX_GRID:
            raise ValueError
        return values
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected A:B:K (K values of eps from A to B, 1 <= K <= {MAX_GRID}, A <= B) or a list "
            f"like 0.5,1,2, got {text!r}"
        ) from None


def output_file(suffix: str | None) -> Any:
    """An output path: not a directory, its directory writable, and ending in ``suffix`` if given."""

    def parse(text: str) -> str:
        path = os.path.abspath(text)
        folder = os.path.dirname(path)
        if os.path.isdir(path):
            raise argparse.ArgumentTypeError(f"{text!r} is a directory: give a file name")
        if not os.path.isdir(folder):
            raise argparse.ArgumentTypeError(f"directory {folder!r} does not exist")
        if not os.access(folder, os.W_OK):
            raise argparse.ArgumentTypeError(f"directory {folder!r} is not writable")
        if suffix is not None and not text.lower().endswith(suffix):
            raise argparse.ArgumentTypeError(f"expected a file name ending in {suffix}, got {text!r}")
        return text

    parse.__name__ = "path"
    return parse


def register(sub: Any) -> None:
    """Add ``gpu-rs profile`` to the subcommands."""
    p = sub.add_parser(
        "profile",
        help="certified (eps, delta) privacy profile: delta(eps) or eps(delta)",
        description="Certified bounds on the privacy profile: delta(eps) with --eps or on a grid with "
        "--eps-grid, or eps(delta), the smallest eps with delta(eps) <= DELTA, with --delta.",
    )
    add_common(p, q=True, eps_required=False)
    add_target(p, "--delta", "give eps(DELTA)")
    p.add_argument(
        "--eps-grid",
        type=eps_grid,
        metavar="A:B:K",
        help="delta(eps) at K values of eps from A to B (or a list: 0.5,1,2), from one set of transforms",
    )
    add_rel_width(p, "target width of delta, relative")
    add_releases(p, "the profile after T independent releases (certified composition)")
    p.add_argument(
        "--csv",
        type=output_file(None),
        metavar="FILE",
        help="write eps,lower,upper (of delta) and each order's bounds to FILE: one row per eps, or with "
        "--delta the two ends of the eps(DELTA) interval",
    )
    p.add_argument(
        "--plot", type=output_file(".png"), metavar="FILE.png", help="plot delta(eps) to FILE.png (needs matplotlib)"
    )
    p.add_argument(
        "--max-queries",
        type=checked("--max-queries", integer(0, MAX_QUERIES), integer=True),
        metavar="K",
        help=f"at most K new tail queries (each about one tail) per delta value and order where the fast "
        f"interval is wider than asked, 0 <= K <= {MAX_QUERIES}; default 0: the interval as it is",
    )
    add_scope(p)
    add_search_seconds(
        p,
        "search the homogeneous backgrounds that hold the largest delta (docs/worst-case.md §9) for a larger lower end",
        f"{PROFILE_SEARCH_SECONDS:g}",
    )
    add_run_options(
        p,
        json_help="print one JSON object: the setting (n, bits, q, k, scope, guarantee, backend, seconds, "
        "provenance) and the result (DeltaBound or EpsilonBound fields, or 'deltas' for a grid)",
    )
    p.set_defaults(handler=run)


def _grid(args: argparse.Namespace) -> list[float] | None:
    from gpu_rs.common.validation import resolve_eps

    given_eps = args.eps is not None or args.ratio is not None
    if sum((given_eps, args.delta is not None, args.eps_grid is not None)) != 1:
        raise ValueError("give exactly one of --eps/--ratio (for delta(eps)), --eps-grid, or --delta (for eps(delta))")
    if args.eps_grid is not None:
        return list(args.eps_grid)
    return [resolve_eps(args.eps, args.ratio)] if given_eps else None


def run(args: argparse.Namespace) -> int:
    import gpu_rs

    grid = _grid(args)
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--plot needs matplotlib: pip install 'gpu-rs[plot]'")
    if args.plot is not None and grid is None:
        raise ValueError("--plot draws delta(eps): give --eps-grid (or --eps)")
    start = time.perf_counter()
    with Progress("computing the privacy profile", quiet=args.quiet) as progress:
        prof = gpu_rs.privacy_profile(
            args.n,
            args.bits,
            args.q,
            scope=args.scope,
            k=args.k,
            backend=args.backend,
            **given(rel_width=args.rel_width, search_seconds=args.search_seconds, max_queries=args.max_queries),
        )
        shown: Any = prof
        if args.releases > 1:
            progress.line(f"gpu-rs: composing {args.releases} releases")
            shown = gpu_rs.compose(prof, times=args.releases, **given(rel_width=args.rel_width))
        progress.line(
            f"gpu-rs: profile n={prof.n} bits={prof.bits} q={prof.q:.6g} scope={prof.scope}: "
            + (f"delta at {len(grid)} eps" if grid is not None else f"eps({args.delta:g})")
        )
        found: Any = shown.delta(grid) if grid is not None else shown.epsilon(args.delta)
    seconds = time.perf_counter() - start
    # eps(delta): the certified delta(eps) at the ends of its interval, the evidence for it.
    rows = list(found) if grid is not None else [d for d in (found.at_lower, found.at_upper) if d is not None]
    unmet = sum(not d.met for d in rows)
    if unmet and not args.max_queries:
        print(
            f"{PROG}: warning: {unmet} of {len(rows)} values of delta did not reach the width asked; "
            "--max-queries K refines each with up to K tail queries (each about one tail)",
            file=sys.stderr,
        )
    if args.csv is not None:
        _write_csv(args.csv, rows)
    if args.plot is not None:
        shown.plot([d.eps for d in rows], path=args.plot)
    if args.json:
        out = {k: v for k, v in prof.to_dict().items() if k != "evaluated"}
        out.update(k=args.k, releases=args.releases, guarantee=shown.guarantee, seconds=seconds)
        if args.eps_grid is not None:
            out["deltas"] = [d.to_dict() for d in rows]
        else:
            out.update((rows[0] if grid is not None else found).to_dict())
        print_json(out)
        return EXIT_OK
    after = f", after {args.releases} releases" if args.releases > 1 else ""
    print(f"privacy profile  n={prof.n}, bits={prof.bits}, q={short(prof.q)}{after}")
    if grid is not None and len(rows) == 1:
        d = rows[0]
        print(f"  delta({d.eps:.6g})  in {interval(d, '.6e')}{'' if d.met else '  NOT MET'}")
        for name in ("forward", "reverse"):
            if getattr(d, name) is not None:
                lo, hi = getattr(d, name)
                print(f"  {name:8s} order: [{fmt(lo, '.6e')}, {fmt(hi, '.6e')}]")
    elif grid is not None:
        print(f"  {'eps':>10s}  {'delta lower':>13s}  {'delta upper':>13s}")
        for d in rows:
            ends = f"{fmt(d.lower, '.6e'):>13s}  {fmt(d.upper, '.6e'):>13s}"
            print(f"  {d.eps:10.6g}  {ends}{'' if d.met else '  NOT MET'}")
    else:
        print(f"  eps({found.delta:g})  in [{found.lower:.6g}, {found.upper:.6g}]{'' if found.met else '  NOT MET'}")
        print(f"  certified: delta({found.upper:.6g}) <= {fmt(found.at_upper.upper, '.4e')} <= {found.delta:g}")
    print(f"  scope     {prof.scope}: {shown.guarantee}")
    if prof.known_pair is not None and args.releases == 1:
        print(f"  lower end {prof.known_pair}")
    print(f"  backend {prof.backend}, {seconds:.3g} s")
    for path in (args.csv, args.plot):
        if path is not None:
            print(f"wrote {path}")
    return EXIT_OK


def _write_csv(path: str, rows: list[Any]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["eps", "lower", "upper", "forward_lower", "forward_upper", "reverse_lower", "reverse_upper", "met"])
        for d in rows:
            fwd = d.forward or ("", "")
            rev = d.reverse or ("", "")
            w.writerow([repr(d.eps), repr(d.lower), repr(d.upper), *map(repr, fwd), *map(repr, rev), d.met])
