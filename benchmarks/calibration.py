"""Calibration against single tails, measured in one process (issue 22).

Usage::

    python benchmarks/calibration.py [--case KEY ...] [--markdown]

After a warm-up (two small calibrations), for each case: one ``calibrate`` call, then one
certified tail (or δ) at the calibrated ``q`` and one at the 3σ rule's ``q``, same ``n``,
``bits``, ε, scope and ``rel_width``, in the same process right after. The ratio is
calibration time over the tail at the calibrated ``q`` (the tail a user would compute to check
the answer); the ratio to the 3σ tail is shown too, and to the seed's pair's forward tail at the
calibrated ``q`` (issue 30's unit). The calibration's CPU time is shown beside its wall time: on a
machine shared with other jobs it is close to what an idle run takes. Only the public API is used, so the same
file times an older checkout (``PYTHONPATH=old/checkout python benchmarks/calibration.py``,
run from outside the checkout).
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from typing import Any

import gpu_rs

CASES: dict[str, dict[str, Any]] = {
    "L40": dict(n=10**7, bits=40, eps=2.0, eta=1e-3),
    "readme": dict(n=10**4, bits=5, eps=math.log(2), eta=1e-3),
    "quick": dict(n=1000, bits=5, eps=math.log(2), eta=1e-2, q_tol=1e-3),
    "L1": dict(n=10**4, bits=1, eps=1.0, eta=1e-3),
    "L2": dict(n=10**4, bits=2, eps=2.0, eta=1e-3),
    "delta": dict(n=1000, bits=1, eps=0.5, delta=1e-6),
    "L1-all": dict(n=1000, bits=1, eps=1.0, eta=1e-3, scope="all"),
    "L5-all": dict(n=1000, bits=5, eps=math.log(2), eta=1e-3, scope="all"),
    "readme-all": dict(n=10**4, bits=5, eps=math.log(2), eta=1e-3, scope="all"),
    "L40-all": dict(n=10**7, bits=40, eps=2.0, eta=1e-3, scope="all"),
    "L1-all-1e6": dict(n=10**6, bits=1, eps=1.0, eta=1e-3, scope="all"),
}
"""The cases; scope is ``homogeneous`` unless given."""


def _one(case: dict[str, Any], q: float) -> float:
    """Seconds of one certified value at ``q`` with the case's setting."""
    scope = case.get("scope", "homogeneous")
    start = time.perf_counter()
    if "delta" in case:
        gpu_rs.privacy_profile(case["n"], case["bits"], q, scope=scope).delta(case["eps"])
    else:
        gpu_rs.tail(case["n"], case["bits"], q, case["eps"], scope=scope)
    return time.perf_counter() - start


def measure(key: str) -> dict[str, Any]:
    """Calibrate the case, then time one value at its ``q`` and at the 3σ rule's ``q``."""
    case = CASES[key]
    # The scope is always passed: calibrate's default became "all", the cases' is "homogeneous".
    kwargs = {k: v for k, v in case.items() if k not in ("n", "bits")} | {"scope": case.get("scope", "homogeneous")}
    start, cpu = time.perf_counter(), time.process_time()
    c = gpu_rs.calibrate(case["n"], case["bits"], **kwargs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    at_q = _one(case, c.q)
    at_fwd = math.nan if "delta" in case else _one(case | {"scope": "forward"}, c.q)
    try:
        at_3s = _one(case, gpu_rs.three_sigma_q(case["n"], case["bits"], case["eps"]))
    except ValueError:
        at_3s = math.nan
    phases = Counter(s["phase"] for s in c.steps)
    return dict(
        key=key,
        q=c.q,
        scope=case.get("scope", "homogeneous"),
        queries=len(c.steps),
        phases=dict(phases),
        seconds=seconds,
        cpu=cpu,
        at_q=at_q,
        at_fwd=at_fwd,
        ratio_fwd=seconds / at_fwd,
        at_3s=at_3s,
        ratio=seconds / at_q,
        ratio_3s=seconds / at_3s,
    )


def row(m: dict[str, Any]) -> str:
    """One Markdown row."""
    setting = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in CASES[m["key"]].items())
    return (
        f"| {m['key']} | {setting} | {m['scope']} | {m['q']:.8g} | {m['queries']} | {m['seconds']:.3g} s | "
        f"{m['cpu']:.3g} s | {m['at_q']:.3g} s | {m['ratio']:.3g} | {m['at_3s']:.3g} s | {m['ratio_3s']:.3g} | "
        f"{m['at_fwd']:.3g} s | {m['ratio_fwd']:.3g} |"
    )


HEADER = (
    "| case | setting | scope | q | queries | calibration | its CPU time | one tail at q | ratio | one tail at 3σ q "
    "| ratio to it | forward tail at q | ratio to it |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="cases to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown rows only")
    args = parser.parse_args()
    # Warm up (imports, first FFT plans): the first call of a process pays them, not the case.
    quick = {k: v for k, v in CASES["quick"].items() if k not in ("n", "bits")}
    gpu_rs.calibrate(1000, 5, **quick, scope="homogeneous")
    gpu_rs.calibrate(1000, 1, 1.0, 1e-2, q_tol=1e-3, scope="homogeneous")
    if args.markdown:
        print(HEADER)
    for key in args.case or list(CASES):
        m = measure(key)
        print(row(m) if args.markdown else m, flush=True)


if __name__ == "__main__":
    main()
