"""The accepted range of every argument, defined once.

The API (:mod:`gpu_rs.common.validation`), the command line and the documentation read
these names; nothing else writes the numbers.
"""

from __future__ import annotations

from gpu_rs.common.floats import EXP_LIMIT, UNIT

MAX_N = 10**9
"""Largest number of users ``n``."""
MAX_BITS = 1024
"""Largest number of bits per report ``L``."""
MAX_K = 1000
"""Largest number of randomized reports per user ``k`` (SPEC §1.3)."""
MAX_QUERIES = 100_000
"""Most new tail queries per ``δ`` value and order of a privacy profile (``max_queries``)."""
MAX_RELEASES = 100_000
"""Most releases composed (:func:`gpu_rs.compose`): the tilted window grows as their square root, and
past this the width asked needs more than 4e6 frequencies (docs/composition.md §5)."""
MAX_EPS = EXP_LIMIT
"""``eps`` (and ``log`` of ``ratio``) must stay below this: ``e^eps`` must not overflow float64."""
MIN_EPS = 2 * UNIT
"""Smallest ``eps``: below ``2^-52`` the threshold ``e^eps`` rounds to 1 in float64 (``ratio`` must exceed 1)."""
MIN_TARGET = 1e-30
"""Smallest ``eta`` or ``delta`` a calibration or ``epsilon(delta)`` accepts: smaller targets push the
tails the search must certify towards float64 underflow (``eta = 1e-300`` ran 134 s). A floor, not a
time bound: near 1e-30 one tail query still takes tens of seconds."""
MAX_CALIBRATION_SECONDS = 300.0
"""Default ``max_seconds`` of a calibration: one predicted to take longer (its elapsed time plus its
median query time times the queries a calibration typically still makes) stops with ``TimeBudgetError``
and the estimate; tiny targets (near ``MIN_TARGET``) and fine ``rel_width`` make each query slow
(``eta = 1e-30``: 6-19 s per query)."""
TYPICAL_QUERIES = 25
"""Queries a calibration typically makes (16-55 measured); used only for the estimate above."""
FAMILY_SECONDS = 30.0
"""Default ``search_seconds`` of ``tail``: the time limit of the search over homogeneous backgrounds
(the best pair known of ``scope="all"`` for ``bits >= 2``); its batched screening is estimated at about
2 s at ``bits = 40`` and 17 s at ``bits = 64`` (``gpu_rs.pairs.family_search.estimate_seconds``)."""
POOLS_SECONDS = 5.0
"""The least ``search_seconds`` with which the tail's upper end also tries the cross-cloned pools at small
settings (``gpu_rs.pairs.scopes.all_bound.POOLS_BITS``; docs/worst-case.md §8.9): the default tail's 30 s
does, a calibration's 1 s does not (its queries would cost 5–10 times as much for a ``q`` lower by under
1 %)."""
POOLS_USERS = 20_000
"""The tail's upper end tries the pools (at ``bits <= gpu_rs.pairs.scopes.all_bound.POOLS_BITS``) up to this many
users, and at every ``N`` from ``POOLS_ALL_SECONDS`` on: with their members at every clone count
(:mod:`gpu_rs.pairs.pool_counts`) a tail cost 3.8 s for 0.00101 → 0.00080 at
(10⁴, 5, 0.2245, ln 2), 10 s for 3.9e-7 → 1.1e-7 at (10⁴, 8, 0.3, 1) and 31 s for 0.473 → 0.347 at
(2·10⁴, 8, 0.2, 1.5), but 46 s for 0.167 → 0.093 at
(10⁵, 8, 0.2, 1) and 43 s for 0.431 → 0.111 at (10⁷, 8, 0.105, 2) (docs/worst-case.md §8.9)."""
POOLS_ALL_SECONDS = 60.0
"""From this ``search_seconds`` on, the tail's upper end tries the pools at every number of users, not only up to
``POOLS_USERS``, and in decisions too (``calibrate(..., search_seconds=60)`` asks every query so): at
``N = 10⁵`` to ``10⁷`` and ``L = 8`` they cost 40–50 s a tail and can lower it 2–4 times (docs/worst-case.md
§8.9)."""
PROFILE_SEARCH_SECONDS = 0.5
"""Default ``search_seconds`` of ``privacy_profile``: the time limit of its search over the complement members
(the best pair known for ``δ`` of ``scope="all"`` for ``bits >= 2``, docs/worst-case.md §9; about 0.2 s for
all 20 members at ``bits = 5``); calibrations to ``δ`` ask 0 (their queries decide by the upper end)."""
MAX_TILT_TERMS = 1 << 22
"""Most frequencies of one tilted hinge (128 MB of spectrum): the profile's tiny ``δ`` and the composed sides."""
MAX_SEARCH_SECONDS = 86_400.0
"""``search_seconds`` must stay below this (a day)."""
CALIBRATION_SEARCH_SECONDS = 1.0
"""``search_seconds`` of the tails a calibration computes whole (its answer and the 3σ rule's q):
the family search runs where its screening is estimated to fit in this (bits <= 35), so it does not
add to the calibration's time at bits = 40 (about 2 s per search there, issue 30's 15 s target)."""
MIN_REL_WIDTH = 1e-9
"""Smallest relative width asked of a tail: finer widths sit at float64 round-off of the engine's sums
and take minutes for no meaningful digit."""
MIN_Q_TOL = 1e-12
"""Smallest bisection tolerance on ``q``; below it the search would split float64 spacings for ever."""
MAX_Q_TOL = 0.01
"""Bisection tolerances on ``q`` must stay below this."""
Q_RTOL = 1e-5
"""The default tolerance on ``q`` is relative: ``Q_RTOL · min(q, 1/2 − q)``, so that ``σ(d̂)`` is
fixed to about ``Q_RTOL`` relative whatever ``q`` (an absolute 1e-6 answered ``q = 1e-6`` where
``q = 4.5e-7`` certifies, issue 33)."""
BACKEND_NAMES = ("auto", "numpy", "cupy")
"""Backends a user may name; ``array_api_strict`` is accepted too, for the test suite."""
TEST_BACKENDS = ("array_api_strict",)
SCOPES = ("forward", "homogeneous", "all")
"""Which neighbouring pairs a result covers (SPEC §1.1)."""
