"""gpu_rs: certified tails of the privacy ratio of randomized bit vectors under anonymization.

The contract is ``SPEC.md``: :func:`tail` bounds ``P[R > e^ε]``,
:func:`calibrate` picks the smallest certified flip probability,
:func:`ratio_distribution` gives the bucketed pmf of ``R``, and
:func:`moments` and :func:`three_sigma_q` are the seed's closed forms.
"""

from .calibrate import Calibration, calibrate
from .distribution import RatioDistribution, ratio_distribution
from .errors import CalibrationError, MemoryBudgetError
from .model import local_dp_q, moments, precision_sigma, three_sigma_q
from .results import ErrorBudget, TailBound
from .tail import tail

__all__ = [
    "Calibration",
    "CalibrationError",
    "ErrorBudget",
    "MemoryBudgetError",
    "RatioDistribution",
    "TailBound",
    "calibrate",
    "local_dp_q",
    "moments",
    "precision_sigma",
    "ratio_distribution",
    "tail",
    "three_sigma_q",
]
__version__ = "0.1.0"
