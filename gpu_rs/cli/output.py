"""How the ``gpu-rs`` subcommands print results: JSON, numbers, intervals and warnings."""

from __future__ import annotations

import json
import sys
from typing import Any

from gpu_rs.common.floats import SMALLEST_NORMAL

PROG = "gpu-rs"

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def one_line(message: object) -> str:
    """``message`` on one line (runs of white space become one space)."""
    return " ".join(str(message).split())


def print_json(result: Any) -> None:
    """One JSON object on stdout: ``result.to_dict()`` (or a dict) after the ``schema`` version."""
    from gpu_rs.common.provenance import versioned
    from gpu_rs.common.serialize import plain

    record = result if isinstance(result, dict) else result.to_dict()
    print(json.dumps(plain(versioned(record)), allow_nan=False))


def fmt(x: float | None, spec: str = ".6g") -> str:
    """A result's number in CLI text, in significant digits (``spec``: ``.6g``, ``.4e``; never fixed
    decimals, which print a small value as ``0.000000``); ``-`` for None.

    A positive value below the smallest normal float (a 0 rounded outwards, or an underflow, such as
    ``4.940656e-324``) has no significant digits: it is printed ``<2.2e-308``, which it is.
    """
    if x is None:
        return "-"
    if 0.0 < x < SMALLEST_NORMAL:
        return f"<{SMALLEST_NORMAL:.2g}"
    return format(x, spec)


def interval(bound: Any, spec: str = ".4e") -> str:
    """``[lower, upper]`` of ``bound`` (any value with both), through :func:`fmt`; ``-`` for None."""
    return "-" if bound is None else f"[{fmt(bound.lower, spec)}, {fmt(bound.upper, spec)}]"


def relative_width(bound: Any) -> str:
    """The width of ``bound`` relative to its lower end, as the width target measures it
    (``upper − lower <= max(rel_width · lower, abs_width)``)."""
    if bound.lower > 0.0:
        return f"{bound.width / bound.lower:.3g} times the lower end"
    return "the lower end is 0" if bound.width > 0.0 else "exact"


def op(inclusive: bool) -> str:
    return ">=" if inclusive else ">"


def warn_unmet(bound: Any) -> None:
    if bound is not None and not bound.met:
        if bound.bound_only:
            why = "not met: the proven bound for every pair is this loose (docs/worst-case.md)"
        elif getattr(bound, "k", 1) > 1:
            why = "not met: for k > 1 the tail is bracketed by inequalities this loose (docs/k-randomization.md §5)"
        else:
            why = "not met within the memory budget"
        print(
            f"{PROG}: warning: width target rel_width={bound.rel_width:g} (times the lower end; "
            f"abs_width={bound.abs_width:g} also accepted) {why}; certified width reached "
            f"{fmt(bound.width, '.3e')}, {relative_width(bound)}",
            file=sys.stderr,
        )


def verdict(bound: Any, eta: float) -> str:
    if bound is None:
        return ""
    return "<= eta" if bound.upper <= eta else "> eta"
