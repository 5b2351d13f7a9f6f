"""Errors raised by gpu_rs. All subclass ``ValueError``: they describe input that cannot be served."""

from __future__ import annotations


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (a string, ``None`` or a bool where a number is expected).

    It is a ``TypeError``, as Python expects of a wrong type, and a ``ValueError``, as gpu_rs
    promises of every refused input: ``except ValueError`` still catches every refusal.
    """


class MemoryBudgetError(ValueError):
    """The requested work would not fit in memory; raised before anything is allocated."""


class CalibrationError(ValueError):
    """No flip probability below 1/2 meets the privacy target."""


class TimeBudgetError(ValueError):
    """The requested work would take longer than gpu_rs starts; raised before it begins, with an estimate."""
