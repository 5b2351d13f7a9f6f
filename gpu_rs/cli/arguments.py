"""Shared options of the ``gpu-rs`` subcommands and the parsing of their values.

The numbers themselves are checked by the API, which names the argument and its accepted
range; these types only turn text into numbers and paths.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import Any

from gpu_rs.cli.output import PROG
from gpu_rs.common.limits import BACKEND_NAMES, MAX_BITS, MAX_K, MAX_N, SCOPES


def int_type(lo: int, hi: int) -> Callable[[str], int]:
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


def float_type(accepted: str) -> Callable[[str], float]:
    """Parse a number; the API checks the range (``accepted`` is for the message)."""

    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {accepted}, got {text!r}") from None

    parse.__name__ = "number"
    return parse


def out_path(text: str) -> str:
    """An output file whose directory exists."""
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"directory {folder!r} does not exist")
    return text


def add_common(p: argparse.ArgumentParser, *, q: bool, eps_required: bool) -> None:
    p.add_argument(
        "--n", type=int_type(1, MAX_N), required=True, metavar="N", help=f"number of users, 1 <= N <= {MAX_N}"
    )
    p.add_argument(
        "--bits", type=int_type(1, MAX_BITS), required=True, metavar="L", help=f"bits per report, 1 <= L <= {MAX_BITS}"
    )
    if q:
        p.add_argument(
            "--q", type=float_type("in (0, 0.5)"), required=True, metavar="Q", help="bit-flip probability, 0 < Q < 1/2"
        )
    eps = p.add_mutually_exclusive_group(required=eps_required)
    eps.add_argument("--eps", type=float_type("> 0"), metavar="EPS", help="privacy level; the threshold on R is e^EPS")
    eps.add_argument(
        "--ratio",
        type=float_type("> 1"),
        metavar="LAMBDA",
        help="the threshold on R directly, LAMBDA = e^EPS > 1 (instead of --eps)",
    )


class _Given(argparse.Action):
    """Store the value and record that the option was given (``scope_given``)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.scope_given = True


def scope_for_k(args: argparse.Namespace) -> str:
    """The scope to compute: ``all`` has no proof for ``--k > 1``, so a *default* ``all`` becomes
    ``homogeneous`` (said on stderr); an explicit ``--scope all`` goes on and is refused by the API."""
    if args.k > 1 and args.scope == "all" and not getattr(args, "scope_given", False):
        print(
            f"{PROG}: note: --scope all is not available for --k > 1 (docs/k-randomization.md §5); "
            "computing --scope homogeneous (both orders of the seed's pair)",
            file=sys.stderr,
        )
        return "homogeneous"
    return str(args.scope)


def add_scope(p: argparse.ArgumentParser) -> None:
    p.set_defaults(scope_given=False)
    p.add_argument(
        "--scope",
        action=_Given,
        choices=SCOPES,
        default="homogeneous",
        help="which neighbouring pairs: 'forward' (seed 003's pair, its order), 'homogeneous' "
        "(both orders of that pair), 'all' (every pair: exact for --bits 1, a proven bound "
        "otherwise); default: homogeneous",
    )
    p.add_argument(
        "--k",
        type=int_type(1, MAX_K),
        default=1,
        metavar="K",
        help=f"randomized reports per user, 1 <= K <= {MAX_K}; default: 1",
    )


def add_run_options(p: argparse.ArgumentParser, *, json_help: str) -> None:
    p.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default="auto",
        help="array backend; 'auto' picks CuPy only where a GPU is usable (GPU_RS_BACKEND overrides it); default: auto",
    )
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def eps_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"eps": args.eps} if args.eps is not None else {"ratio": args.ratio}


def given(**kwargs: Any) -> dict[str, Any]:
    """Only the options given, so the API's own defaults apply to the rest."""
    return {k: v for k, v in kwargs.items() if v is not None}
