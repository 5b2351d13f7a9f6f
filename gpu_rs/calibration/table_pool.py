"""Rows of a table computed on a pool of workers, each written as it finishes.

Local workers are spawned processes (a fresh interpreter each: safe whatever threads the caller
runs). A worker that dies stops the run with the rows finished saved; an interrupt (Ctrl-C,
SIGINT to the main process) stops it at once: rows not finished are cancelled and the local
workers terminated, so the file keeps only whole rows and a rerun computes the rest.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, as_completed
from typing import Any

from gpu_rs.calibration.table_file import RowWriter

Row = dict[str, Any]


def run_rows(
    task: Callable[[Row, Row], Row],
    todo: list[Row],
    options: Row,
    out: str | None,
    executor: Executor | None,
    workers: int,
    progress: Callable[[int, int, Row], Any] | None,
    counts: tuple[int, int],
) -> list[Row]:
    """``task(setting, options)`` for every setting of ``todo``, each row written to ``out`` as it finishes.

    ``counts`` is ``(rows already done, rows in the grid)``, for ``progress(done, total, row)``.
    """
    if not todo:
        return []
    done, total = counts
    context = multiprocessing.get_context("spawn")
    local: ProcessPoolExecutor | None = None
    pool: Executor
    if executor is None:
        pool = local = ProcessPoolExecutor(min(workers, len(todo)), mp_context=context)
    else:
        pool = executor
    writer = RowWriter(out) if out is not None else None
    new: list[Row] = []
    futures = [pool.submit(task, s, options) for s in todo]
    finished = False
    try:
        for future in as_completed(futures):
            row = future.result()
            if writer is not None:
                writer.write(row)
            new.append(row)
            done += 1
            if progress is not None:
                progress(done, total, row)
        finished = True
    except BrokenExecutor as exc:
        raise RuntimeError(
            f"a worker process died ({exc}); the {done} rows finished are "
            f"{'in ' + out if out else 'lost (no out file)'}: run again to compute the rest"
        ) from exc
    finally:
        for future in futures:
            future.cancel()
        if writer is not None:
            writer.close()
        if local is not None:  # a caller's executor is the caller's to shut down
            _stop(local, wait=finished)
    return new


def _stop(pool: ProcessPoolExecutor, *, wait: bool) -> None:
    """Shut the local pool down; unless ``wait``, terminate the workers still running a row."""
    if not wait:  # interrupted or failed: a running row would otherwise be waited for (minutes)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
