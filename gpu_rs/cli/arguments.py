"""Shared options of the ``gpu-rs`` subcommands, parsed and checked as the command line is read.

Every value goes through the API's own check (:mod:`gpu_rs.common.validation`, whose limits
live in :mod:`gpu_rs.common.limits`) under the option's name, so a bad value stops the program
before any work, with one line naming the option and its accepted range. Output files are
checked here too: their folder exists and is writable, they are not folders, and a plot's
extension is one matplotlib writes.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from gpu_rs.common.limits import (
    BACKEND_NAMES,
    MAX_BITS,
    MAX_EPS,
    MAX_K,
    MAX_N,
    MAX_Q_TOL,
    MAX_RELEASES,
    MAX_SEARCH_SECONDS,
    MIN_EPS,
    MIN_Q_TOL,
    MIN_REL_WIDTH,
    MIN_TARGET,
    Q_RTOL,
    SCOPES,
)

PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".pgf")
"""Extensions of the figures ``--plot`` writes (matplotlib picks the format from them)."""


def checked(option: str, check: Callable[[str, float], Any], *, integer: bool = False) -> Callable[[str], Any]:
    """An argparse ``type``: parse the text as a number and apply ``check(option, number)``.

    Integers may be written ``10000000`` or ``1e7``. The message of a refused value names the
    option, its accepted range and the text as typed.
    """

    def parse(text: str) -> Any:
        try:
            value: Any = int(text) if integer else float(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                value = text  # not a number: the check refuses it by type
        try:
            return check(option, value)
        except ValueError as err:
            message = str(err)
            if isinstance(value, str):
                message = message.split(": got ")[0] + f": got {text!r}"
            raise argparse.ArgumentTypeError(message) from None

    parse.__name__ = option.lstrip("-")
    return parse


def _validation() -> ModuleType:
    """The API's checks, imported when a value is parsed (``--help`` and ``--version`` never need them)."""
    import gpu_rs.common.validation

    return gpu_rs.common.validation


def integer(lo: int, hi: int) -> Callable[[str, object], int]:
    """The check of an integer option in ``[lo, hi]``."""
    return lambda name, value: _validation().check_int(name, value, lo, hi)


def between(lo: float, hi: float, *, closed: bool = False) -> Callable[[str, object], float]:
    """The check of a number in ``(lo, hi)`` (``[lo, hi)`` when ``closed``)."""
    check = "check_closed_open" if closed else "check_open"
    return lambda name, value: getattr(_validation(), check)(name, value, lo, hi)


def target_check() -> Callable[[str, object], float]:
    """The check of a target probability ``eta`` or ``delta``, in ``[MIN_TARGET, 1)``."""
    return lambda name, value: _validation().check_target(name, value)


def out_file(option: str, suffixes: Sequence[str] = ()) -> Callable[[str], str]:
    """An argparse ``type`` for an output file: checked before any computation.

    The file must not be a folder, its folder must exist and be writable, an existing file
    must be writable, and its name must end in one of ``suffixes`` when they are given.
    """

    def parse(text: str) -> str:
        path = os.path.abspath(text)
        folder = os.path.dirname(path)
        why = None
        if not text or os.path.isdir(path):
            why = f"{text!r} is a folder; give a file name"
        elif suffixes and os.path.splitext(text)[1].lower() not in suffixes:
            why = f"{text!r} must end in one of {', '.join(suffixes)}"
        elif not os.path.isdir(folder):
            why = f"folder {folder!r} does not exist"
        elif not _writable(folder) or (os.path.exists(path) and not os.access(path, os.W_OK)):
            why = f"{text!r} cannot be written (no permission to write in {folder!r})"
        if why is not None:
            raise argparse.ArgumentTypeError(f"{option} must be a writable file: {why}")
        return text

    parse.__name__ = option.lstrip("-")
    return parse


def _writable(folder: str) -> bool:
    """Whether a file can be created in ``folder`` (tried, for ``os.access`` is not the truth for root)."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def named(check: str) -> Callable[[str, object], Any]:
    """The API check ``check(value, name)`` of :mod:`gpu_rs.common.validation`, for :func:`checked`."""
    return lambda name, value: getattr(_validation(), check)(value, name)


def add_common(p: argparse.ArgumentParser, *, q: bool, eps_required: bool) -> None:
    """``--n``, ``--bits``, ``--q`` (when ``q``) and one of ``--eps`` / ``--ratio``."""
    p.add_argument(
        "--n",
        type=checked("--n", integer(1, MAX_N), integer=True),
        required=True,
        metavar="N",
        help=f"number of users, 1 <= N <= {MAX_N}",
    )
    p.add_argument(
        "--bits",
        type=checked("--bits", integer(1, MAX_BITS), integer=True),
        required=True,
        metavar="L",
        help=f"bits per report, 1 <= L <= {MAX_BITS}",
    )
    if q:
        p.add_argument(
            "--q",
            type=checked("--q", between(0.0, 0.5)),
            required=True,
            metavar="Q",
            help="bit-flip probability, 0 < Q < 1/2",
        )
    eps = p.add_mutually_exclusive_group(required=eps_required)
    eps.add_argument(
        "--eps",
        type=checked("--eps", named("check_eps")),
        metavar="EPS",
        help=f"privacy level, {MIN_EPS:.2g} <= EPS < {MAX_EPS:g}; the threshold on R is e^EPS",
    )
    eps.add_argument(
        "--ratio",
        type=checked("--ratio", named("check_ratio")),
        metavar="LAMBDA",
        help=f"the threshold on R directly, 1 < LAMBDA < e^{MAX_EPS:g} (instead of --eps)",
    )


def add_rel_width(p: argparse.ArgumentParser, what: str) -> None:
    """``--rel-width``, checked as the API checks ``rel_width``."""
    p.add_argument(
        "--rel-width",
        type=checked("--rel-width", named("check_rel_width")),
        metavar="W",
        help=f"{what}, {MIN_REL_WIDTH:g} <= W < 1 (API default 1e-3)",
    )


def add_target(p: Any, option: str, what: str) -> None:
    """``--eta`` or ``--delta`` (on a parser or a group): a target probability in ``[MIN_TARGET, 1)``."""
    meta = option.lstrip("-").upper()
    p.add_argument(
        option,
        type=checked(option, target_check()),
        metavar=meta,
        help=f"{what}, {MIN_TARGET:g} <= {meta} < 1",
    )


def add_releases(p: argparse.ArgumentParser, what: str) -> None:
    """``--releases T``: independent releases composed (:func:`gpu_rs.compose`)."""
    p.add_argument(
        "--releases",
        type=checked("--releases", integer(1, MAX_RELEASES), integer=True),
        default=1,
        metavar="T",
        help=f"{what}, 1 <= T <= {MAX_RELEASES} (docs/composition.md); default: 1",
    )


def add_search_seconds(p: argparse.ArgumentParser, what: str, default: str) -> None:
    """``--search-seconds S``, checked as the API checks ``search_seconds``; ``what`` says what is searched."""
    p.add_argument(
        "--search-seconds",
        type=checked("--search-seconds", between(0.0, MAX_SEARCH_SECONDS, closed=True)),
        metavar="S",
        help=f"with --scope all and bits >= 2: {what} for at most about S seconds, 0 <= S < "
        f"{MAX_SEARCH_SECONDS:.0f} (0 skips it); default: {default}",
    )


def add_q_tol(p: argparse.ArgumentParser) -> None:
    """``--q-tol``, checked as the API checks ``q_tol``."""
    p.add_argument(
        "--q-tol",
        type=checked("--q-tol", named("check_q_tol")),
        metavar="TOL",
        help=f"absolute tolerance on q, {MIN_Q_TOL:g} <= TOL < {MAX_Q_TOL:g}: q certifies, q - TOL does not "
        f"(default: relative, {Q_RTOL:g} x min(q, 1/2 - q))",
    )


def add_scope(p: argparse.ArgumentParser) -> None:
    """``--scope`` and ``--k``."""
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="all",
        help="which neighbouring pairs: 'all' (every pair, the guarantee: exact for --bits 1, a proven "
        "bound otherwise), 'forward' (seed 003's pair, its order), 'homogeneous' (both orders of "
        "that pair); default: all (with --k > 1 a proven bound too: docs/composition.md §2)",
    )
    p.add_argument(
        "--k",
        type=checked("--k", integer(1, MAX_K), integer=True),
        default=1,
        metavar="K",
        help=f"randomized reports per user, 1 <= K <= {MAX_K}; default: 1",
    )


def add_run_options(p: argparse.ArgumentParser, *, json_help: str) -> None:
    """``--backend``, ``--json`` and ``--quiet``."""
    p.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default="auto",
        help="array backend; 'auto' picks CuPy only where a GPU is usable (GPU_RS_BACKEND overrides it); default: auto",
    )
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def join_negative_values(argv: Sequence[str]) -> list[str]:
    """``--eps -inf`` becomes ``--eps=-inf``, so a negative value is read as a value, not an option.

    argparse takes ``-inf`` and ``-1e-6`` for option names; joined, they reach the option's
    check, which names the option and its range.
    """
    out: list[str] = []
    for token in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and _negative_number(token):
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def _negative_number(token: str) -> bool:
    if not token.startswith("-"):
        return False
    try:
        float(token)
    except ValueError:
        return False
    return True


def eps_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``eps=`` or ``ratio=``, whichever was given."""
    return {"eps": args.eps} if args.eps is not None else {"ratio": args.ratio}


def given(**kwargs: Any) -> dict[str, Any]:
    """Only the options given, so the API's own defaults apply to the rest."""
    return {k: val for k, val in kwargs.items() if val is not None}


def short(x: float, edges: Sequence[float] = (0.0, 0.5)) -> str:
    """``x`` in six significant digits, or in full where six digits would round it onto one of ``edges``.

    ``q = 0.4999999999999999`` is printed as such, not as ``0.5``, a value ``q`` may not take.
    """
    text = f"{x:.6g}"
    return repr(x) if float(text) in edges and x not in edges else text
