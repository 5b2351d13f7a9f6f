"""Progress on stderr for the ``gpu-rs`` subcommands."""

from __future__ import annotations

import sys
import threading
import time
from typing import IO

from gpu_rs.cli.output import PROG


class Progress:
    """Progress on stderr: step lines, and on a terminal an elapsed-time ticker.

    The ticker appears only after ``delay`` seconds, so quick runs print nothing.
    """

    def __init__(
        self, label: str, *, quiet: bool, stream: IO[str] | None = None, delay: float = 1.0, period: float = 0.5
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        self.quiet = quiet
        self.delay = delay
        self.period = period
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._shown = False
        self._start = time.perf_counter()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if not self.quiet and isatty(self.stream):
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._clear()

    def line(self, text: str) -> None:
        """Print one progress line (nothing when quiet)."""
        if self.quiet:
            return
        with self._lock:
            self._clear()
            print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False

    def _tick(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            with self._lock:
                elapsed = time.perf_counter() - self._start
                self.stream.write(f"\r\033[K{PROG}: {self.label} ... {elapsed:.0f} s")
                self.stream.flush()
                self._shown = True
            self._stop.wait(self.period)


def isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
