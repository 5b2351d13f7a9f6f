"""The two payoffs the tilted hinge certifies (:mod:`gpu_rs.engine.tilt`), as closed forms, and their sums.

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
  ``G = e^{−ηu} − e^{−(η+1)u}``, ``w = e^{−ηt} x(t)`` with ``x = (η+1) e^{−t} − η``, and from
  ``|x| <= (x² + a²)/(2a)`` (any ``a > 0``; ``a² = η/(η+2)`` makes ``∫ m`` least, about ``1/η``)

      m = [(η+1)² e^{−(η+2)t} − 2η(η+1) e^{−(η+1)t} + (η² + a²) e^{−ηt}] / (2a),
      J = −iω / (z z₁),      Jm = [(η+1)²/z₂ − 2η(η+1)/z₁ + (η² + a²)/z] / (2a),      z_c = z + c,

  ``∫ m = (1/(η+2) + a²/η)/(2a)``, ``∫ G = 1/(η(η+1))``, ``∫ |w| = 2 max G <= 2 min(1, 1/(eη))``
  (``G <= u e^{−ηu}`` and ``G <= 1``), and, as ``x² <= η² + 1``, ``m <= B e^{−ηt}`` with
  ``B = (η² + 1 + a²)/(2a)``: the window's end leaves ``B e^{−ηT}(4/η + T/(ηP) + 1/(η²P))``.

Every transform is written in ``s = ω/η`` without cancellation that the bound does not cover;
each carries a round-off bound of 64 units relative to the sum of its parts' magnitudes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.fourier import SpectrumCache
from gpu_rs.engine.majorants import vaaler_weights
from gpu_rs.engine.phase import split, turns

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
    def a(self) -> float:
        """The ``a`` of ``|x| <= (x² + a²)/(2a)`` that makes ``∫ m`` least."""
        return math.sqrt(self.eta / (self.eta + 2.0))

    @property
    def total(self) -> float:
        """``∫ m = (1/(η + 2) + a²/η) / (2a)``."""
        return (1.0 / (self.eta + 2.0) + self.a**2 / self.eta) / (2.0 * self.a) * (1.0 + 8.0 * UNIT)

    @property
    def integral(self) -> float:
        """``∫ G``."""
        return 1.0 / (self.eta * (self.eta + 1.0))

    @property
    def variation(self) -> float:
        """A bound on ``∫ |w|`` (twice the largest ``G``)."""
        return 2.0 * min(1.0, 1.0 / (math.e * self.eta))

    def beyond(self, end: float, period: float) -> float:
        """The window's end ``T`` beyond the threshold: the error it leaves (``m <= B e^{−ηt}``)."""
        eta, a = self.eta, self.a
        top = (eta * eta + 1.0 + a * a) / (2.0 * a)
        return top * math.exp(-eta * end) * (4.0 / eta + end / (eta * period) + 1.0 / (eta * eta * period)) * 1.01

    def transforms(self, xp: Any, s: Any) -> Transforms:
        """``J``, ``Jm`` and their round-off at ``ω = sη``: ``1/(z + c) = (r_c + is)/(η(r_c² + s²))``."""
        eta, a = self.eta, self.a
        r1 = 1.0 + 1.0 / eta
        a1, b1 = 1.0 + s * s, r1 * r1 + s * s
        den = eta * a1 * b1
        j_re, j_im = (1.0 + r1) * s * s / den, -s * (r1 - s * s) / den
        j_err = (64.0 * UNIT) * (xp.abs(j_re) + xp.abs(j_im))
        j_abs = s / (eta * xp.sqrt(a1 * b1)) * (1.0 + 8.0 * UNIT)
        weights = ((eta * eta + a * a) / (2.0 * a), -eta * (eta + 1.0) / a, (eta + 1.0) ** 2 / (2.0 * a))
        m_re, m_im, size = 0.0 * s, 0.0 * s, 0.0 * s
        for c, weight in enumerate(weights):
            r = 1.0 + c / eta
            d = eta * (r * r + s * s)
            re, im = weight * r / d, weight * s / d
            m_re, m_im, size = m_re + re, m_im + im, size + xp.abs(re) + xp.abs(im)
        return j_re, j_im, j_err, j_abs, m_re, m_im, (64.0 * UNIT) * size


def kernel(name: str, eta: float) -> Linear | Exponential:
    """The payoff ``name`` (``"linear"`` or ``"exponential"``) at tilt ``η``."""
    return Linear(eta) if name == "linear" else Exponential(eta)


def sums(
    xp: Any, cache: SpectrumCache, K: int, alphas: tuple[float, ...], pay: Linear | Exponential, reflect: bool
) -> list[tuple[float, float, float]]:
    """``(∫ w·centre, ∫ m·half, round-off)`` at each ``α`` from ``φ_1 … φ_K`` (:mod:`gpu_rs.engine.tilt`)."""
    period, m0, n_a, eta = cache.period, pay.total, len(alphas), pay.eta
    s_c, s_h, term_err = [0.0] * n_a, [0.0] * n_a, [0.0] * n_a
    ed = magnitude = 0.0
    for k0, spec in cache.upto(K):
        k1 = min(K + 1, k0 + int(spec.re.shape[0]))
        if k1 <= k0:
            break
        n = k1 - k0
        re, err, mod = spec.re[:n], spec.err[:n], spec.modulus[:n]
        im = -spec.im[:n] if reflect else spec.im[:n]
        k, b, c = vaaler_weights(xp, K, k0, k1)
        s = k * (2.0 * math.pi / (period * eta))  # ω/η
        j_re, j_im, j_err, j_abs, m_re, m_im, m_err = pay.transforms(xp, s)
        ed += float(xp.sum(c * re))
        m_abs = xp.sqrt(m_re * m_re + m_im * m_im) + m_err
        wc = (2.0 / (2.0 * K + 2.0)) * c
        weight = b * j_abs + wc * m_abs
        fixed = float(xp.sum(b * j_err * mod + wc * (m_err * mod + m0 * err) + weight * (err + 8.0 * UNIT * mod)))
        magnitude += float(xp.sum((weight + wc * m0) * mod))
        for i, alpha in enumerate(alphas):
            t, t_err = turns(xp, k, split(alpha), float(K))
            ang = (2.0 * math.pi) * t
            ang_err = (2.0 * math.pi) * t_err + (4.0 * UNIT) * xp.abs(ang)
            ca, sa = xp.cos(ang), xp.sin(ang)
            x, y = ca * j_re - sa * j_im, ca * j_im + sa * j_re  # e^{iA} J
            u, v = ca * m_re - sa * m_im, ca * m_im + sa * m_re  # e^{iA} Jm
            s_c[i] += float(xp.sum(b * (y * re - x * im)))
            s_h[i] += float(xp.sum(c * (u * re + v * im)))
            term_err[i] += fixed + float(xp.sum(weight * mod * ang_err))
    flat = pay.integral / period  # ∫ w (1 − β)
    rounding = (16.0 + 2.0 * math.log2(K + 1)) * UNIT * (magnitude + flat + 3.0 * m0) * 2.0
    half = [((2.0 + 2.0 * ed) * m0 + 2.0 * h) / (2.0 * K + 2.0) for h in s_h]
    return [(flat - s_c[i], half[i], term_err[i] + rounding) for i in range(n_a)]
