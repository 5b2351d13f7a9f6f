"""Calibration to (ε, δ): the smallest flip probability whose certified ``δ(ε)`` is at most ``δ``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .closed_forms import local_dp_q, precision_sigma
from .privacy import GUARANTEES, privacy_profile
from .profile_results import DeltaBound
from .provenance import provenance
from .qsearch import Queries, smallest_q
from .serialize import ToDict


@dataclass(frozen=True)
class ProfileCalibration(ToDict):
    """The calibrated flip probability for (ε, δ)-DP of the pairs ``scope`` covers.

    ``at_q.upper <= delta`` holds at ``q`` (certified), which is ``ε(δ) <= eps``; ``q − q_tol``
    was checked and does not certify. ``sigma_*`` are the standard deviations of a count
    estimate over ``n`` reports (seed 003 §4).
    """

    n: int
    bits: int
    eps: float
    delta: float
    q: float
    scope: str
    guarantee: str
    at_q: DeltaBound
    q_tol: float
    steps: list[dict[str, Any]]
    monotone: bool
    violations: list[dict[str, float]]
    local_dp_q: float
    sigma_calibrated: float
    sigma_local_dp: float
    backend: str
    seconds: float
    notes: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        return (
            f"ProfileCalibration(q={self.q:.8g} for delta({self.eps:.6g}) <= {self.delta:g}: delta in "
            f"[{self.at_q.lower:.6e}, {self.at_q.upper:.6e}]; n={self.n}, bits={self.bits}, scope={self.scope!r}; "
            f"local DP q={self.local_dp_q:.6g}; {len(self.steps)} steps, {self.seconds:.3g} s"
            f"{'' if self.monotone else '; MONOTONICITY VIOLATED near q'})"
        )


def calibrate_delta(
    n: int,
    bits: int,
    eps: float,
    delta: float,
    *,
    scope: str,
    q_tol: float,
    rel_width: float,
    backend: str,
    progress: Callable[[dict[str, Any]], Any] | None,
    arguments: dict[str, Any],
) -> ProfileCalibration:
    """The search of :func:`gpu_rs.calibrate` on certified ``δ(ε)`` (arguments already checked)."""
    start = time.perf_counter()
    used = [backend]

    def compute(q: float, width: float) -> tuple[DeltaBound, float]:
        t0 = time.perf_counter()
        prof = privacy_profile(n, bits, q, scope=scope, rel_width=width, abs_width=0.1 * width * delta, backend=backend)
        used[0] = prof.backend
        return prof.delta(eps), time.perf_counter() - t0

    query = Queries(compute, rel_width, progress)
    hi, notes, violations = smallest_q(n, bits, eps, delta, q_tol, query, ("delta", "delta"))
    final = query.seen[hi]
    if not final.met:
        notes.append(f"delta at q could not be computed to rel_width={rel_width:g}")
    ldp = local_dp_q(bits, eps)
    return ProfileCalibration(
        n=n,
        bits=bits,
        eps=eps,
        delta=delta,
        q=hi,
        scope=scope,
        guarantee=GUARANTEES[scope],
        at_q=final,
        q_tol=q_tol,
        steps=query.steps,
        monotone=not violations,
        violations=violations,
        local_dp_q=ldp,
        sigma_calibrated=precision_sigma(n, hi),
        sigma_local_dp=precision_sigma(n, ldp),
        backend=used[0],
        seconds=time.perf_counter() - start,
        notes=notes,
        provenance=provenance(arguments, used[0]),
    )
