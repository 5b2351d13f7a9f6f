"""Calibration to (ε, δ): the smallest flip probability whose certified ``δ(ε)`` is at most ``δ``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpu_rs.calibration.results import ProfileCalibration
from gpu_rs.calibration.search import Queries, smallest_q
from gpu_rs.common.limits import Q_RTOL
from gpu_rs.common.provenance import provenance
from gpu_rs.quantities.closed_forms import local_dp_q, precision_sigma
from gpu_rs.quantities.compose import compose
from gpu_rs.quantities.profile import privacy_profile
from gpu_rs.quantities.profile_results import DeltaBound


def calibrate_delta(
    n: int,
    bits: int,
    eps: float,
    delta: float,
    *,
    scope: str,
    k: int,
    releases: int,
    q_tol: float | None,
    rel_width: float,
    backend: str,
    progress: Callable[[dict[str, Any]], Any] | None,
    max_seconds: float,
    arguments: dict[str, Any],
) -> ProfileCalibration:
    """The search of :func:`gpu_rs.calibrate` on certified ``δ(ε)`` (arguments already checked)."""
    start = time.perf_counter()
    used = [backend]
    covers: dict[float, str] = {}  # the guarantee of the profile at each q (the one scope="all" gives there)

    def compute(q: float, width: float) -> tuple[DeltaBound, float]:
        t0 = time.perf_counter()
        prof = privacy_profile(  # its queries decide by the upper end: no search for the best pair known
            n,
            bits,
            q,
            scope=scope,
            k=k,
            rel_width=width,
            abs_width=0.1 * width * delta,
            backend=backend,
            search_seconds=0,
        )
        used[0], covers[q] = prof.backend, prof.guarantee
        if releases == 1:
            return prof.delta(eps), time.perf_counter() - t0
        composed = compose(prof, times=releases, rel_width=width, abs_width=0.1 * width * delta)
        covers[q] = composed.guarantee
        return composed.delta(eps), time.perf_counter() - t0

    query = Queries(compute, rel_width, progress, max_seconds)
    hi, tol, notes, violations = smallest_q(n, bits, eps, delta, q_tol, query, ("delta", "delta"))
    final = query.seen[hi]
    if not final.met:
        notes.append(f"delta at q could not be computed to rel_width={rel_width:g}")
    ldp = local_dp_q(bits, eps / k)  # k reports compose: each must be (eps/k)-LDP
    return ProfileCalibration(
        n=n,
        bits=bits,
        eps=eps,
        delta=delta,
        q=hi,
        scope=scope,
        k=k,
        releases=releases,
        guarantee=covers[hi],
        at_q=final,
        q_tol=tol,
        q_rtol=Q_RTOL if q_tol is None else None,
        steps=query.steps,
        monotone=not violations,
        violations=violations,
        local_dp_q=ldp,
        sigma_calibrated=precision_sigma(n, hi, k),
        sigma_local_dp=precision_sigma(n, ldp, k),
        backend=used[0],
        seconds=time.perf_counter() - start,
        notes=notes,
        provenance=provenance(arguments, used[0]),
    )
