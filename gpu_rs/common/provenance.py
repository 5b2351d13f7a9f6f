"""Where a result came from: package versions, backend, time and the arguments of the call."""

from __future__ import annotations

import datetime
import functools
import platform
from importlib.metadata import PackageNotFoundError, version
from typing import Any

SCHEMA = 1
"""Version of the JSON that gpu_rs writes (every command's ``--json`` object, every table row): the
``schema`` field of each. It changes when a key is renamed, removed or changes meaning
(docs/json-schema.md, CHANGELOG.md)."""


@functools.cache
def package_version(name: str) -> str:
    """The installed version of distribution ``name`` (``"not installed"`` if it is not).

    Cached: reading package metadata took ~40 ms a call, paid by every query of a calibration.
    """
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def versioned(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the :data:`SCHEMA` version first: how every JSON object gpu_rs writes begins."""
    return {"schema": SCHEMA, **record}


def provenance(arguments: dict[str, Any], backend: str) -> dict[str, Any]:
    """A JSON-ready record of the call: ``gpu_rs``, NumPy and SciPy versions, Python, the
    backend, a UTC timestamp and the arguments as given."""
    return {
        "gpu_rs": package_version("gpu-rs"),
        "numpy": package_version("numpy"),
        "scipy": package_version("scipy"),
        "python": platform.python_version(),
        "backend": backend,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "arguments": {k: v for k, v in arguments.items() if k != "progress"},
    }
