"""The gpu_rs API pinned to NumPy: same functions, same signatures, never imports CuPy.

Every function here calls the one implementation in :mod:`gpu_rs` with
``backend="numpy"``; ``GPU_RS_BACKEND`` is ignored. Passing any other backend
is an error.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import gpu_rs
from gpu_rs import *  # noqa: F403 - the same public names; three are pinned below
from gpu_rs import __all__  # noqa: F401


def _pinned(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, backend: str = "numpy", **kwargs: Any) -> Any:
        if backend not in ("numpy", "auto"):
            raise ValueError(f"backend must be 'numpy' in cpu_fallback: got {backend!r}")
        return func(*args, backend="numpy", **kwargs)

    sig = inspect.signature(func)
    params = [p.replace(default="numpy") if p.name == "backend" else p for p in sig.parameters.values()]
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


tail = _pinned(gpu_rs.tail)
calibrate = _pinned(gpu_rs.calibrate)
ratio_distribution = _pinned(gpu_rs.ratio_distribution)
