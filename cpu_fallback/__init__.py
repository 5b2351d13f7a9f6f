"""The gpu_rs API pinned to NumPy: same functions, same signatures, never imports CuPy.

Every public function of :mod:`gpu_rs` that takes ``backend=`` is offered here with
``backend="numpy"`` as its default, and calls the one implementation in
:mod:`gpu_rs`; ``GPU_RS_BACKEND`` is ignored. Passing any other backend is an
error. Every other public name is re-exported unchanged.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import gpu_rs
from gpu_rs import __all__  # noqa: F401 - the same public names


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


from gpu_rs import *  # noqa: E402,F403 - every public name; those taking backend= are pinned below

background_tail = _pinned(gpu_rs.background_tail)
calibrate = _pinned(gpu_rs.calibrate)
moments = _pinned(gpu_rs.moments)
privacy_profile = _pinned(gpu_rs.privacy_profile)
ratio_distribution = _pinned(gpu_rs.ratio_distribution)
table = _pinned(gpu_rs.table)
tail = _pinned(gpu_rs.tail)
three_sigma_q = _pinned(gpu_rs.three_sigma_q)
