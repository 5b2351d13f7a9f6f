"""Issue-30 speed: the default tail (scope all, with its family search) and calibrations, against the seed's
pair's forward tail in the same run.

1. ``tail(n, bits, q, eps)`` under the default scope at L = 40 and 64: its time as a multiple of the forward
   tail of the seed's pair at the same setting, its ends, and the bound it puts on every homogeneous
   background (the family search's note). Targets at (1e7, 40, 0.351, 2): at most 50 forward tails, lower
   end at least 0.001336, every homogeneous background at most 0.0026; at (1e7, 64, 0.36, 2): the family
   searched, within 60 s on 2 cores.
2. The README's calibration (target 8 s) and ``calibrate(1e7, 40, 2, 1e-3)`` (target 15 s) under the default.

Run ``python -m benchmarks.family_speed``. Each timing is the best of ``--repeat`` runs, with the every-pair
curves' cache emptied before each; it runs on whichever ``gpu_rs`` is imported, so the same file measures
an older checkout (``PYTHONPATH=that/checkout``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from benchmarks.measure import best_of, forward_seconds, print_rows

TAILS = ((10**7, 40, 0.351, 2.0), (10**7, 40, 0.3754, 2.0), (10**7, 64, 0.36, 2.0))
CALIBRATIONS = (("README", 10**4, 5, math.log(2.0)), ("L = 40", 10**7, 40, 2.0))


def family_note(worst: str) -> str:
    """What the tail's text says of the family search: the bound on every member, or why it was not made."""
    found = re.search(r"every one's tail <= ([0-9.e+-]+)", worst)
    return found.group(1) if found else ("not searched" if "not searched" in worst else "?")


def run(repeat: int) -> list[str]:
    import gpu_rs

    gpu_rs.tail(100, 2, 0.2, 0.5, backend="numpy")  # imports and first-call costs out of the timings
    lines = [
        "| N | L | q | ε | forward tail (s) | default tail (s) | ratio | lower end | upper end | every homogeneous ≤ |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, bits, q, eps in TAILS:
        t_fwd = forward_seconds(n, bits, q, eps, repeat)
        t_all, b = best_of(lambda: gpu_rs.tail(n, bits, q, eps, backend="numpy"), repeat)  # noqa: B023
        lines.append(
            f"| {n:g} | {bits} | {q} | {eps:.4g} | {t_fwd:.3g} | {t_all:.3g} | {t_all / t_fwd:.1f} | "
            f"{b.lower:.7g} | {b.upper:.6g} | {family_note(b.worst)} |"
        )
    lines += ["", "| calibration | N | L | ε | η | seconds | q | queries |", "|---|---|---|---|---|---|---|---|"]
    for name, n, bits, eps in CALIBRATIONS:
        t, c = best_of(lambda: gpu_rs.calibrate(n, bits, eps, 1e-3, backend="numpy"), repeat)  # noqa: B023
        lines.append(f"| {name} | {n:g} | {bits} | {eps:.4g} | 1e-3 | {t:.3g} | {c.q:.8g} | {len(c.steps)} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    return print_rows(run, __doc__ or "", argv)


if __name__ == "__main__":
    raise SystemExit(main())
