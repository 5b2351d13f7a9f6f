"""Certified values by ``q``, each asked only as finely as the decision made with it needs.

The search for ``q`` makes one kind of decision: does the certified value at ``q`` meet the
target (``upper <= target``)? A coarse value decides it when its interval lies on one side
of the target; only an interval that straddles the target is refined, and never beyond the
calibration's ``rel_width``. "Does not certify" thus means: the lower end exceeds the target
(no width would certify), or the upper end does at the finest width asked, as before.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from typing import Any

from gpu_rs.common import limits
from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.floats import FLOOR

COARSE = 0.1
"""Widest relative width ever asked of a query."""
REFINE = 4.0
"""A straddling interval is asked again at most ``1/REFINE`` of its width (or what separates it from the target)."""


class Queries:
    """Certified values by ``q``; a value is recomputed only when a finer width is asked.

    ``compute(q, width)`` returns ``(value, seconds)``. Every value computed is a step
    ``{"q", "width", "lower", "upper", "seconds", "phase"}``, passed to ``progress``; the search
    sets ``phase`` ("bracket", "search", "scan", "check") and the caller may set its own.
    ``seen[q]`` is the finest value at ``q``; ``certifying[q]`` the first value whose upper
    end met the target there (a finer interval need not nest inside a coarser one; both hold).
    A value wider than asked (the method's limit: the all-pairs bound of several bits, a memory
    budget) puts ``q`` in ``exhausted``: it is not asked again.

    The work is bounded: after each value, the time so far plus the median value's time for
    every query a calibration typically still makes (at least four) is the estimate; beyond
    ``max_seconds`` it raises ``TimeBudgetError`` with it.
    """

    def __init__(
        self,
        compute: Callable[[float, float], tuple[Any, float]],
        rel_width: float,
        progress: Callable[[dict[str, Any]], Any] | None,
        max_seconds: float = limits.MAX_CALIBRATION_SECONDS,
    ) -> None:
        self.compute, self.rel_width, self.progress = compute, rel_width, progress
        self.max_seconds = max_seconds
        self.seen: dict[float, Any] = {}
        self.widths: dict[float, float] = {}
        self.certifying: dict[float, Any] = {}
        self.exhausted: set[float] = set()
        self.steps: list[dict[str, Any]] = []
        self.phase = "bracket"
        self.start = time.perf_counter()

    def __call__(self, q: float, width: float | None = None) -> Any:
        """The value at ``q``, at ``width`` (default ``rel_width``) or finer."""
        width = self.rel_width if width is None else min(COARSE, max(width, self.rel_width))
        if q not in self.seen or (self.widths[q] > width and q not in self.exhausted):
            value, seconds = self.compute(q, width)
            # A value narrower than asked counts at the width it reached (no finer query repeats it).
            reached = (value.upper - value.lower) / value.lower if value.lower > 0 else math.inf
            self.seen[q], self.widths[q] = value, min(width, max(reached, self.rel_width))
            if reached > width and value.upper > value.lower:  # not met: a finer ask would not do better
                self.exhausted.add(q)
            step = {
                "q": q,
                "width": width,
                "lower": value.lower,
                "upper": value.upper,
                "seconds": seconds,
                "phase": self.phase,
            }
            self.steps.append(step)
            if self.progress is not None:
                self.progress(step)
            self._check_time()
        return self.seen[q]

    def _check_time(self) -> None:
        """Raise ``TimeBudgetError`` if the calibration is predicted to exceed its time limit."""
        # A typical query: the median, not the slowest (one query far above the answer, where the
        # all-pairs bound counts many blanket users, can take several times the others).
        typical = statistics.median(s["seconds"] for s in self.steps)
        left = max(limits.TYPICAL_QUERIES - len(self.steps), 4)
        elapsed = time.perf_counter() - self.start
        estimate = elapsed + typical * left
        if estimate > self.max_seconds:
            raise TimeBudgetError(
                f"calibration stopped after {len(self.steps)} queries and {elapsed:.3g} s: a query took "
                f"{typical:.3g} s (the median) and about {left} more are typical, about {estimate:.3g} s in all (limit "
                f"max_seconds={self.max_seconds:g}); targets near 1e-30 or a fine rel_width make every query "
                "slow: ask a larger eta or delta or a coarser rel_width, or raise max_seconds"
            )

    def again(self, q: float) -> Any:
        """The value at ``q`` computed anew at ``rel_width`` (for a ``compute`` that now does more);
        the value that certified ``q``, if any, is kept."""
        for cache in (self.seen, self.widths):
            cache.pop(q, None)
        self.exhausted.discard(q)
        return self(q)

    def decide(self, q: float, target: float, width: float = COARSE) -> bool:
        """Whether ``q`` certifies (``upper <= target``), starting at ``width`` and refining while undecided."""
        width = min(COARSE, max(width, self.rel_width))
        while True:
            value = self(q, width)
            if value.upper <= target:
                self.certifying.setdefault(q, value)
                return True
            if value.lower > target or self.widths[q] <= self.rel_width or q in self.exhausted:
                return False
            gap = abs(math.log(max(value.estimate, FLOOR) / target))
            width = max(self.rel_width, min(self.widths[q] / REFINE, 0.5 * gap))

    def above(self, q: float, value: Any, level: float) -> bool:
        """Whether ``value`` (computed at ``q``) is surely above ``level``: its lower end, or its upper
        end where that cannot be narrowed (the all-pairs bound of several bits, whose upper end is
        what every decision uses)."""
        return (value.upper if q in self.exhausted else value.lower) > level

    def settled(self, q: float, target: float) -> Any:
        """The value at ``q`` that decides it against ``target``, refined only if the cached one does not."""
        self.decide(q, target, self.widths.get(q, COARSE))
        return self.certifying.get(q, self.seen[q])

    def final(self, q: float, target: float) -> Any:
        """The value reported at the answer ``q``: at ``rel_width``, or the certifying one if that one is not."""
        value = self(q, self.rel_width)
        if value.upper <= target or q not in self.certifying:
            return value
        return self.certifying[q]

    def log_gap(self, q: float, target: float) -> float:
        """``log(u / target)`` at ``q``, ``u`` the upper end expected at ``rel_width`` (computed values only).

        That is ``estimate · (1 + rel_width / 2)``, or the upper end itself where no finer
        width can be had (``exhausted``): the decision the search aims at, whatever width ``q``
        was computed at.
        """
        value = self.seen[q]
        upper = value.upper if q in self.exhausted else value.estimate * (1.0 + 0.5 * self.rel_width)
        return math.log(max(upper, FLOOR) / target)
