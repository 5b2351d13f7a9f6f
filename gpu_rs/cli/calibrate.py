"""``gpu-rs calibrate``: the smallest certified flip probability ``q``."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from gpu_rs.cli.arguments import (
    add_common,
    add_q_tol,
    add_rel_width,
    add_releases,
    add_run_options,
    add_scope,
    add_search_seconds,
    add_target,
    between,
    checked,
    eps_kwargs,
    given,
)
from gpu_rs.cli.output import EXIT_OK, PROG, fmt, interval, op, print_json, verdict, warn_unmet
from gpu_rs.cli.progress import Progress
from gpu_rs.common.limits import CALIBRATION_SEARCH_SECONDS, MAX_CALIBRATION_SECONDS, POOLS_ALL_SECONDS, Q_RTOL


def register(sub: Any) -> None:
    """Add ``gpu-rs calibrate`` to the subcommands."""
    p = sub.add_parser(
        "calibrate",
        help="smallest certified q with P[R > e^eps] <= eta",
        description="The smallest flip probability q (within --q-tol, by default within "
        f"{Q_RTOL:g} x min(q, 1/2 - q)) whose certified upper tail is <= eta, compared with the 3-sigma "
        "rule and local DP.",
    )
    add_common(p, q=False, eps_required=True)
    target = p.add_mutually_exclusive_group(required=True)
    add_target(target, "--eta", "target tail probability")
    add_target(target, "--delta", "calibrate (eps, delta)-DP instead: certified delta(eps) <= DELTA")
    add_q_tol(p)
    add_rel_width(p, "relative width of each tail bound")
    add_releases(p, "with --delta: the q that meets (eps, delta) after T independent releases")
    add_scope(p)
    add_search_seconds(
        p,
        "with --eta: the answer's tail searches the homogeneous backgrounds (its lower end)",
        f"{CALIBRATION_SEARCH_SECONDS:g}; from {POOLS_ALL_SECONDS:g} on, every query's upper end also tries the "
        "cross-cloned pools at bits <= 8 (a smaller q at many users per vector, about 45 s a query at "
        "n = 1e7, bits = 8: raise --max-seconds)",
    )
    p.add_argument(
        "--max-seconds",
        type=checked("--max-seconds", between(0.0, float("inf"))),
        metavar="T",
        help=f"stop with an estimate where the calibration is predicted to take longer, T > 0 "
        f"(default {MAX_CALIBRATION_SECONDS:g})",
    )
    add_run_options(p, json_help="print one JSON object (Calibration.to_dict()) on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import gpu_rs

    # Exactly one of --eta (sufficient DP) and --delta ((eps, delta)-DP) is given.
    name, target, quantity = ("eta", args.eta, "tail") if args.delta is None else ("delta", args.delta, "delta")
    with Progress("calibrating", quiet=args.quiet) as progress:
        count = 0

        def step(info: dict[str, Any]) -> None:
            nonlocal count
            count += 1
            verdict = f"<= {name}" if info["upper"] <= target else f" > {name}"
            progress.line(
                f"{PROG}: {info['phase']:<7s} query {count:3d}  q={info['q']:.8g}  {quantity} in "
                f"[{fmt(info['lower'], '.4e')}, {fmt(info['upper'], '.4e')}] {verdict}  "
                f"{info['seconds']:.2f} s"
            )

        c = gpu_rs.calibrate(
            args.n,
            args.bits,
            eta=args.eta,
            delta=args.delta,
            scope=args.scope,
            k=args.k,
            releases=args.releases,
            backend=args.backend,
            progress=step,
            **eps_kwargs(args),
            **given(
                q_tol=args.q_tol,
                rel_width=args.rel_width,
                search_seconds=args.search_seconds,
                max_seconds=args.max_seconds,
            ),
        )
    if not isinstance(c, gpu_rs.Calibration):
        return print_delta_calibration(c, args.json)
    warn_unmet(c.tail)
    if not c.monotone:
        print(
            f"{PROG}: warning: the certified tail was not monotone in q along the bisection; "
            f"q={c.q:.8g} is certified, but a smaller q might be too",
            file=sys.stderr,
        )
    if args.json:
        print_json(c)
        return EXIT_OK
    t = c.tail
    relation = op(t.inclusive)
    lam = f"{math.exp(c.eps):.6g}"
    print(f"calibrate  n={c.n}, bits={c.bits}, eps={c.eps:.6g} (lambda={lam}), eta={c.eta:g}")
    print(f"q = {c.q:.8g}  ({tolerance(c)}): certified P[R {relation} {lam}] <= {fmt(t.upper, '.4e')} <= eta")
    print(f"scope {c.scope}{f', k={c.k}' if c.k > 1 else ''}: {c.guarantee}")
    print()
    rows = [
        ("calibrated", c.q, interval(t), verdict(t, c.eta), c.sigma_calibrated),
        (
            "3-sigma rule",
            c.three_sigma_q,
            interval(c.three_sigma_tail),
            verdict(c.three_sigma_tail, c.eta),
            c.sigma_three_sigma,
        ),
        ("local DP", c.local_dp_q, "-", "", c.sigma_local_dp),
    ]
    header = ("rule", "q", f"P[R {relation} {lam}] certified", "", "sigma(d^)")
    table = [header] + [(r, fmt(q), iv, v, fmt(s, ".4g")) for r, q, iv, v, s in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    print(f"backend {c.backend}, {len(c.steps)} tail queries, {c.seconds:.3g} s")
    for note in c.notes:
        print(f"note: {note}")
    return EXIT_OK


def tolerance(c: Any) -> str:
    """Which side of the tolerance the answer lies on: ``q`` certifies (the line says so), ``q − q_tol`` does not."""
    relative = f" = {c.q_rtol:g} x min(q, 1/2 - q)" if c.q_rtol is not None else ""
    return f"to within {c.q_tol:.3g}{relative}: q - {c.q_tol:.3g} does not certify"


def print_delta_calibration(c: Any, as_json: bool) -> int:
    """Report a calibration to (eps, delta) (a ``ProfileCalibration``)."""
    if as_json:
        print_json(c)
        return EXIT_OK
    print(f"calibrate  n={c.n}, bits={c.bits}, eps={c.eps:.6g}, delta={c.delta:g}")
    bound = fmt(c.at_q.upper, ".4e")
    print(f"q = {c.q:.8g}  ({tolerance(c)}): certified delta({c.eps:.6g}) <= {bound} <= delta")
    print(f"scope {c.scope}: {c.guarantee}")
    print(f"sigma(d^): calibrated {c.sigma_calibrated:.4g}, local DP (q={fmt(c.local_dp_q)}) {c.sigma_local_dp:.4g}")
    print(f"backend {c.backend}, {len(c.steps)} delta queries, {c.seconds:.3g} s")
    for note in c.notes:
        print(f"note: {note}")
    return EXIT_OK
