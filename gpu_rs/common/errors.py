"""Errors raised by gpu_rs. All subclass ``ValueError``: they describe input that cannot be served."""

from __future__ import annotations


class MemoryBudgetError(ValueError):
    """The requested work would not fit in memory; raised before anything is allocated."""


class CalibrationError(ValueError):
    """No flip probability below 1/2 meets the privacy target."""


class TimeBudgetError(ValueError):
    """The requested work would take longer than gpu_rs starts; raised before it begins, with an estimate."""
