"""``background_tail``: certified tails of one homogeneous background, both orders (SPEC §1.1, §2)."""

from __future__ import annotations

import time

from gpu_rs.common.backend import get_backend
from gpu_rs.common.validation import Problem, check_closed_open, check_int, check_open, resolve_eps
from gpu_rs.engine.fourier import FIRST_TERMS
from gpu_rs.engine.pipeline import Plan, plan_terms
from gpu_rs.pairs import family, scopes
from gpu_rs.pairs.guarantees import guarantee
from gpu_rs.pairs.results import PairBound, estimate
from gpu_rs.quantities.results import TailBound
from gpu_rs.quantities.tail import DEFAULT_MAX_TERMS, certified


def background_tail(
    n: int,
    q: float,
    eps: float | None = None,
    *,
    background: object,
    before: object,
    after: object,
    ratio: float | None = None,
    inclusive: bool = False,
    rel_width: float = 1e-3,
    abs_width: float = 1e-12,
    backend: str = "auto",
    max_terms: int = DEFAULT_MAX_TERMS,
    max_memory: int | None = None,
) -> TailBound:
    """Certified ``P[R > e^eps]`` for ``n − 1`` users at ``background`` and one user ``before -> after``.

    The forward order draws ``S`` with the user at ``after`` (ratio ``P(S|D_m)/P(S|D)``), the
    reverse order with the user at ``before``; both are in ``pairs`` and the interval bounds the
    larger. Each is the tail of a sum of independent signed atoms ``A − λB``
    (:mod:`gpu_rs.pairs.family` has the derivation), certified by the engine (SPEC §4).

    Parameters
    ----------
    n : int
        Number of users, ``1 <= n <= 10**9``.
    q : float
        Flip probability, ``0 < q < 1/2``.
    eps : float, optional
        Privacy level ``0 < ε < 700``; give this or ``ratio = e^ε``.
    background, before, after : str or sequence of 0/1
        The background's vector ``y`` and the user's two vectors ``x``, ``x′`` (same length ``L``;
        ``before != after``). ``background = before`` is seed 003's pair.
    inclusive : bool
        Bound ``P[R >= e^eps]`` instead.
    rel_width, abs_width, backend, max_terms, max_memory
        As in :func:`gpu_rs.tail`.

    Returns
    -------
    TailBound
        ``scope="background"``; ``pairs`` holds both orders, ``worst`` names the larger.
    """
    arguments = dict(locals())
    start = time.perf_counter()
    member = family.member_of(background, before, after)
    prob = Problem(n, member.bits, q, resolve_eps(eps, ratio))
    rel_width = check_open("rel_width", rel_width, 0.0, 1.0)
    abs_width = check_closed_open("abs_width", abs_width, 0.0, 1.0)
    max_terms = check_int("max_terms", max_terms, FIRST_TERMS, 1 << 27)
    if max_memory is not None:
        max_memory = check_int("max_memory", max_memory, 1, 1 << 50)
    be = get_backend(backend)
    plan = Plan(rel_width, abs_width, plan_terms(max_terms, be.free_memory(), max_memory))
    fwd = family.member_bounds(member, prob, inclusive, plan, be.xp)
    rev = family.member_bounds(member.reverse(), prob, inclusive, plan, be.xp)
    b = scopes.larger(fwd, rev)
    x, xm = ("".join(str(b) for b in family.vector(v, name)) for v, name in ((before, "before"), (after, "after")))
    pairs = (
        PairBound(f"forward: S drawn with the user at {xm}", fwd.lower, fwd.upper, fwd.method),
        PairBound(f"reverse: S drawn with the user at {x}", rev.lower, rev.upper, rev.method),
    )
    worst = pairs[0].pair if fwd.upper >= rev.upper else pairs[1].pair
    return certified(
        b,
        prob,
        plan,
        be,
        start,
        arguments,
        scope="background",
        guarantee=guarantee("background", exact_all=False),
        k=1,
        pairs=pairs,
        worst=worst,
        inclusive=inclusive,
        estimate=estimate(b.lower, b.upper),
    )
