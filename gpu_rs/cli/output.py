"""How the ``gpu-rs`` subcommands print results: JSON, numbers, intervals and warnings."""

from __future__ import annotations

import json
import sys
from typing import Any

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
    return "-" if x is None else format(x, spec)


def interval(bound: Any) -> str:
    return "-" if bound is None else f"[{bound.lower:.4e}, {bound.upper:.4e}]"


def op(inclusive: bool) -> str:
    return ">=" if inclusive else ">"


def warn_unmet(bound: Any) -> None:
    if bound is not None and not bound.met:
        if bound.scope == "all" and bound.bits > 1:
            why = "not met: the proven bound for every pair is this loose (docs/worst-case.md)"
        elif getattr(bound, "k", 1) > 1:
            why = "not met: for k > 1 the tail is bracketed by inequalities this loose (docs/k-randomization.md §5)"
        else:
            why = "not met within the memory budget"
        print(
            f"{PROG}: warning: width target rel_width={bound.rel_width:g} {why}; "
            f"certified width reached {bound.width:.3e}",
            file=sys.stderr,
        )


def verdict(bound: Any, eta: float) -> str:
    if bound is None:
        return ""
    return "<= eta" if bound.upper <= eta else "> eta"
