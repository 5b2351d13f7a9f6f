"""dp_accounting on the exact one-bit pmfs: the histogram of ``N`` one-bit reports is its count of ones.

With one bit the shuffled output is the count ``K`` of ones. Under ``D`` (``N`` zero bits)
``K ~ Bin(N, q)``; under ``D_m`` (one bit changed to 1) ``K = J + U`` with
``J ~ Bin(N − 1, q)`` and ``U ~ Ber(p)``. :func:`one_bit_pld` hands both pmfs to
``privacy_loss_distribution.from_two_probability_mass_functions`` (``symmetric=False``: the
remove direction is ``δ_{P‖Q}`` with ``P`` the law under ``D_m``, the add direction the
reverse), on the window of counts within ``WIDTH`` standard deviations of the mean. Each
law's mass outside the window goes to an outcome only that law can produce, so the pessimistic
PLD charges it to the infinity mass of both orders; the optimistic one drops it (it underflows
to 0 for ``WIDTH = 40``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import binom

WIDTH = 40.0
"""Half-width of the window of counts, in standard deviations of ``Bin(N, q)``."""


def one_bit_log_pmfs(n: int, q: float) -> tuple[dict[Any, float], dict[Any, float]]:
    """``(log P, log Q)`` of the count of ones on the window; each law's outside mass on an outcome of its own."""
    p = 1.0 - q
    sd = math.sqrt(n * p * q) + 1.0
    lo, hi = max(0, math.floor(n * q - WIDTH * sd)), min(n, math.ceil(n * q + WIDTH * sd))
    k = np.arange(lo, hi + 1)
    log_q = binom.logpmf(k, n, q)
    log_p = np.logaddexp(math.log(q) + binom.logpmf(k, n - 1, q), math.log(p) + binom.logpmf(k - 1, n - 1, q))
    counts = k.tolist()
    upper = dict(zip(counts, log_p.tolist(), strict=True))
    lower = dict(zip(counts, log_q.tolist(), strict=True))
    # K < lo needs J < lo and K > hi needs J >= hi (K = J + U): at most these masses lie outside
    out_p = float(binom.cdf(lo - 1, n - 1, q) + binom.sf(hi - 1, n - 1, q))
    out_q = float(binom.cdf(lo - 1, n, q) + binom.sf(hi, n, q))
    if out_p > 0.0:
        upper["outside P"] = math.log(out_p)
    if out_q > 0.0:
        lower["outside Q"] = math.log(out_q)
    return upper, lower


def one_bit_pld(n: int, q: float, *, pessimistic: bool = True, discretization: float = 1e-4) -> Any:
    """dp_accounting's PLD of the exact one-bit pair (both orders, ``symmetric=False``).

    ``pessimistic=False`` drops the mass outside the window (an optimistic PLD may).
    """
    from dp_accounting.pld import privacy_loss_distribution

    upper, lower = one_bit_log_pmfs(n, q)
    if not pessimistic:
        upper.pop("outside P", None)
        lower.pop("outside Q", None)
    return privacy_loss_distribution.from_two_probability_mass_functions(
        lower, upper, pessimistic_estimate=pessimistic, value_discretization_interval=discretization, symmetric=False
    )
