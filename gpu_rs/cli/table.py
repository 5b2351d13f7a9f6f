"""``gpu-rs table``: one calibration per row of a grid, written to a file row by row, resumable."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from gpu_rs.cli.arguments import checked, integer, named, out_file, target_check
from gpu_rs.cli.output import EXIT_FAILURE, EXIT_OK, PROG, one_line
from gpu_rs.cli.progress import isatty
from gpu_rs.cli.signals import sigterm_raises
from gpu_rs.common.limits import BACKEND_NAMES, MAX_BITS, MAX_K, MAX_N, SCOPES

TABLE_OPTIONS = ("eps", "eta", "delta", "ratio", "k", "scope", "out", "workers", "q_tol", "rel_width", "backend")
"""The options passed to :func:`gpu_rs.table` as they are named there."""


def listed(option: str, parse: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """A comma-separated list of one value or more for ``option``, each parsed by ``parse``."""

    def parse_list(text: str) -> list[Any]:
        values = [parse(part.strip()) for part in text.split(",") if part.strip()]
        if not values:
            raise argparse.ArgumentTypeError(f"{option} must be one value or more, comma-separated: got {text!r}")
        return values

    parse_list.__name__ = f"list of {parse.__name__}"
    return parse_list


def scopes(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"--scope must be one scope or more among {', '.join(SCOPES)}: got {text!r}")
    for name in names:
        if name not in SCOPES:
            raise argparse.ArgumentTypeError(f"expected scopes among {', '.join(SCOPES)}, got {name!r}")
    return names


def register(sub: Any) -> None:
    """Add ``gpu-rs table`` to the subcommands."""
    p = sub.add_parser(
        "table",
        help="one calibration per setting of a grid, to a CSV, JSON-lines or JSON file (resumable)",
        description="Calibrate q for every combination of the listed values (comma-separated), "
        "appending each row to --out as it finishes; a rerun computes only the missing rows. "
        "Rows whose setting is invalid or whose target no q meets are written with their error.",
    )
    p.add_argument(
        "--n",
        type=listed("--n", checked("--n", integer(1, MAX_N), integer=True)),
        required=True,
        metavar="N,...",
        help="numbers of users",
    )
    p.add_argument(
        "--bits",
        type=listed("--bits", checked("--bits", integer(1, MAX_BITS), integer=True)),
        required=True,
        metavar="L,...",
        help="bits per report",
    )
    eps = p.add_mutually_exclusive_group(required=True)
    eps.add_argument(
        "--eps", type=listed("--eps", checked("--eps", named("check_eps"))), metavar="EPS,...", help="privacy levels"
    )
    eps.add_argument(
        "--ratio",
        type=listed("--ratio", checked("--ratio", named("check_ratio"))),
        metavar="LAMBDA,...",
        help="thresholds e^EPS",
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--eta", type=listed("--eta", checked("--eta", target_check())), metavar="ETA,...", help="tail targets"
    )
    target.add_argument(
        "--delta", type=listed("--delta", checked("--delta", target_check())), metavar="DELTA,...", help="delta targets"
    )
    p.add_argument(
        "--k",
        type=listed("--k", checked("--k", integer(1, MAX_K), integer=True)),
        default=[1],
        metavar="K,...",
        help="reports per user",
    )
    p.add_argument(
        "--scope",
        type=scopes,
        default=None,
        metavar="SCOPE,...",
        help=f"among {', '.join(SCOPES)}; default calibrate's, all (every pair, the guarantee; with --k > 1 "
        "the composition bound of docs/composition.md §2)",
    )
    p.add_argument(
        "--out",
        type=out_file("--out", (".csv", ".jsonl", ".json")),
        required=True,
        metavar="FILE",
        help="rows file: .csv, .jsonl (JSON lines) or .json (one JSON document); an existing file must be "
        "a gpu_rs table of this schema",
    )
    p.add_argument(
        "--markdown", type=out_file("--markdown"), metavar="FILE", help="also write the whole table as Markdown"
    )
    parallel = p.add_mutually_exclusive_group()
    parallel.add_argument(
        "--workers",
        type=checked("--workers", integer(1, 4096), integer=True),
        metavar="W",
        help="local worker processes (default: the number of cores)",
    )
    parallel.add_argument("--scheduler", metavar="ADDRESS", help="run the rows on a Dask scheduler (extra 'dask')")
    p.add_argument(
        "--q-tol",
        type=checked("--q-tol", named("check_q_tol")),
        metavar="TOL",
        help="absolute tolerance on q (default: relative, as calibrate's)",
    )
    p.add_argument(
        "--rel-width",
        type=checked("--rel-width", named("check_rel_width")),
        default=1e-3,
        metavar="W",
        help="tail width (1e-3)",
    )
    p.add_argument("--backend", choices=BACKEND_NAMES, default="auto", help="array backend; default: auto")
    p.add_argument("--quiet", action="store_true", help="no plan or progress on stderr")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gpu_rs.calibration.table import table
    from gpu_rs.calibration.table_file import check_file, markdown

    check_file(args.out, "--out")  # a foreign or unreadable file is refused before any work

    executor, client = None, None
    if args.scheduler is not None:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError("--scheduler needs Dask: pip install 'gpu-rs[dask]'") from None
        client = Client(args.scheduler)
        executor = client.get_executor()
    bar = Bar(quiet=args.quiet)
    try:
        with sigterm_raises():  # SIGTERM stops the workers and exits 143, as Ctrl-C exits 130
            t = table(
                args.n,
                args.bits,
                executor=executor,
                progress=bar.update,
                on_plan=bar.plan,
                **{name: getattr(args, name) for name in TABLE_OPTIONS},
            )
    except RuntimeError as err:  # a worker died: the rows done are saved
        bar.close()
        print(f"{PROG}: error: {one_line(err)}", file=sys.stderr)
        return EXIT_FAILURE
    finally:
        bar.close()
        if client is not None:
            client.close()
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(t.rows))
    errors = sum(1 for r in t.rows if r.get("error"))
    print(
        f"{args.out}: {len(t.rows)} rows ({t.computed} computed now, {t.reused} already there), "
        f"{errors} with an error; {t.seconds:.3g} s"
    )
    return EXIT_OK


class Bar:
    """Progress on stderr: the plan before the run, then rows done, rate and time left (a terminal only)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet, self.tty = quiet, isatty(sys.stderr)
        self.start = time.perf_counter()
        self.first = 0

    def plan(self, p: Any) -> None:
        self.start = time.perf_counter()
        self.first = p.done
        if not self.quiet and p.rows:
            print(f"{PROG}: table: {p}", file=sys.stderr, flush=True)

    def update(self, done: int, total: int, row: dict[str, Any]) -> None:
        if self.quiet or not self.tty:
            return
        elapsed = time.perf_counter() - self.start
        rate = (done - self.first) / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else float("inf")
        sys.stderr.write(f"\r\033[K{PROG}: table {done}/{total} rows, {rate * 60:.3g} rows/min, {left:.0f} s left")
        sys.stderr.flush()

    def close(self) -> None:
        """Clear the progress line (once)."""
        if not self.quiet and self.tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        self.quiet = True
