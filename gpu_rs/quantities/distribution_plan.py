"""What the buckets of :func:`~gpu_rs.quantities.distribution.ratio_distribution` cost, planned up front.

Light on purpose (no engine, no SciPy): a grid beyond the memory or time budget is refused
before anything heavy is imported or computed.
"""

from __future__ import annotations

from gpu_rs.common.errors import MemoryBudgetError, TimeBudgetError

BYTES_PER_POINT = 400
"""Host memory per (edge, outlier atom) threshold, temporaries included."""
SECONDS_PER_POINT = 5e-3
"""Cost per threshold: its Chernoff bound (about 0.5 ms) and the curve at up to ``EDGE_TERMS`` frequencies
(measured 3-5 ms per threshold at L = 5 … 1024 on the shared 2-core CPU, issue 33; 5e-5, the first pass
alone, let ``--bits 1024`` and ``--buckets 100000`` run for minutes)."""
MAX_SECONDS = 120.0
"""A grid estimated to take longer than this is refused up front."""


def plan(buckets: int, bits: int, budget: int) -> int:
    """Bytes the grid needs; refuses up front (naming ``buckets``) what exceeds ``budget`` or the time limit."""
    points = (buckets + 1) * (bits + 1)
    need = points * BYTES_PER_POINT
    if need > budget:
        most = max(0, budget // (BYTES_PER_POINT * (bits + 1)) - 1)
        raise MemoryBudgetError(
            f"buckets must be at most {most} for bits={bits} within the memory budget of {budget / 2**20:.0f} MiB: "
            f"got {buckets}, which needs about {need / 2**20:.0f} MiB"
        )
    seconds = points * SECONDS_PER_POINT
    if seconds > MAX_SECONDS:
        most = int(MAX_SECONDS / SECONDS_PER_POINT / (bits + 1)) - 1
        raise TimeBudgetError(
            f"buckets must be at most {most} for bits={bits} to finish within {MAX_SECONDS:.0f} s: "
            f"got {buckets}, estimated {seconds:.0f} s"
        )
    return need
