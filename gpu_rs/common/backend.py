"""Choosing the array namespace: NumPy, CuPy, or ``array-api-strict`` (tests).

This is the only module that knows about CuPy. The engine is written once
against the array namespace ``xp`` it returns.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from gpu_rs.common.validation import BACKEND_NAMES, TEST_BACKENDS

BACKENDS = tuple(name for name in BACKEND_NAMES + TEST_BACKENDS if name != "auto")
ENV_VAR = "GPU_RS_BACKEND"
POOL_FRACTION = 0.8
"""Largest share of the device's memory CuPy's pool may hold."""


def cupy_available() -> bool:
    """True where CuPy imports and sees a CUDA device."""
    try:
        cupy = importlib.import_module("cupy")
        return bool(cupy.is_available())
    except Exception:  # ImportError, or CUDA driver errors raised at import
        return False


def available_backends() -> list[str]:
    """The backends that can run on this machine."""
    found = ["numpy"]
    if cupy_available():
        found.append("cupy")
    try:
        importlib.import_module("array_api_strict")
        found.append("array_api_strict")
    except ImportError:
        pass
    return found


def resolve_backend(name: str = "auto") -> str:
    """Resolve ``"auto"`` (and ``GPU_RS_BACKEND``) to a concrete backend name.

    Raises
    ------
    ValueError
        For an unknown name, or ``"cupy"`` where no CUDA device is usable.
    """
    if name == "auto":
        name = os.environ.get(ENV_VAR, "").strip().lower() or ("cupy" if cupy_available() else "numpy")
        source = f"{ENV_VAR}={name!r}" if os.environ.get(ENV_VAR) else None
    else:
        source = None
    if name not in BACKENDS:
        what = source or f"backend={name!r}"
        names = ", ".join(repr(b) for b in BACKEND_NAMES)
        raise ValueError(f"backend must be one of {names}: got {what}")
    if name == "cupy" and not cupy_available():
        origin = f" (from the environment, {source}; unset it or ask for 'numpy')" if source else ""
        raise ValueError(f"backend 'cupy'{origin} needs CuPy and a CUDA device; none is usable here")
    return name


@dataclass(frozen=True)
class Backend:
    """An array namespace and the few facts the engine needs about it."""

    name: str
    xp: ModuleType

    def to_host(self, x: Any) -> np.ndarray:
        """Copy an array of this namespace to a NumPy array."""
        if self.name == "cupy":
            return x.get()
        return np.asarray(x)

    def free_memory(self) -> int:
        """Bytes the engine may use on the device (CuPy) or host (others)."""
        if self.name == "cupy":
            free, _total = self.xp.cuda.runtime.memGetInfo()
            return int(free * POOL_FRACTION)
        return host_free_memory()


def to_numpy(x: Any) -> np.ndarray:
    """A host NumPy array of ``x`` from any backend's namespace: the same array for NumPy (no copy), a copy
    from the device for CuPy, and by DLPack for the others (``array-api-strict``)."""
    if isinstance(x, np.ndarray):
        return x
    if type(x).__module__.split(".")[0] == "cupy":
        return x.get()
    return np.from_dlpack(x)


def host_free_memory() -> int:
    """Available host memory in bytes (``MemAvailable``), 4 GiB when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


def get_backend(name: str = "auto") -> Backend:
    """Return the :class:`Backend` for ``name`` (after :func:`resolve_backend`)."""
    name = resolve_backend(name)
    if name == "numpy":
        return Backend(name, np)
    if name == "cupy":
        # Bound the memory pool, then use the array-API view of CuPy: standard names
        # (concat, astype, …) over cupy arrays. cuFFT plans are cached by CuPy itself.
        importlib.import_module("cupy").get_default_memory_pool().set_limit(fraction=POOL_FRACTION)
        return Backend(name, importlib.import_module("array_api_compat.cupy"))
    return Backend(name, importlib.import_module(name))
