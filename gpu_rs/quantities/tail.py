"""``tail``: certified bounds on ``P[R > e^ε]`` for the pairs a scope covers (SPEC §1.1, §2, §4)."""

from __future__ import annotations

import time
from typing import Any

from gpu_rs.common.backend import Backend, get_backend
from gpu_rs.common.limits import FAMILY_SECONDS, MAX_SEARCH_SECONDS
from gpu_rs.common.provenance import provenance
from gpu_rs.common.validation import (
    Problem,
    check_bool,
    check_closed_open,
    check_int,
    check_k,
    check_open,
    check_rel_width,
    check_scope,
    resolve_eps,
)
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.fourier import FIRST_TERMS
from gpu_rs.engine.pipeline import Plan, plan_terms
from gpu_rs.pairs.scopes import TailQuery, scope_for
from gpu_rs.quantities.results import TailBound

DEFAULT_MAX_TERMS = 1 << 24
"""Most Fourier terms a tail query may use (memory permitting)."""


def tail(
    n: int,
    bits: int,
    q: float,
    eps: float | None = None,
    *,
    ratio: float | None = None,
    scope: str = "all",
    k: int = 1,
    inclusive: bool = False,
    rel_width: float = 1e-3,
    abs_width: float = 1e-12,
    backend: str = "auto",
    max_terms: int = DEFAULT_MAX_TERMS,
    max_memory: int | None = None,
    decide: float | None = None,
    search_seconds: float = FAMILY_SECONDS,
) -> TailBound:
    """Certified bounds on ``P[R > e^eps]`` over the neighbouring pairs ``scope`` covers.

    Parameters
    ----------
    n : int
        Number of users, ``1 <= n <= 10**9``.
    bits : int
        Bits per report ``L``, ``1 <= bits <= 1024``.
    q : float
        Flip probability, ``0 < q < 1/2``.
    eps : float, optional
        Privacy level ``0 < ε < 700``; give this or ``ratio = e^ε``.
    scope : {"homogeneous", "forward", "all"}
        Which pairs (SPEC §1.1): ``"forward"`` is seed 003's pair in its order,
        ``"homogeneous"`` the larger of both orders of that pair, ``"all"`` every
        neighbouring pair (exact for ``bits = 1``, a proven upper bound otherwise).
    k : int
        Randomized reports per user, ``1 <= k <= MAX_K`` (SPEC §1.3). For ``k > 1`` the tail is
        bracketed by Maclaurin/Bonferroni inequalities (docs/k-randomization.md §5), so the
        interval may be wider than asked (``met`` says so); ``scope="all"`` is refused there.
    inclusive : bool
        Bound ``P[R >= e^eps]`` instead of the strict tail.
    rel_width, abs_width : float
        Target: ``upper - lower <= max(rel_width * lower, abs_width)``.
    backend : {"auto", "numpy", "cupy"}
        Array backend; ``auto`` picks CuPy where a CUDA device is usable,
        unless ``GPU_RS_BACKEND`` says otherwise.
    max_terms : int
        Most Fourier terms to use before giving up on the target width, ``>= 2048``.
    max_memory : int, optional
        Memory budget in bytes (default: half the free memory of the device).
    decide : float, optional
        Only decide whether the tail is at most this value, in ``(0, 1)``. For ``scope="all"``
        with ``bits >= 2`` the search over homogeneous backgrounds for the best pair known is
        then skipped: the lower end is the seed's pair, the upper end (which decides) is the
        same. Other scopes ignore it. :func:`~gpu_rs.calibrate` decides its queries this way.
    search_seconds : float
        For ``scope="all"`` with ``bits >= 2``: at most about this many seconds for the search over
        homogeneous backgrounds (the lower end, the best pair known), ``0 <= search_seconds < 86400``.
        A search whose screening is estimated to take longer is not started, and the note in
        ``worst`` says so; one that runs out of time keeps the best member found and says how many
        members were left undecided. The screening bounds every member at once (about 2 s at
        ``bits = 40``, where it bounds every member's tail within 4 % of the seed's pair; 17 s at
        ``bits = 64``); the engine then evaluates the most promising members for a tenth of that time,
        or for all of ``search_seconds`` where it is above the default (docs/worst-case.md §5a). ``0``
        skips the search; from 5 s on, the upper end also tries the cross-cloned pools at ``bits <= 8``,
        ``n <= 20000`` (§8.9; about 1–30 s there), and from 60 s on at every ``n``, with ``decide`` too
        (40–50 s a tail at ``bits = 8``, ``n = 10⁵`` to ``10⁷``, where they lower it 2–4 times).

    Returns
    -------
    TailBound
        ``lower <= P <= upper``, certified for every pair of the scope (``guarantee`` says
        so in words); ``met`` says whether the target width was reached.

    Raises
    ------
    ValueError
        For an argument out of range (the message names it); :class:`~gpu_rs.MemoryBudgetError`
        or :class:`~gpu_rs.TimeBudgetError` for work that would not fit, before it starts.
    """
    arguments = dict(locals())  # the call's arguments as given, for provenance
    start = time.perf_counter()
    prob = Problem(n, bits, q, resolve_eps(eps, ratio))
    scope = check_scope(scope)
    k = check_k(k)
    rel_width = check_rel_width(rel_width)
    abs_width = check_closed_open("abs_width", abs_width, 0.0, 1.0)
    inclusive = check_bool("inclusive", inclusive)
    max_terms = check_int("max_terms", max_terms, FIRST_TERMS, 1 << 27)
    if max_memory is not None:
        max_memory = check_int("max_memory", max_memory, 1, 1 << 50)
    if decide is not None:
        decide = check_open("decide", decide, 0.0, 1.0)
    search_seconds = check_closed_open("search_seconds", search_seconds, 0.0, MAX_SEARCH_SECONDS)
    be = get_backend(backend)
    plan = Plan(rel_width, abs_width, plan_terms(max_terms, be.free_memory(), max_memory))
    covered = scope_for(scope, prob.n, prob.bits, prob.q, k)
    found = covered.tail(TailQuery(prob, inclusive, plan, be.xp, decide or 0.0, search_seconds))
    b = found.bounds
    return certified(
        b,
        prob,
        plan,
        be,
        start,
        arguments,
        scope=scope,
        guarantee=covered.guarantee("tail"),
        k=k,
        pairs=found.pairs,
        worst=found.worst,
        inclusive=inclusive,
        estimate=found.estimate,
    )


def certified(
    b: Bounds, prob: Problem, plan: Plan, be: Backend, start: float, arguments: dict[str, Any], **about: Any
) -> TailBound:
    """The :class:`TailBound` of engine bounds ``b`` on ``prob``'s tail, asked with ``plan`` on backend ``be``.

    ``start`` is when the call began and ``arguments`` what it was given (for provenance);
    ``about`` says what the bound covers: ``scope``, ``guarantee``, ``k``, ``pairs``, ``worst``,
    ``inclusive`` and ``estimate`` (the scope's point inside ``b``,
    :attr:`gpu_rs.pairs.scopes.Scoped.estimate`).
    """
    return TailBound(
        n=prob.n,
        bits=prob.bits,
        q=prob.q,
        eps=prob.eps,
        lower=float(b.lower),
        upper=float(b.upper),
        rel_width=plan.rel_width,
        abs_width=plan.abs_width,
        met=plan.met(b),
        method=b.method,
        backend=be.name,
        grid_points=b.terms,
        memory_bytes=b.memory,
        seconds=time.perf_counter() - start,
        budget=b.budget,
        provenance=provenance(arguments, be.name),
        **about,
    )
