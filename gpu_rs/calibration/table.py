"""``table``: one calibration per setting of a grid, resumable, on local processes or any executor.

A privacy team publishes ``q`` for every population size, vector length, ε, η (or δ), ``k``
and scope it ships. :func:`table` runs :func:`~gpu_rs.calibrate` once per row of that grid,
appends each row to a file as it finishes (:mod:`gpu_rs.calibration.table_file`), and on a
second run computes only the rows the file lacks. A row whose setting is invalid, or whose
target no ``q`` meets, is recorded with its error and the run goes on. Rows run on local
worker processes, or on any :class:`concurrent.futures.Executor` (a Dask cluster through
``distributed.Client(...).get_executor()``).
"""

from __future__ import annotations

import itertools
import math
import os
import random
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from gpu_rs.calibration.calibrate import calibrate
from gpu_rs.calibration.table_file import COLUMNS, file_format, read_rows, row_key
from gpu_rs.calibration.table_pool import run_rows
from gpu_rs.common.backend import host_free_memory
from gpu_rs.common.errors import MemoryBudgetError
from gpu_rs.common.limits import MAX_CALIBRATION_SECONDS
from gpu_rs.common.provenance import provenance
from gpu_rs.common.serialize import ToDict

ROW_BYTES = 400 * 2**20
"""Memory planned per worker: the interpreter with NumPy/SciPy (~100 MiB) and a calibration's peak
(136 MiB at L = 40, N = 10^7, docs/benchmarks.md), with a margin of more than 50 %."""
COARSE_PER_ROW = 60.0
"""Planning: a calibration costs about this many coarse (``rel_width = 0.1``) tail queries at the 3σ rule's
``q``: 16-25 queries, of which two or three at ``rel_width`` cost up to 10 coarse ones each (measured 30-110×
on the issue-22 grid; the estimate is good to a factor of about 3)."""
SAMPLES = 3
"""Planning: coarse queries timed, at rows drawn at random, before a run."""


@dataclass(frozen=True)
class Plan(ToDict):
    """What a table run will do: rows to compute, workers, and the time and memory it should take."""

    rows: int
    done: int
    workers: int
    seconds: float
    bytes: int

    def __str__(self) -> str:
        return (
            f"{self.rows} rows to compute ({self.done} already in the file), {self.workers} workers, "
            f"about {_duration(self.seconds)} and {self.bytes / 2**30:.2g} GiB"
        )


@dataclass(frozen=True)
class Table(ToDict):
    """The rows of a table in grid order (read back from ``path`` where given) and what this run computed."""

    rows: list[dict[str, Any]]
    path: str | None
    computed: int
    reused: int
    seconds: float


@dataclass(frozen=True)
class Grid:
    """The axes of a table, each a value or a sequence of values; its rows are their product.

    As for :func:`gpu_rs.calibrate`: ``eps`` or ``ratio``, ``eta`` or ``delta``.
    """

    n: Any
    bits: Any
    eps: Any = None
    eta: Any = None
    delta: Any = None
    ratio: Any = None
    k: Any = 1
    scope: Any = None

    def settings(self) -> list[dict[str, Any]]:
        """The settings of the grid, one dict per row, in the order of :func:`itertools.product`."""
        if (self.eps is None) == (self.ratio is None):
            raise ValueError("give exactly one of eps or ratio (a value or a list of values)")
        if (self.eta is None) == (self.delta is None):
            raise ValueError("give exactly one of eta (sufficient DP) or delta ((eps, delta)-DP)")
        epsilons = (
            [("eps", e) for e in _axis("eps", self.eps)]
            if self.eps is not None
            else [("ratio", r) for r in _axis("ratio", self.ratio)]
        )
        targets = (
            [("eta", t) for t in _axis("eta", self.eta)]
            if self.eta is not None
            else [("delta", t) for t in _axis("delta", self.delta)]
        )
        rows = []
        for nn, b, (e_name, e), (t_name, t), kk, s in itertools.product(
            _axis("n", self.n),
            _axis("bits", self.bits),
            epsilons,
            targets,
            _axis("k", self.k),
            [None] if self.scope is None else _axis("scope", self.scope),
        ):
            row: dict[str, Any] = {"n": nn, "bits": b, "eps": None, "ratio": None, "eta": None, "delta": None}
            row.update({e_name: e, t_name: t, "k": kk, "scope": "all" if s is None else s})
            if e_name == "ratio" and isinstance(e, (int, float)) and e > 0:
                row["eps"] = math.log(e)
            rows.append(row)
        return rows


def calibrate_row(setting: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """One row: the setting (with its ``q_tol`` and ``rel_width``) and its calibration, or the error that stopped it."""
    row = {**dict.fromkeys(COLUMNS), **setting}
    start = time.perf_counter()
    try:
        kwargs = {"ratio": row["ratio"]} if row["ratio"] is not None else {"eps": row["eps"]}
        target = {"eta": row["eta"]} if row["eta"] is not None else {"delta": row["delta"]}
        precision = {"q_tol": row["q_tol"], "rel_width": row["rel_width"]}
        c = calibrate(row["n"], row["bits"], k=row["k"], scope=row["scope"], **kwargs, **target, **precision, **options)
    except ValueError as exc:  # invalid setting, unreachable target, work refused up front
        row.update(
            error=f"{type(exc).__name__}: {exc}",
            seconds=time.perf_counter() - start,
            provenance=provenance({**setting, **options}, options.get("backend", "auto")),
        )
        return row
    row.update(
        eps=c.eps,
        q=c.q,
        lower=c.at_q.lower,
        upper=c.at_q.upper,
        queries=len(c.steps),
        monotone=c.monotone,
        seconds=c.seconds,
        error=None,
        provenance=c.provenance,
    )
    return row


def plan(settings: list[dict[str, Any]], done: int, workers: int, options: dict[str, Any]) -> Plan:
    """Time and memory of computing ``settings``: a few coarse queries timed, scaled to the grid."""
    from gpu_rs.quantities.closed_forms import three_sigma_q
    from gpu_rs.quantities.tail import tail

    seconds = []
    for s in random.Random(0).sample(settings, min(SAMPLES, len(settings))):
        try:
            eps = s["eps"] if s["eps"] is not None else math.log(s["ratio"])
            q = min(max(three_sigma_q(s["n"], s["bits"], eps, k=s["k"]), 1e-4), 0.49)
            t0 = time.perf_counter()
            backend = options.get("backend", "auto")
            # Without the family search, as calibrate's search queries (they only decide).
            coarse = dict(rel_width=0.1, backend=backend, search_seconds=0)
            tail(s["n"], s["bits"], q, eps, scope=s["scope"], k=s["k"], **coarse)
            seconds.append(time.perf_counter() - t0)
        except (ValueError, TypeError):
            seconds.append(0.0)
    # A row stops by itself at calibrate's time limit (TimeBudgetError, recorded as its error).
    rows = [min(COARSE_PER_ROW * t, MAX_CALIBRATION_SECONDS) for t in seconds]
    per_row = sum(rows) / len(rows) if rows else 0.0
    parallel = max(1, min(workers, len(settings)))
    return Plan(len(settings), done, workers, per_row * len(settings) / parallel, parallel * ROW_BYTES)


def table(
    n: Any,
    bits: Any,
    eps: Any = None,
    eta: Any = None,
    *,
    delta: Any = None,
    ratio: Any = None,
    k: Any = 1,
    scope: Any = None,
    out: str | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    q_tol: float | None = None,
    rel_width: float = 1e-3,
    backend: str = "auto",
    progress: Callable[[int, int, dict[str, Any]], Any] | None = None,
    on_plan: Callable[[Plan], Any] | None = None,
) -> Table:
    """One certified calibration per row of a grid; resumable, in parallel.

    Parameters
    ----------
    n, bits, eps, eta, delta, ratio, k, scope
        As for :func:`gpu_rs.calibrate`, each a value or a sequence of values; the grid is
        their product (``eps`` or ``ratio``, ``eta`` or ``delta``; :class:`Grid`). ``scope``
        defaults to ``calibrate``'s, ``"all"`` (every neighbouring pair, the guarantee; with ``k > 1``
        the composition bound of docs/composition.md §2); each row says its scope. The
        issue-22 grid under ``"all"`` takes 89 s on 2 workers (docs/benchmarks.md).
    out : str, optional
        File of rows: ``.csv``, ``.jsonl`` (JSON lines) or ``.json`` (one JSON document,
        ``{"schema": 1, "rows": [...]}``). Rows already in it with the same setting, ``q_tol``
        and ``rel_width`` are kept and not computed again; each new row is added and flushed as
        it finishes. A file that is not a gpu_rs table of this schema is refused (ValueError).
    executor : concurrent.futures.Executor, optional
        Where rows run (e.g. ``distributed.Client(address).get_executor()``); default: a pool
        of ``workers`` local processes.
    workers : int, optional
        Local worker processes, ``>= 1`` (default: the number of cores; fewer if free memory
        holds fewer than :data:`ROW_BYTES` each).
    q_tol, rel_width, backend
        Passed to every :func:`~gpu_rs.calibrate`; ``q_tol`` and ``rel_width`` are columns of
        every row and part of its key (a row computed with others is computed again).
    progress : callable, optional
        Called as ``progress(done, total, row)`` after each row.
    on_plan : callable, optional
        Called with the :class:`Plan` (rows, time and memory estimates) before any row runs.

    Returns
    -------
    Table
        Every row of the grid in grid order, ``error`` set where a row could not be calibrated.

    Raises
    ------
    ValueError
        If an axis is None or empty, or ``out`` is not a table file (before any row runs).
    MemoryBudgetError
        If free memory cannot hold one local worker (before any row runs).
    RuntimeError
        If a worker process dies: the rows finished so far are in ``out``; a rerun computes the rest.
    KeyboardInterrupt
        On Ctrl-C (SIGINT), at once: the local workers are stopped, the rows finished are in ``out``.

    Notes
    -----
    Local workers are fresh interpreters that import gpu_rs, never the calling script, so a
    script needs no ``if __name__ == "__main__":`` guard (:mod:`gpu_rs.calibration.table_pool`).
    """
    start = time.perf_counter()
    precision = {"q_tol": q_tol, "rel_width": rel_width}  # in every row: they change its numbers
    settings = [{**s, **precision} for s in Grid(n, bits, eps, eta, delta, ratio, k, scope).settings()]
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be an integer >= 1: got {workers!r}")
    if executor is None:  # local workers: as many as memory holds, refused if not even one
        fit = host_free_memory() // ROW_BYTES
        if fit < 1:
            raise MemoryBudgetError(
                f"table: a worker needs about {ROW_BYTES / 2**20:.0f} MiB, {host_free_memory() / 2**20:.0f} MiB free"
            )
        workers = min(workers, fit)
    options = {"backend": backend}
    if out is not None:
        file_format(out)  # a bad name fails before any work; read_rows refuses a file that is not a table
    have = {row_key(r): r for r in read_rows(out)} if out is not None else {}
    todo = [s for s in settings if row_key(s) not in have]
    todo = list({row_key(s): s for s in todo}.values())  # a setting listed twice runs once
    if on_plan is not None:
        on_plan(
            plan(todo, len(settings) - len(todo), workers, options) if todo else Plan(0, len(settings), workers, 0, 0)
        )
    counts = (len(settings) - len(todo), len(settings))
    new = run_rows(calibrate_row, todo, options, out, executor, workers, progress, counts)
    found = {**have, **{row_key(r): r for r in new}}
    rows = [found[row_key(s)] for s in settings]
    return Table(rows, out, len(new), len(settings) - len(todo), time.perf_counter() - start)


def _axis(name: str, v: Any) -> list[Any]:
    """The values of axis ``name``: a value or a non-empty sequence of values, never None."""
    values = list(v) if isinstance(v, Iterable) and not isinstance(v, (str, bytes)) else [v]
    if not values or any(x is None for x in values):
        raise ValueError(f"{name} must be a value or a non-empty list of values: got {v!r}")
    return values


def _duration(seconds: float) -> str:
    return (
        f"{seconds:.0f} s"
        if seconds < 120
        else f"{seconds / 60:.0f} min"
        if seconds < 7200
        else f"{seconds / 3600:.1f} h"
    )
