"""``calibrate``: the smallest flip probability whose certified tail is at most η."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from gpu_rs.calibration.dips import OneBitDips
from gpu_rs.calibration.profile_target import calibrate_delta
from gpu_rs.calibration.results import Calibration, ProfileCalibration
from gpu_rs.calibration.search import Queries, smallest_q
from gpu_rs.common.floats import FLOOR
from gpu_rs.common.limits import (
    CALIBRATION_SEARCH_SECONDS,
    MAX_CALIBRATION_SECONDS,
    MAX_RELEASES,
    MAX_SEARCH_SECONDS,
    MIN_TARGET,
    Q_RTOL,
)
from gpu_rs.common.provenance import provenance
from gpu_rs.common.validation import (
    Problem,
    check_closed_open,
    check_int,
    check_k,
    check_open,
    check_q_tol,
    check_rel_width,
    check_scope,
    check_target,
    resolve_eps,
)
from gpu_rs.quantities.closed_forms import local_dp_q, precision_sigma, three_sigma_q
from gpu_rs.quantities.results import TailBound
from gpu_rs.quantities.tail import tail


def calibrate(
    n: int,
    bits: int,
    eps: float | None = None,
    eta: float | None = None,
    *,
    delta: float | None = None,
    ratio: float | None = None,
    scope: str = "all",
    k: int = 1,
    releases: int = 1,
    q_tol: float | None = None,
    rel_width: float = 1e-3,
    backend: str = "auto",
    progress: Callable[[dict[str, Any]], Any] | None = None,
    max_seconds: float = MAX_CALIBRATION_SECONDS,
    search_seconds: float | None = None,
) -> Calibration | ProfileCalibration:
    """The smallest ``q`` (within a tolerance) whose certified upper tail is ``<= eta`` (or ``δ(ε) <= delta``).

    Parameters
    ----------
    n, bits
        See :func:`gpu_rs.tail`.
    eps : float, optional
        Privacy level; give this or ``ratio = e^eps``.
    eta : float
        Probability cut-off, ``1e-30 <= eta < 1``, for sufficient DP ``P[R > e^eps] <= eta``.
    delta : float, optional
        Instead of ``eta``: calibrate (ε, δ)-DP, the smallest ``q`` whose certified
        ``δ(ε)`` (:func:`gpu_rs.privacy_profile`) is ``<= delta``, ``1e-30 <= delta < 1``;
        returns a :class:`~gpu_rs.calibration.profile_target.ProfileCalibration`.
    scope : {"homogeneous", "forward", "all"}
        The pairs the calibrated ``q`` must protect (see :func:`gpu_rs.tail`).
    k : int
        Randomized reports per user, ``1 <= k <= MAX_K`` (SPEC §1.3). For ``k > 1`` the tail is
        certified by the inequalities of docs/k-randomization.md §5 (the upper end is what
        calibration uses); the 3σ comparison uses the exact moments of ``R_k``, the local-DP
        comparison ``ε/k`` per report, and every ``sigma_*`` is ``√(qpN/k)/(p − q)``.
        ``scope="all"`` (the default) is the composition bound of docs/composition.md §2; ``delta``
        with ``k > 1`` takes ``scope="all"`` only.
    releases : int
        With ``delta``: the ``q`` whose certified ``δ(ε)`` after ``releases`` independent releases
        (:func:`gpu_rs.compose`) is ``<= delta``, ``1 <= releases <= 100_000``; with ``eta`` only 1.
    q_tol : float, optional
        Absolute tolerance on ``q``, ``1e-12 <= q_tol < 0.01``. Default: relative,
        ``1e-5 · min(q, 1/2 − q)`` (:func:`~gpu_rs.calibration.steps.relative_tol`), so that a small
        answer is found as precisely as a large one and ``σ(d̂)`` to about 1e-5 relative; the result's
        ``q_tol`` is the absolute tolerance reached either way (``q − q_tol`` does not certify).
    rel_width : float
        Relative width asked of every tail query, ``1e-9 <= rel_width < 1``.
    backend : {"auto", "numpy", "cupy"}
        Array backend.
    progress : callable, optional
        Called with ``{"q", "lower", "upper", "seconds", "phase"}`` after each tail query; the
        phase is ``"bracket"``, ``"search"``, ``"scan"`` (dips below the answer), ``"check"``
        (``q − q_tol`` must not certify), ``"report"`` (the answer computed whole, for
        ``scope="all"`` at ``bits >= 2``, whose other queries skip the best pair known) or
        ``"compare"`` (the 3σ rule's ``q``).
    max_seconds : float
        Time limit, ``> 0`` (default 300). After every query the time so far plus the median
        query's time for each query a calibration typically still makes is the estimate; beyond
        the limit the calibration stops with :class:`~gpu_rs.TimeBudgetError` and the estimate
        (targets near ``1e-30`` or a fine ``rel_width`` make each query take seconds).
    search_seconds : float, optional
        With ``eta``, ``scope="all"`` and ``bits >= 2``: the ``search_seconds`` of every tail query
        (:func:`gpu_rs.tail`), ``0 <= search_seconds < 86400``; default 1 (its family search, the answer's
        lower end, only where it fits). From 60 on, every query's upper end also tries the cross-cloned
        pools at ``bits <= 8`` (docs/worst-case.md §8.9): at ``n = 10⁷``, ``bits = 8``, ``eps = 2``,
        ``eta = 1e-3`` they certify ``q = 0.1168`` where the default certifies ``0.1279`` (the homogeneous
        pair ``0.1077``), but each query takes about 45 s there instead of 0.1 s: raise ``max_seconds``.

    Returns
    -------
    Calibration
        ``tail(n, bits, c.q, eps).upper <= eta``; ``c.q - c.q_tol`` does not certify.

    Raises
    ------
    CalibrationError
        If even ``q`` just below 1/2 does not certify; the message names the tail reached.
    TimeBudgetError
        If the calibration is predicted to take longer than ``max_seconds`` (see above).

    Notes
    -----
    The tail is not proven monotone in ``q``. Bisection keeps the invariant
    "``hi`` certifies, ``lo`` does not"; afterwards the tails at ``q - k q_tol``
    are checked, and any that certifies moves the answer down. Pairs of
    points where the certified intervals show the tail rising with ``q`` are
    reported in ``violations``. For ``bits = 1`` (scope ``forward`` or
    ``homogeneous``) the scan for dips below the answer is replaced by proven
    floors of the tail's pieces in ``q`` (docs/calibration.md), which cover all
    of ``(0, q)``; for ``scope="all"`` they let the scan skip points.
    """
    arguments = dict(locals())  # the call's arguments as given, for provenance
    start = time.perf_counter()
    eps = resolve_eps(eps, ratio)
    Problem(n, bits, 0.25, eps)
    scope = check_scope(scope)
    k = check_k(k)
    if (eta is None) == (delta is None):
        raise ValueError(
            f"give exactly one of eta (sufficient DP) or delta ((eps, delta)-DP), each a number in "
            f"[{MIN_TARGET:g}, 1): got eta={eta!r}, delta={delta!r}"
        )
    q_tol = None if q_tol is None else check_q_tol(q_tol)
    rel_width = check_rel_width(rel_width)
    max_seconds = check_open("max_seconds", max_seconds, 0.0, math.inf)
    if search_seconds is not None and delta is not None:
        raise ValueError(f"search_seconds applies to eta calibrations only: got {search_seconds!r} with delta")
    search = CALIBRATION_SEARCH_SECONDS if search_seconds is None else search_seconds
    search = check_closed_open("search_seconds", search, 0.0, MAX_SEARCH_SECONDS)
    releases = check_int("releases", releases, 1, MAX_RELEASES)
    if releases > 1 and delta is None:
        raise ValueError(f"releases must be 1 with eta: got {releases} (compose releases with delta=...)")
    if delta is not None:
        if k > 1 and scope != "all":
            raise ValueError(f"scope must be 'all' for delta calibration with k={k}: got {scope!r} (use eta)")
        delta = check_target("delta", delta)
        return calibrate_delta(
            n,
            bits,
            eps,
            delta,
            scope=scope,
            k=k,
            releases=releases,
            q_tol=q_tol,
            rel_width=rel_width,
            backend=backend,
            progress=progress,
            max_seconds=max_seconds,
            arguments=arguments,
        )
    eta = check_target("eta", eta)

    # The all-pairs bound of several bits: the search's queries only decide "upper <= eta?"; the
    # answer and the 3-sigma rule's q (the bracket's first query, compared at the end) are
    # computed whole, with the best pair known.
    decided = scope == "all" and bits >= 2
    three_q: float | None = None
    try:
        three_q = three_sigma_q(n, bits, eps, k=k)
    except ValueError as exc:
        three_note = f"3-sigma rule: {exc}"

    def compute(q: float, width: float) -> tuple[TailBound, float]:
        # Only "upper <= eta?" matters: tails far below eta need no finer width than this.
        decide = eta if decided and query.phase != "report" and q != three_q else None
        abs_width = 0.1 * width * eta
        if decided and query.phase == "report":
            # The lower end, the best pair known, lies far below eta: asked to a tenth of the
            # seed's pair's tail as the decision bounded it (0.1 width eta alone would leave it
            # at [0, ...], issue 33; finer, the report query can take ten times longer at L = 8).
            scale = max(p.upper for p in query.certifying[q].pairs)
            abs_width = min(abs_width, max(0.1 * scale, FLOOR))
        b = tail(
            n,
            bits,
            q,
            eps,
            scope=scope,
            k=k,
            rel_width=width,
            abs_width=abs_width,
            backend=backend,
            decide=decide,
            search_seconds=search,
        )
        return b, b.seconds

    query = Queries(compute, rel_width, progress, max_seconds)
    # One bit, one report: the tail's pieces in q have proven floors (docs/calibration.md).
    pieces = OneBitDips(n, eps, scope) if bits == 1 and k == 1 else None
    hi, tol, notes, violations = smallest_q(n, bits, eps, eta, q_tol, query, ("eta", "tail"), pieces)
    if decided:
        query.phase = "report"
        query.again(hi)
    three_tail = three_sigma = None
    query.phase = "compare"
    if three_q is None:
        notes.append(three_note)
    else:
        three_tail = query.settled(three_q, eta)
        three_sigma = precision_sigma(n, three_q, k)
    ldp = local_dp_q(bits, eps / k)  # k reports compose: each must be (eps/k)-LDP
    final = query.final(hi, eta)
    if not final.met:
        notes.append(
            f"the tail at q could not be computed to rel_width={rel_width:g}; its certified width is {final.width:.3e}"
        )
    return Calibration(
        n=n,
        bits=bits,
        eps=eps,
        eta=eta,
        q=hi,
        scope=final.scope,
        k=final.k,
        guarantee=final.guarantee,
        at_q=final,
        q_tol=tol,
        q_rtol=Q_RTOL if q_tol is None else None,
        steps=query.steps,
        monotone=not violations,
        violations=violations,
        three_sigma_q=three_q,
        three_sigma_tail=three_tail,
        local_dp_q=ldp,
        sigma_calibrated=precision_sigma(n, hi, k),
        sigma_three_sigma=three_sigma,
        sigma_local_dp=precision_sigma(n, ldp, k),
        backend=final.backend,
        seconds=time.perf_counter() - start,
        notes=notes,
        provenance=provenance(arguments, final.backend),
    )
