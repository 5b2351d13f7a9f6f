"""``tail``: certified bounds on ``P[R > e^ε]`` (SPEC §2, §4)."""

from __future__ import annotations

import math
import time

from .backend import Backend, get_backend
from .errors import MemoryBudgetError
from .model import UNIT, atoms
from .params import Problem, check_open, resolve_eps
from .reduce import Reduced, reduce_problem
from .results import ErrorBudget, TailBound
from .solve import BLOCK, BYTES_PER_TERM, FIRST_TERMS, Partial, solve

DEFAULT_MAX_TERMS = 1 << 24

def plan_terms(be: Backend, max_terms: int, max_memory: int | None) -> int:
    """How many frequencies the memory budget allows; refuses up front if too few."""
    budget = be.free_memory() // 2 if max_memory is None else int(max_memory)
    fit = (budget - BLOCK * 100) // BYTES_PER_TERM
    if fit < FIRST_TERMS:
        need = FIRST_TERMS * BYTES_PER_TERM + BLOCK * 100
        raise MemoryBudgetError(
            f"max_memory must allow at least {need / 2**20:.1f} MiB for this query: got {budget / 2**20:.1f} MiB"
        )
    return int(min(max_terms, fit))


def _combine(red: Reduced, part: Partial) -> tuple[float, float]:
    """``P[X > t] = 1 − P[A] (1 − P[Y > y | A])`` with ``P[A]`` bracketed."""
    if red.law is None:
        return 1.0, 1.0
    hi_log = min(0.0, red.log_keep + red.keep_error)
    lo_log = red.log_keep - red.keep_error
    lower = -math.expm1(hi_log) + math.exp(hi_log) * part.lower
    upper = -math.expm1(lo_log) + math.exp(lo_log) * part.upper
    lower = max(0.0, lower - 4 * UNIT * abs(lower))
    upper = min(1.0, upper + 4 * UNIT * abs(upper))
    return lower, upper


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
        Privacy level ``ε > 0``; give this or ``ratio = e^ε``.
    inclusive : bool
        Bound ``P[R >= e^eps]`` instead of the strict tail.
    rel_width, abs_width : float
        Target: ``upper - lower <= max(rel_width * lower, abs_width)``.
    backend : {"auto", "numpy", "cupy"}
        Array backend; ``auto`` picks CuPy where a CUDA device is usable,
        unless ``GPU_RS_BACKEND`` says otherwise.
    max_terms : int
        Most Fourier terms to use before giving up on the target width.
    max_memory : int, optional
        Memory budget in bytes (default: half the free memory of the device).

    Returns
    -------
    TailBound
        ``lower <= P <= upper``, certified; ``met`` says whether the target
        width was reached.
    """
    start = time.perf_counter()
    eps = resolve_eps(eps, ratio)
    prob = Problem(n, bits, q, eps)
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    if isinstance(abs_width, bool) or not isinstance(abs_width, (int, float)) or not 0.0 <= abs_width < 1.0:
        raise ValueError(f"abs_width must be a number in [0, 1): got {abs_width!r}")
    max_terms = int(max_terms)
    if max_terms < FIRST_TERMS:
        raise ValueError(f"max_terms must be an integer >= {FIRST_TERMS}: got {max_terms}")
    be = get_backend(backend)
    max_terms = plan_terms(be, max_terms, max_memory)
    red = reduce_problem(prob, atoms(prob.bits, prob.q))
    if red.law is None:
        part = Partial(1.0, 1.0, ErrorBudget(), "exact", 0, 0)
    elif red.log_keep + red.keep_error < -700.0:
        # P[A] is below 1e-304: the tail is 1 - P[A] (1 - P[Y > y | A]), bracketed without Y.
        part = Partial(0.0, 1.0, ErrorBudget(), "exact", 0, 0)
    else:
        keep = math.exp(red.log_keep)
        gone = -math.expm1(red.log_keep)

        def inner_target(tail_guess: float) -> float:
            return max(abs_width, rel_width * tail_guess, 1e-300) / keep

        def run(target: float) -> Partial:
            return solve(be, red.law, red.y_upper, red.y_lower, target, inclusive, max_terms, lattice=bool(red.step))

        target = inner_target(gone + keep * red.law.upper_tail(red.y_upper))
        part = run(target)
        for _ in range(3):
            lower, upper = _combine(red, part)
            if upper - lower <= max(abs_width, rel_width * lower):
                break
            refined = inner_target(lower)
            if refined >= 0.9 * target:
                break
            target = refined
            part = run(target)
    lower, upper = _combine(red, part)
    estimate = 0.5 * (lower + upper)
    met = upper - lower <= max(abs_width, rel_width * lower)
    return TailBound(
        n=prob.n,
        bits=prob.bits,
        q=prob.q,
        eps=prob.eps,
        lower=lower,
        estimate=estimate,
        upper=upper,
        inclusive=inclusive,
        rel_width=rel_width,
        abs_width=abs_width,
        met=met,
        method=part.method,
        backend=be.name,
        grid_points=part.points,
        memory_bytes=part.memory,
        seconds=time.perf_counter() - start,
        budget=part.budget,
    )
