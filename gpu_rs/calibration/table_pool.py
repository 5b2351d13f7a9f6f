"""Rows of a table computed on a pool of workers, each written as it finishes.

Local workers are child interpreters started as commands (``python -c``), not ``multiprocessing``
children: they import gpu_rs and the task's module, never the caller's ``__main__`` (so
:func:`gpu_rs.table` works from a script without an ``if __name__ == "__main__":`` guard), and
no resource tracker is started. Each runs in a session of its own, ignores SIGINT (the main
process decides), dies with the main process (Linux: ``PR_SET_PDEATHSIG``) and exits when its
stdin closes; tasks and rows travel pickled over its stdin and stdout, one row at a time.

A worker that dies stops the run with the rows finished saved. An interrupt (Ctrl-C, SIGINT to the
main process, or SIGTERM, which ``gpu-rs table`` turns into an exception) stops it at once: the
local workers are killed and reaped, or the rows not finished on a caller's executor cancelled, so
no process is left behind and the file keeps only whole rows; a rerun computes the rest.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable, Generator
from concurrent.futures import BrokenExecutor, Executor, as_completed
from multiprocessing.connection import Connection, wait
from typing import Any

from gpu_rs.calibration.table_file import RowWriter

Row = dict[str, Any]
Task = Callable[[Row, Row], Row]

STOP_SECONDS = 5.0
"""How long a terminated worker may take to exit before it is killed."""


def run_rows(
    task: Task,
    todo: list[Row],
    options: Row,
    out: str | None,
    executor: Executor | None,
    workers: int,
    progress: Callable[[int, int, Row], Any] | None,
    counts: tuple[int, int],
) -> list[Row]:
    """``task(setting, options)`` for every setting of ``todo``, each row written to ``out`` as it finishes.

    ``task`` must be importable by name (a module-level function): local workers import it.
    ``counts`` is ``(rows already done, rows in the grid)``, for ``progress(done, total, row)``.
    """
    if not todo:
        return []
    done, total = counts
    writer = RowWriter(out) if out is not None else None
    new: list[Row] = []
    rows = _local(task, todo, options, workers) if executor is None else _remote(task, todo, options, executor)
    try:
        for row in rows:
            if writer is not None:
                writer.write(row)
            new.append(row)
            done += 1
            if progress is not None:
                progress(done, total, row)
    except BrokenExecutor as exc:
        raise RuntimeError(
            f"a worker process died ({exc}); the {done} rows finished are "
            f"{'in ' + out if out else 'lost (no out file)'}: run again to compute the rest"
        ) from exc
    finally:
        rows.close()  # stops the workers, or cancels the rows still queued on the executor
        if writer is not None:
            writer.close()
    return new


def _remote(task: Task, todo: list[Row], options: Row, executor: Executor) -> Generator[Row, None, None]:
    """The rows as they finish on a caller's executor (the caller's to shut down)."""
    futures = [executor.submit(task, s, options) for s in todo]
    try:
        for future in as_completed(futures):
            yield future.result()
    finally:
        for future in futures:
            future.cancel()


def _local(task: Task, todo: list[Row], options: Row, workers: int) -> Generator[Row, None, None]:
    """The rows as they finish on ``workers`` local worker processes, all of them reaped at the end."""
    pending = iter(todo)
    pool: list[_Worker] = []
    busy: dict[Any, _Worker] = {}  # by the pipe its row comes back on

    def give(worker: _Worker) -> None:
        setting = next(pending, None)
        if setting is None:
            worker.finish()
        else:
            worker.send((task, setting, options))
            busy[worker.results] = worker

    finished = False
    try:
        while len(pool) < min(workers, len(todo)):  # inside the try: an interrupt here stops those started
            pool.append(_Worker())
        for worker in pool:
            give(worker)
        while busy:
            for ready in wait(list(busy)):
                worker = busy.pop(ready)
                yield worker.receive()
                give(worker)
        finished = True
    finally:
        for worker in pool:
            worker.stop(kill=not finished)


class _Worker:
    """One local worker process and its two pipes."""

    def __init__(self) -> None:
        command = f"import sys; sys.path[:] = {sys.path!r}; from {__name__} import serve; serve({os.getpid()})"
        task_read, task_write = os.pipe()
        row_read, row_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", command], stdin=task_read, stdout=row_write, start_new_session=True
            )
        finally:  # the child's ends, kept by the child alone: its exit closes them
            os.close(task_read)
            os.close(row_write)
        self.tasks = Connection(task_write, readable=False)
        self.results = Connection(row_read, writable=False)

    def send(self, message: Any) -> None:
        try:
            self.tasks.send_bytes(pickle.dumps(message))
        except OSError:  # its stdin closed: it has exited
            raise BrokenExecutor(self._died()) from None

    def receive(self) -> Row:
        """The row of the task sent last; the task's own exception re-raised here."""
        try:
            ok, value = pickle.loads(self.results.recv_bytes())
        except (EOFError, OSError):
            raise BrokenExecutor(self._died()) from None
        if not ok:
            raise value
        return value

    def finish(self) -> None:
        """No more tasks: the worker exits once it reads the end of its stdin."""
        if not self.tasks.closed:
            self.tasks.close()

    def stop(self, *, kill: bool) -> None:
        """Reap the process; with ``kill``, terminate it first (a running row is not waited for)."""
        self.finish()
        if kill and self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.results.close()

    def _died(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(STOP_SECONDS)
        return f"process {self.process.pid} ended with status {self.process.returncode}"


def serve(parent: int) -> None:
    """A local worker's loop: ``(task, setting, options)`` from stdin, ``(ok, row or exception)`` to stdout.

    Runs until stdin closes. ``parent`` is the main process's id: the worker dies with it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: SIGTERM when the parent ends
    if os.getppid() != parent:  # the parent ended before that
        return
    results = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # a stray print goes to stderr, not into the rows
    tasks = Connection(0, writable=False)
    while True:
        try:
            task, setting, options = pickle.loads(tasks.recv_bytes())
        except EOFError:
            return
        try:
            reply = pickle.dumps((True, task(setting, options)))
        except Exception as exc:  # the task's error, re-raised in the main process
            try:
                reply = pickle.dumps((False, exc))
            except Exception:  # an exception that does not pickle
                reply = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        results.send_bytes(reply)
