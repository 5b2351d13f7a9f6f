"""``gpu-rs doctor``: what this machine offers, and a GPU-vs-NumPy parity check.

CuPy is imported only inside functions here, and every failure to import or
use it is reported rather than raised: a machine without a GPU is a fine
machine, it just runs the NumPy backend.
"""

from __future__ import annotations

import math
import os
import platform
import sys
from typing import IO, Any

from gpu_rs.common.provenance import package_version

#: The parity case: small and fast, with a tail near 0.007 (SPEC §6, seed 003 §3.3).
PARITY_CASE: dict[str, Any] = {"n": 1000, "bits": 5, "q": 0.2446, "eps": math.log(2)}


def _import_status(module: str) -> str:
    try:
        mod = __import__(module)
    except Exception as err:
        return f"not importable ({type(err).__name__}: {err})"
    return str(getattr(mod, "__version__", "unknown"))


def _cupy_status() -> tuple[Any, str]:
    """Return ``(cupy module or None, one-line description)``."""
    try:
        import cupy
    except ImportError:
        return None, "not installed (pip install 'gpu-rs[gpu]' on a machine with CUDA 12)"
    except Exception as err:
        return None, f"fails to import ({type(err).__name__}: {err})"
    try:
        available = bool(cupy.is_available())
    except Exception as err:
        return None, f"{cupy.__version__}, cupy.is_available() failed ({type(err).__name__}: {err})"
    if not available:
        return None, f"{cupy.__version__}, cupy.is_available() = False"
    return cupy, f"{cupy.__version__}, cupy.is_available() = True"


def _devices(cupy: Any) -> list[str]:
    lines = []
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        for i in range(count):
            props = cupy.cuda.runtime.getDeviceProperties(i)
            name = props["name"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            with cupy.cuda.Device(i):
                free, total = cupy.cuda.runtime.memGetInfo()
            lines.append(f"device {i}: {name}, {total / 2**30:.1f} GiB ({free / 2**30:.1f} GiB free)")
    except Exception as err:
        lines.append(f"could not query devices ({type(err).__name__}: {err})")
    return lines


def _parity(out: IO[str]) -> bool:
    """Run the parity case on NumPy and CuPy; True when the intervals overlap."""
    import gpu_rs

    case = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in PARITY_CASE.items())
    print(f"parity check: tail({case})", file=out)
    bounds = {}
    for backend in ("numpy", "cupy"):
        try:
            b = gpu_rs.tail(**PARITY_CASE, backend=backend)
        except Exception as err:
            print(f"  {backend:5s}  FAILED ({type(err).__name__}: {err})", file=out)
            return False
        bounds[backend] = b
        print(f"  {backend:5s}  [{b.lower:.6e}, {b.upper:.6e}]  {b.seconds:.3g} s", file=out)
    lo = max(b.lower for b in bounds.values())
    hi = min(b.upper for b in bounds.values())
    ok = lo <= hi
    print(f"  intervals {'overlap' if ok else 'DO NOT overlap'}: {'OK' if ok else 'FAILED'}", file=out)
    return ok


def run_doctor(out: IO[str]) -> int:
    """Write a report on ``out``; return 0 when all is well, 1 when something failed.

    No GPU is not a failure. A failure is a package that cannot resolve its
    backend, or a GPU whose tail interval does not overlap NumPy's.
    """
    print(f"gpu-rs   {package_version('gpu-rs')}", file=out)
    print(f"python   {platform.python_version()} ({sys.executable})", file=out)
    print(f"numpy    {_import_status('numpy')}", file=out)
    print(f"scipy    {_import_status('scipy')}", file=out)
    cupy, status = _cupy_status()
    print(f"cupy     {status}", file=out)
    if cupy is None:
        print("GPU      no GPU found: the NumPy backend will be used, which is fine", file=out)
    else:
        for line in _devices(cupy):
            print(f"GPU      {line}", file=out)
    override = os.environ.get("GPU_RS_BACKEND")
    print(f"GPU_RS_BACKEND  {override if override else '(not set)'}", file=out)

    try:
        from gpu_rs.common.backend import available_backends, resolve_backend

        backends = available_backends()
        auto = resolve_backend("auto")
    except Exception as err:
        print(f"backend  FAILED to resolve 'auto' ({type(err).__name__}: {err})", file=out)
        return 1
    print(f"backends available: {', '.join(backends)}", file=out)
    print(f"backend 'auto' resolves to: {auto}", file=out)

    if cupy is None:
        print("parity check: skipped (no GPU)", file=out)
        return 0
    return 0 if _parity(out) else 1


def register(sub: Any) -> None:
    """Add ``gpu-rs doctor`` to the subcommands."""
    p = sub.add_parser(
        "doctor",
        help="backends, the GPU, and a GPU-vs-NumPy parity check",
        description="Report versions and backends; where a GPU exists, check "
        "that CuPy and NumPy give overlapping tail intervals.",
    )
    p.set_defaults(handler=run)


def run(args: Any) -> int:
    """Run ``gpu-rs doctor`` on stdout."""
    return run_doctor(sys.stdout)
