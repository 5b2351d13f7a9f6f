"""The two payoffs the tilted hinge certifies (:mod:`gpu_rs.engine.tilt`), as closed forms.

For a payoff ``h(Y − y)``, zero below the threshold, and ``θ`` of the tilt (``η = |θ|``), the
tilted route needs ``G(u) = h(u) e^{−ηu}`` (``u >= 0``), its derivative ``w = G′`` and a
majorant ``m >= |w|``, through

    J(ω) = ∫_0^∞ w e^{iωt} dt,    Jm(ω) = ∫_0^∞ m e^{iωt} dt,    ∫ m,    ∫ G,    ∫ |w|,

and a bound on ``∫_T^∞ m(t)(4 + t/P) dt`` (the window's end: the true integrand is at most
``|w|``, the closed forms extend the centre past ``T`` where it is at most ``3 + t/P``).

* :class:`Linear`: the hinge ``h(u) = u``: ``G = u e^{−ηu}``, ``w = (1 − ηt) e^{−ηt}``,
  ``m = (1 − ηt + η²t²/2) e^{−ηt}``, ``J = −iω/z²``, ``Jm = 1/z − η/z² + η²/z³`` (``z = η − iω``).
* :class:`Exponential`: the privacy-loss payoff ``h(u) = 1 − e^{−u}``, for which
  ``E[h(L − ε)_+] = E_P[(1 − e^{ε − L})_+]`` is ``δ(ε)`` of a pair whose privacy loss is ``L``:
  ``G = e^{−ηu} − e^{−(η+1)u}``, ``w = (η+1) e^{−(η+1)t} − η e^{−ηt}``,
  ``m = (η+1) e^{−(η+1)t} + η e^{−ηt}`` (so ``∫ m = 2``), and with ``z₁ = z + 1``

      J = −iω / (z z₁),        Jm = η/z + (η+1)/z₁,        ∫ G = 1/(η(η+1)),

  ``∫ |w| = 2 max G <= 2 min(1, 1/(eη))`` (``G <= u e^{−ηu}`` and ``G <= 1``), and the window's end
  ``∫_T^∞ m (4 + t/P) <= 2 e^{−ηT} (4 + T/P + 1/(ηP))``.

Every transform is written in ``s = ω/η`` without cancellation that the bound does not cover;
each carries a round-off bound of 64 units relative to the sum of its parts' magnitudes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpu_rs.common.floats import UNIT

Transforms = tuple[Any, Any, Any, Any, Any, Any, Any]
"""``(J re, J im, J error, |J|, Jm re, Jm im, Jm error)`` at each ``s``."""


@dataclass(frozen=True)
class Linear:
    """The hinge ``E[(Y − y)_+]`` (module docstring)."""

    eta: float

    @property
    def total(self) -> float:
        """``∫ m``."""
        return 1.0 / self.eta

    @property
    def integral(self) -> float:
        """``∫ G``."""
        return 1.0 / (self.eta * self.eta)

    @property
    def variation(self) -> float:
        """A bound on ``∫ |w|`` (twice the largest ``G``)."""
        return 2.0 / (math.e * self.eta)

    def beyond(self, end: float, period: float) -> float:
        """The window's end ``T`` beyond the threshold: the error it leaves."""
        eta = self.eta
        return math.exp(-eta * end) * (4.0 * end + (end * end + end / eta + 1.0 / eta**2) / period)

    def transforms(self, xp: Any, s: Any) -> Transforms:
        """``J``, ``Jm`` and their round-off at ``ω = sη``."""
        m0 = self.total
        d = 1.0 + s * s
        d2 = d * d
        j_re, j_im = 2.0 * s * s / d2 * m0, -s * (1.0 - s * s) / d2 * m0
        j_err = (64.0 * UNIT) * (xp.abs(j_re) + xp.abs(j_im))
        parts_re = (1.0 / d, -(1.0 - s * s) / d2, (1.0 - 3.0 * s * s) / (d2 * d))
        parts_im = (s / d, -2.0 * s / d2, (3.0 * s - s * s * s) / (d2 * d))
        m_re, m_im = sum(parts_re) * m0, sum(parts_im) * m0
        m_err = (64.0 * UNIT) * m0 * sum(xp.abs(p) for p in parts_re + parts_im)
        return j_re, j_im, j_err, s / d * m0, m_re, m_im, m_err


@dataclass(frozen=True)
class Exponential:
    """The privacy-loss payoff ``E[(1 − e^{−(Y − y)})_+]`` (module docstring); only above the threshold."""

    eta: float

    @property
    def total(self) -> float:
        """``∫ m``."""
        return 2.0

    @property
    def integral(self) -> float:
        """``∫ G``."""
        return 1.0 / (self.eta * (self.eta + 1.0))

    @property
    def variation(self) -> float:
        """A bound on ``∫ |w|`` (twice the largest ``G``)."""
        return 2.0 * min(1.0, 1.0 / (math.e * self.eta))

    def beyond(self, end: float, period: float) -> float:
        """The window's end ``T`` beyond the threshold: the error it leaves."""
        return 2.0 * math.exp(-self.eta * end) * (4.0 + end / period + 1.0 / (self.eta * period))

    def transforms(self, xp: Any, s: Any) -> Transforms:
        """``J``, ``Jm`` and their round-off at ``ω = sη``."""
        rho = 1.0 / self.eta
        r1 = 1.0 + rho
        a1, b1 = 1.0 + s * s, r1 * r1 + s * s
        den = self.eta * a1 * b1
        j_re, j_im = (2.0 + rho) * s * s / den, -s * (r1 - s * s) / den
        j_err = (64.0 * UNIT) * (xp.abs(j_re) + xp.abs(j_im))
        j_abs = s / (self.eta * xp.sqrt(a1 * b1)) * (1.0 + 8.0 * UNIT)
        m_re, m_im = 1.0 / a1 + r1 * r1 / b1, s / a1 + r1 * s / b1
        m_err = (64.0 * UNIT) * (m_re + m_im)
        return j_re, j_im, j_err, j_abs, m_re, m_im, m_err


def kernel(name: str, eta: float) -> Linear | Exponential:
    """The payoff ``name`` (``"linear"`` or ``"exponential"``) at tilt ``η``."""
    return Linear(eta) if name == "linear" else Exponential(eta)
