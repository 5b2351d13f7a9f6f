"""gpu_rs: certified tails of the privacy ratio of randomized bit vectors under anonymization.

The contract is ``docs/spec.md``: :func:`tail` bounds ``P[R > e^ε]``,
:func:`calibrate` picks the smallest certified flip probability,
:func:`ratio_distribution` gives the bucketed pmf of ``R``, and
:func:`moments` and :func:`three_sigma_q` are the seed's closed forms.
:func:`privacy_profile` gives certified ``δ(ε)`` and ``ε(δ)``, and :func:`compose` those of
``T`` releases.
:func:`pair_tail` and :func:`worst_pairs` compute, exactly, the tail of any
one neighbouring pair and the worst pair of a small population (``docs/worst-case.md``).

Reader's guide: the folders are the layers, each importing only from those above it in
this list (``tests/test_architecture.py`` checks it). Read the first file named in each.

``common/``
    What every layer needs and no layer owns: ``limits.py`` (the accepted range of every
    argument), ``validation.py`` (the argument checks and ``Problem``), ``floats.py``
    (named float64 constants), ``backend.py`` (NumPy / CuPy / array-api-strict),
    ``errors.py``, ``serialize.py``, ``provenance.py``, ``bisection.py``, ``logspace.py``.
``engine/``
    The certified tail of a sum of independent finite-atom variables; no word of users,
    pairs or privacy. **``pipeline.py`` first**: atoms → crossing split → width plan →
    dispatch → combination. ``bounds.py`` holds the one result value (``Bounds`` and its
    ``ErrorBudget``) and every rule that combines them; ``dispatch.py`` the ordered table
    of methods (``chernoff.py``, ``lattice.py``, ``enumeration.py``, ``conditioning.py``,
    ``nearlattice.py``, ``fourier.py`` with ``charfn.py``, ``majorants.py``, ``phase.py``);
    ``precise.py`` decides thresholds beyond float precision. ``curve.py`` certifies a whole
    curve at once (the survival function and its hinges at many thresholds, with
    ``curve_sums.py`` and ``curve_heavy.py``); ``tilt.py`` one hinge under the exponentially
    tilted law, to relative width however small it is.
``pairs/``
    Neighbouring collections turned into engine queries. **``scopes/`` first**: ``scope_for``
    in its ``__init__.py`` is the one place that chooses how a scope is computed (``seed.py``: forward
    and homogeneous; ``all_one_bit.py``; ``all_bound.py``: all at several bits), and
    ``guarantees.py`` says what each covers, in words;
    ``backgrounds.py`` and ``background_delta.py`` (every background for one bit),
    ``family.py``, ``family_screen.py`` (its cheap bound) and ``family_search.py`` (every homogeneous
    background for several bits),
    ``every_pair.py`` (every pair at several bits: one proven ``δ`` curve per ``(N, L, q)``, read by
    the tail and the profile) over ``clones.py``, ``reduction.py`` and ``blanket.py`` (the bounds
    proven for every pair at one distance),
    ``krand.py`` (k reports per user), ``exact.py`` and ``worst.py`` (exact rational tails of
    small pairs, and the worst pair of a small population).
``quantities/``
    What users ask for. **``tail.py`` first**; ``background.py`` (one homogeneous
    background), ``profile.py`` (``δ(ε)``, ``ε(δ)``, with ``profile_orders.py`` and its
    routes, and ``profile_export.py`` to dp_accounting), ``compose.py`` (``T`` releases: ``compose_pairs.py``
    the dominating and dominated pairs, ``compose_sides.py`` and ``compose_root.py`` their
    certified composition), ``distribution.py`` (the law of
    ``R``: ``distribution_curve.py`` certifies ``P[R > x]`` at every edge by mixing over the
    outlier's atom, ``distribution_edges.py`` asks ``tail`` at the edges it leaves wide,
    ``distribution_grid.py`` places the buckets, ``distribution_plan.py`` refuses a grid beyond the
    budget before the engine loads, ``distribution_plot.py`` draws it),
    ``closed_forms.py`` (the seed's moments and 3σ rule), ``krand_moments.py`` (exact
    moments for k reports per user), result types beside them.
``calibration/``
    The search for ``q``. **``calibrate.py`` first**; ``search.py`` and ``queries.py`` (the
    search shared by both targets), ``dips.py`` (one bit: the tail's pieces in ``q`` and their
    proven floors, which replace the scan for dips), ``profile_target.py`` (calibration to ``δ``),
    ``table.py``, ``table_file.py`` and ``table_pool.py`` (one calibration per row of a grid,
    resumable, on worker interpreters that never import the caller's script and that an
    interrupt stops at once),
    ``results.py``.
``cli/``
    The ``gpu-rs`` program: ``main.py`` first, one module per subcommand,
    ``arguments.py``, ``output.py``, ``progress.py``, ``signals.py`` (SIGTERM as an exception,
    exit statuses 130 and 143), ``doctor.py``.
``reference/``
    Code kept only for comparison and tests, never imported by the product: the generic
    shuffle bounds (FMT, variation-ratio, blanket), dp_accounting on the exact one-bit pmf,
    the exact one-bit profile, the seed's k-randomization rule.

The names below are loaded on first use, so ``gpu-rs --version`` starts without the engine.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING

from gpu_rs.common.provenance import package_version as _package_version

if TYPE_CHECKING:
    from gpu_rs.calibration.calibrate import calibrate
    from gpu_rs.calibration.results import Calibration, ProfileCalibration
    from gpu_rs.calibration.table import Table, table
    from gpu_rs.common.errors import CalibrationError, MemoryBudgetError, TimeBudgetError
    from gpu_rs.engine.bounds import ErrorBudget
    from gpu_rs.pairs.exact import pair_tail
    from gpu_rs.pairs.results import PairSearch, PairTail
    from gpu_rs.pairs.worst import worst_pairs
    from gpu_rs.quantities.background import background_tail
    from gpu_rs.quantities.closed_forms import local_dp_q, moments, precision_sigma, three_sigma_q
    from gpu_rs.quantities.compose import ComposedProfile, compose
    from gpu_rs.quantities.distribution import RatioDistribution, ratio_distribution
    from gpu_rs.quantities.profile import PrivacyProfile, privacy_profile
    from gpu_rs.quantities.results import TailBound
    from gpu_rs.quantities.tail import tail

_HOMES = {
    "Calibration": "gpu_rs.calibration.results",
    "CalibrationError": "gpu_rs.common.errors",
    "ComposedProfile": "gpu_rs.quantities.compose",
    "ErrorBudget": "gpu_rs.engine.bounds",
    "MemoryBudgetError": "gpu_rs.common.errors",
    "PairSearch": "gpu_rs.pairs.results",
    "PairTail": "gpu_rs.pairs.results",
    "PrivacyProfile": "gpu_rs.quantities.profile",
    "ProfileCalibration": "gpu_rs.calibration.results",
    "RatioDistribution": "gpu_rs.quantities.distribution",
    "Table": "gpu_rs.calibration.table",
    "TailBound": "gpu_rs.quantities.results",
    "TimeBudgetError": "gpu_rs.common.errors",
    "background_tail": "gpu_rs.quantities.background",
    "calibrate": "gpu_rs.calibration.calibrate",
    "compose": "gpu_rs.quantities.compose",
    "local_dp_q": "gpu_rs.quantities.closed_forms",
    "moments": "gpu_rs.quantities.closed_forms",
    "pair_tail": "gpu_rs.pairs.exact",
    "precision_sigma": "gpu_rs.quantities.closed_forms",
    "privacy_profile": "gpu_rs.quantities.profile",
    "ratio_distribution": "gpu_rs.quantities.distribution",
    "table": "gpu_rs.calibration.table",
    "tail": "gpu_rs.quantities.tail",
    "three_sigma_q": "gpu_rs.quantities.closed_forms",
    "worst_pairs": "gpu_rs.pairs.worst",
}
"""Where each public name is defined."""

__all__ = [
    "Calibration",
    "CalibrationError",
    "ComposedProfile",
    "ErrorBudget",
    "MemoryBudgetError",
    "PairSearch",
    "PairTail",
    "PrivacyProfile",
    "ProfileCalibration",
    "RatioDistribution",
    "Table",
    "TailBound",
    "TimeBudgetError",
    "background_tail",
    "calibrate",
    "compose",
    "local_dp_q",
    "moments",
    "pair_tail",
    "precision_sigma",
    "privacy_profile",
    "ratio_distribution",
    "table",
    "tail",
    "three_sigma_q",
    "worst_pairs",
]
__version__ = _package_version("gpu-rs")


def __getattr__(name: str) -> object:
    """Load a public name from its module on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gpu_rs' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


del TYPE_CHECKING, annotations  # keep the namespace to the public API
