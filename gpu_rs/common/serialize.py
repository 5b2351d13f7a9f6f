"""Turning results into plain JSON-ready values (one conversion for the API and the CLI)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def plain(value: Any) -> Any:
    """``value`` as something ``json.dumps(..., allow_nan=False)`` accepts.

    Dataclasses become dicts (through their ``to_dict``), NumPy arrays and scalars
    become lists and Python numbers, and non-finite floats become strings.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict() if hasattr(value, "to_dict") else plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


class ToDict:
    """Mixin for frozen result dataclasses: ``to_dict()`` gives every field as plain values."""

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON-ready Python values."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
