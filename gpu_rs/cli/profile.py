"""``gpu-rs profile``: the certified privacy profile, ``delta(eps)`` or ``eps(delta)``."""

from __future__ import annotations

import argparse
from typing import Any

from gpu_rs.cli.arguments import (
    add_common,
    add_run_options,
    add_scope,
    float_type,
    given,
)
from gpu_rs.cli.output import EXIT_OK, print_json
from gpu_rs.cli.progress import Progress
from gpu_rs.common.validation import resolve_eps


def register(sub: Any) -> None:
    """Add ``gpu-rs profile`` to the subcommands."""
    p = sub.add_parser(
        "profile",
        help="certified (eps, delta) privacy profile: delta(eps) or eps(delta)",
        description="Certified bounds on the privacy profile: delta(eps) with --eps, or "
        "eps(delta), the smallest eps with delta(eps) <= DELTA, with --delta.",
    )
    add_common(p, q=True, eps_required=False)
    p.add_argument("--delta", type=float_type("in (0, 1)"), metavar="DELTA", help="give eps(DELTA), 0 < DELTA < 1")
    p.add_argument(
        "--rel-width", type=float_type("> 0"), metavar="W", help="target width of delta, relative (API default 1e-3)"
    )
    add_scope(p)
    add_run_options(p, json_help="print one JSON object (DeltaBound or EpsilonBound .to_dict()) on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import gpu_rs

    if (args.delta is None) == (args.eps is None and args.ratio is None):
        raise ValueError("give exactly one of --eps/--ratio (for delta(eps)) or --delta (for eps(delta))")
    with Progress("computing the privacy profile", quiet=args.quiet):
        prof = gpu_rs.privacy_profile(
            args.n,
            args.bits,
            args.q,
            scope=args.scope,
            k=args.k,
            backend=args.backend,
            **given(rel_width=args.rel_width),
        )
        found = prof.delta(resolve_eps(args.eps, args.ratio)) if args.delta is None else prof.epsilon(args.delta)
    if args.json:
        print_json(found)
        return EXIT_OK
    print(f"privacy profile  n={prof.n}, bits={prof.bits}, q={prof.q:.6g}")
    if args.delta is None:
        print(f"  delta({found.eps:.6g})  in [{found.lower:.6e}, {found.upper:.6e}]{'' if found.met else '  NOT MET'}")
        for name in ("forward", "reverse"):
            if getattr(found, name) is not None:
                lo, hi = getattr(found, name)
                print(f"  {name:8s} order: [{lo:.6e}, {hi:.6e}]")
    else:
        print(f"  eps({found.delta:g})  in [{found.lower:.6g}, {found.upper:.6g}]{'' if found.met else '  NOT MET'}")
        print(f"  certified: delta({found.upper:.6g}) <= {found.at_upper.upper:.4e} <= {found.delta:g}")
    print(f"  scope     {prof.scope}: {prof.guarantee}")
    return EXIT_OK
