"""What a profile's ``delta`` and ``epsilon`` do around its engine, one release or composed: the arguments
checked, scalars and arrays, and every ``δ(ε)`` computed kept in ``evaluated``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gpu_rs.common.validation import MAX_EPS, check_open
from gpu_rs.quantities.profile_results import DeltaBound


class Calls:
    """The ``delta`` and ``epsilon`` methods of a profile (mixed into :class:`~gpu_rs.PrivacyProfile` and
    :class:`~gpu_rs.ComposedProfile`), on its ``engine``'s ``delta``, ``deltas`` and ``epsilon``.
    ``epsilon`` lists the ``δ`` at its upper end in ``evaluated``, as ``delta`` lists every ``δ``.
    """

    engine: Any
    evaluated: list[DeltaBound]

    def delta(self, eps: float | Sequence[float] | np.ndarray) -> Any:
        """Certified ``δ(ε)``: a :class:`DeltaBound`, or a tuple of them for an array of ``ε``."""
        if np.ndim(eps) == 0:
            found = self.engine.delta(check_open("eps", eps, 0.0, MAX_EPS))
            self.evaluated.append(found)
            return found
        grid = [check_open("eps", float(e), 0.0, MAX_EPS) for e in np.asarray(eps, dtype=float).ravel()]
        many = tuple(self.engine.deltas(grid))
        self.evaluated.extend(many)
        return many

    def epsilon(self, delta: float | Sequence[float] | np.ndarray, eps_tol: float = 1e-3) -> Any:
        """Certified ``ε(δ)``, the smallest ``ε`` with ``δ(ε) <= delta``: an :class:`EpsilonBound` (or a tuple).

        The search stops when the interval, or each end's bracket, is narrower than ``eps_tol`` times its upper end.
        """
        eps_tol = check_open("eps_tol", eps_tol, 0.0, 1.0)
        if np.ndim(delta) == 0:
            found = self.engine.epsilon(check_open("delta", delta, 0.0, 1.0), eps_tol)
            self.evaluated.append(found.at_upper)
            return found
        return tuple(self.epsilon(float(d), eps_tol) for d in np.asarray(delta, dtype=float).ravel())
