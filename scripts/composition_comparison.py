"""ε(δ) after T daily releases: gpu_rs's certified composition against dp_accounting's (issue 31).

For N = 10⁶ users, L ∈ {8, 16, 40} bits with local privacy ε₀ = L log(p/q) = 4 per report, and the
issue's setting L = 8, q = 0.3, each release's certified profile (``scope="all"``: every pair) is
composed ``T`` times, ``T ∈ {1, 7, 30, 91, 182, 365}``:

- gpu_rs: ``gpu_rs.compose(profile, times=T).epsilon(δ)``, a certified interval (the upper end
  proven for every pair; the lower end the composed seed's pair);
- dp_accounting: ``profile.to_dp_accounting()``, the same export, ``self_compose(T)``,
  ``get_epsilon_for_delta(δ)`` (pessimistic; its FFT and truncation are not certified).

Each cell is computed once and cached in ``benchmarks/composition_comparison.json``; the notebook
reads it. Times are also given as ratios to one forward tail ``tail(10**6, 8, 0.3, 1.0,
scope="forward")`` measured in the same run.

    python scripts/composition_comparison.py [--delta 1e-9]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

import gpu_rs  # noqa: E402

N = 10**6
SETTINGS = (
    (8, 1.0 / (1.0 + math.exp(4.0 / 8))),
    (16, 1.0 / (1.0 + math.exp(4.0 / 16))),
    (40, 1.0 / (1.0 + math.exp(4.0 / 40))),
    (8, 0.3),
)
TIMES = (1, 7, 30, 91, 182, 365)
CACHE = os.path.join(ROOT, "benchmarks", "composition_comparison.json")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delta", type=float, default=1e-9)
    args = ap.parse_args()
    cells = {}
    if os.path.exists(CACHE):
        with open(CACHE) as fh:
            cells = json.load(fh)
    t0 = time.perf_counter()
    gpu_rs.tail(N, 8, 0.3, 1.0, scope="forward", backend="numpy")
    cells["forward_tail_seconds"] = time.perf_counter() - t0
    cells["machine"] = (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}"
    )
    for bits, q in SETTINGS:
        prof = gpu_rs.privacy_profile(N, bits, q, backend="numpy")
        pld = prof.to_dp_accounting()
        for times in TIMES:
            key = f"n={N} bits={bits} q={q!r} T={times} delta={args.delta!r}"
            if key in cells:
                continue
            t0 = time.perf_counter()
            found = gpu_rs.compose(prof, times=times).epsilon(args.delta)
            seconds = time.perf_counter() - t0
            theirs = pld.self_compose(times).get_epsilon_for_delta(args.delta)
            cells[key] = {"lower": found.lower, "upper": found.upper, "seconds": seconds, "dp_accounting": theirs}
            print(
                f"L={bits} q={q:.4f} T={times}: gpu_rs [{found.lower:.4g}, {found.upper:.4g}] in {seconds:.1f} s, "
                f"dp_accounting {theirs:.4g}",
                flush=True,
            )
            with open(CACHE, "w") as fh:
                json.dump(cells, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
