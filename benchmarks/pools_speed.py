"""Issue 29 item 5: the cost of the cross-cloned pools (docs/worst-case.md §8.9) in the every-pair curve.

For each setting: one forward tail of the seed's pair (the unit), the every-pair curve's tail by default
and with ``pools=True`` (``every_pair.Curve(..., pools=True).tail``), and the same for ``δ`` at the row's
``ε``; times as ratios to the forward tail measured in the same run. ``--large`` adds L = 40 (minutes).

Run ``python -m benchmarks.pools_speed``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np

from benchmarks.measure import best_of, forward_seconds

ROWS = (
    (1000, 5, 0.2446, math.log(2.0)),
    (1000, 5, 0.1692, 2.0),
    (5000, 5, 0.1778, math.log(2.0)),
    (10**4, 5, 0.2245, math.log(2.0)),
    (2 * 10**4, 8, 0.2, 1.5),
    (10**5, 8, 0.2, 1.0),
    (10**7, 8, 0.105, 2.0),
    (10**7, 16, 0.2348, 2.0),
)
"""The seed's L = 5 settings, then settings with many users per vector, where the pools' members reach past
their lattice's 500 reports (issue 32: members at every clone count)."""
LARGE = ((10**7, 40, 0.351, 2.0),)


def run(repeat: int, large: bool) -> list[str]:
    import gpu_rs
    from gpu_rs.pairs import every_pair

    gpu_rs.tail(100, 2, 0.2, 0.5, backend="numpy")  # imports and first-call costs out of the timings
    lines = [
        "| N | L | q | ε | forward tail (s) | curve tail: default, pools (s) | ratios | tail: default → pools "
        "| δ(ε): default, pools (s) | δ: default → pools |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, bits, q, eps in ROWS + (LARGE if large else ()):
        t_fwd = forward_seconds(n, bits, q, eps, repeat)
        tails, deltas = {}, {}
        for pools in (False, True):
            tails[pools] = best_of(lambda: every_pair.Curve(n, bits, q, pools=pools).tail(eps), repeat)  # noqa: B023
            grid = np.array([eps])
            deltas[pools] = best_of(lambda: every_pair.Curve(n, bits, q, pools=pools).deltas(grid), repeat)  # noqa: B023
        lines.append(
            f"| {n:g} | {bits} | {q} | {eps:.4g} | {t_fwd:.3g} | {tails[False][0]:.3g}, {tails[True][0]:.3g} "
            f"| {tails[False][0] / t_fwd:.1f}, {tails[True][0] / t_fwd:.1f} "
            f"| {tails[False][1].bound:.4g} → {tails[True][1].bound:.4g} "
            f"| {deltas[False][0]:.3g}, {deltas[True][0]:.3g} | {deltas[False][1][0]:.4g} → {deltas[True][1][0]:.4g} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--large", action="store_true", help="add L = 40 (about two minutes)")
    args = parser.parse_args(argv)
    print("\n".join(run(args.repeat, args.large)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
