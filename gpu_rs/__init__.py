"""gpu_rs: certified tails of the privacy ratio of randomized bit vectors under anonymization.

The contract is ``docs/spec.md``: :func:`tail` bounds ``P[R > e^ε]``,
:func:`calibrate` picks the smallest certified flip probability,
:func:`ratio_distribution` gives the bucketed pmf of ``R``, and
:func:`moments` and :func:`three_sigma_q` are the seed's closed forms.
:func:`privacy_profile` gives certified ``δ(ε)`` and ``ε(δ)``.
:func:`pair_tail` and :func:`worst_pairs` compute, exactly, the tail of any
one neighbouring pair and the worst pair of a small population (``docs/worst-case.md``).

Module map (the engine reads top to bottom in :mod:`gpu_rs.pipeline`)::

    public API      tail.py  calibrate.py  distribution.py  closed_forms.py  cli.py  doctor.py
    results         results.py (TailBound)  bounds.py (Bounds, ErrorBudget)  serialize.py
    pipeline.py     atoms → crossing split → width plan → dispatch → combination
      atoms.py        atom values w_l^power and exact probabilities of one record kind
      crossing.py     split off atoms that decide the event alone; lower tails as complements
      laws.py         Law, SumLaw (Σ count_i · law_i), Cut, restrict
      dispatch.py     the ordered table of methods:
        support         (dispatch.py)    threshold outside the support
        chernoff        chernoff.py      Chernoff tails and quantiles from the exact MGF
        lattice         lattice.py       exact DFT inversion of an integer count (one bit)
        enumeration     enumeration.py   every count vector of a small sum
        conditioned     conditioning.py  condition on rare heavy atoms, one problem per branch
        fourier         fourier.py       window + charfn.py (φ with error bounds)
                                         + majorants.py (Vaaler's trigonometric majorants)
                                         + phase.py (exact phase reduction)
    privacy profile privacy.py (privacy_profile: δ(ε), ε(δ))  profile.py (from certified tails)
                    calibrate_profile.py (calibrate(delta=...))  qsearch.py (the search for q, shared)
                    profile_results.py  profile_exact.py (exact one-bit profile, for tests)
    exact pairs     pairs.py (pair_tail: one ordered pair, exact rationals)
                    search.py (worst_pairs: every pair of a small N, L up to symmetry)
                    histograms.py (exact laws of output histograms)  pair_results.py
    scopes          scopes.py (forward / reverse / homogeneous / all)  backgrounds.py (L = 1)
                    clones.py (the proven bound for every pair, L >= 2)
    support         validation.py (argument checks)  floats.py (constants)  backend.py  errors.py
"""

from .bounds import ErrorBudget
from .calibrate import Calibration, calibrate
from .calibrate_profile import ProfileCalibration
from .closed_forms import local_dp_q, moments, precision_sigma, three_sigma_q
from .distribution import RatioDistribution, ratio_distribution
from .errors import CalibrationError, MemoryBudgetError
from .pair_results import PairSearch, PairTail
from .pairs import pair_tail
from .privacy import PrivacyProfile, privacy_profile
from .results import TailBound
from .search import worst_pairs
from .tail import tail

__all__ = [
    "Calibration",
    "CalibrationError",
    "ErrorBudget",
    "MemoryBudgetError",
    "PairSearch",
    "PairTail",
    "PrivacyProfile",
    "ProfileCalibration",
    "RatioDistribution",
    "TailBound",
    "calibrate",
    "local_dp_q",
    "moments",
    "pair_tail",
    "precision_sigma",
    "privacy_profile",
    "ratio_distribution",
    "tail",
    "three_sigma_q",
    "worst_pairs",
]
__version__ = "0.2.0"
