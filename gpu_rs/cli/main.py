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
exits with status 2 and one line on stderr, ``gpu-rs: error: <message>``.
The numbers themselves are checked by the API, which names the argument and
its accepted range; this module only parses text and prints results.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from gpu_rs.cli import calibrate, doctor, pmf, profile, table, tail
from gpu_rs.cli.output import EXIT_FAILURE, EXIT_USAGE, PROG, one_line
from gpu_rs.common.provenance import package_version

SUBCOMMANDS = (tail, calibrate, pmf, profile, table, doctor)
"""The subcommand modules, in the order ``--help`` lists them; each has ``register`` and ``run``."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line: ``gpu-rs: error: ...``."""

    def error(self, message: str) -> NoReturn:
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
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
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
        return 130
