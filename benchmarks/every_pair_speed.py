"""Issue-29 speed: the every-pair bound as one curve, against the seed's pair's forward tail in the same run.

1. ``tail(scope="all", search_seconds=0)`` at the seed's settings and at L = 40: its upper end is the tail
   of the every-pair curve, its lower end the seed's pair (no family search). Target: no slower than
   before the curve (compare the same rows run on the older commit).
2. 100 values of ``δ(ε)``, ``ε`` in ``[0.5, 6]``, at ``L = 40, N = 1e7`` under ``scope="all"``. Target: 30 s
   on 2 cores.
3. ``δ(ε)`` under ``scope="all"`` at issue 29's settings where the blanket holds thousands of users (item 3,
   no report cap), against the forward tail at the same setting.

Run ``python -m benchmarks.every_pair_speed``. Each timing is the best of ``--repeat`` runs, with the
curves' cache emptied before each (no work carried over); it runs on whichever ``gpu_rs`` is imported,
so the same file measures an older checkout (``PYTHONPATH=that/checkout``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchmarks.measure import best_of, forward_seconds, print_rows

TAILS = (
    (1000, 5, 0.2446, math.log(2.0)),
    (1000, 5, 0.1692, 2.0),
    (5000, 5, 0.1778, math.log(2.0)),
    (10**4, 5, 0.2247, math.log(2.0)),
    (10**7, 40, 0.351, 2.0),
    (10**7, 40, 0.3754, 2.0),
    (10**5, 40, 0.475, 0.1),
)
DELTAS = ((10**5, 40, 0.475, 0.06), (2 * 10**6, 64, 0.47, 0.2), (3 * 10**4, 12, 0.4, 0.3))
PROFILES = ((10**7, 40, 0.351), (10**7, 40, 0.3754))
GRID = np.linspace(0.5, 6.0, 100)


def run(repeat: int) -> list[str]:
    import gpu_rs

    gpu_rs.tail(100, 2, 0.2, 0.5, backend="numpy")  # imports and first-call costs out of the timings
    lines = [
        "| N | L | q | ε | forward tail (s) | all, search_seconds=0 (s) | ratio | upper end |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, bits, q, eps in TAILS:
        t_fwd = forward_seconds(n, bits, q, eps, repeat)
        t_all, b = best_of(lambda: gpu_rs.tail(n, bits, q, eps, search_seconds=0, backend="numpy"), repeat)  # noqa: B023
        lines.append(
            f"| {n:g} | {bits} | {q} | {eps:.4g} | {t_fwd:.3g} | {t_all:.3g} | {t_all / t_fwd:.1f} | {b.upper:.6g} |"
        )
    lines += ["", "| N | L | q | 100 δ(ε), ε in [0.5, 6], scope all (s) | δ(2) upper end |", "|---|---|---|---|---|"]
    for n, bits, q in PROFILES:
        t, _ = best_of(lambda: gpu_rs.privacy_profile(n, bits, q, backend="numpy").delta(GRID), repeat)  # noqa: B023
        at_two = gpu_rs.privacy_profile(n, bits, q, backend="numpy").delta(2.0).upper
        lines.append(f"| {n:g} | {bits} | {q} | {t:.3g} | {at_two:.6g} |")
    lines += [
        "",
        "| N | L | q | ε | forward tail (s) | δ(ε), scope all (s) | ratio | δ upper end |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, bits, q, eps in DELTAS:
        t_fwd = forward_seconds(n, bits, q, eps, repeat)
        t, d = best_of(lambda: gpu_rs.privacy_profile(n, bits, q, backend="numpy").delta(eps), repeat)  # noqa: B023
        lines.append(f"| {n:g} | {bits} | {q} | {eps:.4g} | {t_fwd:.3g} | {t:.3g} | {t / t_fwd:.1f} | {d.upper:.6g} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    return print_rows(run, __doc__ or "", argv)


if __name__ == "__main__":
    raise SystemExit(main())
