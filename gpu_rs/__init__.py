"""gpu_rs: certified tails of the privacy ratio of randomized bit vectors under anonymization.

See ``SPEC.md`` for the contract. The main entry points are :func:`tail`,
:func:`calibrate`, :func:`ratio_distribution`, :func:`moments` and
:func:`three_sigma_q`.
"""

from .errors import CalibrationError, MemoryBudgetError
from .model import local_dp_q, moments, precision_sigma, three_sigma_q
from .results import ErrorBudget, TailBound
from .tail import tail

__all__ = [
    "CalibrationError",
    "ErrorBudget",
    "MemoryBudgetError",
    "TailBound",
    "local_dp_q",
    "moments",
    "precision_sigma",
    "tail",
    "three_sigma_q",
]
__version__ = "0.1.0"
