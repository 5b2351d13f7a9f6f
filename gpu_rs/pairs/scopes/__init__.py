"""Which neighbouring pairs a result covers (SPEC §1.1), and how each quantity is computed for them.

:func:`scope_for` is the only place that chooses how, by the scope's name, the bits and ``k``:

* ``forward``, ``homogeneous`` (:mod:`~gpu_rs.pairs.scopes.seed`): the seed's pair, in its order
  or in both, with one report per user or ``k``;
* ``all`` at one bit (:mod:`~gpu_rs.pairs.scopes.all_one_bit`): the exact maximum over every
  background;
* ``all`` at several bits (:mod:`~gpu_rs.pairs.scopes.all_bound`): a proven upper end over every
  pair (the curve of :mod:`gpu_rs.pairs.every_pair`), the best pair known as lower end;
* ``all`` with ``k > 1`` reports per user (:mod:`~gpu_rs.pairs.scopes.all_krand`): the ``k``-fold
  composition of one report's every-pair dominating pair, the seed's pair as lower end.

Each :class:`~gpu_rs.pairs.scopes.base.Scope` answers the tail, the every-pair ends of ``δ`` for the
profile, whether each is exact, and its guarantee sentence.
"""

from __future__ import annotations

from gpu_rs.pairs.scopes.all_bound import AllBound
from gpu_rs.pairs.scopes.all_krand import AllKrand
from gpu_rs.pairs.scopes.all_one_bit import AllOneBit
from gpu_rs.pairs.scopes.base import Scope, Scoped, TailQuery, larger
from gpu_rs.pairs.scopes.seed import Forward, Homogeneous, forward, seed_query

__all__ = ["Scope", "Scoped", "TailQuery", "forward", "larger", "scope_for", "seed_query"]


def scope_for(name: str, n: int, bits: int, q: float, k: int = 1) -> Scope:
    """The :class:`Scope` named ``name`` (checked by :func:`gpu_rs.common.validation.check_scope`) for ``n``
    users, ``bits`` bits, flip probability ``q`` and ``k`` reports per user."""
    if name == "forward":
        return Forward(n, bits, q, k)
    if name == "homogeneous":
        return Homogeneous(n, bits, q, k)
    if k > 1:
        return AllKrand(n, bits, q, k)
    return AllOneBit(n, bits, q) if bits == 1 else AllBound(n, bits, q)
