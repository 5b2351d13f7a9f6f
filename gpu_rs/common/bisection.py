"""The one bisection of gpu_rs: the boundary of a monotone predicate on an interval."""

from __future__ import annotations

from collections.abc import Callable


def bisect_bracket(
    holds: Callable[[float], bool],
    lo: float,
    hi: float,
    *,
    tol: float = 0.0,
    rel_tol: float = 0.0,
    steps: int = 200,
) -> tuple[float, float]:
    """The last bracket ``(lo, hi]`` around the boundary of a predicate.

    ``holds`` must be monotone on ``[lo, hi]``: false below some point, true above it, and
    true at ``hi`` (not checked here: the caller knows and says what it means if not).
    ``hi`` is always a point where ``holds`` is true (or ``hi`` itself), ``lo`` one where it is
    false (or ``lo`` itself), so a calibration that keeps ``hi`` errs on the safe side of the tolerance.

    Parameters
    ----------
    holds : callable
        The predicate, evaluated at midpoints.
    lo, hi : float
        The bracket, ``lo < hi``.
    tol, rel_tol : float, optional
        Stop when ``hi - lo <= max(tol, rel_tol * hi)``, ``hi`` the current upper end.
    steps : int, optional
        At most this many evaluations (a bisection on floats ends by itself after about
        1100 halvings; ``steps`` bounds the work).

    Returns
    -------
    tuple of float
        ``(lo, hi)`` of the final bracket.
    """
    for _ in range(steps):
        if hi - lo <= max(tol, rel_tol * hi):
            break
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def bisect_true_end(
    holds: Callable[[float], bool], lo: float, hi: float, *, tol: float = 0.0, steps: int = 200
) -> float:
    """``hi`` of :func:`bisect_bracket`'s final bracket: a point where ``holds`` is true (or ``hi`` itself)."""
    return bisect_bracket(holds, lo, hi, tol=tol, steps=steps)[1]
