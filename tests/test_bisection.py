"""The one bisection (``common/bisection.py``): its bracket, its tolerances and its safe end."""

from __future__ import annotations

from gpu_rs.common.bisection import bisect_bracket, bisect_true_end


def test_the_bracket_holds_the_boundary_to_either_tolerance():
    calls: list[float] = []

    def holds(x: float) -> bool:
        calls.append(x)
        return x >= 0.3

    lo, hi = bisect_bracket(holds, 0.0, 8.0, rel_tol=1e-3)
    assert lo < 0.3 <= hi and hi - lo <= 1e-3 * hi and 2 * (hi - lo) > 1e-3 * hi
    assert bisect_true_end(holds, 0.0, 8.0, tol=1e-6) == bisect_bracket(holds, 0.0, 8.0, tol=1e-6)[1]
    calls.clear()
    lo, hi = bisect_bracket(holds, 0.0, 8.0, tol=1e-6, rel_tol=1e-300, steps=5)
    assert len(calls) == 5 and (lo, hi) == (0.25, 0.5)


def test_adjacent_floats_end_the_bisection():
    """A tolerance below the float spacing stops where the midpoint is an end, not after every step."""
    calls: list[float] = []

    def holds(x: float) -> bool:
        calls.append(x)
        return x >= 1.0 / 3.0

    lo, hi = bisect_bracket(holds, 0.0, 1.0, rel_tol=1e-30, steps=1000)
    assert lo < 1.0 / 3.0 <= hi and hi - lo <= 2.0**-53 and len(calls) < 60
