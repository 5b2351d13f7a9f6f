"""``tail``: certified bounds on ``P[R > e^ε]`` (SPEC §2, §4)."""

from __future__ import annotations

import math
import time

from .atoms import ONE, ZERO
from .backend import get_backend
from .crossing import Query
from .fourier import FIRST_TERMS
from .pipeline import Plan, plan_terms, tail_bounds
from .results import TailBound
from .validation import Problem, check_closed_open, check_int, check_open, resolve_eps

DEFAULT_MAX_TERMS = 1 << 24
"""Most Fourier terms a tail query may use (memory permitting)."""


def forward_query(prob: Problem, inclusive: bool) -> Query:
    """``P[X > n e^ε]`` for ``X`` = ``n − 1`` zero-vector atoms plus one outlier atom (seed 003 §3)."""
    log_t = math.log(prob.n) + prob.eps
    return Query(
        prob.bits,
        prob.q,
        ((ZERO, prob.n - 1), (ONE, 1)),
        log_t,
        True,
        inclusive,
        log_t_error=4.0 * 2.0**-53 * (abs(math.log(prob.n)) + prob.eps),
    )


def tail(
    n: int,
    bits: int,
    q: float,
    eps: float | None = None,
    *,
    ratio: float | None = None,
    inclusive: bool = False,
    rel_width: float = 1e-3,
    abs_width: float = 1e-12,
    backend: str = "auto",
    max_terms: int = DEFAULT_MAX_TERMS,
    max_memory: int | None = None,
) -> TailBound:
    """Certified bounds on ``P[R > e^eps]`` for the worst-case collection.

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

    Returns
    -------
    TailBound
        ``lower <= P <= upper``, certified; ``met`` says whether the target
        width was reached.
    """
    start = time.perf_counter()
    prob = Problem(n, bits, q, resolve_eps(eps, ratio))
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    abs_width = check_closed_open("abs_width", abs_width, 0.0, 1.0)
    max_terms = check_int("max_terms", max_terms, FIRST_TERMS, 1 << 27)
    if max_memory is not None:
        max_memory = check_int("max_memory", max_memory, 1, 1 << 50)
    be = get_backend(backend)
    plan = Plan(rel_width, abs_width, plan_terms(max_terms, be.free_memory(), max_memory))
    b = tail_bounds(forward_query(prob, inclusive), plan, be.xp)
    return TailBound(
        n=prob.n,
        bits=prob.bits,
        q=prob.q,
        eps=prob.eps,
        lower=b.lower,
        estimate=0.5 * (b.lower + b.upper),
        upper=b.upper,
        inclusive=inclusive,
        rel_width=rel_width,
        abs_width=abs_width,
        met=plan.met(b),
        method=b.method,
        backend=be.name,
        grid_points=b.terms,
        memory_bytes=b.memory,
        seconds=time.perf_counter() - start,
        budget=b.budget,
    )
