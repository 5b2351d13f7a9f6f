"""The ``gpu-rs`` command line (SPEC §3).

::

    gpu-rs tail      --n 1000 --bits 5 --q 0.2446 --eps 0.6931 [--json]
    gpu-rs calibrate --n 10000000 --bits 40 --eps 2 --eta 1e-3 [--json]
    gpu-rs pmf       --n 1000 --bits 5 --q 0.2446 [--csv FILE] [--plot FILE.png]
    gpu-rs profile   --n 1000 --bits 1 --q 0.25 --delta 1e-6 [--json]
    gpu-rs table     --n 1e3,1e4 --bits 5,40 --eps 1,2 --eta 1e-3 --out table.csv
    gpu-rs doctor

``python -m gpu_rs`` runs the same program. Results go to stdout (one JSON
object with ``--json``); progress, warnings and errors go to stderr. Bad input
exits with status 2 and one line on stderr, ``gpu-rs: error: <message>``,
naming the option and its accepted range: every value is checked as it is
parsed, with the API's own checks (``arguments.py``), before any work.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from gpu_rs.cli import calibrate, doctor, pmf, profile, table, tail
from gpu_rs.cli.arguments import join_negative_values
from gpu_rs.cli.output import EXIT_FAILURE, EXIT_USAGE, PROG, one_line
from gpu_rs.cli.signals import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated
from gpu_rs.common.provenance import package_version

SUBCOMMANDS = (tail, calibrate, pmf, profile, table, doctor)
"""The subcommand modules, in the order ``--help`` lists them; each has ``register`` and ``run``."""


HINTS = {
    ("calibrate", "--q"): "calibrate searches for q itself (use 'gpu-rs tail --q Q' for the tail at a given q)",
    ("pmf", "--scope"): "pmf shows the law of R for the seed's pair in its forward order; 'tail --scope' covers others",
}
"""Why a subcommand has no such option, for options a user may well try."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line, ``gpu-rs: error: ...``; options are never abbreviated."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # "argument --q: --q must be ..." says the option's name once.
        message = re.sub(r"^argument (\S+): \1 ", r"\1 ", message)
        self.exit(EXIT_USAGE, f"{PROG}: error: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``gpu-rs`` argument parser with its subcommands."""
    parser = _Parser(
        prog=PROG,
        description="Certified tails of the privacy ratio R for randomized-response "
        "histograms, and the flip probability q that meets (eps, eta)-sufficient DP.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version('gpu-rs')}")
    names = ",".join(module.__name__.rpartition(".")[2] for module in SUBCOMMANDS)
    sub = parser.add_subparsers(dest="command", required=True, metavar=f"{{{names}}}")
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gpu-rs``; return the exit status (0 ok, 1 failure, 2 bad input)."""
    parser = build_parser()
    argv = join_negative_values(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
            parser.error(f"unrecognized option {argv[0]}: give --help, --version or a subcommand first")
        args, extra = parser.parse_known_args(argv)
        if extra:
            unknown(parser, args.command, extra)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        if getattr(args, "backend", None) is not None:
            from gpu_rs.common.backend import resolve_backend

            resolve_backend(args.backend)  # before any work: a missing CuPy is bad input
        return args.handler(args)
    except ValueError as err:  # the API's validation, MemoryBudgetError, CalibrationError
        print(f"{PROG}: error: {one_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `gpu-rs pmf --json | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except OSError as err:
        print(f"{PROG}: error: {one_line(err)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:  # SIGTERM where a command asked for it (table: its workers are stopped)
        print(f"{PROG}: terminated", file=sys.stderr)
        return EXIT_TERMINATED


def unknown(parser: argparse.ArgumentParser, command: str, extra: list[str]) -> NoReturn:
    """Stop on arguments the subcommand does not take, saying why where the reason is known."""
    option = extra[0].split("=")[0]
    what = f"option {option}" if option.startswith("-") else f"argument {option!r}"
    hint = HINTS.get((command, option))
    why = f"{command} takes no {what}" + (f": {hint}" if hint else "")
    parser.error(f"{why} (see 'gpu-rs {command} --help'); unrecognized arguments: {' '.join(extra)}")
