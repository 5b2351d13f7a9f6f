"""The accepted range of every argument, defined once.

The API (:mod:`gpu_rs.common.validation`), the command line and the documentation read
these names; nothing else writes the numbers.
"""

from __future__ import annotations

from gpu_rs.common.floats import EXP_LIMIT

MAX_N = 10**9
"""Largest number of users ``n``."""
MAX_BITS = 1024
"""Largest number of bits per report ``L``."""
MAX_K = 1000
"""Largest number of randomized reports per user ``k`` (SPEC §1.3)."""
MAX_EPS = EXP_LIMIT
"""``eps`` (and ``log`` of ``ratio``) must stay below this: ``e^eps`` must not overflow float64."""
BACKEND_NAMES = ("auto", "numpy", "cupy")
"""Backends a user may name; ``array_api_strict`` is accepted too, for the test suite."""
TEST_BACKENDS = ("array_api_strict",)
SCOPES = ("forward", "homogeneous", "all")
"""Which neighbouring pairs a result covers (SPEC §1.1)."""
