"""Run one benchmark task in a child process and measure it.

Each task is a function of :mod:`benchmarks.cases` named by string. The child
(multiprocessing ``spawn``: a fresh interpreter, nothing inherited from the parent)

1. imports the engine and warms it up on a tiny problem (so import and first-call costs are
   not timed),
2. resets the kernel's peak-RSS mark (``/proc/self/clear_refs``, Linux) where it can,
3. runs the task once, untraced, timing it with ``time.perf_counter``; the peak resident set
   size is ``VmHWM`` from ``/proc/self/status`` (or ``ru_maxrss`` elsewhere), and ``ΔRSS`` is
   that peak minus the resident set just before the task,
4. if the task was short enough, runs it again under ``tracemalloc`` for the peak of Python
   and NumPy allocations (NumPy reports its buffers to tracemalloc).

With ``fresh=True`` every task gets its own child (the cleanest numbers: nothing is cached
between cases). With ``fresh=False`` one child serves every task; the peak mark is reset
between tasks, so the numbers stay per task where ``clear_refs`` is writable.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import multiprocessing
import os
import resource
import time
import tracemalloc
from collections.abc import Callable, Sequence
from multiprocessing.pool import Pool
from typing import Any

TRACE_LIMIT = 30.0
"""Tasks whose untraced run took longer than this (seconds) are not repeated under tracemalloc."""


def forward_seconds(n: int, bits: int, q: float, eps: float, repeat: int) -> float:
    """The unit of the benchmarks' ratios: the best of ``repeat`` certified forward tails of the seed's pair
    (``gpu_rs.tail(..., scope="forward")``, NumPy) at ``(n, bits, q, eps)``, in seconds."""
    import gpu_rs

    return best_of(lambda: gpu_rs.tail(n, bits, q, eps, scope="forward", backend="numpy"), repeat)[0]


def print_rows(run: Callable[[int], list[str]], description: str, argv: Sequence[str] | None) -> int:
    """A benchmark script's command line: ``--repeat R`` (default 1), then the lines of ``run(R)`` printed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=1)
    print("\n".join(run(parser.parse_args(argv).repeat)))
    return 0


def best_of(f: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The least wall time of ``repeat`` runs of ``f`` (the every-pair curves' cache emptied before each) and
    its last result."""
    best, out = math.inf, None
    for _ in range(repeat):
        fresh()
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def fresh() -> None:
    """Empty the every-pair curves' cache (``gpu_rs.pairs.every_pair.curve``), so that a timing carries no
    work over from an earlier one; nothing to empty on a checkout older than it."""
    try:
        from gpu_rs.pairs import every_pair
    except ImportError:
        return
    every_pair.curve.cache_clear()


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset ``VmHWM`` to the current RSS (Linux >= 4.0); False where not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _rss() -> int:
    kb = _status_kb("VmRSS")
    return -1 if kb is None else kb * 1024


def _peak_rss() -> int:
    kb = _status_kb("VmHWM")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kb * 1024


_WARM = False


def _warm_up(backend: str) -> None:
    global _WARM
    if _WARM:
        return
    import numpy as np

    import gpu_rs

    from . import baselines

    with contextlib.suppress(Exception):  # the task itself will report a backend problem
        gpu_rs.tail(1000, 5, 0.2446, math.log(2.0), scope="forward", backend=backend)
    baselines.monte_carlo(1000, 5, 0.2446, math.log(2.0), 0.0)
    baselines.naive_squaring(100, 3, 0.25, math.log(2.0), 1 << 10)
    np.add(1.0, 1.0)
    _WARM = True


def run_task(name: str, kwargs: dict[str, Any], trace_kwargs: dict[str, Any] | None, backend: str) -> dict[str, Any]:
    """Child side: run ``benchmarks.cases.<name>(**kwargs)`` and measure it."""
    out: dict[str, Any] = {"task": name, "pid": os.getpid()}
    try:
        _warm_up(backend)
        func = getattr(importlib.import_module("benchmarks.cases"), name)
        reset = _reset_peak()
        before = _rss()
        start = time.perf_counter()
        result = func(**kwargs)
        seconds = time.perf_counter() - start
        peak = _peak_rss()
        out.update(
            result=result,
            seconds=seconds,
            peak_rss=peak,
            delta_rss=max(0, peak - before) if before >= 0 else None,
            peak_reset=reset,
        )
        if trace_kwargs is not None and seconds <= TRACE_LIMIT:
            tracemalloc.start()
            func(**trace_kwargs)
            out["py_peak"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        else:
            out["py_peak"] = None
    except Exception as exc:  # reported in the table, never fatal to the whole run
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


class Runner:
    """Runs tasks in spawned children, one per task (``fresh``) or one shared."""

    def __init__(self, backend: str, fresh: bool = True) -> None:
        self.backend = backend
        self.fresh = fresh
        self._ctx = multiprocessing.get_context("spawn")
        self._pool: Pool | None = None

    def _get_pool(self) -> Pool:
        if self._pool is None:
            self._pool = self._ctx.Pool(1, maxtasksperchild=1 if self.fresh else None)
        return self._pool

    def run(
        self,
        name: str,
        kwargs: dict[str, Any],
        *,
        trace_kwargs: dict[str, Any] | None = None,
        timeout: float = 900.0,
        trace: bool = True,
    ) -> dict[str, Any]:
        """Run a task; on timeout the child is killed and ``error`` says so."""
        pool = self._get_pool()
        if trace and trace_kwargs is None:
            trace_kwargs = kwargs
        job = pool.apply_async(run_task, (name, kwargs, trace_kwargs if trace else None, self.backend))
        try:
            return job.get(timeout)
        except multiprocessing.TimeoutError:
            self.close(kill=True)
            return {"task": name, "error": f"timeout after {timeout:g} s"}

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            if kill:
                self._pool.terminate()
            else:
                self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)
