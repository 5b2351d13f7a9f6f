"""SIGTERM as an exception, so that a command stops its workers and closes its files before it exits."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

EXIT_INTERRUPTED = 128 + signal.SIGINT
"""Exit status after SIGINT (Ctrl-C), as a shell reports a process it ended: 130."""
EXIT_TERMINATED = 128 + signal.SIGTERM
"""Exit status after SIGTERM: 143."""


class Terminated(BaseException):
    """SIGTERM arrived (a ``BaseException``, as ``KeyboardInterrupt``: no ``except Exception`` swallows it)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated
