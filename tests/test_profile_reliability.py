"""privacy_profile at valid settings that once raised or warned (found by a random sweep, issue 29).

Each setting is inside the documented ranges; each ``δ`` must come back certified, ``0 <= lower <= upper <= 1``,
with no exception and no float warning (an overflow whose inf is the meaning is silenced where it arises).
"""

from __future__ import annotations

import pytest

import gpu_rs

CASES = [
    # log1p of a sum below -1 in Law.log_mgf (ValueError)
    (20278, 8, 0.001, 47.71075842641351),
    (14, 16, 0.1, 33.08246369661749),
    # exp overflow in blanket_sum.least (OverflowError)
    (8770355, 24, 0.05, 68.86665404711894),
    # a tilt with θ ~ 1e-190 and an infinite window (ZeroDivisionError), and an overflowing variance
    (34025698, 64, 0.001, 377.5827506254732),
    # spectrum error terms overflowing in a member's hinge (RuntimeWarning)
    (332624, 40, 0.1, 0.023096382244420406),
    (1666552, 64, 0.4, 5.787177077556264),
]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("n", "bits", "q", "eps"), CASES)
def test_profile_answers_where_it_once_raised(n, bits, q, eps):
    found = gpu_rs.privacy_profile(n, bits, q, backend="numpy").delta(eps)
    assert 0.0 <= found.lower <= found.estimate <= found.upper <= 1.0
