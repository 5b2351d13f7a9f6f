"""Issue-19 speed targets of the privacy profile, as ratios to one ``tail`` measured in the same run.

1. 100 values of ``ε`` in ``[0.5, 4]`` at ``L = 40, N = 1e7, q = 0.351``: at most 20 tails' time.
2. One ``δ`` at ``L = 5, N = 1000, q = 0.2446, ε = 0.5``, width ``1e-3``: at most 10 tails' time.

Each case runs under ``scope="homogeneous"`` (both orders of the seed's pair; the width is met)
and under the default ``scope="all"`` (the upper end is the proven bound over every pair, whose
width is the bound's own looseness for ``L >= 2``, so "all met" is False there by design), the tail
under the same scope. Run ``python -m benchmarks.profile_speed [--markdown]``. Each timing is the
best of ``--repeat`` runs (the machine is shared), each profile built afresh and the every-pair curves'
cache emptied (no work carried over).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks.measure import best_of

SCOPES = ("homogeneous", "all")
CASES = (
    ("100 eps, L=40, N=1e7, q=0.351", (10**7, 40, 0.351), 2.0, np.linspace(0.5, 4.0, 100), 20.0),
    ("one delta, L=5, N=1000, q=0.2446", (1000, 5, 0.2446), 0.5, np.array([0.5]), 10.0),
)


def run(repeat: int) -> list[dict[str, Any]]:
    import gpu_rs

    gpu_rs.tail(100, 2, 0.2, 0.5, backend="numpy")  # imports and first-call costs out of the timings
    rows = []
    for (title, (n, bits, q), tail_eps, grid, target), scope in itertools.product(CASES, SCOPES):
        t_tail, _ = best_of(
            lambda: gpu_rs.tail(n, bits, q, tail_eps, scope=scope, backend="numpy"),  # noqa: B023
            repeat,
        )
        t_prof, found = best_of(
            lambda: gpu_rs.privacy_profile(n, bits, q, scope=scope, backend="numpy").delta(grid),  # noqa: B023
            repeat,
        )
        widths = [(d.upper - d.lower) / d.lower for d in found if d.lower > 0]
        rows.append(
            dict(
                case=title,
                scope=scope,
                tail_seconds=t_tail,
                profile_seconds=t_prof,
                ratio=t_prof / t_tail,
                target=target,
                met=all(d.met for d in found),
                worst_rel_width=max(widths) if widths else 0.0,
                queries=sum(d.queries for d in found),
            )
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = run(args.repeat)
    head = "| case | scope | one tail (s) | profile (s) | ratio | target | all met | worst rel. width | tail queries |"
    print(head)
    print("|" + "---|" * 9)
    for r in rows:
        ok = "yes" if r["ratio"] <= r["target"] else "NO"
        print(
            f"| {r['case']} | {r['scope']} | {r['tail_seconds']:.3g} | {r['profile_seconds']:.3g} | {r['ratio']:.2f} "
            f"| <= {r['target']:g} ({ok}) | {r['met']} | {r['worst_rel_width']:.2e} | {r['queries']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
