"""Both orders' ``δ(ε)`` at many ``ε`` from one spectrum: the hinge expectations of ``X′`` (docs/profile.md).

Under ``D`` the ratio of the homogeneous pair is ``R = X′/N`` (``X′`` the sum of ``N``
zero-vector atoms, ``E X′ = N``), so with ``λ = e^ε``

    δ_{P‖Q}(ε) = E[(X′ − Nλ)_+] / N,      δ_{Q‖P}(ε) = λ E[(N/λ − X′)_+] / N:

non-negative hinges of one law, with no difference of nearly equal tails. One
:class:`~gpu_rs.engine.curve.Curve` of ``Y = X′ − N w_0`` gives both at every ``ε``;
``ε`` far in a tail, where a Chernoff bound is already below the width asked, is answered
by that bound alone. A point the curve leaves wider than asked (tiny ``δ``, where the curve's
absolute error is reached) is recomputed under the exponentially tilted law
(:mod:`~gpu_rs.engine.tilt`), whose width is relative.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.common.limits import MAX_TILT_TERMS
from gpu_rs.engine import tilt
from gpu_rs.engine.atoms import ZERO, record_atoms
from gpu_rs.engine.chernoff import lower_tail
from gpu_rs.engine.curve import Curve, tail_mean
from gpu_rs.engine.curve_heavy import HeavyCurve
from gpu_rs.engine.fourier import terms_within
from gpu_rs.engine.laws import SumLaw, restricted

WINDOW_SHARE = 1e-4
"""The window leaves out mass of at most this fraction of the absolute width asked."""
MAX_CURVE_TERMS = 1 << 20
"""Most frequencies of the curve; points it leaves wider than asked go to the tilted route."""
TILT_BELOW = 1e-8
"""Hinges whose Chernoff bound is below this times the standard deviation of ``Y`` skip the curve
(whose absolute round-off would leave them wide) and go straight to the tilted law."""


class HingeCurve:
    """``δ`` of both orders of the homogeneous pair at many ``ε`` (module docstring)."""

    def __init__(self, n: int, bits: int, q: float, max_terms: int, xp: Any) -> None:
        at = record_atoms(bits, q, ZERO)
        self.n, self.xp = n, xp
        self.usable = bool(np.all(np.isfinite(at.gaps)))
        keep = np.ones(bits + 1, dtype=bool)
        self.law = SumLaw(((restricted(at.gaps, at.log_probs, at.probs, at.prob_error, at.exact, keep), n),))
        self.w0 = math.exp(float(at.log_values[0]))
        self.log_w_max = float(at.log_values[-1])
        self.w_max = math.exp(self.log_w_max) if self.usable else math.inf
        part = self.law.parts[0][0]
        with np.errstate(over="ignore"):  # atoms near (p/q)^L: the variance is then inf, and so is the spread
            var = float(np.dot(part.probs, (part.values - part.mean) ** 2)) if self.usable else math.inf
        self.spread = math.sqrt(n * var)
        self.value_error = at.value_error
        # The frequencies are capped by their cost too (L = 1024: a spectrum of 2^20 terms would take minutes).
        self.max_terms = terms_within(bits + 1, min(max_terms, MAX_CURVE_TERMS))
        self.tilt_terms = terms_within(bits + 1, min(max_terms, MAX_TILT_TERMS))
        self.tilts: dict[bool, tilt.Tilted] = {}  # the last tilt of each order, reused nearby
        self.curve: Curve | None = None
        self.heavy: tuple[np.ndarray, HeavyCurve] | None = None

    def _thresholds(self, eps: np.ndarray, forward: bool) -> tuple[np.ndarray, np.ndarray]:
        """``y`` for each ``ε`` (on ``Y = X′ − N w_0``) and a bound on its absolute error."""
        lam = np.exp(eps) if forward else np.exp(-eps)
        with np.errstate(over="ignore", invalid="ignore"):  # N e^ε beyond float64: not finite, not used
            y = self.n * (lam - self.w0)
            err = self.n * (lam * 4.0 * UNIT + self.w0 * (self.value_error + 4.0 * UNIT)) + 4.0 * UNIT * np.abs(y)
        return y, err

    def tilted(
        self, eps: float, forward: bool, rel_width: float, abs_width: float, keep: tuple[float, float] | None = None
    ) -> tuple[float, float] | None:
        """Certified ``δ`` of one order at ``eps`` from the tilted law, or None where no tilt applies.

        The threshold's range and the atoms' relative error enter as in
        :meth:`~gpu_rs.engine.curve.Curve.ends`: the call is scaled by ``1 ± v``. ``keep = (floor, ceiling)``
        of ``δ``: for a caller that only asks whether the lower end can exceed ``floor`` or the upper end fall
        below ``ceiling`` (:meth:`~gpu_rs.engine.tilt.Tilted.hinge`).
        """
        y, err = self._thresholds(np.array([float(eps)]), forward)
        if not (self.usable and math.isfinite(float(y[0] + err[0]))):
            return None
        v = self.value_error + 4.0 * UNIT
        lo = float((y[0] - err[0]) / (1.0 + v) * (1.0 - 2.0 * UNIT))
        hi = float((y[0] + err[0]) / (1.0 - v) * (1.0 + 2.0 * UNIT))
        scale = (1.0 if forward else math.exp(eps)) / self.n
        near = self.tilts.get(forward)
        if near is None or not near.fits(lo, hi, forward):
            near = tilt.Tilted.make(self.law, 0.5 * (lo + hi), forward, self.xp)
            if near is None:
                return None
            self.tilts[forward] = near
        grow, shrink = (1.0 + v, 1.0 - v) if forward else (1.0, 1.0)
        if keep is not None:  # in hinge units, with room for the rounding of the scaling below
            keep = (keep[0] / (scale * shrink) * (1.0 - 1e-9), keep[1] / (scale * grow) * (1.0 + 1e-9))
        found = near.hinge(lo, hi, rel_width, abs_width / scale, self.tilt_terms, keep=keep)
        if found is None:
            return None
        return found.lower * scale * shrink * (1.0 - 8.0 * UNIT), found.upper * scale * grow * (1.0 + 8.0 * UNIT)

    def _solver(self, lo: float, hi: float, lowest: float, delta: float) -> Curve | HeavyCurve:
        """A curve whose window holds ``[lo, hi]``, or one conditioned on heavy atoms above ``lowest / 16``."""
        law = self.law.parts[0][0]
        heavy = HeavyCurve.split(law, self.n, lowest)
        if heavy is not None:
            h = self.heavy
            if h is not None and np.array_equal(h[0], heavy) and h[1].delta <= delta:
                return h[1]
            solver = HeavyCurve(law, self.n, heavy, delta, self.value_error, self.max_terms, self.xp)
            self.heavy = (heavy, solver)
            return solver
        c = self.curve
        if c is None or not (c.contains(lo) and c.contains(hi)) or c.below + c.above > 2.0 * delta:
            if c is not None:
                lo, hi = min(lo, c.a + 0.5 * c.period), max(hi, c.a + 0.5 * c.period)
            c = Curve(self.law, lo, hi, delta, self.value_error, self.max_terms, self.xp)
            self.curve = c
        return c

    def deltas(
        self, eps: np.ndarray, rel_width: float, abs_width: float, *, both: bool = True
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """``{"forward": (lower, upper), "reverse": (lower, upper)}`` of ``δ`` at each ``ε``.

        With ``both``, each order is computed to ``rel_width`` times the larger of the two (the
        width their maximum needs); otherwise only the forward order is.
        """
        eps = np.asarray(eps, dtype=float)
        lam = np.exp(eps)
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        plans = {}
        for forward in (True, False):
            y, err = self._thresholds(eps, forward)
            scale = (np.ones_like(lam) if forward else lam) / self.n  # δ = scale × hinge
            lower, upper = np.zeros(eps.shape), np.zeros(eps.shape)
            todo = np.zeros(eps.shape, dtype=bool)
            for i in range(eps.shape[0]):
                if forward and eps[i] > self.log_w_max + 1e-9 * (1.0 + abs(self.log_w_max)):
                    continue  # λ above the largest atom: Nλ above the largest X′, the hinge is 0
                if not (self.usable and math.isfinite(float(y[i] + err[i]))):
                    upper[i] = 1.0  # atoms or the threshold beyond float64: left to the caller's queries
                    continue
                if forward and y[i] - err[i] >= self.n * (self.w_max - self.w0) * (1 + self.value_error):
                    continue  # Nλ above the largest X′: the hinge is 0
                if not forward and y[i] + err[i] <= 0.0:
                    continue  # N/λ below the smallest X′: the hinge is 0
                if forward:
                    bound = tail_mean(self.law, max(0.0, (y[i] - err[i]) * (1 - 2 * self.value_error)))
                else:
                    top = (y[i] + err[i]) * (1 + 2 * self.value_error)
                    bound = top * lower_tail(self.law, top)
                upper[i] = min(1.0, bound * scale[i] * (1.0 + 8.0 * UNIT))
                todo[i] = upper[i] > 0.5 * abs_width and bound > TILT_BELOW * self.spread
            out["forward" if forward else "reverse"] = (lower, upper)
            plans[forward] = (y, err, scale, todo)
        ys = np.concatenate([plans[f][0][plans[f][3]] for f in ((True, False) if both else (True,))])
        if ys.size == 0:
            return out
        calls = plans[True][0][plans[True][3]]
        lowest = float(calls.min()) if calls.size else float(ys.max())
        curve = self._solver(float(ys.min()), float(ys.max()), lowest, WINDOW_SHARE * abs_width)
        # δ is the larger of the two orders: each order needs the width rel_width × the larger δ only.
        guess = np.maximum(out["forward"][1], out["reverse"][1]) if both else out["forward"][1]
        for _ in range(2):  # a first pass from the Chernoff guess, then from the lower ends found
            for forward in (True, False) if both else (True,):
                y, err, scale, todo = plans[forward]
                if not todo.any():
                    continue
                lower, upper = out["forward" if forward else "reverse"]
                targets = np.maximum(abs_width, rel_width * guess[todo]) / scale[todo]
                found = curve.evaluate("call" if forward else "put", y[todo], err[todo], targets)
                lower[todo] = np.maximum(lower[todo], found.lower * scale[todo] * (1.0 - 8.0 * UNIT))
                upper[todo] = np.minimum(upper[todo], found.upper * scale[todo] * (1.0 + 8.0 * UNIT))
            guess = np.maximum(out["forward"][0], out["reverse"][0]) if both else out["forward"][0]
            guess = np.maximum(guess, FLOOR)
        return out
