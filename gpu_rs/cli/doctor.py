"""``gpu-rs doctor``: what this machine offers, and a GPU-vs-NumPy parity check.

CuPy is imported only inside functions here, and every failure to import or
use it is reported rather than raised: a machine without a GPU is a fine
machine, it just runs the NumPy backend.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from typing import IO, Any

from gpu_rs.common.provenance import package_version, versioned

#: The parity case: small and fast, with a tail near 0.007 (SPEC §6, seed 003 §3.3).
PARITY_CASE: dict[str, Any] = {"n": 1000, "bits": 5, "q": 0.2446, "eps": math.log(2)}


def _import_status(module: str) -> str:
    try:
        mod = __import__(module)
    except Exception as err:
        return f"not importable ({type(err).__name__}: {err})"
    return str(getattr(mod, "__version__", "unknown"))


def cupy_status() -> tuple[Any, str]:
    """Return ``(cupy module or None, one-line description)``: the module where it sees a CUDA device."""
    try:
        import cupy
    except ImportError:
        return (
            None,
            "not installed (pip install 'gpu-rs[gpu]' with CUDA 12; with CUDA 13 cupy-cuda13x, array-api-compat)",
        )
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


def _parity() -> dict[str, Any]:
    """Run the parity case on NumPy and CuPy: their intervals, and whether they overlap."""
    import gpu_rs

    found: dict[str, Any] = {"case": dict(PARITY_CASE), "ok": False}
    bounds = {}
    for backend in ("numpy", "cupy"):
        try:
            b = gpu_rs.tail(**PARITY_CASE, backend=backend)
        except Exception as err:
            found[backend] = {"error": f"{type(err).__name__}: {err}"}
            return found
        bounds[backend] = b
        found[backend] = {"lower": b.lower, "upper": b.upper, "seconds": b.seconds}
    found["ok"] = max(b.lower for b in bounds.values()) <= min(b.upper for b in bounds.values())
    return found


def diagnose() -> dict[str, Any]:
    """What this machine offers, as one JSON-ready dict; ``ok`` is False when something failed.

    No GPU is not a failure. A failure is a package that cannot resolve its
    backend, or a GPU whose tail interval does not overlap NumPy's.
    """
    cupy, status = cupy_status()
    report: dict[str, Any] = {
        "gpu_rs": package_version("gpu-rs"),
        "python": f"{platform.python_version()} ({sys.executable})",
        "numpy": _import_status("numpy"),
        "scipy": _import_status("scipy"),
        "cupy": status,
        "gpus": [] if cupy is None else _devices(cupy),
        "GPU_RS_BACKEND": os.environ.get("GPU_RS_BACKEND") or None,
    }
    try:
        from gpu_rs.common.backend import available_backends, resolve_backend

        report["backends"] = available_backends()
        report["auto"] = resolve_backend("auto")
    except Exception as err:
        report["backend_error"] = f"{type(err).__name__}: {err}"
        report["ok"] = False
        return report
    report["parity"] = None if cupy is None else _parity()
    report["ok"] = report["parity"] is None or bool(report["parity"]["ok"])
    return report


def render(report: dict[str, Any], out: IO[str]) -> None:
    """Write ``report`` (from :func:`diagnose`) as text lines."""
    for name in ("gpu_rs", "python", "numpy", "scipy", "cupy"):
        print(f"{name.replace('_', '-'):8s} {report[name]}", file=out)
    if not report["gpus"]:
        print("GPU      no GPU found: the NumPy backend will be used, which is fine", file=out)
    for line in report["gpus"]:
        print(f"GPU      {line}", file=out)
    print(f"GPU_RS_BACKEND  {report['GPU_RS_BACKEND'] or '(not set)'}", file=out)
    if "backend_error" in report:
        print(f"backend  FAILED to resolve 'auto' ({report['backend_error']})", file=out)
        return
    print(f"backends available: {', '.join(report['backends'])}", file=out)
    print(f"backend 'auto' resolves to: {report['auto']}", file=out)
    parity = report["parity"]
    if parity is None:
        print("parity check: skipped (no GPU)", file=out)
        return
    case = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in parity["case"].items())
    print(f"parity check: tail({case})", file=out)
    for backend in ("numpy", "cupy"):
        got = parity.get(backend)
        if got is None:
            continue
        if "error" in got:
            print(f"  {backend:5s}  FAILED ({got['error']})", file=out)
        else:
            print(f"  {backend:5s}  [{got['lower']:.6e}, {got['upper']:.6e}]  {got['seconds']:.3g} s", file=out)
    ok = parity["ok"]
    print(f"  intervals {'overlap' if ok else 'DO NOT overlap'}: {'OK' if ok else 'FAILED'}", file=out)


def run_doctor(out: IO[str], as_json: bool = False) -> int:
    """Write the report on ``out`` (one JSON object when ``as_json``); 0 when all is well, 1 when not."""
    report = diagnose()
    if as_json:
        print(json.dumps(versioned(report)), file=out)
    else:
        render(report, out)
    return 0 if report["ok"] else 1


def register(sub: Any) -> None:
    """Add ``gpu-rs doctor`` to the subcommands."""
    p = sub.add_parser(
        "doctor",
        help="backends, the GPU, and a GPU-vs-NumPy parity check",
        description="Report versions and backends; where a GPU exists, check "
        "that CuPy and NumPy give overlapping tail intervals.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    p.set_defaults(handler=run)


def run(args: Any) -> int:
    """Run ``gpu-rs doctor`` on stdout."""
    return run_doctor(sys.stdout, as_json=args.json)
