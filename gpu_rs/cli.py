"""The ``gpu-rs`` command line (SPEC §3).

::

    gpu-rs tail      --n 1000 --bits 5 --q 0.2446 --eps 0.6931 [--json]
    gpu-rs calibrate --n 10000000 --bits 40 --eps 2 --eta 1e-3 [--json]
    gpu-rs pmf       --n 1000 --bits 5 --q 0.2446 [--csv FILE] [--plot FILE.png]
    gpu-rs doctor

``python -m gpu_rs`` runs the same program. Results go to stdout (one JSON
object with ``--json``); progress, warnings and errors go to stderr. Bad input
exits with status 2 and one line on stderr, ``gpu-rs: error: <message>``.
The numbers themselves are checked by the API, which names the argument and
its accepted range; this module only parses text and prints results.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn

from gpu_rs.validation import BACKEND_NAMES, MAX_BITS, MAX_K, MAX_N, SCOPES, resolve_eps

PROG = "gpu-rs"

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line: ``gpu-rs: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{PROG}: error: {_one_line(message)}\n")


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


# --------------------------------------------------------------------------- parsing


def _int_type(lo: int, hi: int) -> Callable[[str], int]:
    """Parse an integer (``10000000`` or ``1e7``); the API checks the range."""

    def parse(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value.is_integer():
            return int(value)
        raise argparse.ArgumentTypeError(f"expected an integer in [{lo}, {hi}], got {text!r}")

    parse.__name__ = "integer"
    return parse


def _float_type(accepted: str) -> Callable[[str], float]:
    """Parse a number; the API checks the range (``accepted`` is for the message)."""

    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {accepted}, got {text!r}") from None

    parse.__name__ = "number"
    return parse


def _out_path(text: str) -> str:
    """An output file whose directory exists."""
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"directory {folder!r} does not exist")
    return text


def _add_common(p: argparse.ArgumentParser, *, q: bool, eps_required: bool) -> None:
    p.add_argument(
        "--n", type=_int_type(1, MAX_N), required=True, metavar="N", help=f"number of users, 1 <= N <= {MAX_N}"
    )
    p.add_argument(
        "--bits", type=_int_type(1, MAX_BITS), required=True, metavar="L", help=f"bits per report, 1 <= L <= {MAX_BITS}"
    )
    if q:
        p.add_argument(
            "--q", type=_float_type("in (0, 0.5)"), required=True, metavar="Q", help="bit-flip probability, 0 < Q < 1/2"
        )
    eps = p.add_mutually_exclusive_group(required=eps_required)
    eps.add_argument("--eps", type=_float_type("> 0"), metavar="EPS", help="privacy level; the threshold on R is e^EPS")
    eps.add_argument(
        "--ratio",
        type=_float_type("> 1"),
        metavar="LAMBDA",
        help="the threshold on R directly, LAMBDA = e^EPS > 1 (instead of --eps)",
    )


def _add_scope(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="homogeneous",
        help="which neighbouring pairs: 'forward' (seed 003's pair, its order), 'homogeneous' "
        "(both orders of that pair), 'all' (every pair: exact for --bits 1, a proven bound "
        "otherwise); default: homogeneous",
    )
    p.add_argument(
        "--k",
        type=_int_type(1, MAX_K),
        default=1,
        metavar="K",
        help=f"randomized reports per user, 1 <= K <= {MAX_K}; default: 1",
    )


def _add_run_options(p: argparse.ArgumentParser, *, json_help: str) -> None:
    p.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default="auto",
        help="array backend; 'auto' picks CuPy only where a GPU is usable (GPU_RS_BACKEND overrides it); default: auto",
    )
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def build_parser() -> argparse.ArgumentParser:
    """The ``gpu-rs`` argument parser with its subcommands."""
    parser = _Parser(
        prog=PROG,
        description="Certified tails of the privacy ratio R for randomized-response "
        "histograms, and the flip probability q that meets (eps, eta)-sufficient DP.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{tail,calibrate,pmf,profile,doctor}")

    p = sub.add_parser(
        "tail",
        help="certified bounds on P[R > e^eps]",
        description="Certified bounds lower <= P[R > e^eps] <= upper (P[R >= e^eps] with --inclusive).",
    )
    _add_common(p, q=True, eps_required=True)
    p.add_argument("--inclusive", action="store_true", help="bound P[R >= e^eps] instead")
    p.add_argument(
        "--rel-width", type=_float_type("> 0"), metavar="W", help="target width relative to the tail (API default 1e-3)"
    )
    p.add_argument(
        "--abs-width",
        type=_float_type(">= 0"),
        metavar="W",
        help="absolute width that is always good enough (API default 1e-12)",
    )
    _add_scope(p)
    _add_run_options(p, json_help="print one JSON object (TailBound.to_dict()) on stdout")
    p.set_defaults(handler=_cmd_tail)

    p = sub.add_parser(
        "calibrate",
        help="smallest certified q with P[R > e^eps] <= eta",
        description="The smallest flip probability q (within --q-tol) whose "
        "certified upper tail is <= eta, compared with the 3-sigma "
        "rule and local DP.",
    )
    _add_common(p, q=False, eps_required=True)
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--eta", type=_float_type("in (0, 1)"), metavar="ETA", help="target tail probability, 0 < ETA < 1"
    )
    target.add_argument(
        "--delta",
        type=_float_type("in (0, 1)"),
        metavar="DELTA",
        help="calibrate (eps, delta)-DP instead: certified delta(eps) <= DELTA, 0 < DELTA < 1",
    )
    p.add_argument(
        "--q-tol", type=_float_type("> 0"), metavar="TOL", help="bisection tolerance on q (API default 1e-6)"
    )
    p.add_argument(
        "--rel-width", type=_float_type("> 0"), metavar="W", help="relative width of each tail bound (API default 1e-3)"
    )
    _add_scope(p)
    _add_run_options(p, json_help="print one JSON object (Calibration.to_dict()) on stdout")
    p.set_defaults(handler=_cmd_calibrate)

    p = sub.add_parser(
        "pmf",
        help="the bucketed distribution of R",
        description="The bucketed pmf of R = X/N: summary, and optionally a CSV file and a plot.",
    )
    _add_common(p, q=True, eps_required=False)
    p.add_argument("--csv", type=_out_path, metavar="FILE", help="write value,prob rows to FILE")
    p.add_argument(
        "--plot", type=_out_path, metavar="FILE.png", help="plot the pmf to FILE.png (needs matplotlib: gpu-rs[plot])"
    )
    _add_run_options(p, json_help="print one JSON object (RatioDistribution.to_dict()) on stdout")
    p.set_defaults(handler=_cmd_pmf)

    p = sub.add_parser(
        "profile",
        help="certified (eps, delta) privacy profile: delta(eps) or eps(delta)",
        description="Certified bounds on the privacy profile: delta(eps) with --eps, or "
        "eps(delta), the smallest eps with delta(eps) <= DELTA, with --delta.",
    )
    _add_common(p, q=True, eps_required=False)
    p.add_argument("--delta", type=_float_type("in (0, 1)"), metavar="DELTA", help="give eps(DELTA), 0 < DELTA < 1")
    p.add_argument(
        "--rel-width", type=_float_type("> 0"), metavar="W", help="target width of delta, relative (API default 1e-3)"
    )
    _add_scope(p)
    _add_run_options(p, json_help="print one JSON object (DeltaBound or EpsilonBound .to_dict()) on stdout")
    p.set_defaults(handler=_cmd_profile)

    p = sub.add_parser(
        "doctor",
        help="backends, the GPU, and a GPU-vs-NumPy parity check",
        description="Report versions and backends; where a GPU exists, check "
        "that CuPy and NumPy give overlapping tail intervals.",
    )
    p.set_defaults(handler=_cmd_doctor)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gpu-rs``; return the exit status (0 ok, 1 failure, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except ValueError as err:  # the API's validation, MemoryBudgetError, CalibrationError
        print(f"{PROG}: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `gpu-rs pmf --json | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except OSError as err:
        print(f"{PROG}: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


# --------------------------------------------------------------------------- progress


class _Progress:
    """Progress on stderr: step lines, and on a terminal an elapsed-time ticker.

    The ticker appears only after ``delay`` seconds, so quick runs print nothing.
    """

    def __init__(
        self, label: str, *, quiet: bool, stream: IO[str] | None = None, delay: float = 1.0, period: float = 0.5
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        self.quiet = quiet
        self.delay = delay
        self.period = period
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._shown = False
        self._start = time.perf_counter()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> _Progress:
        if not self.quiet and _isatty(self.stream):
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._clear()

    def line(self, text: str) -> None:
        """Print one progress line (nothing when quiet)."""
        if self.quiet:
            return
        with self._lock:
            self._clear()
            print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False

    def _tick(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            with self._lock:
                elapsed = time.perf_counter() - self._start
                self.stream.write(f"\r\033[K{PROG}: {self.label} ... {elapsed:.0f} s")
                self.stream.flush()
                self._shown = True
            self._stop.wait(self.period)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# --------------------------------------------------------------------------- output


def _print_json(result: Any) -> None:
    from gpu_rs.serialize import plain

    print(json.dumps(plain(result.to_dict()), allow_nan=False))


def _fmt(x: float | None, spec: str = ".6g") -> str:
    return "-" if x is None else format(x, spec)


def _interval(bound: Any) -> str:
    return "-" if bound is None else f"[{bound.lower:.4e}, {bound.upper:.4e}]"


def _op(inclusive: bool) -> str:
    return ">=" if inclusive else ">"


def _warn_unmet(bound: Any) -> None:
    if bound is not None and not bound.met:
        why = (
            "not met: the proven bound for every pair is this loose (docs/worst-case.md)"
            if bound.scope == "all" and bound.bits > 1
            else "not met within the memory budget"
        )
        print(
            f"{PROG}: warning: width target rel_width={bound.rel_width:g} {why}; "
            f"certified width reached {bound.width:.3e}",
            file=sys.stderr,
        )


def _eps_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"eps": args.eps} if args.eps is not None else {"ratio": args.ratio}


def _set(**kwargs: Any) -> dict[str, Any]:
    """Only the options given, so the API's own defaults apply to the rest."""
    return {k: v for k, v in kwargs.items() if v is not None}


# --------------------------------------------------------------------------- commands


def _cmd_tail(args: argparse.Namespace) -> int:
    import gpu_rs

    with _Progress("computing the tail", quiet=args.quiet):
        b = gpu_rs.tail(
            args.n,
            args.bits,
            args.q,
            scope=args.scope,
            k=args.k,
            inclusive=args.inclusive,
            backend=args.backend,
            **_eps_kwargs(args),
            **_set(rel_width=args.rel_width, abs_width=args.abs_width),
        )
    _warn_unmet(b)
    if args.json:
        _print_json(b)
        return EXIT_OK
    rel = b.width / b.estimate if b.estimate > 0 else math.inf
    print(f"P[R {_op(b.inclusive)} {b.ratio:.6g}]  n={b.n}, bits={b.bits}, q={b.q:.6g}, eps={b.eps:.6g}")
    print(f"  lower     {b.lower:.6e}")
    print(f"  estimate  {b.estimate:.6e}")
    print(f"  upper     {b.upper:.6e}")
    print(f"  width     {b.width:.3e} (relative {rel:.3g}; asked {b.rel_width:g}{'' if b.met else ', NOT MET'})")
    print(f"  {b.method}, backend {b.backend}, {b.grid_points} grid points, {b.seconds:.3g} s")
    print(f"  scope     {b.scope}: {b.guarantee}")
    if b.scope != "forward" or len(b.pairs) > 1:
        print(f"  worst     {b.worst}")
        for pair in b.pairs:
            print(f"  pair      {pair.pair}: [{pair.lower:.6e}, {pair.upper:.6e}]")
    return EXIT_OK


def _cmd_profile(args: argparse.Namespace) -> int:
    import gpu_rs

    if (args.delta is None) == (args.eps is None and args.ratio is None):
        raise ValueError("give exactly one of --eps/--ratio (for delta(eps)) or --delta (for eps(delta))")
    with _Progress("computing the privacy profile", quiet=args.quiet):
        prof = gpu_rs.privacy_profile(
            args.n, args.bits, args.q, scope=args.scope, backend=args.backend, **_set(rel_width=args.rel_width)
        )
        found = prof.delta(resolve_eps(args.eps, args.ratio)) if args.delta is None else prof.epsilon(args.delta)
    if args.json:
        _print_json(found)
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


def _cmd_calibrate(args: argparse.Namespace) -> int:
    import gpu_rs

    # Exactly one of --eta (sufficient DP) and --delta ((eps, delta)-DP) is given.
    name, target, quantity = ("eta", args.eta, "tail") if args.delta is None else ("delta", args.delta, "delta")
    with _Progress("calibrating", quiet=args.quiet) as progress:
        count = 0

        def step(info: dict[str, Any]) -> None:
            nonlocal count
            count += 1
            verdict = f"<= {name}" if info["upper"] <= target else f" > {name}"
            progress.line(
                f"{PROG}: {info['phase']:<7s} query {count:3d}  q={info['q']:.8f}  {quantity} in "
                f"[{info['lower']:.4e}, {info['upper']:.4e}] {verdict}  "
                f"{info['seconds']:.2f} s"
            )

        c = gpu_rs.calibrate(
            args.n,
            args.bits,
            eta=args.eta,
            delta=args.delta,
            scope=args.scope,
            k=args.k,
            backend=args.backend,
            progress=step,
            **_eps_kwargs(args),
            **_set(q_tol=args.q_tol, rel_width=args.rel_width),
        )
    if not isinstance(c, gpu_rs.Calibration):
        return _print_delta_calibration(c, args.json)
    _warn_unmet(c.tail)
    if not c.monotone:
        print(
            f"{PROG}: warning: the certified tail was not monotone in q along the bisection; "
            f"q={c.q:.8g} is certified, but a smaller q might be too",
            file=sys.stderr,
        )
    if args.json:
        _print_json(c)
        return EXIT_OK
    t = c.tail
    op = _op(t.inclusive)
    lam = f"{math.exp(c.eps):.6g}"
    print(f"calibrate  n={c.n}, bits={c.bits}, eps={c.eps:.6g} (lambda={lam}), eta={c.eta:g}")
    print(f"q = {c.q:.8g}  (to within {c.q_tol:g}): certified P[R {op} {lam}] <= {t.upper:.4e} <= eta")
    print(f"scope {c.scope}{f', k={c.k}' if c.k > 1 else ''}: {c.guarantee}")
    print()
    rows = [
        ("calibrated", c.q, _interval(t), _verdict(t, c.eta), c.sigma_calibrated),
        (
            "3-sigma rule",
            c.three_sigma_q,
            _interval(c.three_sigma_tail),
            _verdict(c.three_sigma_tail, c.eta),
            c.sigma_three_sigma,
        ),
        ("local DP", c.local_dp_q, "-", "", c.sigma_local_dp),
    ]
    header = ("rule", "q", f"P[R {op} {lam}] certified", "", "sigma(d^)")
    table = [header] + [(r, _fmt(q, ".6f"), iv, v, _fmt(s, ".4g")) for r, q, iv, v, s in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    print(f"backend {c.backend}, {len(c.steps)} tail queries, {c.seconds:.3g} s")
    for note in c.notes:
        print(f"note: {note}")
    return EXIT_OK


def _print_delta_calibration(c: Any, as_json: bool) -> int:
    """Report a calibration to (eps, delta) (a ``ProfileCalibration``)."""
    if as_json:
        _print_json(c)
        return EXIT_OK
    print(f"calibrate  n={c.n}, bits={c.bits}, eps={c.eps:.6g}, delta={c.delta:g}")
    print(f"q = {c.q:.8g}  (to within {c.q_tol:g}): certified delta({c.eps:.6g}) <= {c.at_q.upper:.4e} <= delta")
    print(f"scope {c.scope}: {c.guarantee}")
    print(f"sigma(d^): calibrated {c.sigma_calibrated:.4g}, local DP (q={c.local_dp_q:.6f}) {c.sigma_local_dp:.4g}")
    print(f"backend {c.backend}, {len(c.steps)} delta queries, {c.seconds:.3g} s")
    for note in c.notes:
        print(f"note: {note}")
    return EXIT_OK


def _verdict(bound: Any, eta: float) -> str:
    if bound is None:
        return ""
    return "<= eta" if bound.upper <= eta else "> eta"


def _cmd_pmf(args: argparse.Namespace) -> int:
    import gpu_rs
    from gpu_rs.validation import resolve_eps

    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--plot needs matplotlib: pip install 'gpu-rs[plot]'")
    given = args.eps is not None or args.ratio is not None
    eps = resolve_eps(args.eps, args.ratio) if given else None
    with _Progress("computing the distribution", quiet=args.quiet):
        d = gpu_rs.ratio_distribution(args.n, args.bits, args.q, backend=args.backend)
    if args.csv is not None:
        d.to_csv(args.csv)
    if args.plot is not None:
        _plot(d, args.plot, eps)
    if args.json:
        _print_json(d)
        return EXIT_OK
    print(f"R = X/N  n={d.n}, bits={d.bits}, q={d.q:.6g}")
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


def _plot(d: Any, path: str, eps: float | None) -> None:
    d.plot(path, eps=eps)


def _cmd_doctor(args: argparse.Namespace) -> int:
    from gpu_rs.doctor import run_doctor

    return run_doctor(sys.stdout)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gpu-rs")
    except PackageNotFoundError:
        return "unknown"
